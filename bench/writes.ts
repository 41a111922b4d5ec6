// `npm run bench:writes`: durability figures. Not part of `npm test` (figures depend on the disk
// and the machine's load).
//   1. Durable mutations/s (strategy adds, WAL_SYNC=always) at 1, 8 and 32 concurrent clients,
//      with p50/p99 latency, against a plain loop of one append + fdatasync per record on the
//      same disk, and against the same HTTP load with WAL_SYNC=none (the ratio always/none, target
//      ≥ 0.85, is how much of the fsync cost group commit hides). Measured twice:
//      - engine only (no HTTP): the real Engine + WAL in this process, N commands in flight,
//        each awaiting its own durable ack: what group commit alone delivers;
//      - over HTTP: autocannon against a spawned server, with the CPU both sides spend per
//        request, and the same autocannon load against a bare node:http server (the ceiling
//        of this machine for that request shape, load generator included).
//   2. Replay rate (records/s) of a WAL with 10,000 flags × 3 strategies and 1,000,000 events,
//      and the real server's start-up time (spawn → /health answers) on that folder once it
//      has a checkpoint and a WAL tail just under CHECKPOINT_RECORDS.
//
//   BENCH_DIR        where the data folders go (default: <repo>/data, the default DATA_DIR's disk)
//   BENCH_SECONDS    length of each throughput run (default 5)
//   BENCH_EVENTS     events in the start-up data set (default 1,000,000)
//   BENCH_PAIRS      WAL_SYNC=always/none pairs at 32 clients (default 6)
//   BENCH_SKIP       comma list of parts to skip: writes, startup
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon, { type Client, type Request, type Result } from 'autocannon';
import { Engine } from '../src/core/engine/engine.js';
import { createFeature, setEnvironmentEnabled } from '../src/concepts/features/logic.js';
import { createLogger } from '../src/core/logger.js';
import { openStorage } from '../src/core/storage/storage.js';
import { addStrategy, MAX_STRATEGIES, type StrategyInput } from '../src/concepts/strategies/logic.js';
import { Checkpointer } from '../src/core/storage/checkpointer.js';
import { MAIN, ROOT, spawnServer } from '../test/helpers/server.js';

// The WAL and the plain loop must sit on the disk a real deployment writes to: DATA_DIR's
// default is <repo>/data, whereas the OS temp folder is often tmpfs or another device.
const BASE = process.env.BENCH_DIR ?? path.join(ROOT, 'data');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const FLAGS = 10_000;
/** What the start-up data set writes before any toggle: the flags and three strategies each. */
const SETUP_EVENTS = FLAGS * 4;
if (!Number.isInteger(EVENTS) || EVENTS < SETUP_EVENTS * 2) {
  console.error(`BENCH_EVENTS must be a whole number of at least ${SETUP_EVENTS * 2} (the data set's ${FLAGS} flags and their strategies come first), got ${process.env.BENCH_EVENTS}`);
  process.exit(2);
}
/** WAL_SYNC=always / none pairs at 32 clients (BENCH_PAIRS). */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 6);
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const P = '/api/admin/projects/default/features';
const silent = createLogger('silent');

const CLIENTS = [1, 8, 32];
const ENVS = ['development', 'production'];
// The server refuses a 31st strategy on a flag/environment, so the write runs need enough
// (flag, environment) targets that none is hit more than MAX_STRATEGIES times in one run.
// Sized for 100,000 adds/s (far above what 2 cores reach, HTTP or not), twice over for
// connections that run ahead of the others.
const WRITE_FLAGS = Math.max(3_000, Math.ceil((SECONDS * 100_000 * 2) / (ENVS.length * MAX_STRATEGIES)));
const TARGETS = WRITE_FLAGS * ENVS.length;
// The same actor AUTH_TYPE=none gives HTTP requests, so engine-only records match in size.
const ADMIN = { name: 'admin', userId: null };

