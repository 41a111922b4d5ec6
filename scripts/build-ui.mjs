// Builds the admin console (ui/) into dist/ui/: one JavaScript bundle and one stylesheet, each named
// by a hash of its content so browsers may keep them forever, and index.html pointing at them.
// Run by `npm ci` (prepare) and `npm run build:ui`. esbuild bundles Preact, htm and our code into one
// minified file in well under a second; nothing is fetched at run time.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist/ui');

const result = await build({
  entryPoints: [path.join(root, 'ui/src/main.ts'), path.join(root, 'ui/src/styles.css')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  write: false,
  outdir: out,
  entryNames: '[name]-[hash]',
  legalComments: 'none',
  logLevel: 'warning',
});

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const names = {};
for (const file of result.outputFiles) {
  fs.writeFileSync(file.path, file.contents);
  names[path.extname(file.path)] = path.basename(file.path);
}
if (!names['.js'] || !names['.css']) throw new Error(`the UI build made ${Object.keys(names).join(', ')}, not a script and a stylesheet`);
const html = fs.readFileSync(path.join(root, 'ui/index.html'), 'utf8')
  .replace('%SCRIPT%', `/ui/${names['.js']}`)
  .replace('%STYLES%', `/ui/${names['.css']}`);
fs.writeFileSync(path.join(out, 'index.html'), html);
console.log(`ui: dist/ui/${names['.js']}, dist/ui/${names['.css']}, dist/ui/index.html`);
