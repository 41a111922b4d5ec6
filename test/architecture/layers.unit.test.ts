// The layering holds: no module imports (statically, by type, or dynamically) from a layer above its
// own. A module's layer is the folder it sits in, nothing else, so `ls src` shows the architecture
// and a new file is placed in a layer by where it is put:
//
//   entry      src/entry/: main, cli, the compositions of each runtime mode, the HTTP server
//   modes      src/modes/: what only one mode has: the relay, the migration from Unleash
//   concepts   src/concepts/<concept>/: a concept's schema, pure commands, views and routes side by side
//   http       src/http/: request plumbing every route uses (bodies, answers, validation, CORS, hosts)
//   core/storage  where the log lives and state is recovered from (the data folder, the cluster's database)
//   core/engine   commands applied, made durable, published
//   core/log      the log seam: its interface, the record format, the embedded WAL, the PostgreSQL log
//   core/access   who may do what, over the state (roles, scopes, environment reach)
//   core/state    the in-memory model, its ops and its event log
//   core          src/core/*.ts and src/core/config/: errors, settings, logger, slices, single-flight, version
//
// Modules in one concept may import from another concept (sideways); a layer's inner order is above.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';

const LAYERS = ['core', 'core/state', 'core/access', 'core/log', 'core/engine', 'core/storage', 'http', 'concepts', 'modes', 'entry'] as const;
type Layer = (typeof LAYERS)[number];
const SRC = path.join(ROOT, 'src');

function layerOf(file: string): Layer {
  const rel = path.relative(SRC, file).split(path.sep);
  if (rel.length < 2) throw new Error(`${path.relative(SRC, file)} sits in no layer: src/ holds only the layers' folders`);
  const [top, sub] = rel;
  if (top === 'core') {
    if (rel.length === 2 || sub === 'config') return 'core';
    const inner = `core/${sub}`;
    if ((LAYERS as readonly string[]).includes(inner)) return inner as Layer;
    throw new Error(`src/${inner} is not a layer of core`);
  }
  if ((LAYERS as readonly string[]).includes(top)) return top as Layer;
  throw new Error(`src/${top} is not a layer`);
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports: `import … from`, `export … from`, `import type …` and dynamic `import('…')`. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [
    ...[...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]),
    ...[...text.matchAll(/\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)].map((m) => m[1]),
  ];
  return specs.map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')));
}

t.test('src/ holds only the layers, and every file sits in one', async (t) => {
  const tops = fs.readdirSync(SRC).sort();
  t.same(tops, ['concepts', 'core', 'entry', 'http', 'modes'], 'ls src shows the layers');
  for (const file of sources(SRC)) layerOf(file);
});

t.test('no module imports from a layer above its own', async (t) => {
  const files = sources(SRC);
  t.ok(files.length > 80, `${files.length} source files read`);
  const wrong: string[] = [];
  let edges = 0;
  let dynamic = 0;
  for (const file of files) {
    const from = layerOf(file);
    const text = fs.readFileSync(file, 'utf8');
    dynamic += [...text.matchAll(/\bimport\(\s*['"]\./g)].length;
    for (const target of importsOf(file)) {
      edges++;
      const to = layerOf(target);
      if (LAYERS.indexOf(to) > LAYERS.indexOf(from)) wrong.push(`${path.relative(SRC, file)} (${from}) imports ${path.relative(SRC, target)} (${to})`);
    }
  }
  t.ok(edges > 300, `${edges} imports checked`);
  t.ok(dynamic > 5, `${dynamic} dynamic imports among them`);
  t.same(wrong, [], 'every import points down or sideways');
});

t.test('the check itself sees a wrong import', async (t) => {
  t.equal(layerOf(path.join(SRC, 'core/state/apply.ts')), 'core/state');
  t.equal(layerOf(path.join(SRC, 'concepts/features/routes.ts')), 'concepts');
  t.equal(layerOf(path.join(SRC, 'core/errors.ts')), 'core');
  t.ok(LAYERS.indexOf(layerOf(path.join(SRC, 'core/log/record.ts'))) > LAYERS.indexOf('core/state'), 'state importing the log would be reported');
  t.ok(LAYERS.indexOf(layerOf(path.join(SRC, 'modes/relay/relay.ts'))) > LAYERS.indexOf('concepts'), 'a concept importing the relay would be reported');
  const probe = path.join(SRC, 'concepts/features/logic.ts');
  t.ok(importsOf(probe).length > 0, 'imports are read');
  t.throws(() => layerOf(path.join(SRC, 'stray.ts')), 'a file outside the layers is refused');
});
