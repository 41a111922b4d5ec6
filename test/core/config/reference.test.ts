// docs/reference/configuration.md is the table of settings written out, and the table holds every
// variable src/ reads: a variable added by hand, or a table edited without `npm run docs:config`,
// fails here.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { renderReference } from '../../../src/core/config/reference.js';
import { SETTINGS } from '../../../src/core/config/settings.js';
import { ROOT } from '../../helpers/server.js';

const SRC = path.join(ROOT, 'src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Environment variables a source text reads: `process.env.X`, `env.X`, `env['X']`, and the table's `get('X')` / `isSet('X')`. */
function variablesRead(text: string): string[] {
  const patterns = [/\benv\.([A-Z][A-Z0-9_]*)\b/g, /\benv\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g, /\b(?:get|isSet)\(\s*'([A-Z][A-Z0-9_]*)'/g];
  return [...new Set(patterns.flatMap((re) => [...text.matchAll(re)].map((m) => m[1])))];
}

/** Reads of the environment by a computed name, which no scan can check: only the table's reader may. */
function computedReads(text: string): number {
  return [...text.matchAll(/\benv\[\s*(?!['"`])/g)].length;
}

t.test('the scan sees every way of reading a variable', async (t) => {
  t.same(variablesRead("process.env.A_B; env.C; env['D']; env[\"E\"]; env.get('F'); env.isSet('G', 1); x.envy.H"), ['A_B', 'C', 'D', 'E', 'F', 'G']);
  t.equal(computedReads('env[name]; env["X"]; process.env[`Y`]'), 1);
});

t.test('every variable read in src/ is in the table, and every entry is read', async (t) => {
  const files = sources(SRC);
  const read = new Map<string, string>();
  const computed: string[] = [];
  for (const file of files) {
    const rel = path.relative(ROOT, file);
    if (rel === 'src/core/config/settings.ts') {
      if ((fs.readFileSync(file, 'utf8').match(/\benv\[name\]/g) ?? []).length !== 2) computed.push(`${rel} (its reader changed: check this test)`);
      continue;
    }
    const text = fs.readFileSync(file, 'utf8');
    for (const name of variablesRead(text)) if (!read.has(name)) read.set(name, rel);
    if (computedReads(text) > 0) computed.push(rel);
  }
  t.ok(read.size >= 95, `${read.size} variables read`);
  t.same([...read].filter(([name]) => !(name in SETTINGS)).map(([name, file]) => `${name} (${file})`), [], 'none missing from the table');
  t.same(Object.keys(SETTINGS).filter((name) => !read.has(name)), [], 'no entry that nothing reads');
  t.same(computed, [], 'no read by a computed name outside the table\'s reader');
});

t.test('docs/reference/configuration.md is the table written out (npm run docs:config)', async (t) => {
  const file = path.join(ROOT, 'docs/reference/configuration.md');
  const written = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  t.ok(written === renderReference(), 'up to date: run npm run docs:config and commit the file');
  for (const name of Object.keys(SETTINGS)) t.ok(written.includes(`| \`${name}\` |`), `${name} has its row`);
});
