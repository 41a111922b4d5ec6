// What the poll benchmarks share: a raw node:http server answering fixed bytes (the baseline, in
// a child process of its own), the bytes a server answers a poll with, and A/B rounds of
// autocannon against both in one run with the server CPU per request, as medians and ratios.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import type { StrategyInput } from '../src/concepts/strategies/logic.js';

/** The baseline's own module: node:http and node:fs, nothing else of the benchmark loaded. */
const BASELINE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'baseline-server.js');

/** Three strategies with constraints, like a real flag with a staged rollout. */
export function strategiesFor(name: string, i: number): StrategyInput[] {
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

/** The answer to copy: the identity body, its gzip, and its ETag. */
export interface PollBytes {
  identity: Buffer;
  gzip: Buffer;
  etag: string;
}


/**
 * Starts the baseline process on `bytes` (with `gzip: null` it never answers gzip), with `headers`
 * after the ETag in every answer (by default the client API's); `stop()` ends it and removes its files.
 */
export async function startBaseline(bytes: { identity: Buffer; gzip: Buffer | null; etag: string }, headers?: string[]): Promise<{ url: string; proc: ChildProcess; stop(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fanion-bench-'));
  const env: Record<string, string> = { BASELINE_IDENTITY: path.join(dir, 'identity'), BASELINE_ETAG: bytes.etag };
  fs.writeFileSync(env.BASELINE_IDENTITY, bytes.identity);
  if (bytes.gzip) {
    env.BASELINE_GZIP = path.join(dir, 'gzip');
    fs.writeFileSync(env.BASELINE_GZIP, bytes.gzip);
  }
  if (headers) env.BASELINE_HEADERS = JSON.stringify(headers);
  const proc = fork(BASELINE, [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (msg) => resolve((msg as { port: number }).port));
    proc.once('exit', (code) => reject(new Error(`the baseline exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    proc,
    stop() {
      proc.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What a server answers `path` with: identity bytes, ETag, and the gzip copy once it is built. */
export async function pollBytes(url: string, headers: Record<string, string>): Promise<PollBytes> {
  const plain = await fetch(url, { headers });
  const identity = Buffer.from(await plain.arrayBuffer());
  const etag = plain.headers.get('etag')!;
  // fetch inflates transparently: the gzip bytes come through a raw request, once built (in the background).
  const raw = () => new Promise<{ gz: boolean; body: Buffer }>((resolve, reject) => {
    http.get(url, { headers: { ...headers, 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ gz: res.headers['content-encoding'] === 'gzip', body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
  for (let i = 0; i < 100; i++) {
    const r = await raw();
    if (r.gz) return { identity, gzip: r.body, etag };
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error('no gzip answer within 2 s');
}

export interface Row {
  path: string;
  pipelining: number;
  fanion: Result[];
  baseline: Result[];
  /** Server CPU time per request (µs): less sensitive than req/s to what else the machine runs. */
  fanionCpu: number[];
  baselineCpu: number[];
}

/** user + system CPU time of a process so far, in µs (Linux /proc; clock ticks of 10 ms). */
export function cpuMicros(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export interface AbOptions {
  /** The server measured and the baseline, each with the process whose CPU is read. */
  fanion: { url: string; pid: number };
  baseline: { url: string; pid: number };
  path: string;
  cases: { path: string; headers: Record<string, string> }[];
  pipelinings: number[];
  rounds: number;
  seconds: number;
  connections: number;
}

/**
 * Pins every thread of `pid` to the CPUs in `cpus` (taskset's list form); false where it cannot
 * (no taskset, one CPU, not Linux). BENCH_PIN=0 turns it off.
 */
export function pin(pid: number, cpus: string): boolean {
  if (process.env.BENCH_PIN === '0' || os.cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Alternating A/B rounds per case and pipelining depth; each row is printed as it ends.
 * On two or more CPUs the load generator (this process) runs on CPU 0 and the server measured on
 * CPU 1, the same CPU for both servers: on a 2-core machine, letting the scheduler move the
 * server, autocannon and their helper threads around made rounds of the same server differ by
 * up to a third, which drowned a few per cent of difference between the two.
 */
export async function abRounds(o: AbOptions): Promise<Row[]> {
  const rows: Row[] = [];
  const all = `0-${os.cpus().length - 1}`;
  const pinned = pin(process.pid, '0') && pin(o.fanion.pid, '1') && pin(o.baseline.pid, '1');
  if (pinned) console.log('   (load generator on CPU 0, the server measured on CPU 1)');
  try {
    return await abRoundsOn(o, rows);
  } finally {
    if (pinned) for (const pid of [process.pid, o.fanion.pid, o.baseline.pid]) pin(pid, all);
  }
}

async function abRoundsOn(o: AbOptions, rows: Row[]): Promise<Row[]> {
  for (const pipelining of o.pipelinings) {
    for (const c of o.cases) {
      const row: Row = { path: c.path, pipelining, fanion: [], baseline: [], fanionCpu: [], baselineCpu: [] };
      // Warm both up, then alternate which goes first so drift in machine load hits both.
      await autocannon({ url: o.fanion.url + o.path, connections: o.connections, pipelining, duration: 1, headers: c.headers });
      await autocannon({ url: o.baseline.url + o.path, connections: o.connections, pipelining, duration: 1, headers: c.headers });
      for (let r = 0; r < o.rounds; r++) {
        const order = r % 2 === 0 ? (['baseline', 'fanion'] as const) : (['fanion', 'baseline'] as const);
        for (const who of order) {
          const target = o[who];
          const cpu0 = cpuMicros(target.pid);
          const res = await autocannon({ url: target.url + o.path, connections: o.connections, pipelining, duration: o.seconds, headers: c.headers });
          (who === 'fanion' ? row.fanionCpu : row.baselineCpu).push((cpuMicros(target.pid) - cpu0) / res.requests.total);
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
  return rows;
}

/** Each round's fanion/baseline ratio of requests per second (each round's pair ran back to back). */
function roundRatios(row: Row): number[] {
  return row.fanion.map((r, i) => r.requests.average / row.baseline[i].requests.average);
}

/** The median of the per-round fanion/baseline ratios. */
export function ratioOf(row: Row): number {
  return median(roundRatios(row));
}

/**
 * The middle half of the rounds' ratios (first to third quartile): on a shared machine one run's
 * median moves by several per cent, and this says by how much the rounds of this run disagreed.
 */
export function ratioSpread(row: Row): [number, number] {
  const s = roundRatios(row).sort((a, b) => a - b);
  const at = (q: number) => s[Math.round(q * (s.length - 1))];
  return [at(0.25), at(0.75)];
}

export const SUMMARY_HEADER = 'path  -p  fanion req/s  baseline req/s  ratio  middle half  fanion p50/p99 ms  baseline p50/p99 ms  server CPU µs/req f/b';

export function printRow(row: Row, summary = false): void {
  const rps = (rs: Result[]) => median(rs.map((r) => r.requests.average));
  const lat = (rs: Result[], k: 'p50' | 'p99') => median(rs.map((r) => r.latency[k]));
  const f = rps(row.fanion);
  const b = rps(row.baseline);
  const ratio = ratioOf(row).toFixed(2);
  const spread = ratioSpread(row).map((x) => x.toFixed(2)).join('–');
  const cpu = `${median(row.fanionCpu).toFixed(0)}/${median(row.baselineCpu).toFixed(0)}`;
  if (summary) {
    console.log(`${row.path.padEnd(5)} ${String(row.pipelining).padStart(2)}  ${f.toFixed(0).padStart(12)}  ${b.toFixed(0).padStart(14)}  ${ratio.padStart(5)}  ${spread.padStart(11)}  ${`${lat(row.fanion, 'p50')}/${lat(row.fanion, 'p99')}`.padStart(17)}  ${`${lat(row.baseline, 'p50')}/${lat(row.baseline, 'p99')}`.padStart(19)}  ${cpu.padStart(21)}`);
  } else {
    console.log(`${row.path} -p ${row.pipelining}: fanion ${row.fanion.map((r) => r.requests.average.toFixed(0)).join(', ')} req/s; baseline ${row.baseline.map((r) => r.requests.average.toFixed(0)).join(', ')} req/s; ratio ${ratio} (middle half of the rounds ${spread})`);
  }
}
