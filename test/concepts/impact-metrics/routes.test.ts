// Impact metrics against a real server process: taken from every door that takes SDK metrics, a
// bad entry never costing the body's flag counts; kept as series answered by the admin routes and
// shown as Prometheus text; kept across a restart; bounded under a flood of label values.
import t from 'tap';
import { rssOf } from '../../helpers/hostile.js';
import { client, serve, spawnServer, succeeding, tempDataDir } from '../../helpers/server.js';
import { syncedSdk } from '../../helpers/unleash-sdk.js';

const ADMIN = '*:*.impact-admin';
const CLIENT = 'default:development.impact-client';
const FRONTEND = 'default:development.impact-frontend';
const TS = '2026-11-28T10:00:00.000Z';
const env = (extra: Record<string, string> = {}) => ({
  AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, INIT_FRONTEND_API_TOKENS: FRONTEND, METRICS_FLUSH_MS: '100', ...extra,
});
const counter = (name: string, value: number, labels: Record<string, string> = {}) => ({ name, help: `${name} help`, type: 'counter', samples: [{ labels, value }] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `read` until `done` holds of its answer (within `ms`), returning the last answer. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  let v = await read();
  while (!done(v) && Date.now() < end) {
    await sleep(50);
    v = await read();
  }
  return v;
}

t.test('every door takes impact metrics; a bad entry costs only itself, never the flag counts', async (t) => {
  const { api, ok } = await serve(t, { authorization: ADMIN, env: env() });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  const bad = [{ name: 'no-type', samples: [] }, 'not an entry', { name: 'neg', help: '', type: 'counter', samples: [{ value: -1 }] }, { name: 'h', help: '', type: 'histogram', samples: [{ count: 1 }] }];
  const toggles = { checkout: { yes: 1, no: 0, variants: {} } };
  const bucket = { start: TS, stop: TS, toggles };

  const direct = await api('POST', '/api/client/metrics', { appName: 'shop', instanceId: 'i1', bucket, impactMetrics: [...bad, counter('orders', 2, { door: 'client' })] }, { authorization: CLIENT });
  t.equal(direct.status, 202, 'the client route answers 202');
  const bulk = await api('POST', '/api/client/metrics/bulk', {
    applications: [], metrics: [{ featureName: 'checkout', appName: 'shop', environment: 'development', timestamp: TS, yes: 1, no: 0, variants: {} }],
    impactMetrics: [...bad, counter('orders', 3, { door: 'bulk' })],
  }, { authorization: CLIENT });
  t.equal(bulk.status, 202, 'the bulk route answers 202 (it answered 400 for the whole body before)');
  const browser = await api('POST', '/api/frontend/client/metrics', { appName: 'shop', instanceId: 'b1', bucket, impactMetrics: [...bad, counter('orders', 4, { door: 'frontend' })] }, { authorization: FRONTEND });
  t.equal(browser.status, 200, 'the frontend route answers 200');
  const notAList = await api('POST', '/api/client/metrics', { appName: 'shop', instanceId: 'i1', bucket, impactMetrics: { what: 'not a list' } }, { authorization: CLIENT });
  t.equal(notAList.status, 202, 'impactMetrics that is not a list is skipped, the body still taken');

  const app = await until(() => ok('GET', '/api/admin/metrics/applications/shop'), (a) => a.toggles?.[0]?.yes === 4);
  t.equal(app.toggles[0].yes, 4, 'every body\'s flag counts were kept (2 client posts, bulk, frontend)');
  const text = await until(async () => (await api('GET', '/internal-backstage/impact/metrics')).text, (x) => (x.match(/^orders\{/gm) ?? []).length === 3);
  for (const [door, n] of [['client', 2], ['bulk', 3], ['frontend', 4]] as const) {
    t.match(text, new RegExp(`^orders\\{origin="sdk",metric_type="counter",door="${door}"\\} ${n}$`, 'm'), `the good entry through ${door} is kept`);
  }
  t.notMatch(text, /no_type|^neg|^h_/m, 'the bad entries are not');
});

t.test('the official Node SDK: Prometheus text, the admin series and metadata; parameters checked', async (t) => {
  const { srv, api, ok } = await serve(t, { authorization: ADMIN, env: env() });
  const sdk = await syncedSdk(t, srv.url, { token: CLIENT, metricsInterval: 100, appName: 'impact-app' });
  sdk.impactMetrics.defineCounter('checkout.errors', 'Failed checkouts');
  sdk.impactMetrics.defineHistogram('checkout_seconds', 'Checkout time', [0.5, 1, 5]);
  sdk.impactMetrics.incrementCounter('checkout.errors', 4);
  for (const s of [0.2, 0.7, 3]) sdk.impactMetrics.observeHistogram('checkout_seconds', s);
  const text = await until(async () => (await api('GET', '/internal-backstage/impact/metrics')).text, (x) => /checkout_seconds_count\{[^}]*appName="impact-app"[^}]*\} 3/.test(x));
  t.match(text, /^checkout_errors\{origin="sdk",metric_type="counter",appName="impact-app",environment="[^"]+"\} 4$/m, 'the counter, its name sanitized');
  t.match(text, /^checkout_seconds_bucket\{appName="impact-app",environment="[^"]+",metric_type="histogram",origin="sdk",le="\+Inf"\} 3$/m);
  sdk.impactMetrics.incrementCounter('checkout.errors', 6);
  await until(async () => (await api('GET', '/internal-backstage/impact/metrics')).text, (x) => /checkout_errors\{[^}]*appName[^}]*\} 10$/m.test(x));

  const meta = await ok('GET', '/api/admin/impact-metrics/metadata');
  t.same(meta.metrics.map((m: any) => [m.name, m.type]), [['checkout_errors', 'counter'], ['checkout_seconds', 'histogram']]);
  const series = await ok('GET', `/api/admin/impact-metrics/?metricName=checkout_errors&range=hour&aggregationMode=count&labels=${encodeURIComponent(JSON.stringify({ appName: ['impact-app'] }))}`);
  t.equal(series.step, '60s');
  t.same(series.series.map((s: any) => s.metric), [{ appName: 'impact-app' }]);
  t.equal(series.series[0].data.reduce((n: number, [, v]: [number, number]) => n + v, 0), 10, 'the increases over the hour add up to what the SDK counted');
  t.same(series.labels.appName, ['impact-app']);
  const p = await ok('GET', '/api/admin/impact-metrics?metricName=checkout_seconds&range=day&aggregationMode=p50');
  t.equal(p.step, '600s');
  t.ok(p.series[0].data[0][1] > 0.5 && p.series[0].data[0][1] <= 1, 'p50 of 0.2, 0.7, 3 lies in the 0.5–1 bucket');

  for (const [q, field] of [['range=year&metricName=x', 'range'], ['aggregationMode=max&metricName=x', 'aggregationMode'], ['labels=%7Bnope&metricName=x', 'labels'], ['range=hour', 'metricName']]) {
    const res = await api('GET', `/api/admin/impact-metrics?${q}`);
    t.equal(res.status, 400, `${q}: 400`);
    t.match(res.json, { id: String, name: 'ValidationError', message: new RegExp(field) });
  }
  t.equal((await api('GET', '/internal-backstage/impact/metrics', undefined, { authorization: CLIENT })).status, 403, 'a client token may not read them');
  const poll = await api('GET', '/api/client/features', undefined, { authorization: CLIENT });
  t.notMatch(poll.text, /impact|checkout_errors/, 'nothing of them reaches the SDK poll');
});

