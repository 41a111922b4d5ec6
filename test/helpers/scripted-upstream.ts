// An upstream a test scripts, for what a real one will not do on demand: answers that are hostile
// (huge, deeply nested, far too many flags), a stream that changes without end. It grants the
// tokens it is given (POST /edge/validate, in Unleash's shape) and answers the client API from
// `features` (a JSON body with its ETag); a test takes over any path with `route`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Teardown = { teardown(fn: () => unknown): void };

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => boolean | Promise<boolean>;

export interface ScriptedUpstream {
  url: string;
  /** GET /api/client/features answers this body (JSON text) with this ETag. */
  features: { body: Buffer; etag: string };
  /** Requests by path. */
  counts: Map<string, number>;
  /** Paths answered by a test's own handler first (it returns false to fall through). */
  route(path: string, fn: Route): void;
}

/** `{features}` of `flags` as an Unleash client API answers them. */
export function featuresBody(flags: unknown[]): Buffer {
  return Buffer.from(JSON.stringify({ version: 2, features: flags }));
}

/** A flag as the client API sends it, on with one strategy. */
export const simpleFlag = (name: string, project = 'default') => ({
  name, project, type: 'release', enabled: true, stale: false, impressionData: false,
  strategies: [{ name: 'default', parameters: {}, constraints: [] }], variants: [],
});

export async function scriptedUpstream(t: Teardown, grants: Record<string, { type: 'client' | 'frontend'; projects: string[]; environment: string }>): Promise<ScriptedUpstream> {
  const routes = new Map<string, Route>();
  const counts = new Map<string, number>();
  const up: ScriptedUpstream = {
    url: '',
    features: { body: featuresBody([]), etag: '"0"' },
    counts,
    route: (path, fn) => void routes.set(path, fn),
  };
  const server = http.createServer((req, res) => {
    void (async () => {
      const path = req.url!.split('?')[0];
      counts.set(path, (counts.get(path) ?? 0) + 1);
      const own = routes.get(path);
      if (own && (await own(req, res))) return;
      if (path === '/edge/validate' && req.method === 'POST') {
        let text = '';
        for await (const c of req) text += String(c);
        const asked = (JSON.parse(text) as { tokens: string[] }).tokens;
        const tokens = asked.filter((tk) => grants[tk]).map((tk) => ({ token: tk, ...grants[tk] }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ tokens }));
        return;
      }
      const auth = req.headers.authorization ?? '';
      if (path === '/api/client/features' && grants[auth]?.type === 'client') {
        if (req.headers['if-none-match'] === up.features.etag) {
          res.writeHead(304, { etag: up.features.etag });
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', etag: up.features.etag, 'content-length': up.features.body.length });
        res.end(up.features.body);
        return;
      }
      if (path.startsWith('/api/client/metrics') || path === '/api/client/register') {
        for await (const _ of req) { /* drained */ }
        res.writeHead(202);
        res.end();
        return;
      }
      res.writeHead(path.startsWith('/api/client/') ? 401 : 404, { 'content-type': 'application/json' });
      res.end('{"name":"NotFoundError","message":"no"}');
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));
  up.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return up;
}

/**
 * Polls `url` every `everyMs` (each request waits for the previous one) until `stop()`: the
 * slowest answer and the process's highest RSS seen meanwhile.
 */
export function watchLatency(url: string, pid: number, rss: (pid: number) => number, everyMs = 50) {
  let maxMs = 0;
  let maxRss = 0;
  let polls = 0;
  let failures = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
        await res.arrayBuffer();
        if (res.status !== 200) failures++;
      } catch {
        failures++;
      }
      maxMs = Math.max(maxMs, performance.now() - started);
      maxRss = Math.max(maxRss, rss(pid));
      polls++;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { maxMs: Math.round(maxMs), maxRss, polls, failures };
    },
  };
}