/** Every folder this run made, removed however it ends (a failed run used to leave tens of MB in ./data). */
const made = new Set<string>();
const tempDir = (prefix: string) => {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, prefix));
  made.add(dir);
  return dir;
};
process.on('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const walBytes = (dir: string) => fs.readdirSync(dir).filter((n) => n.startsWith('wal-')).reduce((s, n) => s + fs.statSync(path.join(dir, n)).size, 0);

/** Runs `run(0..n-1)` with up to 2,000 in flight, so the WAL writes them in batches like a busy server. */
async function inParallel(n: number, run: (i: number) => Promise<unknown>): Promise<void> {
  for (let from = 0; from < n; from += 2_000) {
    const batch = [];
    for (let i = from; i < Math.min(n, from + 2_000); i++) batch.push(run(i));
    await Promise.all(batch);
  }
}

interface Rate {
  perSecond: number;
  p50: number;
  p99: number;
  n: number;
}

/** One append + fdatasync per record, the way a WAL without group commit would write. */
function plainLoop(dir: string, recordBytes: number, seconds: number): Rate {
  const file = path.join(dir, 'plain-loop.log');
  const fd = fs.openSync(file, 'w');
  const buf = Buffer.alloc(recordBytes, 7);
  const lat: number[] = [];
  let pos = 0;
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  while (performance.now() < end) {
    const t0 = performance.now();
    fs.writeSync(fd, buf, 0, buf.length, pos);
    fs.fdatasyncSync(fd);
    pos += buf.length;
    lat.push(performance.now() - t0);
  }
  const elapsed = (performance.now() - start) / 1000;
  fs.closeSync(fd);
  fs.unlinkSync(file);
  lat.sort((a, b) => a - b);
  return { perSecond: lat.length / elapsed, p50: pct(lat, 50), p99: pct(lat, 99), n: lat.length };
}

/** Target t: a flag and an environment; every run walks targets so each gets ≤ MAX_STRATEGIES adds. */
const target = (t: number) => ({ flag: `bench-${t % WRITE_FLAGS}`, env: ENVS[Math.floor(t / WRITE_FLAGS)] });
const strategyBody = (t: number): StrategyInput => {
  const { flag } = target(t);
  return {
    name: 'flexibleRollout', parameters: { rollout: String(t % 100), stickiness: 'default', groupId: flag },
    constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }],
  };
};

/** A data folder with WRITE_FLAGS flags and no strategies, written once and copied for every run. */
async function seedFolder(): Promise<string> {
  const dir = tempDir('fanion-bench-seed-');
  const storage = await openStorage({ dataDir: dir, sync: false, log: silent });
  const engine = new Engine({ state: storage.state, log: storage.wal, logger: silent });
  await inParallel(WRITE_FLAGS, (i) => engine.run(ADMIN, createFeature('default', { name: `bench-${i}` })));
  await storage.wal.close();
  storage.release();
  return dir;
}

/** Each run starts from the same state (flags, no strategies), so the levels compare fairly. */
function copyOf(seed: string, prefix: string): string {
  const dir = tempDir(prefix);
  fs.cpSync(seed, dir, { recursive: true, filter: (src) => path.basename(src) !== 'fanion.lock' });
  return dir;
}

interface Level {
  clients: number;
  rate: Rate;
  perSync: number;
}

/**
 * Engine only (no HTTP): `clients` loops each await their own durable strategy add before the
 * next, like clients with one request in flight. Targets come from one counter, so each gets
 * its adds in turn and MAX_STRATEGIES is never passed below TARGETS × MAX_STRATEGIES adds.
 */
async function engineOnly(seed: string, clients: number): Promise<Level & { recordBytes: number; cpuUs: number }> {
  const dir = copyOf(seed, 'fanion-bench-engine-');
  const storage = await openStorage({ dataDir: dir, sync: true, log: silent });
  const engine = new Engine({ state: storage.state, log: storage.wal, logger: silent });
  const bytes0 = walBytes(dir);
  const { records: records0, syncs: syncs0 } = storage.wal.stats;
  const lat: number[] = [];
  let next = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const end = start + SECONDS * 1000;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < end) {
      const k = next++;
      if (k >= TARGETS * MAX_STRATEGIES) throw new Error(`engine only: more than ${fmt(TARGETS * MAX_STRATEGIES)} adds; raise WRITE_FLAGS`);
      const t = k % TARGETS;
      const { flag, env } = target(t);
      const t0 = performance.now();
      await engine.run(ADMIN, addStrategy({ project: 'default', feature: flag, environment: env }, strategyBody(t)));
      lat.push(performance.now() - t0);
    }
  }));
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const records = storage.wal.stats.records - records0;
  const syncs = storage.wal.stats.syncs - syncs0;
  const recordBytes = (walBytes(dir) - bytes0) / records;
  await storage.wal.close();
  storage.release();
  fs.rmSync(dir, { recursive: true, force: true });
  lat.sort((a, b) => a - b);
  return { clients, rate: { perSecond: lat.length / elapsed, p50: pct(lat, 50), p99: pct(lat, 99), n: lat.length }, perSync: records / syncs, recordBytes, cpuUs: (cpu.user + cpu.system) / lat.length };
}

