// `npm run bench:import-stall`: how long a real server stops answering while it takes a large
// import (issue #26 item 7). A worker thread polls /health and /api/client/features (with the
// ETag, as SDKs do) every 5 ms while:
//   1. a features-batch import of IMPORT_FLAGS flags (default 50,000; one strategy, variants and
//      a tag each, 45 MB of JSON) is accepted;
//   2. the same import again (every flag exists as the document has it: reviewed and compared,
//      one features-imported event);
//   3. a state import of REFUSED_STRATEGIES strategies (default 100,000) is refused because its
//      last strategy names a flag that does not exist.
// For each: the import's own time, p50/p99/max latency of both paths, and the WAL records written
// (one per accepted import, none for the refused one). The machine's load average is printed too:
// on a 2-core machine shared with other work, every figure grows with it.
import os from 'node:os';
import { client, spawnServer } from '../test/helpers/server.js';
import { batchDocument, stateDocument } from '../test/helpers/big-import.js';
import { pollWhile, showLatencies } from '../test/helpers/poller.js';

const FLAGS = Number(process.env.IMPORT_FLAGS ?? 50_000);
const REFUSED = Number(process.env.REFUSED_STRATEGIES ?? 100_000);

const srv = await spawnServer({
  env: { WAL_SYNC: process.env.WAL_SYNC ?? 'always', PROMETHEUS_OPEN: 'true' },
});
try {
  const admin = client(srv.url);
  const walRecords = async () => Number(/^wal_records_total (\d+)/m.exec((await admin('GET', '/internal-backstage/prometheus')).text)?.[1]);
  const post = async (path: string, body: string) => {
    const t0 = performance.now();
    const res = await fetch(srv.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await res.text();
    return { status: res.status, ms: performance.now() - t0, text };
  };
  const paths = ['/health', '/api/client/features'];
  const poll = <T>(during: () => Promise<T>) => pollWhile(srv.url, paths, during);
  const run = async (what: string, path: string, body: string) => {
    const before = await walRecords();
    const { result, latencies } = await poll(() => post(path, body));
    const after = await walRecords();
    const load = os.loadavg()[0].toFixed(1);
    console.log(`${what}: ${(body.length / 2 ** 20).toFixed(1)} MB, status ${result.status} in ${(result.ms / 1000).toFixed(2)} s, ${after - before} WAL record(s), load average ${load}`);
    if (result.status >= 300) console.log(`  answer: ${result.text.slice(0, 200)}`);
    for (const l of latencies) console.log(`  ${showLatencies(l)}`);
  };
  const batch = JSON.stringify({ project: 'default', environment: 'development', data: batchDocument(FLAGS) });
  await run(`features-batch import of ${FLAGS} new flags`, '/api/admin/features-batch/import', batch);
  await run(`the same import again (${FLAGS} existing flags)`, '/api/admin/features-batch/import', batch);
  const refused = JSON.stringify(stateDocument(REFUSED, { refusedAt: REFUSED - 1 }));
  await run(`state import of ${REFUSED} strategies, refused at the last one`, '/api/admin/state/import', refused);
} finally {
  await srv.stop();
}
