// Runs the built `fanion` command (dist/src/cli.js) and returns its exit status and output.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/server.js';

const run = promisify(execFile);
const CLI = path.join(ROOT, 'dist/src/cli.js');

export async function fanion(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args]);
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}
