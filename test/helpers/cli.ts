// Runs the built `fanion` command (dist/src/entry/cli.js) as its own process and returns how it ended.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './server.js';

export const CLI = path.join(ROOT, 'dist/src/entry/cli.js');

export interface CliRun {
  /** Exit status; null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function runCli(args: string[], opts: { env?: Record<string, string | undefined>; timeoutMs?: number } = {}): Promise<CliRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...opts.env }, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const e = err as (Error & { code?: number | string; signal?: NodeJS.Signals }) | null;
      resolve({
        code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
        signal: e?.signal ?? null,
        stdout: String(stdout),
        stderr: String(stderr),
        ms: performance.now() - started,
      });
    });
  });
}
