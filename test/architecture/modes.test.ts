// Each runtime mode is a composition of its own (src/entry/embedded.ts, cluster.ts, relay.ts,
// offline.ts) over one shared core: which mode runs is read from the settings in one place,
// src/entry/compositions.ts, and nowhere else asks. A further mode is then a further file, not one
// more branch in shared code.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/server.js';

const SRC = path.join(ROOT, 'src');
const CHOOSER = path.join('entry', 'compositions.ts');
/** Asking which mode runs: a mode's settings read from the config, or a mode compared by name. */
const MODE_TEST = /\bconfig\.(?:relay|offline|database)\b|\bmode\s*[!=]==/g;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Each place a file asks which mode runs, as `file:line: text`. */
function modeTests(file: string): string[] {
  return fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) =>
    [...line.matchAll(MODE_TEST)].map((m) => `${path.relative(SRC, file)}:${i + 1}: ${m[0]}`));
}

t.test('the mode is chosen in one place: no mode test in the shared code', async (t) => {
  const files = sources(SRC);
  const chooser = modeTests(path.join(SRC, CHOOSER));
  t.ok(chooser.length >= 3, `the chooser reads the settings of each mode (${chooser.length} tests)`);
  const elsewhere = files.filter((f) => path.relative(SRC, f) !== CHOOSER).flatMap(modeTests);
  t.same(elsewhere, [], 'no other file asks which mode runs');
});

t.test('the check itself sees a mode test', async (t) => {
  const probe = ['if (config.relay) x();', 'const y = config.database ? 1 : 2;', "running.mode === 'relay'", 'config.relayed'];
  t.same(probe.map((l) => [...l.matchAll(MODE_TEST)].length), [1, 1, 1, 0]);
});
