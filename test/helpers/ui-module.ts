// A module of the console (ui/src), bundled by esbuild as the console's build does and imported
// here, so its pure parts are unit-tested in Node without a browser. The console's files are
// type-checked by ui/tsconfig.json and never compiled by the tests' tsc.
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from './server.js';

/** The console module `name` (e.g. `diff.ts`), bundled with what it imports. */
export async function uiModule<T>(name: string): Promise<T> {
  const out = await build({ entryPoints: [path.join(ROOT, 'ui/src', name)], bundle: true, format: 'esm', platform: 'neutral', write: false, logLevel: 'silent' });
  return (await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].contents).toString('base64')}`)) as T;
}
