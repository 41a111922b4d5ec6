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
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { ClientSnapshot } from '../src/client-api/snapshot.js';
import { loadConfig } from '../src/config.js';
import { createFeature, setEnvironmentEnabled } from '../src/features/logic.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { addStrategy, updateStrategy, type StrategyInput } from '../src/strategies/logic.js';
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

/** Three strategies with constraints, like a real flag with a staged rollout. */
function strategiesFor(name: string, i: number): StrategyInput[] {
  return [
    {
      name: 'flexibleRollout', parameters: { rollout: String(i % 101), stickiness: 'userId', groupId: name },
      constraints: [
        { contextName: 'country', operator: 'IN', values: ['NO', 'SE', 'DK', 'FI', 'IS'] },
        { contextName: 'appVersion', operator: 'SEMVER_GTE', value: '2.1.0' },
      ],
    },
    {
      name: 'userWithId', parameters: { userIds: `user-${i},user-${i + 1},user-${i + 2}` },
      constraints: [{ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com'], caseInsensitive: true }],
    },
    {
      name: 'remoteAddress', parameters: { IPs: '10.0.0.0/8,192.168.1.1' },
      constraints: [{ contextName: 'tier', operator: 'NUM_GTE', value: '3' }, { contextName: 'plan', operator: 'NOT_IN', values: ['free'], inverted: true }],
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Child mode 1: the baseline, a raw node:http server answering fixed buffers.
function runBaseline(): void {
  const identity = fs.readFileSync(process.env.BASELINE_IDENTITY!);
  const gzip = fs.readFileSync(process.env.BASELINE_GZIP!);
  const etag = process.env.BASELINE_ETAG!;
  const server = http.createServer((req, res) => {
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, ['ETag', etag, 'Vary', 'Accept-Encoding', 'X-Content-Type-Options', 'nosniff']);
      res.end();
      return;
    }
    const gz = (req.headers['accept-encoding'] ?? '').includes('gzip');
    const body = gz ? gzip : identity;
    const headers = ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length), 'ETag', etag, 'Vary', 'Accept-Encoding', 'X-Content-Type-Options', 'nosniff'];
    if (gz) headers.push('Content-Encoding', 'gzip');
    res.writeHead(200, headers);
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
}

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

interface Row {
  path: string;
  pipelining: number;
  fanion: Result[];
  baseline: Result[];
  /** Server CPU time per request (µs): less sensitive than req/s to what else the machine runs. */
  fanionCpu: number[];
  baselineCpu: number[];
}

/** user + system CPU time of a process so far, in µs (Linux /proc; clock ticks of 10 ms). */
function cpuMicros(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === 'baseline') return runBaseline();
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
    const plain = await fetch(fanion.url + F, { headers: auth });
    const identity = Buffer.from(await plain.arrayBuffer());
    const etag = plain.headers.get('etag')!;
    let gzip: Buffer | null = null;
    for (let i = 0; i < 100 && !gzip; i++) {
      const r = await fetch(fanion.url + F, { headers: { ...auth, 'accept-encoding': 'gzip' }, decompress: false } as RequestInit);
      const raw = Buffer.from(await r.arrayBuffer());
      if (r.headers.get('content-encoding') === 'gzip') gzip = raw[0] === 0x1f ? raw : null;
      if (!gzip) await new Promise((res) => setTimeout(res, 20));
    }
    if (!gzip) {
      // fetch inflates transparently; take the bytes with a raw request instead.
      gzip = await new Promise<Buffer>((resolve, reject) => {
        http.get(fanion.url + F, { headers: { ...auth, 'accept-encoding': 'gzip' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        }).on('error', reject);
      });
    }
    console.log(`response: ${identity.length} bytes, gzip ${gzip.length} bytes, ETag ${etag}\n`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fanion-bench-'));
    fs.writeFileSync(path.join(dir, 'identity'), identity);
    fs.writeFileSync(path.join(dir, 'gzip'), gzip);
    const { msg, proc: baselineProc } = await child<{ port: number }>('baseline', {
      BASELINE_IDENTITY: path.join(dir, 'identity'), BASELINE_GZIP: path.join(dir, 'gzip'), BASELINE_ETAG: etag,
    });
    const baseline = `http://127.0.0.1:${msg.port}`;
    try {
      const all: { path: string; headers: Record<string, string> }[] = [
        { path: '200', headers: { ...auth } },
        { path: '304', headers: { ...auth, 'if-none-match': etag } },
        { path: 'gzip', headers: { ...auth, 'accept-encoding': 'gzip' } },
      ];
      const cases = all.filter((c) => PATHS.includes(c.path));
      const rows: Row[] = [];
      for (const pipelining of [1, 10]) {
        for (const c of cases) {
          const row: Row = { path: c.path, pipelining, fanion: [], baseline: [], fanionCpu: [], baselineCpu: [] };
          // Warm both up, then alternate which goes first so drift in machine load hits both.
          await autocannon({ url: fanion.url + F, connections: CONNECTIONS, pipelining, duration: 1, headers: c.headers });
          await autocannon({ url: baseline + F, connections: CONNECTIONS, pipelining, duration: 1, headers: c.headers });
          for (let r = 0; r < ROUNDS; r++) {
            const order = r % 2 === 0 ? ['baseline', 'fanion'] : ['fanion', 'baseline'];
            for (const who of order) {
              const pid = (who === 'fanion' ? fanion.proc.pid : baselineProc.pid)!;
              const cpu0 = cpuMicros(pid);
              const res = await autocannon({ url: (who === 'fanion' ? fanion.url : baseline) + F, connections: CONNECTIONS, pipelining, duration: SECONDS, headers: c.headers });
              (who === 'fanion' ? row.fanionCpu : row.baselineCpu).push((cpuMicros(pid) - cpu0) / res.requests.total);
              const want = c.path === '304' ? res['3xx'] : res['2xx'];
              if (res.errors || res.timeouts || want !== res.requests.total) {
                console.warn(`  warning: ${who} ${c.path} -p ${pipelining}: ${res.errors} errors, ${res.timeouts} timeouts, ${res.requests.total - want} unexpected statuses`);
              }
              (who === 'fanion' ? row.fanion : row.baseline).push(res);
            }
          }
          rows.push(row);
          printRow(row);
        }
      }
      console.log('\nsummary (medians over rounds; ratio = median of the per-round fanion/baseline ratios):');
      console.log('path  -p  fanion req/s  baseline req/s  ratio  fanion p50/p99 ms  baseline p50/p99 ms  server CPU µs/req f/b');
      for (const row of rows) printRow(row, true);
    } finally {
      baselineProc.kill();
      fs.rmSync(dir, { recursive: true, force: true });
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

function printRow(row: Row, summary = false): void {
  const rps = (rs: Result[]) => median(rs.map((r) => r.requests.average));
  const lat = (rs: Result[], k: 'p50' | 'p99') => median(rs.map((r) => r.latency[k]));
  const f = rps(row.fanion);
  const b = rps(row.baseline);
  // Each round's pair ran back to back, so its ratio is the least disturbed by load drifting.
  const ratio = median(row.fanion.map((r, i) => r.requests.average / row.baseline[i].requests.average)).toFixed(2);
  const cpu = `${median(row.fanionCpu).toFixed(0)}/${median(row.baselineCpu).toFixed(0)}`;
  if (summary) {
    console.log(`${row.path.padEnd(5)} ${String(row.pipelining).padStart(2)}  ${f.toFixed(0).padStart(12)}  ${b.toFixed(0).padStart(14)}  ${ratio.padStart(5)}  ${`${lat(row.fanion, 'p50')}/${lat(row.fanion, 'p99')}`.padStart(17)}  ${`${lat(row.baseline, 'p50')}/${lat(row.baseline, 'p99')}`.padStart(19)}  ${cpu.padStart(21)}`);
  } else {
    console.log(`${row.path} -p ${row.pipelining}: fanion ${row.fanion.map((r) => r.requests.average.toFixed(0)).join(', ')} req/s; baseline ${row.baseline.map((r) => r.requests.average.toFixed(0)).join(', ')} req/s; ratio ${ratio}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
