// `npm run bench:relay`: Fanion as a relay (issue #28), in one run.
//  1. Polls served by a relay (500 flags × 3 strategies from a Fanion upstream) against a raw
//     node:http server answering the same bytes: 200, 304 and gzip, alternating A/B rounds, with
//     the server CPU per request (target: relay ≥ 0.95 × the baseline).
//  2. Memory of a relay holding 1,000 flags in two environments for 3 tokens (a client token per
//     environment and a frontend token), then serving 1,000 open streams: resident memory and where
//     it goes (V8 heap, external buffers), read from the relay's own Prometheus text; against a
//     relay holding nothing (target: < 100 MB).
//
//   BENCH_SECONDS (default 5), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 10)
//   BENCH_PATHS (default 200,304,gzip), BENCH_PIPELINING (default 1,10), BENCH_PIN (default 1:
//   load generator on CPU 0, the server measured on CPU 1; 0 lets the scheduler place them)
//   BENCH_STREAMS (default 1000), BENCH_FLAGS (default 1000),
//   BENCH_SETTLE_MS (default 20000: how long the relay is left alone before its settled figure)
//   BENCH_SKIP_POLLS=1 / BENCH_SKIP_MEMORY=1: only the other part
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { abRounds, pollBytes, printRow, ratioOf, startBaseline, strategiesFor, SUMMARY_HEADER } from './ab.js';
import { client, ROOT, spawnServer, type Spawned } from '../test/helpers/server.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PATHS = (process.env.BENCH_PATHS ?? '200,304,gzip').split(',');
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const FLAGS = Number(process.env.BENCH_FLAGS ?? 1000);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 20_000);
const F = '/api/client/features';
const ADMIN = '*:*.bench-relay-admin-0123456789abcdef';
const DEV = '*:development.bench-relay-dev-0123456789abcdef';
const PROD = '*:production.bench-relay-prod-0123456789abcdef';
const FRONTEND = 'default:development.bench-relay-frontend-0123456789abcdef';

/** A state document of `n` flags with three strategies each, on in development and production. */
function flagDocument(n: number) {
  const doc = { version: 1, features: [] as unknown[], featureStrategies: [] as unknown[], featureEnvironments: [] as unknown[] };
  for (let i = 0; i < n; i++) {
    const name = `flag-${String(i).padStart(4, '0')}`;
    doc.features.push({ name, project: 'default', description: `Benchmark flag number ${i}` });
    for (const environment of ['development', 'production']) {
      doc.featureEnvironments.push({ featureName: name, environment, enabled: true, variants: [] });
      strategiesFor(name, i).forEach((s, k) => doc.featureStrategies.push({ featureName: name, environment, sortOrder: k, ...s }));
    }
  }
  return doc;
}

async function upstreamWith(flags: number): Promise<Spawned> {
  const up = await spawnServer({
    env: {
      AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: `${DEV},${PROD}`, INIT_FRONTEND_API_TOKENS: FRONTEND,
      METRICS_FLUSH_MS: '0', IMPORT_BODY_LIMIT_BYTES: String(256 * 1024 * 1024),
    },
  });
  const res = await client(up.url, { authorization: ADMIN })('POST', '/api/admin/state/import', flagDocument(flags));
  if (res.status >= 300) throw new Error(`import → ${res.status} ${res.text}`);
  return up;
}

/**
 * The relay is started as `npm start` starts it: its script run by sh, from the repository root
 * (the script execs node, so the process measured is node's). It sets MALLOC_ARENA_MAX.
 */
const START = ['sh', '-c', (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start];

async function relayOf(upstream: string, tokens: string[]): Promise<Spawned> {
  const relay = await spawnServer({
    command: START,
    env: {
      AUTH_TYPE: 'api-token', UPSTREAM_URL: upstream, TOKENS: tokens.join(','), METRICS_FLUSH_MS: '0',
      STREAMING_MAX_CONNECTIONS: String(STREAMS + 100), STREAMING_MAX_CONNECTIONS_PER_TOKEN: String(STREAMS + 100),
      // BENCH_RELAY_NODE_OPTIONS / BENCH_RELAY_MALLOC_ARENA_MAX: other V8 and malloc settings, to compare (16 is glibc's default on 2 cores).
      ...(process.env.BENCH_RELAY_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_RELAY_NODE_OPTIONS } : {}),
      ...(process.env.BENCH_RELAY_MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.BENCH_RELAY_MALLOC_ARENA_MAX } : {}),
    },
  });
  for (let i = 0; i < 300; i++) {
    if ((await fetch(`${relay.url}/ready`)).status === 200) return relay;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the relay did not become ready within 30 s');
}

