// Builds the admin console (ui/) into dist/ui/: one JavaScript bundle and one stylesheet, each named
// by a hash of its content so browsers may keep them forever, and index.html pointing at them.
// Run by `npm ci` (prepare) and `npm run build:ui`. esbuild bundles Preact, htm and our code into
// minified files in well under a second; nothing is fetched from elsewhere at run time. What the
// console imports with `import()` (pages opened now and then, the SDK snippets) becomes a hashed
// file of its own, fetched when first needed.
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
// Code shared by the script and a lazily loaded page becomes a chunk the script imports at start:
// the page names each one (modulepreload) so the browser fetches them with the script, not after
// it, and the first-load figure (test/http/console.test.ts) counts them.
const main = result.metafile.outputs[`dist/ui/${names['.js']}`];
const preload = (main?.imports ?? []).filter((i) => i.kind === 'import-statement').map((i) => `/ui/${path.basename(i.path)}`);
if (!names['.js'] || !names['.css']) throw new Error(`the UI build made ${Object.keys(names).join(', ')}, not a script and a stylesheet`);
const html = fs.readFileSync(path.join(root, 'ui/index.html'), 'utf8')
  .replace('%SCRIPT%', `/ui/${names['.js']}`)
  .replace('%STYLES%', `/ui/${names['.css']}`)
  .replace('%PRELOAD%', preload.map((p) => `<link rel="modulepreload" href="${p}">`).join(''));
fs.writeFileSync(path.join(out, 'index.html'), html);
console.log(`ui: dist/ui/${names['.js']}, dist/ui/${names['.css']}, dist/ui/index.html`);
