// Issue #26 item 7, against a real server: a large import no longer blocks every other request.
// While a features-batch import of 20,000 flags (one strategy, variants and a tag each; the bench,
// `npm run bench:import-stall`, uses 50,000) and then large refused imports are taken, a worker
// thread polls /health and /api/client/features every 5 ms. Before, the server answered nothing
// for the whole import (50,000 flags: 4.3 s); now it answers between slices of the work. The
// import is still one WAL record, all or nothing, and a poll sees all of it or none of it.
import t from 'tap';
import { client, spawnServer } from '../../helpers/server.js';
import { batchDocument, stateDocument } from '../../helpers/big-import.js';
import { pollWhile, showLatencies, type Latencies } from '../../helpers/poller.js';

const FLAGS = 20_000;
const PATHS = ['/health', '/api/client/features'];

t.test('a 20,000-flag import, accepted or refused, leaves /health and polls answering', async (t) => {
  const srv = await spawnServer({ env: { PROMETHEUS_OPEN: 'true' } });
  t.teardown(() => srv.stop());
  const api = client(srv.url);
  const walRecords = async () => Number(/^wal_records_total (\d+)/m.exec((await api('GET', '/internal-backstage/prometheus')).text)?.[1]);
  const flags = async () => (await api('GET', '/api/admin/projects/default/features')).json.features.length as number;
  const post = async (path: string, body: string) => {
    const started = performance.now();
    const res = await fetch(srv.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: res.status, json: (await res.json().catch(() => null)) as any, ms: performance.now() - started };
  };
  /**
   * The longest any probe waited must be a small part of the import's own time: before, a probe
   * sent during the import waited for all of it. A ratio rather than a fixed bound, so a loaded
   * machine (slower import, slower probes) does not make it fail; the figures are printed.
   */
  const answeredThroughout = (what: string, ms: number, latencies: Latencies[]) => {
    for (const l of latencies) {
      t.comment(`${what}: import ${ms.toFixed(0)} ms; ${showLatencies(l)}`);
      t.equal(l.failures, 0, `${l.path}: every probe answered`);
      t.ok(l.max < ms / 4, `${l.path}: the longest wait (${l.max.toFixed(0)} ms) is under a quarter of the import (${ms.toFixed(0)} ms)`);
      t.ok(l.p99 < 500, `${l.path}: p99 ${l.p99.toFixed(0)} ms < 500 ms (about 100 ms on an idle 2-core machine)`);
    }
  };
  const body = JSON.stringify({ project: 'default', environment: 'development', data: batchDocument(FLAGS) });

  await t.test('refused at its last flag (a strategy type that does not exist): nothing changes', async (t) => {
    const doc = JSON.parse(body);
    doc.data.featureStrategies[FLAGS - 1].name = 'no-such-strategy-type';
    const before = await walRecords();
    const { result, latencies } = await pollWhile(srv.url, PATHS, () => post('/api/admin/features-batch/import', JSON.stringify(doc)));
    t.equal(result.status, 400);
    t.match(result.json?.message, /no-such-strategy-type/);
    answeredThroughout('refused features-batch import', result.ms, latencies);
    t.equal(await walRecords(), before, 'no WAL record');
    t.equal(await flags(), 0, 'no flag');
  });

  await t.test('refused state import of 100,000 strategies (the last one names a missing flag): nothing changes', async (t) => {
    const before = await walRecords();
    const doc = JSON.stringify(stateDocument(100_000, { refusedAt: 99_999 }));
    const { result, latencies } = await pollWhile(srv.url, PATHS, () => post('/api/admin/state/import', doc));
    t.equal(result.status, 400);
    t.equal(result.json?.details?.[0]?.path, 'featureStrategies[99999].featureName');
    answeredThroughout('refused state import', result.ms, latencies);
    t.equal(await walRecords(), before, 'no WAL record');
    t.equal(await flags(), 0, 'no flag');
  });

  await t.test('accepted: one WAL record, and polls see none of it or all of it', async (t) => {
    const before = await walRecords();
    const { result, latencies } = await pollWhile(srv.url, PATHS, () => post('/api/admin/features-batch/import', body), { countOf: '"name":"imported-flag-' });
    t.equal(result.status, 200);
    answeredThroughout('accepted features-batch import', result.ms, latencies);
    t.equal(await walRecords(), before + 1, 'one WAL record');
    t.equal(await flags(), FLAGS, 'every flag');
    const seen = new Set(latencies.find((l) => l.path === '/api/client/features')!.counts);
    t.ok([...seen].every((n) => n === 0 || n === FLAGS), `each full answer had 0 or ${FLAGS} imported flags (saw ${[...seen].join(', ')})`);
    t.ok(seen.has(FLAGS), 'and the last ones had all of them');
    const served = await client(srv.url)('GET', '/api/client/features');
    t.equal(served.json.features.length, FLAGS, 'the client API serves them as soon as the import answered');
  });
});
