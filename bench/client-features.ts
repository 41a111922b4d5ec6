// `npm run bench`: the client API's hot path against a raw node:http server answering the same
// bytes, in the same run, with alternating A/B rounds; then memory and rebuild time with 10,000
// flags. Not part of `npm test`: figures depend on the machine and its load.
//
//   BENCH_SECONDS (default 5)  length of each autocannon run
//   BENCH_ROUNDS  (default 3)  A/B rounds per path and pipelining depth
//   BENCH_CONNECTIONS (default 10)
//   BENCH_PATHS   (default 200,304,gzip)  which paths to measure
//   BENCH_SKIP_10K=1                       skip the 10,000-flag part
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { abRounds, pollBytes, printRow, startBaseline, strategiesFor, SUMMARY_HEADER } from './ab.js';
import { ClientSnapshot } from '../src/concepts/client-api/snapshot.js';
import { loadConfig } from '../src/core/config.js';
import { createFeature, setEnvironmentEnabled } from '../src/concepts/features/logic.js';
import { createLogger } from '../src/core/logger.js';
import { startServer } from '../src/entry/embedded.js';
import { addStrategy, updateStrategy } from '../src/concepts/strategies/logic.js';
import { spawnServer, tempDataDir } from '../test/helpers/server.js';

const SELF = fileURLToPath(import.meta.url);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PATHS = (process.env.BENCH_PATHS ?? '200,304,gzip').split(',');
const F = '/api/client/features';
// Authentication stays on, as in production: every request carries a client token.
const ADMIN_TOKEN = '*:*.bench-admin-secret-0123456789abcdef';
const CLIENT_TOKEN = 'default:development.bench-client-secret-0123456789abcdef';

// ---------------------------------------------------------------------------------------------
// Child mode 2: seed 10,000 flags through the engine (the commands the routes run) and stop.
async function seedTenThousand(): Promise<void> {
  const FLAGS = Number(process.env.BENCH_BIG_FLAGS ?? 10_000);
  const running = await startServer({ config: bigConfig(), log: createLogger('warn') });
  const { engine } = running;
  const actor = { name: 'bench', userId: null };
  const started = performance.now();
  let strategyId = '';
  for (let i = 0; i < FLAGS; i++) {
    const name = `flag-${String(i).padStart(5, '0')}`;
    await engine.run(actor, createFeature('default', { name, description: `Benchmark flag number ${i}` }));
    for (const s of strategiesFor(name, i)) {
      const r = await engine.run(actor, addStrategy({ project: 'default', feature: name, environment: 'development' }, s));
      if (name === CHANGED && !strategyId) strategyId = r.id;
    }
    await engine.run(actor, setEnvironmentEnabled('default', name, 'development', true));
  }
  const seedMs = performance.now() - started;
  await running.close();
  process.send!({ flags: FLAGS, seedMs, strategyId });
}

// Child mode 3: rebuild time, in-process on that data, on the same code the route uses, fed by
// the same engine change feed.
async function rebuildTenThousand(): Promise<void> {
  const running = await startServer({ config: bigConfig(), log: createLogger('warn') });
  const { engine } = running;
  const actor = { name: 'bench', userId: null };
  const snap = new ClientSnapshot(engine.state);
  engine.onChange((rec, kind) => snap.onChange(rec, kind));
  const scope = { environment: 'development', projects: ['*'], key: 'bench', actor };
  const t0 = performance.now();
  snap.response(scope, '');
  const coldMs = performance.now() - t0;
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const where = { project: 'default', feature: CHANGED, environment: 'development' };
    await engine.run(actor, updateStrategy(where, process.env.BENCH_STRATEGY_ID!, { parameters: { rollout: String(i), stickiness: 'userId' } }));
    const t1 = performance.now();
    snap.response(scope, '');
    times.push(performance.now() - t1);
    // Let the gzip of the previous round finish, as it would between real changes.
    await new Promise((res) => setTimeout(res, 20));
  }
  times.sort((x, y) => x - y);
  await running.close();
  process.send!({ coldMs, rebuildMedianMs: times[Math.floor(times.length / 2)], rebuildP90Ms: times[Math.floor(times.length * 0.9)] });
}

/** Resident memory of a real server process, from /proc (Linux). */
function residentMb(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

const CHANGED = 'flag-05000';

function bigConfig() {
  return loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: process.env.BENCH_BIG_DIR!, WAL_SYNC: 'none', AUTH_TYPE: 'none', METRICS_FLUSH_MS: '0' });
}

// ---------------------------------------------------------------------------------------------
// Parent: seed 500 flags over HTTP, then alternate A/B runs.
function child<T>(mode: string, env: Record<string, string> = {}, execArgv: string[] = []): Promise<{ msg: T; proc: ReturnType<typeof fork> }> {
  const proc = fork(SELF, [mode], { env: { ...process.env, ...env }, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    proc.once('message', (msg) => resolve({ msg: msg as T, proc }));
    proc.once('exit', (code) => reject(new Error(`${mode} exited with ${code}`)));
  });
}

