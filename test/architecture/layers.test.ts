// The layering holds: no module imports from a layer above its own. Read from the source files
// themselves, so a new import that breaks it fails here the day it is written.
//
//   entry    main.ts, cli.ts, server.ts, app.ts: wiring
//   http     src/http/, every <concept>/routes.ts
//   domain   every other <concept>/ file: schemas, pure commands, views
//   storage  src/storage/: the data folder, replay, checkpointing (above engine and WAL)
//   engine   src/engine/: commands applied, made durable, published
//   wal      src/wal/: records, frames, segments, checkpoint files
//   state    src/state/: the in-memory model, its ops and its event log
//   base     errors.ts, config.ts (and src/config/, its table of settings), log.ts, slices.ts, single-flight.ts:
//            importable from anywhere, import nothing of ours
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/server.js';

const LAYERS = ['base', 'state', 'wal', 'engine', 'storage', 'domain', 'http', 'entry'] as const;
type Layer = (typeof LAYERS)[number];
const SRC = path.join(ROOT, 'src');

function layerOf(file: string): Layer {
  const rel = path.relative(SRC, file).split(path.sep);
  if (rel.length === 1) {
    if (['errors.ts', 'config.ts', 'log.ts', 'slices.ts', 'single-flight.ts'].includes(rel[0])) return 'base';
    return 'entry';
  }
  const [folder] = rel;
  if (folder === 'config') return 'base';
  if (folder === 'state' || folder === 'wal' || folder === 'engine' || folder === 'storage' || folder === 'http') return folder;
  return rel[rel.length - 1] === 'routes.ts' ? 'http' : 'domain';
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) =>
    path.resolve(path.dirname(file), m[1].replace(/\.js$/, '.ts')),
  );
}

t.test('no module imports from a layer above its own', async (t) => {
  const files = sources(SRC);
  t.ok(files.length > 80, `${files.length} source files read`);
  const wrong: string[] = [];
  let edges = 0;
  for (const file of files) {
    const from = layerOf(file);
    for (const target of importsOf(file)) {
      edges++;
      const to = layerOf(target);
      if (LAYERS.indexOf(to) > LAYERS.indexOf(from)) wrong.push(`${path.relative(SRC, file)} (${from}) imports ${path.relative(SRC, target)} (${to})`);
    }
  }
  t.ok(edges > 300, `${edges} imports checked`);
  t.same(wrong, [], 'every import points down or sideways');
});

t.test('the check itself sees a wrong import', async (t) => {
  t.equal(layerOf(path.join(SRC, 'state/apply.ts')), 'state');
  t.equal(layerOf(path.join(SRC, 'features/routes.ts')), 'http');
  t.equal(layerOf(path.join(SRC, 'features/logic.ts')), 'domain');
  t.ok(LAYERS.indexOf(layerOf(path.join(SRC, 'wal/record.ts'))) > LAYERS.indexOf('state'), 'state importing the WAL would be reported');
});