/** CPU time (user + system, µs) a child process has used so far, from /proc/<pid>/stat. */
const TICK_US = 1e6 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim() || 100);
function childCpuUs(proc: ChildProcess): number {
  const stat = fs.readFileSync(`/proc/${proc.pid}/stat`, 'utf8');
  // Fields after the parenthesised command name: state is field 3, utime 14 and stime 15.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_US;
}

/**
 * Connection c of n cycles through targets c, c+n, c+2n, …: disjoint slices, so a target sees
 * only its own connection's passes (autocannon restarts each connection's list from the top).
 * Bodies and request buffers are built once here, before the run, instead of per request.
 */
function requestLists(connections: number): Request[][] {
  const lists: Request[][] = Array.from({ length: connections }, () => []);
  for (let t = 0; t < TARGETS; t++) {
    const { flag, env } = target(t);
    lists[t % connections].push({
      method: 'POST', path: `${P}/${flag}/environments/${env}/strategies`,
      headers: { 'content-type': 'application/json' }, body: JSON.stringify(strategyBody(t)),
    });
  }
  return lists;
}

interface Driven {
  result: Result;
  /** autocannon's own CPU per answered request, µs (this process does nothing else meanwhile). */
  loadCpuUs: number;
  /** The server's CPU per answered request, µs. */
  serverCpuUs: number;
}

/** Strategy adds from `connections` autocannon connections against `url`, served by `server`. */
async function drive(url: string, server: ChildProcess, connections: number): Promise<Driven> {
  const lists = requestLists(connections);
  let configured = 0;
  let cpu0 = process.cpuUsage();
  let server0 = childCpuUs(server);
  const result = await autocannon({
    url, connections, duration: SECONDS,
    setupClient: (c: Client) => {
      c.setRequests(lists[configured++]);
      // Clients are set up one after the other before the first request: start the CPU
      // clocks after the last one, so building the request buffers is not counted.
      if (configured === connections) {
        cpu0 = process.cpuUsage();
        server0 = childCpuUs(server);
      }
    },
  });
  const serverUs = childCpuUs(server) - server0;
  const cpu = process.cpuUsage(cpu0);
  const answered = result['2xx'] + result.non2xx;
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${connections} connections: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return { result, loadCpuUs: (cpu.user + cpu.system) / answered, serverCpuUs: serverUs / answered };
}

async function overHttp(seed: string, clients: number, env: Record<string, string> = {}, label = Object.keys(env).length > 0 ? `${clients}, checkpoints off` : String(clients)): Promise<Level & Omit<Driven, 'result'> & { checkpoints: number; label: string }> {
  const dataDir = copyOf(seed, 'fanion-bench-http-');
  const srv = await spawnServer({ dataDir, env: { WAL_SYNC: 'always', ...env } });
  const { result: r, loadCpuUs, serverCpuUs } = await drive(srv.url, srv.proc, clients);
  await srv.stop();
  // A fresh process per level, so its closing log line counts this level's fdatasyncs alone.
  const closed = JSON.parse(srv.output().split('\n').find((l) => l.includes('write-ahead log closed'))!);
  fs.rmSync(dataDir, { recursive: true, force: true });
  // A checkpoint encodes the whole state on the event loop (in slices) and flushes a large file:
  // the runs say how many fell inside them, since that shows in throughput and p99.
  const checkpoints = srv.output().split('\n').filter((l) => l.includes('checkpoint written')).length;
  return {
    clients, rate: { perSecond: r['2xx'] / SECONDS, p50: r.latency.p50, p99: r.latency.p99, n: r['2xx'] },
    perSync: closed.records / closed.syncs, loadCpuUs, serverCpuUs, checkpoints,
    label,
  };
}

// What this machine can do at all for this request shape: same requests, same autocannon
// settings, against a server that only reads the body and answers a small JSON.
const BARE_SERVER = `
const http = require('node:http');
const s = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    Buffer.concat(chunks);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
});
s.listen(0, '127.0.0.1', () => console.log('port ' + s.address().port));
`;