/**
 * The relay's memory, in MB: its own view (prom-client's process and Node.js metrics), and from
 * /proc what of its RSS is its own (private) and what is the node executable's code, mapped clean
 * and shared with every other Node process on the machine.
 */
async function memoryOf(relay: Spawned): Promise<Record<string, number>> {
  const url = relay.url;
  const rollup = fs.readFileSync(`/proc/${relay.proc.pid}/smaps_rollup`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? NaN) / 1024;
  const text = await (await fetch(`${url}/internal-backstage/prometheus`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  const space = (s: string) => Number(new RegExp(`^nodejs_heap_space_size_used_bytes\\{space="${s}"\\} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  return {
    rss: read('process_resident_memory_bytes'), heapUsed: read('nodejs_heap_size_used_bytes'), heapTotal: read('nodejs_heap_size_total_bytes'),
    external: read('nodejs_external_memory_bytes'), oldSpace: space('old'), codeSpace: space('code'),
    private: kb('Private_Dirty') + kb('Private_Clean'), shared: kb('Shared_Clean') + kb('Shared_Dirty'),
  };
}

const mb = (m: Record<string, number>) =>
  `RSS ${m.rss.toFixed(1)} MB (private ${m.private.toFixed(1)}, node's shared code ${m.shared.toFixed(1)}) = V8 heap ${m.heapTotal.toFixed(1)} MB ` +
  `(used ${m.heapUsed.toFixed(1)}: old space ${m.oldSpace.toFixed(1)}, code ${m.codeSpace.toFixed(1)}) + external ${m.external.toFixed(1)} MB + the rest ${(m.rss - m.heapTotal - m.external).toFixed(1)} MB (node's code, V8 and libuv, malloc)`;

/** Opens an SSE stream with a bare socket; resolves once its first frame (the hydration) is in. */
function openStream(port: number, token: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.write(`GET /api/client/streaming HTTP/1.1\r\nHost: bench\r\nAuthorization: ${token}\r\nAccept: text/event-stream\r\n\r\n`);
    const onData = (chunk: Buffer) => {
      got += chunk.toString('latin1');
      if (got.includes('event: unleash-connected') && /\n\n/.test(got.slice(got.indexOf('event: unleash-connected')))) {
        socket.off('data', onData);
        socket.on('data', () => {});
        resolve(socket);
      } else if (got.length > 64 && !got.startsWith('HTTP/1.1 200')) {
        reject(new Error(`stream refused: ${got.slice(0, 200)}`));
      }
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

async function polls(): Promise<void> {
  console.log('1. polls served by a relay against raw node:http answering the same bytes');
  const up = await upstreamWith(500);
  const relay = await relayOf(up.url, [DEV]);
  try {
    const auth = { authorization: DEV };
    const bytes = await pollBytes(relay.url + F, auth);
    console.log(`   the relay's answer: ${bytes.identity.length} bytes, gzip ${bytes.gzip.length} bytes, ETag ${bytes.etag}`);
    const baseline = await startBaseline(bytes);
    try {
      const all = [
        { path: '200', headers: { ...auth } },
        { path: '304', headers: { ...auth, 'if-none-match': bytes.etag } },
        { path: 'gzip', headers: { ...auth, 'accept-encoding': 'gzip' } },
      ];
      const rows = await abRounds({
        fanion: { url: relay.url, pid: relay.proc.pid! }, baseline: { url: baseline.url, pid: baseline.proc.pid! }, path: F,
        cases: all.filter((c) => PATHS.includes(c.path)), pipelinings: (process.env.BENCH_PIPELINING ?? '1,10').split(',').map(Number), rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS,
      });
      console.log('\n   summary ("fanion" is the relay; ratio = median of the per-round relay/baseline ratios; target ≥ 0.95):');
      console.log(`   ${SUMMARY_HEADER}`);
      for (const row of rows) printRow(row, true);
      const worst = Math.min(...rows.map(ratioOf));
      console.log(`   lowest ratio: ${worst.toFixed(2)}`);
    } finally {
      baseline.stop();
    }
  } finally {
    await stopWithin(relay, 'relay');
    await up.stop();
  }
}

/** Stops a server process; one that has not exited 20 s after SIGTERM is reported (with its last lines) and killed. */
async function stopWithin(s: Spawned, what: string): Promise<void> {
  const code = await Promise.race([s.stop(), new Promise((r) => setTimeout(() => r('hung'), 20_000))]);
  if (code !== 'hung') return;
  console.error(`the ${what} (pid ${s.proc.pid}) did not stop within 20 s of SIGTERM; its last lines:\n${s.output().split('\n').slice(-30).join('\n')}`);
  await s.kill();
}

async function memory(): Promise<void> {
  console.log(`\n2. relay memory: ${FLAGS} flags in two environments, 3 tokens, ${STREAMS} open streams (target < 100 MB)`);
  const up = await upstreamWith(FLAGS);
  try {
    // A relay holding nothing: what Node and Fanion's own code cost before any flag.
    const empty = await relayOf(up.url, []);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = await memoryOf(empty);
    await empty.stop();
    console.log(`   a relay holding nothing:            ${mb(idle)}`);
    const relay = await relayOf(up.url, [DEV, PROD, FRONTEND]);
    try {
      await new Promise((r) => setTimeout(r, 1000));
      const held = await memoryOf(relay);
      console.log(`   ${FLAGS} flags × 2 environments held:    ${mb(held)}`);
      for (const token of [DEV, PROD]) {
        for (const extra of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) await (await fetch(relay.url + F, { headers: { authorization: token, ...extra } })).arrayBuffer();
      }
      for (let i = 0; i < 20; i++) await (await fetch(`${relay.url}/api/frontend?userId=u${i}`, { headers: { authorization: FRONTEND } })).arrayBuffer();
      await new Promise((r) => setTimeout(r, 500));
      const polled = await memoryOf(relay);
      console.log(`   + each token polled (answers kept):  ${mb(polled)}`);
      const sockets: net.Socket[] = [];
      const t0 = performance.now();
      for (let i = 0; i < STREAMS; i += 50) {
        sockets.push(...(await Promise.all(Array.from({ length: Math.min(50, STREAMS - i) }, (_, k) => openStream(relay.port, (i + k) % 2 ? PROD : DEV)))));
      }
      const openMs = performance.now() - t0;
      await new Promise((r) => setTimeout(r, 1000));
      const streamed = await memoryOf(relay);
      console.log(`   + ${STREAMS} streams open (${Math.round(openMs)} ms to open, each with its hydration): ${mb(streamed)}`);
      console.log(`   per stream: ${(((streamed.rss - polled.rss) * 1024) / STREAMS).toFixed(1)} KB of RSS; flags: ${(held.rss - idle.rss).toFixed(1)} MB; answers kept: ${(polled.rss - held.rss).toFixed(1)} MB`);

      // The figures above are read 1 s after each step, with what the step left for the garbage
      // collector still counted. A relay left alone that long has had V8's memory reducer run
      // (it starts 8 s after the last burst of allocation): what it holds for as long as it serves.
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const settled = await memoryOf(relay);
      console.log(`   the same, ${SETTLE_MS / 1000} s later (settled):   ${mb(settled)}`);
      console.log(
        `   relay RSS with ${FLAGS} flags, 3 tokens and ${STREAMS} streams, settled: ${settled.rss.toFixed(1)} MB, ${settled.private.toFixed(1)} MB of it private ` +
          `(target < 100 MB); 1 s after the streams opened: ${streamed.rss.toFixed(1)} MB`,
      );
      for (const s of sockets) s.destroy();
    } finally {
      await relay.stop();
    }
  } finally {
    await up.stop();
  }
}

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
console.log(`autocannon: ${CONNECTIONS} connections, ${SECONDS}s per run, ${ROUNDS} A/B rounds per case\n`);
try {
  if (process.env.BENCH_SKIP_POLLS !== '1') await polls();
  if (process.env.BENCH_SKIP_MEMORY !== '1') await memory();
} catch (err) {
  console.error(err);
  process.exit(1);
}
