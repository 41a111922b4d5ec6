// `npm ci`'s prepare step: builds the server (dist/src) and the console (dist/ui) when the build
// tools are installed. `npm ci --omit=dev` (a production install, as in the container image's last
// stage) has no TypeScript and no esbuild: there it skips with a message instead of failing the
// whole install with `tsc: not found`; such an install must be given a dist/ built elsewhere.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
  require.resolve('esbuild');
} catch {
  console.log('fanion prepare: TypeScript or esbuild is not installed (a production install): not building dist/');
  process.exit(0);
}
for (const args of [[tsc, '-p', 'tsconfig.build.json'], ['scripts/build-ui.mjs']]) {
  const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
