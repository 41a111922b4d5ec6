// Event search at scale: writes a data folder whose WAL holds EVENTS events (default 1,000,000,
// one per record, like real mutations), starts the real server on it, and times searches over
// HTTP on loopback. Reports replay time, search latencies and the server's resident memory.
//   npm run bench:events                 (EVENTS=200000 npm run bench:events for a quick run)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultOps } from '../src/core/state/defaults.js';
import type { Op } from '../src/core/state/ops.js';
import type { EventRecord } from '../src/core/state/types.js';
import { frame } from '../src/core/log/wal/frame.js';
import { encodeRecord } from '../src/core/log/record.js';
import { storeEvent } from '../src/core/state/events/stored.js';
import { segmentName } from '../src/core/log/wal/scan.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EVENTS = Number(process.env.EVENTS ?? 1_000_000);
const FLAGS = 20_000;
const PROJECTS = 10;
const SEGMENT_BYTES = 64 * 1024 * 1024;
const RUNS = 20;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const projectOf = (flag: number) => `project-${flag % PROJECTS}`;
const flagName = (flag: number) => `flag-${flag}`;

function metadata(flag: number, stale: boolean) {
  return {
    name: flagName(flag), description: `Flag number ${flag} for the checkout team`, type: 'release', project: projectOf(flag),
    stale, impressionData: false, archived: false, createdAt: '2026-01-01T00:00:00.000Z', lastSeenAt: null,
  };
}