t.test('kept across a restart of the embedded server', async (t) => {
  const dataDir = tempDataDir();
  let srv = await spawnServer({ dataDir, env: env() });
  const api = () => client(srv.url, { authorization: ADMIN });
  const ok = succeeding(api);
  await api()('POST', '/api/client/metrics', { appName: 'shop', instanceId: 'i1', bucket: { start: TS, stop: TS, toggles: {} }, impactMetrics: [counter('orders', 5, { appName: 'shop' })] }, { authorization: CLIENT });
  await until(async () => (await api()('GET', '/internal-backstage/impact/metrics')).text, (x) => /orders\{.*\} 5/.test(x));
  t.equal(await srv.stop(), 0);
  srv = await spawnServer({ dataDir, env: env() });
  t.teardown(() => srv.stop());
  t.match((await api()('GET', '/internal-backstage/impact/metrics')).text, /^orders\{origin="sdk",metric_type="counter",appName="shop"\} 5$/m, 'the total is back');
  const series = await ok('GET', '/api/admin/impact-metrics?metricName=orders&aggregationMode=count');
  t.equal(series.series[0].data.reduce((n: number, [, v]: [number, number]) => n + v, 0), 5, 'and its history');
  await api()('POST', '/api/client/metrics', { appName: 'shop', instanceId: 'i1', bucket: { start: TS, stop: TS, toggles: {} }, impactMetrics: [counter('orders', 2, { appName: 'shop' })] }, { authorization: CLIENT });
  const text = await until(async () => (await api()('GET', '/internal-backstage/impact/metrics')).text, (x) => /orders\{.*\} 7/.test(x));
  t.match(text, /^orders\{[^}]*\} 7$/m, 'counting goes on from it');
});

