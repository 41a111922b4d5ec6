// Spawns a real Fanion process (the built dist/src/entry/main.js) on port 0 for HTTP tests.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT, tempDataDir } from './paths.js';
import { checkReply } from './reply-check.js';

export { ROOT, tempDataDir };
export const MAIN = path.join(ROOT, 'dist/src/entry/main.js');

export interface Spawned {
  url: string;
  port: number;
  dataDir: string;
  proc: ChildProcess;
  /** Everything the process printed so far (stdout + stderr). */
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
  /** SIGKILL the whole process group (needs `detached`), without waiting: what a container runtime does. */
  killGroup(): void;
}

export interface SpawnOptions {
  dataDir?: string;
  /** Added to the test defaults below; a key set to undefined removes that default (the server's own default applies). */
  env?: Record<string, string | undefined>;
  /** Resolve once the process has exited instead of waiting for it to listen (start-up failures). */
  expectExit?: boolean;
  /** Run this instead of `node dist/src/entry/main.js` (e.g. `npm start`, or main.js under `unshare`), from the repository root. */
  command?: string[];
  /** Start it as the leader of its own process group, as a supervisor does (see Spawned.killGroup). */
  detached?: boolean;
  /**
   * Resolve as soon as the port is open, before the data folder is replayed (`GET /ready` then
   * answers 503), instead of once Fanion serves.
   */
  portOpen?: boolean;
  /** The folder it runs in (the repository root unless given): where a relative DATA_DIR, such as the default ./data, is. */
  cwd?: string;
}

export function spawnServer(opts: SpawnOptions = {}): Promise<Spawned> {
  const dataDir = opts.dataDir ?? tempDataDir();
  const [cmd, ...args] = opts.command ?? [process.execPath, MAIN];
  const proc = spawn(cmd, args, {
    cwd: opts.cwd ?? ROOT,
    detached: opts.detached ?? false,
    // PASSWORD_SCRYPT_LOG_N=10 (the least allowed): every server with AUTH_TYPE=api-token hashes
    // passwords at start (the first Admin's, the dummy); at the default 2^15 that is ~1 s of CPU per
    // server on a loaded 2-core machine. Tests about hashing set their own.
    env: withoutUnset({
      PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WAL_SYNC: 'none', AUTH_TYPE: 'none', LOG_LEVEL: 'info', PASSWORD_SCRYPT_LOG_N: '10', ...opts.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let listening = false;
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      // Looked for until found only: the output grows with every access-log line, and searching
      // all of it on every chunk made the test process's CPU grow with the square of it.
      if (listening || opts.expectExit) return;
      const m = (opts.portOpen ? /"port":(\d+)[^\n]*"msg":"port \d+ open; / : /"port":(\d+)[^\n]*Fanion listening/).exec(out);
      if (m) {
        listening = true;
        const port = Number(m[1]);
        resolve({
          url: `http://127.0.0.1:${port}`,
          port,
          dataDir,
          proc,
          output: () => out,
          stop: async () => {
            proc.kill('SIGTERM');
            return exited;
          },
          kill: async () => {
            proc.kill('SIGKILL');
            await exited;
          },
          killGroup: () => killGroup(proc),
        });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => {
      if (opts.expectExit) {
        resolve({ url: '', port: 0, dataDir, proc, output: () => out, stop: async () => code, kill: async () => {}, killGroup: () => {} });
      } else {
        reject(new Error(`server exited with ${code} before listening:\n${out}`));
      }
    });
  });
}

function withoutUnset(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

function killGroup(proc: ChildProcess): void {
  try {
    process.kill(-proc.pid!, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

/**
 * A small fetch wrapper: JSON in, JSON (when there is any) out. Each JSON answer is checked
 * against the server's OpenAPI document (reply-check.ts); a mismatch throws. `check: false` is for
 * servers that are not Fanion (the Unleash oracle).
 */
export function client(base: string, defaults: Record<string, string> = {}, check = true) {
  return async function call<T = any>(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res<T>> {
    const h: Record<string, string> = { ...defaults, ...headers };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const res = await fetch(base + p, { method, headers: h, body: payload });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (check && /application\/json/.test(res.headers.get('content-type') ?? '')) await checkReply(base, method, p, res.status, json);
    return { status: res.status, headers: res.headers, text, json };
  };
}

/**
 * A caller for set-up steps that must succeed: throws on any status of 300 or more, naming the
 * request and the answer, and returns the JSON. `call` is asked for on every request, so a test
 * that restarts its server and makes a new client keeps the same helper.
 */
export function succeeding(call: () => ReturnType<typeof client>) {
  return async (method: string, p: string, body?: unknown): Promise<any> => {
    const res = await call()(method, p, body);
    if (res.status >= 300) throw new Error(`${method} ${p} → ${res.status} ${res.text}`);
    return res.json;
  };
}

/**
 * The usual opening of a server test: a real process with `env`, stopped when the test ends, a
 * client (with `authorization` when given) and a `succeeding` caller for set-up steps.
 */
export async function serve(
  t: { teardown(fn: () => unknown): void },
  opts: SpawnOptions & { authorization?: string } = {},
): Promise<{ srv: Spawned; api: ReturnType<typeof client>; ok: ReturnType<typeof succeeding> }> {
  const srv = await spawnServer(opts);
  t.teardown(() => srv.stop());
  const api = client(srv.url, opts.authorization ? { authorization: opts.authorization } : {});
  return { srv, api, ok: succeeding(() => api) };
}

/**
 * Starts a server that is expected to refuse to start; resolves with its exit status and output.
 * Bounded: one that starts anyway is killed at once (code null), so the test fails instead of waiting.
 */
export async function startRefused(opts: SpawnOptions): Promise<{ code: number | null; output: string }> {
  try {
    const n = await spawnServer({ ...opts, expectExit: false });
    await n.kill();
    return { code: null, output: n.output() };
  } catch (err) {
    const m = /^server exited with (\d+|null) before listening:\n([\s\S]*)$/.exec((err as Error).message);
    if (!m) throw err;
    return { code: m[1] === 'null' ? null : Number(m[1]), output: m[2] };
  }
}
