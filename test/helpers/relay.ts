// Relays for tests: a Fanion upstream with known tokens, relays in front of it (real processes),
// and the official Node SDK on either, synchronized before it is handed out.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { serve, spawnServer, type Spawned, type SpawnOptions } from './server.js';

export const UP_ADMIN = '*:*.relay-test-admin';
export const UP_CLIENT = '*:development.relay-test-client';
export const UP_FRONTEND = 'default:development.relay-test-frontend';

type Teardown = { teardown(fn: () => unknown): void };

/** A Fanion upstream with an admin, a client (development) and a frontend token. */
export function startUpstream(t: Teardown, env: Record<string, string> = {}, opts: SpawnOptions = {}) {
  return serve(t, {
    ...opts,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: UP_ADMIN, INIT_CLIENT_API_TOKENS: UP_CLIENT, INIT_FRONTEND_API_TOKENS: UP_FRONTEND, ...env },
    authorization: UP_ADMIN,
  });
}

export interface RelayOptions {
  tokens?: string[];
  protocol?: 'auto' | 'streaming' | 'delta' | 'polling';
  /** FEATURES_REFRESH_INTERVAL_SECONDS (default 1 here). */
  refresh?: number;
  env?: Record<string, string | undefined>;
  dataDir?: string;
  /** Leave the process running after the test (when the test stops it itself). */
  noTeardown?: boolean;
}

/** A relay process in front of `upstream`. */
export async function startRelay(t: Teardown, upstream: string, opts: RelayOptions = {}): Promise<Spawned> {
  const relay = await spawnServer({
    dataDir: opts.dataDir,
    env: {
      AUTH_TYPE: 'api-token', UPSTREAM_URL: upstream, TOKENS: (opts.tokens ?? [UP_CLIENT, UP_FRONTEND]).join(','),
      UPSTREAM_PROTOCOL: opts.protocol ?? 'auto', FEATURES_REFRESH_INTERVAL_SECONDS: String(opts.refresh ?? 1), UPSTREAM_REQUEST_TIMEOUT: '2',
      ...opts.env,
    },
  });
  if (!opts.noTeardown) t.teardown(() => relay.stop());
  return relay;
}

export function waitFor<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 10_000, every = 10): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = async () => {
      let v: T | undefined | false;
      try {
        v = await fn();
      } catch {
        v = undefined;
      }
      if (v) return resolve(v);
      if (Date.now() - started > ms) return reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      setTimeout(() => void tick(), every);
    };
    void tick();
  });
}

/** Resolves once GET /ready answers 200. */
export function waitReady(url: string, ms = 15_000): Promise<true> {
  return waitFor(async () => (await fetch(`${url}/ready`, { signal: AbortSignal.timeout(2000) })).status === 200, `${url}/ready to answer 200`, ms, 50);
}

export type SdkMode = { type: 'polling'; format: 'full' | 'delta' } | { type: 'streaming' };
export const SDK_MODES: Record<'polling' | 'delta' | 'streaming', SdkMode> = {
  polling: { type: 'polling', format: 'full' }, delta: { type: 'polling', format: 'delta' }, streaming: { type: 'streaming' },
};

/** The Node SDK on `url`, synchronized once this resolves. */
export async function sdkOn(t: Teardown, url: string, token: string, mode: SdkMode, opts: { appName?: string; refreshInterval?: number; metricsInterval?: number; disableMetrics?: boolean } = {}): Promise<Unleash> {
  const problems: unknown[] = [];
  const u = new Unleash({
    url: `${url}/api/`, appName: opts.appName ?? `relay-test-${mode.type}`, customHeaders: { Authorization: token }, refreshInterval: opts.refreshInterval ?? 200,
    disableMetrics: opts.disableMetrics ?? true, metricsInterval: opts.metricsInterval, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
    experimentalMode: mode,
  });
  t.teardown(() => u.destroy());
  u.on(UnleashEvents.Error, (e) => problems.push(e));
  u.on(UnleashEvents.Warn, () => {});
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ${JSON.stringify(mode)} SDK on ${url} did not synchronize: ${String(problems[0])}`)), 15_000);
    u.once(UnleashEvents.Synchronized, () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return u;
}

/** Every flag's answer for every context, as one comparable text per flag and context. */
export function sdkAnswers(u: Unleash, flags: readonly string[], contexts: readonly Record<string, unknown>[]): string[] {
  const out: string[] = [];
  for (const c of contexts) {
    for (const f of flags) {
      const v = u.getVariant(f, c as never);
      out.push(`${f} ${u.isEnabled(f, c as never)} ${v.name} ${v.enabled} ${JSON.stringify(v.payload ?? null)}`);
    }
  }
  return out;
}

/** The first few differences between two answer lists (with their contexts), or [] when alike. */
export function differences(a: string[], b: string[], flags: readonly string[], contexts: readonly Record<string, unknown>[], max = 3): string[] {
  const out: string[] = [];
  for (let i = 0; i < a.length && out.length < max; i++) {
    if (a[i] !== b[i]) out.push(`context ${JSON.stringify(contexts[Math.floor(i / flags.length)])}: ${a[i]} vs ${b[i]}`);
  }
  if (a.length !== b.length) out.push(`${a.length} answers vs ${b.length}`);
  return out;
}

/**
 * A pass-through proxy in front of an upstream that counts what is asked of it (by path), can hide
 * routes (`notFound`: 404, as an older upstream answers) and can play dead: while `down`, every
 * connection is cut, as if the upstream were unreachable.
 */
export async function countingProxy(t: Teardown, target: string, opts: { notFound?: string[] } = {}) {
  const counts = new Map<string, number>();
  const to = new URL(target);
  const state = { down: false };
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    if (state.down) {
      req.socket.destroy();
      return;
    }
    const path = req.url!.split('?')[0];
    counts.set(path, (counts.get(path) ?? 0) + 1);
    // An upstream without that route (an older Unleash): 404, as it would answer.
    if (opts.notFound?.includes(path)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: 'NotFoundError', message: 'Not found' }));
      return;
    }
    const out = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    /** Cuts every open connection (streams included) and refuses new ones until `up()`. */
    down() {
      state.down = true;
      for (const s of sockets) s.destroy();
    },
    up() {
      state.down = false;
    },
  };
}
