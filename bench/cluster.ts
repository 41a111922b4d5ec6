// `npm run bench:cluster`: a Fanion cluster on PostgreSQL against the embedded WAL, on this machine,
// in one run. Not part of `npm test` (figures depend on the machine and its load). PostgreSQL is a
// throwaway server from Debian's binaries (test/helpers/postgres.ts) with fsync on, as the WAL's
// WAL_SYNC=always is.
//   1. Durable writes/s at 32 clients creating flags: one embedded node (WAL_SYNC=always) against
//      three cluster nodes sharing the clients, alternating rounds; p50/p99 latency, 503s, and
//      appends overtaken by another node's (run again).
//   2. Follow delay: a flag switched on and off on node A, one change at a time; the time from A's
//      2xx to the change's frame on a stream of node B (p50/p99, and from the request's start).
//   3. The poll path (GET /api/client/features, 200 and 304) on a cluster node against raw
//      node:http answering the same bytes, and against an embedded node.
//   4. A node joining a cluster of 10,000 flags and 1,000,000 events (a checkpoint in the database
//      and a tail after it): spawn to /ready 200.
//
//   BENCH_SECONDS  length of each throughput run (default 5)
//   BENCH_ROUNDS   embedded/cluster rounds for 1 and 3 (default 2)
//   BENCH_EVENTS   events in the data set of 4 (default 1,000,000)
//   BENCH_SKIP     comma list of parts to skip: writes, follow, poll, join
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import autocannon, { type Result } from 'autocannon';
import { Engine } from '../src/core/engine/engine.js';
import { createFeature, setEnvironmentEnabled } from '../src/concepts/features/logic.js';
import { createLogger } from '../src/core/logger.js';
import { openCluster } from '../src/core/storage/postgres/cluster.js';
import { addStrategy, type StrategyInput } from '../src/concepts/strategies/logic.js';
import { startPostgres, type Postgres } from '../test/helpers/postgres.js';
import { spawnServer, type Spawned } from '../test/helpers/server.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const CLIENTS = 32;
const FLAGS = 10_000;
const P = '/api/admin/projects/default/features';
const silent = createLogger('silent');
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let databases = 0;
async function newDatabase(pg: Postgres): Promise<{ url: string; name: string }> {
  const name = `bench_${++databases}`;
  return { url: await pg.createDatabase(name), name };
}

/** Flag creations (201) from `connections` connections against `url` for SECONDS; `tag` keeps names apart. */
async function creations(url: string, connections: number, tag: string): Promise<Result> {
  let n = 0;
  return autocannon({
    url, connections, duration: SECONDS,
    requests: [{
      method: 'POST', path: P, headers: { 'content-type': 'application/json' },
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: `${tag}-${++n}` }) }),
    }],
  });
}

interface WriteRun {
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

const summarize = (results: Result[]): WriteRun => ({
  perSecond: results.reduce((s, r) => s + r['2xx'], 0) / SECONDS,
  // Across the nodes: the worst node's percentiles.
  p50: Math.max(...results.map((r) => r.latency.p50)),
  p99: Math.max(...results.map((r) => r.latency.p99)),
  non2xx: results.reduce((s, r) => s + r.non2xx, 0),
  errors: results.reduce((s, r) => s + r.errors + r.timeouts, 0),
});

async function overtaken(nodes: Spawned[]): Promise<number> {
  let sum = 0;
  for (const n of nodes) {
    const m = await fetch(`${n.url}/internal-backstage/prometheus`).then((r) => r.text());
    sum += Number(/cluster_append_failures_total\{reason="overtaken"\} (\d+)/.exec(m)?.[1] ?? 0);
  }
  return sum;
}

/** CPU seconds a process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0; // gone
  }
}

interface Arm {
  label: string;
  /** Starts the nodes, returns them and which node each of the 32 clients goes to (counts per node). */
  start(round: number): Promise<{ nodes: Spawned[]; split: number[] }>;
}

