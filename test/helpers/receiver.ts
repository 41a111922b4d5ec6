// A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records what it is sent and
// answers as told (a status, a delay, or never), and can go down and come back on the same port;
// with the addon body that points at it and the settings that let webhooks reach it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Settings that let webhooks reach the receivers on 127.0.0.1: loopback is refused by default
 * (test/concepts/webhooks/destination-policy.test.ts holds that), so each test that sends to one says so.
 */
export const RECEIVERS_ALLOWED = { WEBHOOK_ALLOW_RANGES: '127.0.0.1/32' };

/** A webhook addon's body: every event to `url` unless `over` says otherwise. */
export const webhook = (url: string, over: Record<string, unknown> = {}, params: Record<string, string> = {}) => ({
  provider: 'webhook', enabled: true, events: ['*'], parameters: { url, ...params }, ...over,
});

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds (polling), or fails naming what it waited for. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await sleep(25);
  }
}

/** A receiver closed when the test ends. */
export async function receiverFor(t: { teardown(fn: () => unknown): void }, port = 0): Promise<Receiver> {
  const r = await startReceiver(port);
  t.teardown(() => r.close());
  return r;
}

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  /** Requests that arrived in full, in arrival order (answered or not). */
  received: Received[];
  /** How the next requests are answered: a status (and headers) after `delayMs`; `hang` never answers. */
  behave(b: Behaviour | ((r: Received, n: number) => Behaviour)): void;
  /** Stops listening and drops every connection (an outage). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Resolves once `n` requests have arrived (or rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

type Behaviour = { status?: number; headers?: Record<string, string>; delayMs?: number; hang?: boolean };

export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = [];
  let behaviour: Behaviour | ((r: Received, n: number) => Behaviour) = { status: 200 };
  const sockets = new Set<import('node:net').Socket>();
  const make = () => {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() };
        received.push(r);
        const b = typeof behaviour === 'function' ? behaviour(r, received.length) : behaviour;
        if (b.hang) return;
        setTimeout(() => {
          res.writeHead(b.status ?? 200, { 'content-type': 'text/plain', ...b.headers });
          res.end('ok');
        }, b.delayMs ?? 0);
      });
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    return server;
  };
  let server = make();
  const listen = (p: number) => new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(p, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const actualPort = await listen(port);
  const down = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  };
  return {
    url: `http://127.0.0.1:${actualPort}/hook`,
    port: actualPort,
    received,
    behave: (b) => {
      behaviour = b;
    },
    down,
    up: async () => {
      server = make();
      await listen(actualPort);
    },
    waitFor: async (n, ms = 15_000) => {
      const until = Date.now() + ms;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`waited ${ms} ms for ${n} webhook requests, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: down,
  };
}