async function bareCeiling(connections: number): Promise<Driven> {
  const proc = spawn(process.execPath, ['-e', BARE_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  let port: string | undefined;
  while (!(port = /port (\d+)/.exec(out)?.[1])) {
    if (proc.exitCode !== null) throw new Error(`bare server exited: ${out}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  try {
    return await drive(`http://127.0.0.1:${port}`, proc, connections);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
}

async function durableWrites(): Promise<void> {
  const seed = await seedFolder();
  const load = os.loadavg();
  const engine: Awaited<ReturnType<typeof engineOnly>>[] = [];
  for (const clients of CLIENTS) engine.push(await engineOnly(seed, clients));
  const recordBytes = Math.round(engine[0].recordBytes);
  const plainDir = tempDir('fanion-bench-plain-');
  const plain = plainLoop(plainDir, recordBytes, SECONDS);
  fs.rmSync(plainDir, { recursive: true, force: true });
  const http: Awaited<ReturnType<typeof overHttp>>[] = [];
  for (const clients of CLIENTS) http.push(await overHttp(seed, clients));
  http.push(await overHttp(seed, 32, { CHECKPOINT_RECORDS: '0', CHECKPOINT_BYTES: '0' }));
  // The price of durability: the same 32-client load with WAL_SYNC=none (written, never
  // fdatasynced), in pairs run back to back so both sides of a ratio see the same machine, the
  // first of each pair alternating (the second run of a pair was measured faster either way), and
  // checkpoints off in both, so that one falling inside a run or not does not decide the ratio.
  const pairs: { always: number; none: number }[] = [];
  const noCheckpoints = { CHECKPOINT_RECORDS: '0', CHECKPOINT_BYTES: '0' };
  for (let i = 0; i < PAIRS; i++) {
    const run = (sync: 'always' | 'none') => overHttp(seed, 32, { ...noCheckpoints, WAL_SYNC: sync }, `32, checkpoints off, WAL_SYNC=${sync}`);
    let always: Awaited<ReturnType<typeof overHttp>>;
    let none: Awaited<ReturnType<typeof overHttp>>;
    if (i % 2 === 0) {
      always = await run('always');
      none = await run('none');
    } else {
      none = await run('none');
      always = await run('always');
    }
    pairs.push({ always: always.rate.perSecond, none: none.rate.perSecond });
    if (i === 0) http.push(always, none);
  }
  const bare = await bareCeiling(32);
  fs.rmSync(seed, { recursive: true, force: true });

  const x = (perSecond: number) => fmt(perSecond / plain.perSecond, 1);
  console.log(`\n## Durable writes (strategy adds, WAL_SYNC=always), ${SECONDS} s per run, data in ${BASE}`);
  console.log(`${os.cpus().length} cores, load average before/after the runs ${load.map((l) => fmt(l, 2)).join(' ')} / ${os.loadavg().map((l) => fmt(l, 2)).join(' ')}; record ≈ ${recordBytes} bytes (framed msgpack); ${fmt(WRITE_FLAGS)} flags × ${ENVS.length} environments as targets`);
  console.log(`plain loop (one ${recordBytes}-byte append + fdatasync per record, same disk): ${fmt(plain.perSecond)}/s, p50 ${fmt(plain.p50, 2)} ms, p99 ${fmt(plain.p99, 2)} ms`);
  console.log('\n### Engine only (no HTTP): real Engine + WAL in one process, N commands in flight, each awaiting its durable ack (no checkpointer)');
  console.log('| in flight | mutations/s | p50 ms | p99 ms | records per fdatasync | × plain loop | CPU µs/mutation |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of engine) {
    console.log(`| ${r.clients} | ${fmt(r.rate.perSecond)} | ${fmt(r.rate.p50, 2)} | ${fmt(r.rate.p99, 2)} | ${fmt(r.perSync, 1)} | ${x(r.rate.perSecond)} | ${fmt(r.cpuUs)} |`);
  }
  console.log('\n### Over HTTP: autocannon (in this process) → spawned server, both on the same cores');
  console.log('| clients | mutations/s | p50 ms | p99 ms | records per fdatasync | checkpoints taken | × plain loop | server CPU µs/mutation | autocannon CPU µs/request |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of http) {
    console.log(`| ${r.label} | ${fmt(r.rate.perSecond)} | ${fmt(r.rate.p50)} | ${fmt(r.rate.p99)} | ${fmt(r.perSync, 1)} | ${r.checkpoints} | ${x(r.rate.perSecond)} | ${fmt(r.serverCpuUs)} | ${fmt(r.loadCpuUs)} |`);
  }
  const bareRate = bare.result['2xx'] / SECONDS;
  console.log(`| ceiling: bare node:http, 32 | ${fmt(bareRate)} | ${fmt(bare.result.latency.p50)} | ${fmt(bare.result.latency.p99)} | – | – | ${x(bareRate)} | ${fmt(bare.serverCpuUs)} | ${fmt(bare.loadCpuUs)} |`);
  console.log('(HTTP latencies from autocannon are whole ms; CPU figures count all threads, so the kernel time of fdatasync too; server CPU from /proc/<pid>/stat; the ceiling server reads the body and answers {"ok":true})');
  const at32 = http.find((r) => r.label === '32')!.rate;
  const e32 = engine.find((r) => r.clients === 32)!.rate;
  console.log(`\n32 clients over HTTP: ${x(at32.perSecond)}× the plain loop, p99 ${fmt(at32.p99, 1)} ms (target < 20 ms); engine only: ${x(e32.perSecond)}×, p99 ${fmt(e32.p99, 1)} ms; bare node:http ceiling: ${x(bareRate)}×`);
  const ratios = pairs.map((p) => p.always / p.none);
  const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
  console.log(`\n### What durability costs: 32 clients over HTTP, WAL_SYNC=always / WAL_SYNC=none (checkpoints off; ${PAIRS} pairs run back to back, alternating which goes first)`);
  console.log('| pair | always mutations/s | none mutations/s | always / none |');
  console.log('|---:|---:|---:|---:|');
  pairs.forEach((p, i) => console.log(`| ${i + 1} | ${fmt(p.always)} | ${fmt(p.none)} | ${fmt(ratios[i], 2)} |`));
  console.log(`always / none, median of ${PAIRS}: ${fmt(median, 2)} (target ≥ 0.85: group commit hides the fdatasync behind the requests in flight)`);
}

/** Builds the start-up data set in-process through the real commands, engine and WAL. */
async function buildDataSet(dataDir: string, opts: { events: number; checkpoint: boolean; tailRecords: number }): Promise<{ records: number; pauseMs?: number; writeMs?: number; stallMs?: number }> {
  const storage = await openStorage({ dataDir, sync: false, log: silent });
  const engine = new Engine({ state: storage.state, log: storage.wal, logger: silent });
  const actor = { name: 'bench', userId: null };
  const where = (f: string, environment: string) => ({ project: 'default', feature: f, environment });
  await inParallel(FLAGS, (i) => engine.run(actor, createFeature('default', { name: `flag-${i}`, description: `Flag number ${i}` })));
  await inParallel(FLAGS * 3, (k) => {
    const i = k % FLAGS;
    const strategies: StrategyInput[] = [
      { name: 'flexibleRollout', parameters: { rollout: String(i % 101), stickiness: 'userId', groupId: `flag-${i}` } , constraints: [{ contextName: 'country', operator: 'IN' as const, values: ['NO', 'SE', 'DK'] }] },
      { name: 'userWithId', parameters: { userIds: `user-${i},user-${i + 1}` } },
      { name: 'remoteAddress', parameters: { IPs: `10.0.${i % 256}.0/24` } },
    ];
    return engine.run(actor, addStrategy(where(`flag-${i}`, 'production'), strategies[Math.floor(k / FLAGS)]));
  });
  // The rest of the events: switching flags on and off, one record and one event each.
  const toggles = opts.events - engine.state.events.lastId;
  const flip = (j: number) => {
    const i = j % FLAGS;
    return engine.run(actor, setEnvironmentEnabled('default', `flag-${i}`, 'production', Math.floor(j / FLAGS) % 2 === 0));
  };
  await inParallel(Math.max(0, toggles), flip);
  let pauseMs: number | undefined;
  let writeMs: number | undefined;
  let stallMs: number | undefined;
  if (opts.checkpoint) {
    const cp = new Checkpointer({ engine, wal: storage.wal, dir: dataDir, files: storage.files, log: silent, everyRecords: 0, everyBytes: 0 });
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    const report = await cp.checkpoint();
    h.disable();
    pauseMs = report.pauseMs;
    writeMs = report.totalMs;
    stallMs = h.max / 1e6;
    // A WAL tail just under the threshold: the most a start-up ever replays with the defaults.
    // Toggles continue where the ones above stopped, so each one changes something.
    await inParallel(opts.tailRecords, (j) => flip(toggles + j));
    await cp.close();
  }
  const records = storage.wal.nextLsn - 1;
  await storage.wal.close();
  storage.release();
  return { records, pauseMs, writeMs, stallMs };
}

async function timeToHealth(dataDir: string): Promise<{ ms: number; log: string }> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_TYPE: 'none', WAL_SYNC: 'always' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let port = 0;
  proc.stdout.on('data', (c) => (out += c));
  proc.stderr.on('data', (c) => (out += c));
  for (;;) {
    const m = /"port":(\d+)[^\n]*Fanion listening/.exec(out);
    if (m) port = Number(m[1]);
    if (port) {
      const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
      if (res?.status === 200) break;
    }
    if (proc.exitCode !== null) throw new Error(`server exited: ${out}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const ms = performance.now() - t0;
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  return { ms, log: out };
}

interface Replay {
  ms: number;
  cpuMs: number;
  records: number;
  flags: number;
  strategies: number;
  events: number;
}

/** recover() of `dir` in a new node process: wall and CPU time, and what it rebuilt. */
function replayInChild(dir: string): Replay {
  const recovery = path.join(ROOT, 'dist/src/storage/recovery.js');
  const script = `
    const { recover } = await import(${JSON.stringify(recovery)});
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = recover(${JSON.stringify(dir)});
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ ms, cpuMs: (c.user + c.system) / 1000, records: r.scan.records,
      flags: r.state.features.size, strategies: r.state.strategies.size, events: r.state.events.lastId }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as Replay;
}

async function startup(): Promise<void> {
  const walOnly = tempDir('fanion-bench-replay-');
  const t0 = performance.now();
  const built = await buildDataSet(walOnly, { events: EVENTS, checkpoint: false, tailRecords: 0 });
  const buildS = (performance.now() - t0) / 1000;
  const walBytes = fs.readdirSync(walOnly).filter((n) => n.startsWith('wal-')).reduce((s, n) => s + fs.statSync(path.join(walOnly, n)).size, 0);
  // Replay runs in a fresh process, as at start-up: in this one the heap still holds what
  // building the data set left behind, which makes every garbage collection dearer.
  const replays = [1, 2, 3].map(() => replayInChild(walOnly));
  const best = replays.reduce((a, b) => (b.ms < a.ms ? b : a));
  const { flags, strategies, events } = best;
  fs.rmSync(walOnly, { recursive: true, force: true });

  const withCheckpoint = tempDir('fanion-bench-startup-');
  // Just under CHECKPOINT_RECORDS' default, or a tenth of a smaller data set.
  const tail = Math.min(99_999, Math.floor(EVENTS / 10));
  const cp = await buildDataSet(withCheckpoint, { events: EVENTS - tail, checkpoint: true, tailRecords: tail });
  const ckpt = fs.readdirSync(withCheckpoint).find((n) => n.endsWith('.ckpt'))!;
  const ckptBytes = fs.statSync(path.join(withCheckpoint, ckpt)).size;
  // The first start after writing reads from the page cache; so does a restart on a busy host.
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await timeToHealth(withCheckpoint));
  const replayed = JSON.parse(runs[runs.length - 1].log.split('\n').find((l) => l.includes('replayed the write-ahead log'))!);
  fs.rmSync(withCheckpoint, { recursive: true, force: true });

  console.log(`\n## Replay and start-up: ${fmt(flags)} flags, ${fmt(strategies)} strategies, ${fmt(events)} events`);
  console.log(`data set built in ${fmt(buildS, 1)} s through the engine (${fmt(built.records)} WAL records, ${fmt(walBytes / 1e6, 1)} MB)`);
  console.log(`replay of the whole WAL (no checkpoint), in a fresh process, 3 runs: ${replays.map((r) => `${fmt(r.ms)} ms`).join(', ')}; ` +
    `best ${fmt(best.records / (best.ms / 1000))} records/s (target ≥ 300,000), CPU time ${fmt(best.cpuMs)} ms`);
  console.log(`taking the checkpoint: writes paused ${fmt(cp.pauseMs!)} ms (WAL roll + snapshot of flags and strategies), file written in ${fmt(cp.writeMs! / 1000, 1)} s in the background, longest event-loop stall meanwhile ${fmt(cp.stallMs!)} ms`);
  console.log(`with a checkpoint (${fmt(ckptBytes / 1e6, 1)} MB) + a WAL tail of ${fmt(tail)} records:`);
  console.log(`  checkpoint load ${fmt(replayed.checkpoint.ms)} ms, tail replay of ${fmt(replayed.records)} records, rebuild ${fmt(replayed.ms)} ms in total`);
  console.log(`  spawn → GET /health 200: ${runs.map((r) => `${fmt(r.ms)} ms`).join(', ')} (target < 5,000 ms)`);
}

if (!SKIP.has('writes')) await durableWrites();
if (!SKIP.has('startup')) await startup();