async function writes(pg: Postgres): Promise<void> {
  console.log(`\n### 1. Durable writes/s, ${CLIENTS} clients creating flags (${SECONDS} s runs, ${ROUNDS} rounds each)`);
  const cluster = (n: number, split: number[]) => async () => {
    const db = await newDatabase(pg);
    const nodes = [];
    for (let i = 0; i < n; i++) nodes.push(await spawnServer({ env: { DATABASE_URL: db.url } }));
    return { nodes, split };
  };
  const arms: Arm[] = [
    { label: 'embedded WAL (WAL_SYNC=always), 1 process', start: async () => ({ nodes: [await spawnServer({ env: { WAL_SYNC: 'always' } })], split: [CLIENTS] }) },
    { label: 'cluster of 1 node', start: cluster(1, [CLIENTS]) },
    { label: 'cluster of 3, every client on node A', start: cluster(3, [CLIENTS, 0, 0]) },
    { label: 'cluster of 3, clients spread 11/11/10', start: cluster(3, [11, 11, 10]) },
  ];
  const runs = new Map<Arm, (WriteRun & { overtaken: number; cpuMs: number })[]>(arms.map((a) => [a, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const arm of arms) {
      const { nodes, split } = await arm.start(round);
      const pids = () => [...nodes.map((n) => n.proc.pid!), ...postgresPids(pg)];
      const before = new Map(pids().map((pid) => [pid, cpuSeconds(pid)]));
      const results = await Promise.all(nodes.flatMap((n, i) => (split[i] > 0 ? [creations(n.url, split[i], `r${round}-${arms.indexOf(arm)}-${i}`)] : [])));
      // Backends that started during the run count whole (PostgreSQL's pool connections grow).
      const cpu = pids().reduce((sum, pid) => sum + cpuSeconds(pid) - (before.get(pid) ?? 0), 0);
      const r = summarize(results);
      runs.get(arm)!.push({ ...r, overtaken: await overtaken(nodes), cpuMs: (cpu * 1000) / (r.perSecond * SECONDS) });
      await Promise.all(nodes.map((n) => n.stop()));
    }
  }
  console.log('| | writes/s (median) | ratio to embedded | p50 ms | p99 ms | server CPU ms per write | non-2xx | appends overtaken |\n|---|---|---|---|---|---|---|---|');
  const base = median(runs.get(arms[0])!.map((r) => r.perSecond));
  for (const arm of arms) {
    const rs = runs.get(arm)!;
    const m = median(rs.map((r) => r.perSecond));
    const pick = rs.find((r) => r.perSecond === m)!;
    console.log(
      `| ${arm.label} | ${fmt(m)} (${rs.map((r) => fmt(r.perSecond)).join(', ')}) | ${fmt(m / base, 2)} | ${fmt(pick.p50, 1)} | ${fmt(pick.p99, 1)} | ` +
        `${fmt(pick.cpuMs, 2)} | ${rs.reduce((s, r) => s + r.non2xx + r.errors, 0)} | ${fmt(pick.overtaken)} |`,
    );
  }
  console.log('(server CPU: the node processes and PostgreSQL\'s, per acknowledged write; the load generator runs on the same 2 cores)');
}

/** The PostgreSQL server's processes (postmaster and its backends), for CPU accounting. */
function postgresPids(pg: Postgres): number[] {
  const main = Number(readFileSync(`${pg.dir}/data/postmaster.pid`, 'utf8').split('\n')[0]);
  const out = [main];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.split(') ')[1].split(' ')[1]) === main) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** An SSE stream of `url`: the times its frames arrived (performance.now()). */
function stream(url: string): { frames: number[]; close(): void } {
  const frames: number[] = [];
  const req = http.get(`${url}/api/client/streaming`, { headers: { accept: 'text/event-stream', authorization: 'bench' } }, (res) => {
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buf += chunk;
      let at: number;
      while ((at = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, at);
        buf = buf.slice(at + 2);
        if (frame.startsWith('event: unleash-updated')) frames.push(performance.now());
      }
    });
  });
  req.on('error', () => {});
  return { frames, close: () => req.destroy() };
}