function strategy(r: () => number, flag: number) {
  return {
    id: `${Math.floor(r() * 1e8).toString(16).padStart(8, '0')}-4c1e-4b7a-9d2e-${flag.toString(16).padStart(12, '0')}`,
    name: 'flexibleRollout', title: null, disabled: false, featureName: flagName(flag), sortOrder: 0, segments: [],
    constraints: r() < 0.5 ? [] : [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE', 'DK'], caseInsensitive: false, inverted: false }],
    parameters: { rollout: String(Math.floor(r() * 101)), stickiness: 'default', groupId: flagName(flag) },
    variants: [],
  };
}

/** A mix resembling a busy server: strategy edits dominate, then on/off and metadata. */
function makeEvent(r: () => number, id: number, at: number): EventRecord {
  const flag = Math.floor(r() * FLAGS);
  const environment = r() < 0.5 ? 'development' : 'production';
  const base = {
    id, createdAt: new Date(at).toISOString(), createdBy: ['admin', 'alice@example.com', 'deploy-bot'][Math.floor(r() * 3)], createdByUserId: null,
    environment: null as string | null, project: projectOf(flag), featureName: flagName(flag), data: null as unknown, preData: null as unknown, tags: null,
  };
  const x = r();
  if (x < 0.3) return { ...base, type: 'feature-strategy-add', environment, data: strategy(r, flag) };
  if (x < 0.5) return { ...base, type: 'feature-strategy-update', environment, data: strategy(r, flag), preData: strategy(r, flag) };
  if (x < 0.6) return { ...base, type: 'feature-strategy-remove', environment, preData: strategy(r, flag) };
  if (x < 0.75) return { ...base, type: r() < 0.5 ? 'feature-environment-enabled' : 'feature-environment-disabled', environment };
  if (x < 0.9) return { ...base, type: 'feature-metadata-updated', data: metadata(flag, true), preData: metadata(flag, false) };
  if (x < 0.999) return { ...base, type: 'feature-created', data: metadata(flag, false) };
  return { ...base, type: 'segment-created', project: null, featureName: null, data: { id: id % 300, name: `segment-${id}`, constraints: [] } };
}

export function writeWal(dir: string): { bytes: number; ms: number } {
  const started = performance.now();
  const r = rng(1);
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');
  const first: Op[] = [...defaultOps(new Date(t0).toISOString())];
  for (let p = 0; p < PROJECTS; p++) {
    first.push({ o: 'project.put', project: { id: projectOf(p), name: `Project ${p}`, description: null, mode: 'open', defaultStickiness: 'default', createdAt: new Date(t0).toISOString(), updatedAt: null } });
  }
  for (let f = 0; f < FLAGS; f++) {
    first.push({ o: 'feature.put', feature: { name: flagName(f), project: projectOf(f), type: 'release', description: null, impressionData: false, stale: false, archived: false, archivedAt: null, createdAt: new Date(t0).toISOString(), lastSeenAt: null, dependencies: [] } });
  }
  let lsn = 1;
  let segment: Buffer[] = [];
  let segmentSize = 0;
  let segmentFirst = 1;
  let total = 0;
  const flush = () => {
    if (segment.length === 0) return;
    fs.writeFileSync(path.join(dir, segmentName(segmentFirst)), Buffer.concat(segment));
    total += segmentSize;
    segment = [];
    segmentSize = 0;
  };
  const add = (ops: Op[], events: EventRecord[]) => {
    if (segmentSize >= SEGMENT_BYTES) {
      flush();
      segmentFirst = lsn;
    }
    const bytes = frame(encodeRecord({ lsn: lsn++, ops, events: events.map(storeEvent) }));
    segment.push(bytes);
    segmentSize += bytes.length;
  };
  add(first, []);
  for (let id = 1; id <= EVENTS; id++) add([], [makeEvent(r, id, t0 + id * 1000)]);
  flush();
  return { bytes: total, ms: performance.now() - started };
}

function rssOf(pid: number): { rssMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fanion-bench-events-'));
  console.log(`writing ${EVENTS.toLocaleString('en')} events into ${dir} …`);
  const wal = writeWal(dir);
  console.log(`WAL: ${(wal.bytes / 1e6).toFixed(0)} MB in ${(wal.ms / 1000).toFixed(1)} s`);

  const started = performance.now();
  const proc = spawn(process.execPath, [path.join(ROOT, 'dist/src/entry/main.js')], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, WAL_SYNC: 'none', AUTH_TYPE: 'none', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /"port":(\d+)[^\n]*Fanion listening/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${out}`)));
  });
  const startMs = performance.now() - started;
  console.log(`server up after ${(startMs / 1000).toFixed(1)} s (replay of ${EVENTS.toLocaleString('en')} records); memory ${JSON.stringify(rssOf(proc.pid!))}`);

  const url = `http://127.0.0.1:${port}/api/admin/events/search`;
  const search = async (body: unknown) => {
    const t = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as { totalEvents: number; events: unknown[] };
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(json)}`);
    const timing = res.headers.get('server-timing') ?? '';
    const dur = (name: string) => Number(new RegExp(`${name};dur=([\\d.]+)`).exec(timing)?.[1] ?? NaN);
    return { ms: performance.now() - t, searchMs: dur('search'), cpuMs: dur('cpu'), total: json.totalEvents, n: json.events.length };
  };

  // Free-text results are cached per query string (for paging), so every run of a query case
  // uses a different string: a different flag, or another upper/lower-case spelling.
  const spelling = (word: string, i: number) => [...word].map((c, k) => ((i >> k) & 1 ? c.toUpperCase() : c)).join('');
  const cases: [string, (i: number) => unknown][] = [
    ['newest 100, no filter', () => ({})],
    ['type (30% of the log)', () => ({ type: 'feature-strategy-add' })],
    ['type (0.1% of the log)', () => ({ type: 'segment-created' })],
    ['project (10%)', () => ({ project: 'project-3' })],
    ['feature (~50 events)', (i) => ({ feature: `flag-${12000 + i}` })],
    ['type + project', () => ({ type: 'feature-metadata-updated', project: 'project-7' })],
    ['type + project + feature', (i) => ({ type: 'feature-strategy-update', project: `project-${i % 10}`, feature: `flag-${4440 + i}` })],
    ['type, deep offset', (i) => ({ type: 'feature-strategy-add', offset: Math.floor(EVENTS / 2) + i })],
    ['query, rare (a flag name)', (i) => ({ query: `flag-${12300 + i}"` })],
    ['query, dense ("rollout")', (i) => ({ query: spelling('rollout', i) })],
    ['query, no match', (i) => ({ query: `no-such-text-${i}` })],
    ['query on createdBy', (i) => ({ query: spelling('alice@', i) })],
    ['query + project', (i) => ({ query: spelling('country', i), project: `project-${i % 10}` })],
    ['query + feature', (i) => ({ query: spelling('country', i), feature: `flag-${700 + i}` })],
    ['query, paging (same query, next pages)', (i) => ({ query: 'stickiness', offset: EVENTS - i * 100 })],
  ];
  console.log(`\n| search | HTTP median ms | HTTP p95 ms | in-server median ms | in-server CPU median ms | totalEvents |\n|---|---|---|---|---|---|`);
  const results: Record<string, unknown> = {};
  for (const [label, body] of cases) {
    await search(body(RUNS)); // warm-up, with a body the runs do not use
    const times: number[] = [];
    const inServer: number[] = [];
    const cpu: number[] = [];
    let total = 0;
    for (let i = 0; i < RUNS; i++) {
      const r = await search(body(i));
      times.push(r.ms);
      inServer.push(r.searchMs);
      cpu.push(r.cpuMs);
      total = r.total;
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(RUNS / 2)];
    const median = med(times);
    const p95 = [...times].sort((a, b) => a - b)[Math.floor(RUNS * 0.95)];
    results[label] = { median, p95, searchMedian: med(inServer), cpuMedian: med(cpu), total };
    console.log(`| ${label} | ${median.toFixed(1)} | ${p95.toFixed(1)} | ${med(inServer).toFixed(1)} | ${med(cpu).toFixed(1)} | ${total.toLocaleString('en')} |`);
  }
  const mem = rssOf(proc.pid!);
  console.log(`\nserver memory after the searches: RSS ${mem.rssMb} MB (peak ${mem.peakMb} MB)`);
  proc.kill('SIGTERM');
  await new Promise((resolve) => proc.once('exit', resolve));
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`load average during the run: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (${os.cpus().length} cores)`);
  console.log(JSON.stringify({ events: EVENTS, walMb: Math.round(wal.bytes / 1e6), startMs: Math.round(startMs), ...mem, results }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