async function seed(base: string, flags: number): Promise<void> {
  const post = async (p: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: ADMIN_TOKEN };
    if (body) headers['content-type'] = 'application/json';
    const res = await fetch(base + p, { method: 'POST', headers, body: body ? JSON.stringify(body) : undefined });
    if (res.status >= 300) throw new Error(`${p} → ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const one = async (i: number) => {
    const name = `flag-${String(i).padStart(4, '0')}`;
    const P = `/api/admin/projects/default/features`;
    await post(P, { name, description: `Benchmark flag number ${i}` });
    for (const s of strategiesFor(name, i)) await post(`${P}/${name}/environments/development/strategies`, s);
    await post(`${P}/${name}/environments/development/on`);
  };
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < flags) await one(next++);
  }));
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === 'seed-10k') return seedTenThousand();
  if (mode === 'rebuild-10k') return rebuildTenThousand();

  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
  console.log(`autocannon: ${CONNECTIONS} connections, ${SECONDS}s per run, ${ROUNDS} A/B rounds per case\n`);
  const fanion = await spawnServer({
    env: { METRICS_FLUSH_MS: '0', AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN_TOKEN, INIT_CLIENT_API_TOKENS: CLIENT_TOKEN },
  });
  console.log('authentication: api-token, a client token on every Fanion request');
  try {
    const seedStart = performance.now();
    await seed(fanion.url, 500);
    console.log(`seeded 500 flags × 3 strategies with constraints over HTTP in ${Math.round(performance.now() - seedStart)} ms`);
    const auth = { authorization: CLIENT_TOKEN };
    const bytes = await pollBytes(fanion.url + F, auth);
    console.log(`response: ${bytes.identity.length} bytes, gzip ${bytes.gzip.length} bytes, ETag ${bytes.etag}\n`);
    const baseline = await startBaseline(bytes);
    try {
      const all: { path: string; headers: Record<string, string> }[] = [
        { path: '200', headers: { ...auth } },
        { path: '304', headers: { ...auth, 'if-none-match': bytes.etag } },
        { path: 'gzip', headers: { ...auth, 'accept-encoding': 'gzip' } },
      ];
      const rows = await abRounds({
        fanion: { url: fanion.url, pid: fanion.proc.pid! }, baseline: { url: baseline.url, pid: baseline.proc.pid! }, path: F,
        cases: all.filter((c) => PATHS.includes(c.path)), pipelinings: [1, 10], rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS,
      });
      console.log('\nsummary (medians over rounds; ratio = median of the per-round fanion/baseline ratios):');
      console.log(SUMMARY_HEADER);
      for (const row of rows) printRow(row, true);
    } finally {
      baseline.stop();
    }
  } finally {
    await fanion.stop();
  }

  if (process.env.BENCH_SKIP_10K === '1') return;
  console.log('\n10,000 flags (3 strategies with constraints each):');
  const bigDir = tempDataDir('fanion-bench-10k-');
  try {
    const seeded = await child<{ flags: number; seedMs: number; strategyId: string }>('seed-10k', { BENCH_BIG_DIR: bigDir });
    seeded.proc.kill();
    console.log(`  seeded ${seeded.msg.flags} flags through the engine in ${Math.round(seeded.msg.seedMs)} ms`);
    // Memory: a real server process (npm start) on that data, as after a restart.
    const t0 = performance.now();
    const srv = await spawnServer({ dataDir: bigDir, env: { METRICS_FLUSH_MS: '0' } });
    const startMs = performance.now() - t0;
    try {
      const afterReplay = residentMb(srv.proc.pid!);
      const t1 = performance.now();
      const first = await fetch(srv.url + F);
      const bytes = (await first.arrayBuffer()).byteLength;
      const firstMs = performance.now() - t1;
      let gzipBytes = 0;
      for (let i = 0; i < 400 && !gzipBytes; i++) {
        const r = await fetch(srv.url + F, { headers: { 'accept-encoding': 'gzip' } });
        if (r.headers.get('content-encoding') === 'gzip') gzipBytes = Number(r.headers.get('content-length'));
        await r.arrayBuffer();
        if (!gzipBytes) await new Promise((res) => setTimeout(res, 50));
      }
      for (let i = 0; i < 20; i++) await (await fetch(srv.url + F)).arrayBuffer();
      const serving = residentMb(srv.proc.pid!);
      console.log(`  a fresh server process (npm start) replays them and listens in ${Math.round(startMs)} ms; first GET (serializes every flag) ${Math.round(firstMs)} ms`);
      console.log(`  response ${(bytes / 2 ** 20).toFixed(1)} MB, gzip ${(gzipBytes / 2 ** 20).toFixed(2)} MB`);
      console.log(`  resident memory: ${afterReplay.rss.toFixed(0)} MB after replay, ${serving.rss.toFixed(0)} MB while serving identity and gzip (peak ${serving.peak.toFixed(0)} MB)  target < 250 MB`);
    } finally {
      await srv.stop();
    }
    const { msg: big, proc } = await child<Record<string, number>>('rebuild-10k', { BENCH_BIG_DIR: bigDir, BENCH_STRATEGY_ID: seeded.msg.strategyId });
    proc.kill();
    console.log(`  in-process snapshot: cold build ${big.coldMs.toFixed(0)} ms; JSON rebuilt after one strategy change: median ${big.rebuildMedianMs.toFixed(2)} ms, p90 ${big.rebuildP90Ms.toFixed(2)} ms  target < 5 ms`);
  } finally {
    fs.rmSync(bigDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
