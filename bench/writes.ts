// `npm run bench:writes`: durability figures. Not part of `npm test` (figures depend on the disk
// and the machine's load).
//   1. Durable mutations/s (strategy adds over HTTP, WAL_SYNC=always) at 1, 8 and 32 concurrent
//      clients, with p50/p99 latency, against a plain loop of one append + fdatasync per record
//      on the same disk: group commit should make 32 clients ≥ 3× the plain loop.
//   2. Replay rate (records/s) of a WAL with 10,000 flags × 3 strategies and 1,000,000 events,
//      and the real server's start-up time (spawn → /health answers) on that folder once it
//      has a checkpoint and a WAL tail just under CHECKPOINT_RECORDS.
//
//   BENCH_DIR        where the data folders go (default: the OS temp folder); put it on the disk to measure
//   BENCH_SECONDS    length of each throughput run (default 5)
//   BENCH_EVENTS     events in the start-up data set (default 1,000,000)
//   BENCH_SKIP       comma list of parts to skip: writes, startup
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon, { type Result } from 'autocannon';
import { Engine } from '../src/engine/engine.js';
import { createFeature, setEnvironmentEnabled } from '../src/features/logic.js';
import { createLogger } from '../src/log.js';
import { openStorage } from '../src/storage.js';
import { addStrategy, type StrategyInput } from '../src/strategies/logic.js';
import { Checkpointer } from '../src/wal/checkpointer.js';
import { recover } from '../src/wal/recovery.js';
import { client, MAIN, spawnServer } from '../test/helpers/server.js';

const BASE = process.env.BENCH_DIR ?? os.tmpdir();
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const FLAGS = 10_000;
const P = '/api/admin/projects/default/features';
const silent = createLogger('silent');

const tempDir = (prefix: string) => fs.mkdtempSync(path.join(BASE, prefix));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

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

async function durableWrites(): Promise<void> {
  const dataDir = tempDir('fanion-bench-writes-');
  let srv = await spawnServer({ dataDir, env: { WAL_SYNC: 'always' } });
  const api = client(srv.url);
  const flags = 3_000;
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    for (let i = next++; i < flags; i = next++) {
      const res = await api('POST', P, { name: `bench-${i}` });
      if (res.status !== 201) throw new Error(`create: ${res.status}`);
    }
  }));
  // Each flag/environment takes up to 30 strategies: spread the adds over all of them.
  let counter = 0;
  const envs = ['development', 'production'];
  const addOne = async () => {
    const k = counter++;
    const flag = `bench-${k % flags}`;
    const env = envs[Math.floor(k / flags) % 2];
    const res = await api('POST', `${P}/${flag}/environments/${env}/strategies`, {
      name: 'flexibleRollout', parameters: { rollout: String(k % 100), stickiness: 'default', groupId: flag },
      constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }],
    });
    if (res.status !== 200) throw new Error(`add strategy: ${res.status} ${res.text}`);
  };
  const segment = () => fs.readdirSync(dataDir).filter((n) => n.startsWith('wal-')).sort().pop()!;
  const sizeBefore = fs.statSync(path.join(dataDir, segment())).size;
  for (let i = 0; i < 50; i++) await addOne();
  const recordBytes = Math.round((fs.statSync(path.join(dataDir, segment())).size - sizeBefore) / 50);

  // autocannon drives the load: it costs the shared CPU far less per request than fetch.
  const results: { clients: number; rate: Rate; perSync: number }[] = [];
  for (const clients of [1, 8, 32]) {
    // A fresh process per level, so its closing log line counts this level's fdatasyncs alone.
    await srv.stop();
    srv = await spawnServer({ dataDir, env: { WAL_SYNC: 'always' } });
    const r = (await (autocannon as unknown as (o: object) => Promise<Result>)({
      url: srv.url, connections: clients, duration: SECONDS,
      requests: [{
        method: 'POST', headers: { 'content-type': 'application/json' },
        setupRequest: (req: Record<string, unknown>) => {
          const k = counter++;
          const flag = `bench-${k % flags}`;
          const env = envs[Math.floor(k / flags) % 2];
          return {
            ...req, path: `${P}/${flag}/environments/${env}/strategies`,
            body: JSON.stringify({
              name: 'flexibleRollout', parameters: { rollout: String(k % 100), stickiness: 'default', groupId: flag },
              constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }],
            }),
          };
        },
      }],
    }));
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${clients} clients: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    await srv.stop();
    const closed = JSON.parse(srv.output().split('\n').find((l) => l.includes('write-ahead log closed'))!);
    results.push({ clients, rate: { perSecond: r['2xx'] / SECONDS, p50: r.latency.p50, p99: r.latency.p99, n: r['2xx'] }, perSync: closed.records / closed.syncs });
    srv = await spawnServer({ dataDir, env: { WAL_SYNC: 'always' } });
  }
  await srv.stop();
  const plain = plainLoop(dataDir, recordBytes, SECONDS);
  fs.rmSync(dataDir, { recursive: true, force: true });

  console.log(`\n## Durable writes (strategy adds over HTTP, WAL_SYNC=always), ${SECONDS} s per run, data in ${BASE}`);
  console.log(`record size ≈ ${recordBytes} bytes (framed msgpack)`);
  console.log('| clients | mutations/s | p50 ms | p99 ms | records per fdatasync | × plain loop |');
  console.log('|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(`| ${r.clients} | ${fmt(r.rate.perSecond)} | ${fmt(r.rate.p50, 2)} | ${fmt(r.rate.p99, 2)} | ${fmt(r.perSync, 1)} | ${fmt(r.rate.perSecond / plain.perSecond, 1)} |`);
  }
  console.log(`| plain append+fdatasync loop | ${fmt(plain.perSecond)} | ${fmt(plain.p50, 2)} | ${fmt(plain.p99, 2)} | 1.0 | 1.0 |`);
  console.log('(latencies from autocannon have 1 ms resolution; the plain loop is timed with performance.now())');
  const at32 = results.find((r) => r.clients === 32)!.rate;
  console.log(`\n32 clients: ${fmt(at32.perSecond / plain.perSecond, 1)}× the plain loop (target ≥ 3×), p99 ${fmt(at32.p99, 1)} ms (target < 20 ms)`);
}

