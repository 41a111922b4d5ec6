// Impact metrics on a cluster (real node processes on one PostgreSQL): what any node received
// counts on every node, including two nodes flushing the same series at once (the second
// flush is computed again against the first one's result, so neither increase is lost).
import t from 'tap';
import { clusterFor } from '../../helpers/cluster.js';
import { client } from '../../helpers/server.js';

const ADMIN = '*:*.impact-cluster-admin';
const CLIENT = 'default:development.impact-cluster-client';
const TS = '2026-11-28T10:00:00.000Z';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a series posted to one node is visible from the others, increases from several nodes add up', async (t) => {
  const cluster = await clusterFor(t, { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '200' });
  if (!cluster) return;
  const nodes = [await cluster.node(), await cluster.node()];
  const admin = nodes.map((n) => client(n.url, { authorization: ADMIN }));
  const sdk = nodes.map((n) => client(n.url, { authorization: CLIENT }));
  const post = (n: number, value: number) =>
    sdk[n]('POST', '/api/client/metrics', {
      appName: 'shop', instanceId: `i${n}`, bucket: { start: TS, stop: TS, toggles: {} },
      impactMetrics: [{ name: 'orders', help: 'Orders', type: 'counter', samples: [{ labels: { appName: 'shop' }, value }] }],
    });
  const total = async (n: number) => /^orders\{[^}]*\} (\d+)$/m.exec((await admin[n]('GET', '/internal-backstage/impact/metrics')).text)?.[1] ?? null;
  const untilTotal = async (want: string) => {
    const end = Date.now() + 10_000;
    let seen = await Promise.all([0, 1].map(total));
    while (seen.some((x) => x !== want) && Date.now() < end) {
      await sleep(100);
      seen = await Promise.all([0, 1].map(total));
    }
    return seen;
  };

  t.equal((await post(0, 3)).status, 202);
  t.same(await untilTotal('3'), ['3', '3'], 'posted to node 0, seen on both');
  // Both nodes take an increase of the same series in the same flush interval.
  t.same((await Promise.all([post(0, 4), post(1, 5)])).map((r) => r.status), [202, 202]);
  t.same(await untilTotal('12'), ['12', '12'], 'both increases count on both nodes');
  for (const n of [0, 1]) {
    const series = (await admin[n]('GET', '/api/admin/impact-metrics?metricName=orders&range=hour&aggregationMode=count')).json;
    t.equal(series.series[0].data.reduce((s: number, [, v]: [number, number]) => s + v, 0), 12, `node ${n} answers the same series`);
  }
});
