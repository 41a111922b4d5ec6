// Requests and stops that give up: a server that froze must fail the test, not hang it.
import { client, type Spawned } from './server.js';

/** Resolves with `fallback` once `ms` have passed, unless `p` settles first. */
async function within<T, F>(p: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** A request (through the usual client) that gives up after `ms`, with how long it took. */
export async function timed(base: string, method: string, path: string, body?: unknown, ms = 3_000): Promise<{ status: number | 'no answer'; ms: number; json?: any }> {
  const started = performance.now();
  const res = await within(client(base)(method, path, body).catch(() => null), ms, null);
  return res ? { status: res.status, ms: performance.now() - started, json: res.json } : { status: 'no answer', ms: performance.now() - started };
}

/** SIGTERM, and how long the process took to exit; SIGKILL when it ignores it for `ms`. */
export async function terminate(srv: Spawned, ms = 5_000): Promise<{ code: number | null | 'ignored SIGTERM'; ms: number }> {
  if (srv.proc.exitCode !== null || srv.proc.signalCode !== null) return { code: srv.proc.exitCode, ms: 0 };
  const started = performance.now();
  const exited = new Promise<number | null>((resolve) => srv.proc.once('exit', (code) => resolve(code)));
  srv.proc.kill('SIGTERM');
  const code = await within(exited, ms, 'ignored SIGTERM' as const);
  if (code === 'ignored SIGTERM') await srv.kill();
  return { code, ms: performance.now() - started };
}