/** Builds the start-up data set in-process through the real commands, engine and WAL. */
async function buildDataSet(dataDir: string, opts: { events: number; checkpoint: boolean; tailRecords: number }): Promise<{ records: number; pauseMs?: number; writeMs?: number; stallMs?: number }> {
  const storage = await openStorage({ dataDir, sync: false, log: silent });
  const engine = new Engine({ state: storage.state, wal: storage.wal, log: silent });
  const actor = { name: 'bench', userId: null };
  const where = (f: string, environment: string) => ({ project: 'default', feature: f, environment });
  // Many commands in flight at once so the WAL writes them in batches, like a busy server.
  const inParallel = async (n: number, run: (i: number) => Promise<unknown>) => {
    for (let from = 0; from < n; from += 2_000) {
      const batch = [];
      for (let i = from; i < Math.min(n, from + 2_000); i++) batch.push(run(i));
      await Promise.all(batch);
    }
  };
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
    const cp = new Checkpointer({ engine, dir: dataDir, files: storage.files, log: silent, everyRecords: 0, everyBytes: 0 });
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

async function startup(): Promise<void> {
  const walOnly = tempDir('fanion-bench-replay-');
  let t0 = performance.now();
  const built = await buildDataSet(walOnly, { events: EVENTS, checkpoint: false, tailRecords: 0 });
  const buildS = (performance.now() - t0) / 1000;
  const walBytes = fs.readdirSync(walOnly).filter((n) => n.startsWith('wal-')).reduce((s, n) => s + fs.statSync(path.join(walOnly, n)).size, 0);
  t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const r = recover(walOnly);
  const replayMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // Wall time on a shared machine includes waiting for a core; CPU time says what replay costs.
  const replayCpuMs = (cpu.user + cpu.system) / 1000;
  const flags = r.state.features.size;
  const strategies = r.state.strategies.size;
  const events = r.state.events.lastId;
  fs.rmSync(walOnly, { recursive: true, force: true });

  const withCheckpoint = tempDir('fanion-bench-startup-');
  const tail = 99_999;
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
  console.log(`replay of the whole WAL (no checkpoint): ${fmt(replayMs)} ms = ${fmt(built.records / (replayMs / 1000))} records/s (target ≥ 300,000); CPU time ${fmt(replayCpuMs)} ms`);
  console.log(`taking the checkpoint: writes paused ${fmt(cp.pauseMs!)} ms (WAL roll + snapshot of flags and strategies), file written in ${fmt(cp.writeMs! / 1000, 1)} s in the background, longest event-loop stall meanwhile ${fmt(cp.stallMs!)} ms`);
  console.log(`with a checkpoint (${fmt(ckptBytes / 1e6, 1)} MB) + a WAL tail of ${fmt(tail)} records:`);
  console.log(`  checkpoint load ${fmt(replayed.checkpoint.ms)} ms, tail replay of ${fmt(replayed.records)} records, rebuild ${fmt(replayed.ms)} ms in total`);
  console.log(`  spawn → GET /health 200: ${runs.map((r) => `${fmt(r.ms)} ms`).join(', ')} (target < 5,000 ms)`);
}

if (!SKIP.has('writes')) await durableWrites();
if (!SKIP.has('startup')) await startup();
