// Builds the admin console (ui/) into dist/ui/: one JavaScript bundle and one stylesheet, each named
// by a hash of its content so browsers may keep them forever, and index.html pointing at them.
// Run by `npm ci` (prepare) and `npm run build:ui`. esbuild bundles Preact, htm and our code into one
// minified file in well under a second; nothing is fetched at run time. What the console imports
// with `import()` (the SDK snippets) becomes a hashed file of its own, fetched when first needed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist/ui');

const result = await build({
  entryPoints: [path.join(root, 'ui/src/main.ts'), path.join(root, 'ui/src/styles.css')],
  bundle: true,
  splitting: true,
  metafile: true,
  minify: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  write: false,
  absWorkingDir: root,
  outdir: out,
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  legalComments: 'none',
  logLevel: 'warning',
});

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const names = {};
for (const file of result.outputFiles) {
  fs.writeFileSync(file.path, file.contents);
  // The page's two files; a part loaded with import() is an entry point of the metafile too.
  const entry = result.metafile.outputs[path.relative(root, file.path)]?.entryPoint;
  if (entry === 'ui/src/main.ts' || entry === 'ui/src/styles.css') names[path.extname(file.path)] = path.basename(file.path);
}
// The page loads the script and the stylesheet only: a chunk the script imported statically (code
// shared with a lazily loaded part) would be a third file on every first load.
const main = result.metafile.outputs[`dist/ui/${names['.js']}`];
const shared = (main?.imports ?? []).filter((i) => i.kind === 'import-statement');
if (shared.length > 0) throw new Error(`the console's script imports ${shared.map((i) => i.path).join(', ')} at load: keep what it loads lazily free of shared imports`);
if (!names['.js'] || !names['.css']) throw new Error(`the UI build made ${Object.keys(names).join(', ')}, not a script and a stylesheet`);
const html = fs.readFileSync(path.join(root, 'ui/index.html'), 'utf8')
  .replace('%SCRIPT%', `/ui/${names['.js']}`)
  .replace('%STYLES%', `/ui/${names['.css']}`);
fs.writeFileSync(path.join(out, 'index.html'), html);
console.log(`ui: dist/ui/${names['.js']}, dist/ui/${names['.css']}, dist/ui/index.html`);
