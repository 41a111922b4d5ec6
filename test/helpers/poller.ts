// Measures how long a server takes to answer while something else happens to it: a worker
// thread (its own event loop, so the test's own work does not delay the probes) asks each path
// again and again, a few milliseconds apart, and reports every latency (request sent → answer
// headers in). An SDK's poll is conditional, so each path sends back the ETag it last got.
import { Worker } from 'node:worker_threads';

export interface Latencies {
  path: string;
  count: number;
  max: number;
  p50: number;
  p99: number;
  /** Answers other than 200 and 304. */
  failures: number;
  /** For each 200 answer, how many times `countOf` occurs in it (when asked for). */
  counts: number[];
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, paths, gapMs, countOf } = workerData;
let stop = false;
parentPort.on('message', () => { stop = true; });
const results = paths.map((path) => ({ path, samples: [], failures: 0, counts: [] }));
async function loop(r) {
  let etag = null;
  while (!stop) {
    const t0 = performance.now();
    try {
      const res = await fetch(url + r.path, { headers: etag ? { 'if-none-match': etag } : {} });
      r.samples.push(performance.now() - t0);
      if (res.status !== 200 && res.status !== 304) r.failures++;
      etag = res.headers.get('etag') ?? etag;
      const body = await res.text();
      if (countOf && res.status === 200) r.counts.push(body.split(countOf).length - 1);
    } catch {
      r.failures++;
    }
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
}
Promise.all(results.map(loop)).then(() => parentPort.postMessage(results));
`;

function summary(path: string, samples: number[], failures: number, counts: number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
  return { path, count: sorted.length, max: sorted[sorted.length - 1] ?? 0, p50: at(0.5), p99: at(0.99), failures, counts };
}

/**
 * Polls `paths` of `url` every `gapMs` while `during` runs, and a little after. With `countOf`, each
 * 200 answer is searched for it (to see which state an answer was built from).
 */
export async function pollWhile<T>(
  url: string, paths: string[], during: () => Promise<T>, opts: { gapMs?: number; countOf?: string } = {},
): Promise<{ result: T; latencies: Latencies[] }> {
  const worker = new Worker(WORKER, { eval: true, workerData: { url, paths, gapMs: opts.gapMs ?? 5, countOf: opts.countOf ?? null } });
  const done = new Promise<{ path: string; samples: number[]; failures: number; counts: number[] }[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  // Let the probes warm up (connections open, first full answers in) before the work starts.
  await new Promise((resolve) => setTimeout(resolve, 300));
  try {
    const result = await during();
    await new Promise((resolve) => setTimeout(resolve, 300));
    worker.postMessage('stop');
    const raw = await done;
    return { result, latencies: raw.map((r) => summary(r.path, r.samples, r.failures, r.counts)) };
  } finally {
    await worker.terminate();
  }
}

export const showLatencies = (l: Latencies) =>
  `${l.path}: ${l.count} answers, p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, max ${l.max.toFixed(1)} ms${l.failures ? `, ${l.failures} failed` : ''}`;