t.test('a flood of label values stays within IMPACT_METRICS_MAX_BYTES', async (t) => {
  const budget = 2 * 1024 * 1024;
  const { srv, api } = await serve(t, { authorization: ADMIN, env: env({ IMPACT_METRICS_MAX_BYTES: String(budget) }) });
  const post = (impactMetrics: unknown[]) => api('POST', '/api/client/metrics', { appName: 'flood', instanceId: 'f', bucket: { start: TS, stop: TS, toggles: {} }, impactMetrics }, { authorization: CLIENT });
  t.equal((await post([counter('legit', 1, { appName: 'flood' })])).status, 202);
  await until(async () => (await api('GET', '/internal-backstage/impact/metrics')).text, (x) => /^legit\{/m.test(x));
  const rssBefore = rssOf(srv.proc.pid!);
  // 100 posts of 1,000 series each, every label value new, each of 255 characters.
  const statuses = new Set<number>();
  for (let p = 0; p < 100; p++) {
    const entry = { name: 'flood', help: 'x', type: 'counter', samples: Array.from({ length: 1000 }, (_, i) => ({ labels: { user: `${p}-${i}-`.padEnd(255, 'x') }, value: 1 })) };
    statuses.add((await post([entry])).status);
  }
  t.same([...statuses], [202], 'every flood post is taken (what does not fit is refused inside)');
  await sleep(300);
  t.equal((await post([counter('legit', 1, { appName: 'flood' })])).status, 202);
  const text = await until(async () => (await api('GET', '/internal-backstage/impact/metrics')).text, (x) => /^legit\{[^}]*\} 2$/m.test(x));
  const kept = (text.match(/^flood\{/gm) ?? []).length;
  const rssAfter = rssOf(srv.proc.pid!);
  t.ok(kept > 0 && kept < 200, `a bounded number of the 100,000 flood series is kept (${kept})`);
  t.match(text, /^legit\{[^}]*\} 2$/m, 'a series kept before the flood goes on counting');
  t.comment(`rss before the flood ${(rssBefore / 2 ** 20).toFixed(1)} MiB, after ${(rssAfter / 2 ** 20).toFixed(1)} MiB, ${kept} flood series kept within ${budget / 2 ** 20} MiB`);
  t.ok(rssAfter - rssBefore < 64 * 2 ** 20, 'the process grew by less than 64 MiB under 100,000 label values of 255 characters');
});

t.test('saved charts: the impact metrics page\'s and a flag\'s, kept in the log, checked and scoped', async (t) => {
  const dataDir = tempDataDir();
  let srv = await spawnServer({ dataDir, env: env() });
  const api = () => client(srv.url, { authorization: ADMIN });
  const ok = succeeding(api);
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  const FLAG = '/api/admin/projects/default/features/checkout/impact-metrics/config';
  const chart = { metricName: 'checkout_errors', timeRange: 'day', yAxisMin: 'zero', aggregationMode: 'rps', labelSelectors: { appName: ['shop'] }, title: 'Errors', source: 'internal' };
  const page = await ok('POST', '/api/admin/impact-metrics/config', chart);
  t.match(page, { id: String, metricName: 'checkout_errors', feature: null, title: 'Errors' });
  t.notOk('source' in page, 'fields of the console\'s own are not kept');
  const mine = await ok('POST', FLAG, { ...chart, feature: 'checkout', timeRange: 'hour' });
  t.equal(mine.feature, 'checkout');
  t.same((await ok('GET', '/api/admin/impact-metrics/config')).configs.map((c: any) => c.id), [page.id], 'the page lists its own chart only');
  t.same((await ok('GET', FLAG)).configs.map((c: any) => c.id), [mine.id], "and the flag's page its own");
  const edited = await ok('POST', FLAG, { ...chart, id: mine.id, aggregationMode: 'count' });
  t.same([edited.id, edited.aggregationMode, edited.createdAt], [mine.id, 'count', mine.createdAt], 'saved again under its id');

  const bad = await api()('POST', FLAG, { ...chart, timeRange: 'year' });
  t.match(bad, { status: 400, json: { name: 'ValidationError', message: /timeRange/ } });
  t.equal((await api()('POST', FLAG, { ...chart, id: page.id })).status, 404, "the page's chart cannot be saved as the flag's");
  t.equal((await api()('GET', '/api/admin/projects/default/features/nope/impact-metrics/config')).status, 404, 'an unknown flag: 404');
  t.equal((await api()('DELETE', `/api/admin/impact-metrics/config/${mine.id}`)).status, 404, "the flag's chart is not the page's to delete");

  t.equal(await srv.stop(), 0);
  srv = await spawnServer({ dataDir, env: env() });
  t.teardown(() => srv.stop());
  t.same((await ok('GET', FLAG)).configs.map((c: any) => [c.id, c.aggregationMode]), [[mine.id, 'count']], 'kept across a restart');
  t.equal((await api()('DELETE', `${FLAG}/${mine.id}`)).status, 204);
  t.same((await ok('GET', FLAG)).configs, [], 'deleted');
});