async function follow(pg: Postgres): Promise<void> {
  const N = 300;
  console.log(`\n### 2. Follow delay: ${N} changes on node A, one at a time, seen on node B's stream`);
  const db = await newDatabase(pg);
  const a = await spawnServer({ env: { DATABASE_URL: db.url } });
  const b = await spawnServer({ env: { DATABASE_URL: db.url } });
  await fetch(`${a.url}${P}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"follow"}' });
  await sleep(500);
  const s = stream(b.url);
  await sleep(500);
  const afterAck: number[] = [];
  const fromStart: number[] = [];
  for (let i = 0; i < N; i++) {
    const seen = s.frames.length;
    const t0 = performance.now();
    const r = await fetch(`${a.url}${P}/follow/environments/development/${i % 2 === 0 ? 'on' : 'off'}`, { method: 'POST' });
    await r.arrayBuffer();
    const acked = performance.now();
    if (r.status !== 200) throw new Error(`switching answered ${r.status}`);
    const until = acked + 5_000;
    while (s.frames.length === seen && performance.now() < until) await new Promise((res) => setImmediate(res));
    if (s.frames.length === seen) throw new Error(`change ${i} did not reach node B within 5 s`);
    afterAck.push(Math.max(0, s.frames[seen] - acked));
    fromStart.push(s.frames[seen] - t0);
    await sleep(5 + Math.random() * 20);
  }
  s.close();
  await Promise.all([a.stop(), b.stop()]);
  afterAck.sort((x, y) => x - y);
  fromStart.sort((x, y) => x - y);
  const seenFirst = afterAck.filter((d) => d === 0).length;
  console.log('| | p50 ms | p99 ms | max ms |\n|---|---|---|---|');
  console.log(`| A's 2xx → B's frame | ${fmt(pct(afterAck, 50), 2)} | ${fmt(pct(afterAck, 99), 2)} | ${fmt(afterAck.at(-1)!, 2)} |`);
  console.log(`| A's request sent → B's frame | ${fmt(pct(fromStart, 50), 2)} | ${fmt(pct(fromStart, 99), 2)} | ${fmt(fromStart.at(-1)!, 2)} |`);
  console.log(`(${seenFirst} of ${N} changes reached B's stream before A's 2xx reached the client: counted as 0)`);
}

/** A raw node:http server answering every request with `body` and `etag` (304 when it matches). */
async function rawServer(body: Buffer, etag: string): Promise<{ url: string; close(): Promise<void> }> {
  const s = http.createServer((req, res) => {
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length, etag, vary: 'Accept-Encoding' });
    res.end(body);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(s.address() as { port: number }).port}`, close: () => new Promise((r) => s.close(() => r())) };
}

/** Polls/s answered 200 (no `etag`) or 304 (with it). */
async function polls(url: string, etag: string | null): Promise<number> {
  const r = await autocannon({ url: `${url}/api/client/features`, connections: 10, duration: SECONDS, headers: etag ? { 'if-none-match': etag } : {} });
  const answered = etag ? r['3xx'] : r['2xx'];
  if (answered !== r['2xx'] + r['3xx'] || r.errors > 0) throw new Error(`polls of ${url}: ${r['2xx']} 200s, ${r['3xx']} 304s, ${r.non2xx} other, ${r.errors} errors`);
  return answered / SECONDS;
}

async function poll(pg: Postgres): Promise<void> {
  console.log(`\n### 3. The poll path: GET /api/client/features, 200 flags, 10 connections, ${SECONDS} s runs`);
  const db = await newDatabase(pg);
  const node = await spawnServer({ env: { DATABASE_URL: db.url } });
  const one = await spawnServer({ env: { WAL_SYNC: 'always' } });
  for (const srv of [node, one]) {
    for (let i = 0; i < 200; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => fetch(`${srv.url}${P}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `poll-${i + j}` }) })));
    }
  }
  const first = await fetch(`${node.url}/api/client/features`);
  const body = Buffer.from(await first.arrayBuffer());
  const etag = first.headers.get('etag')!;
  const raw = await rawServer(body, etag);
  const rows: [string, number[], number[]][] = [['raw node:http, same bytes', [], []], ['cluster node', [], []], ['embedded node', [], []]];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, url] of [raw.url, node.url, one.url].entries()) {
      const e = i === 2 ? (await fetch(`${one.url}/api/client/features`)).headers.get('etag')! : etag;
      rows[i][1].push(await polls(url, null));
      rows[i][2].push(await polls(url, e));
    }
  }
  await raw.close();
  await Promise.all([node.stop(), one.stop()]);
  const base200 = median(rows[0][1]);
  const base304 = median(rows[0][2]);
  console.log('| | 200/s | ratio to raw | 304/s | ratio to raw |\n|---|---|---|---|---|');
  for (const [label, a, b] of rows) console.log(`| ${label} | ${fmt(median(a))} | ${fmt(median(a) / base200, 2)} | ${fmt(median(b))} | ${fmt(median(b) / base304, 2)} |`);
}

async function join(pg: Postgres): Promise<void> {
  console.log(`\n### 4. A node joining a cluster of ${fmt(FLAGS)} flags and ${fmt(EVENTS)} events`);
  const db = await newDatabase(pg);
  const t0 = performance.now();
  const node = await openCluster({ db: { connectionString: db.url, ssl: false, poolMax: 4, timeoutMs: 60_000, settingsRetryMs: 0, label: 'bench' }, log: silent, tokenHashKey: 'bench-hash-key-0123456789' });
  const engine = new Engine({ state: node.state, log: node.log, logger: silent });
  const { checkpointer } = node.attach(engine, { checkpointRecords: 0, onFellBehind: (m) => console.error(m) });
  const actor = { name: 'bench', userId: null };
  const inParallel = async (n: number, run: (i: number) => Promise<unknown>) => {
    for (let from = 0; from < n; from += 2_000) await Promise.all(Array.from({ length: Math.min(2_000, n - from) }, (_, k) => run(from + k)));
  };
  await inParallel(FLAGS, (i) => engine.run(actor, createFeature('default', { name: `flag-${i}`, description: `Flag number ${i}` })));
  await inParallel(FLAGS, (i) => {
    const s: StrategyInput = { name: 'flexibleRollout', parameters: { rollout: String(i % 101), stickiness: 'userId', groupId: `flag-${i}` }, constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }] };
    return engine.run(actor, addStrategy({ project: 'default', feature: `flag-${i}`, environment: 'production' }, s));
  });
  const tail = 40_000;
  const toggles = EVENTS - engine.state.events.lastId - tail;
  const flip = (j: number) => engine.run(actor, setEnvironmentEnabled('default', `flag-${j % FLAGS}`, 'production', Math.floor(j / FLAGS) % 2 === 0));
  await inParallel(Math.max(0, toggles), flip);
  const cp = await checkpointer.checkpoint();
  await inParallel(tail, (j) => flip(toggles + j));
  const builtS = (performance.now() - t0) / 1000;
  const records = node.log.durableLsn;
  await checkpointer.close();
  await node.close();
  const size = (await pg.query(db.name, "SELECT pg_size_pretty(pg_total_relation_size('fanion_log')) AS log, pg_size_pretty(pg_total_relation_size('fanion_checkpoint_part')) AS ckpt")).rows[0];
  console.log(`built in ${fmt(builtS, 1)} s: ${fmt(records)} records (${fmt(records / builtS)} appends/s through the engine), checkpoint at ${cp?.lsn} (${fmt((cp?.bytes ?? 0) / 1e6, 1)} MB), ${fmt(tail)} records after it; tables: log ${size.log}, checkpoints ${size.ckpt}`);
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const srv = await spawnServer({ env: { DATABASE_URL: db.url }, portOpen: true });
    while ((await fetch(`${srv.url}/ready`).catch(() => null))?.status !== 200) await sleep(20);
    times.push(performance.now() - started);
    const line = srv.output().split('\n').find((l) => l.includes('replayed the database log'));
    if (i === 0 && line) console.log(`start-up log: ${line}`);
    await srv.stop();
  }
  console.log(`spawn → /ready 200: ${times.map((t) => `${fmt(t / 1000, 2)} s`).join(', ')} (median ${fmt(median(times) / 1000, 2)} s)`);
}

async function main(): Promise<void> {
  const pg = await startPostgres({ fsync: true });
  if (typeof pg === 'string') {
    console.error(`bench:cluster needs PostgreSQL: ${pg}`);
    process.exit(2);
  }
  const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
  console.log(`# bench:cluster — ${os.cpus().length} cores, load average ${load}; PostgreSQL on 127.0.0.1:${pg.port} with fsync on`);
  try {
    if (!SKIP.has('writes')) await writes(pg);
    if (!SKIP.has('follow')) await follow(pg);
    if (!SKIP.has('poll')) await poll(pg);
    if (!SKIP.has('join')) await join(pg);
  } finally {
    pg.destroy();
  }
  console.log(`\nload average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}

await main();
