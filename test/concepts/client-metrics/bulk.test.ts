// POST /api/client/metrics/bulk, what Unleash Edge sends upstream for the SDKs behind it, against a
// real server process: counted into the same store as an SDK's own metrics, within the token's
// environment and projects; unknown names reported; wrong tokens and hostile bodies refused.
import t from 'tap';
import { rssOf } from '../../helpers/hostile.js';
import { serve } from '../../helpers/server.js';

const ADMIN = '*:*.bulk-admin';
const CLIENT = 'default:development.bulk-client';
const PROD = 'default:production.bulk-prod';
const FRONTEND = 'default:development.bulk-frontend';
const BULK = '/api/client/metrics/bulk';
const TS = '2026-11-20T10:00:00.000Z';

/** One application as Edge writes it: every field it has no value for is null. */
const edgeApp = (appName: string, instanceId: string, environment: string | null, extra: Record<string, unknown> = {}) => ({
  appName, connectVia: [{ appName: 'unleash-edge', instanceId: 'edge-1' }], environment, projects: null, instanceId, connectionId: null,
  interval: 15000, started: TS, strategies: ['default', 'flexibleRollout'], sdkVersion: 'unleash-client-java:10.0.0', sdkType: 'backend',
  yggdrasilVersion: null, platformName: null, platformVersion: null, ...extra,
});
const edgeMetric = (featureName: string, appName: string, environment: string | null, yes: number, no: number, variants: Record<string, number> | null = {}) => ({
  featureName, appName, environment, timestamp: TS, yes, no, variants, sdkVersion: null, sdkType: null, yggdrasilVersion: null, platformName: null, platformVersion: null,
});

t.test('bulk metrics: Edge-shaped bodies counted in the token\'s environment and projects', async (t) => {
  const { api, ok } = await serve(t, {
    authorization: ADMIN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: `${CLIENT},${PROD}`, INIT_FRONTEND_API_TOKENS: FRONTEND, METRICS_FLUSH_MS: '100' },
  });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await ok('POST', '/api/admin/projects/shop/features', { name: 'cart' });
  const shopToken = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'shop-edge', type: 'client', environment: 'development', projects: ['shop'] })).secret;
  const bulk = (token: string | null, body: unknown) => api('POST', BULK, body, token ? { authorization: token } : { authorization: '' });

  const res = await bulk(CLIENT, {
    applications: [edgeApp('shop-web', 'web-1', 'development', { sdkFlavor: 'openfeature-java', sdkFlavorVersion: '1.4.0' }), edgeApp('shop-web', 'web-2', null), edgeApp('shop-web', 'web-prod', 'production')],
    metrics: [
      edgeMetric('checkout', 'shop-web', 'development', 3, 1, { blue: 2, red: 1 }),
      edgeMetric('checkout', 'shop-web', null, 1, 0, null),
      edgeMetric('checkout', 'shop-web', 'production', 100, 100),
      edgeMetric('cart', 'shop-web', 'development', 50, 50),
      edgeMetric('no-such-flag', 'shop-web', 'development', 1, 0),
    ],
    impactMetrics: [{ name: 'checkouts', help: 'done', type: 'counter', samples: [{ value: 1 }] }],
  });
  t.same([res.status, res.text], [202, ''], '202 with no body, as Unleash answers');
  const app = await ok('GET', '/api/admin/metrics/applications/shop-web');
  t.same(app.instances.map((i: any) => [i.instanceId, i.environment]).sort(), [['web-1', 'development'], ['web-2', 'development']],
    'the instances of the token\'s environment (or of none) are registered; the production one is not');
  t.match(app.instances.find((i: any) => i.instanceId === 'web-1'), { sdkVersion: 'unleash-client-java:10.0.0', sdkFlavor: 'openfeature-java', sdkFlavorVersion: '1.4.0', interval: 15000, started: TS });
  t.same(app.toggles.map((c: any) => [c.featureName, c.environment, c.yes, c.no, c.variants]), [['checkout', 'development', 4, 1, { blue: 2, red: 1 }]],
    'counts of development only, and only of the token\'s projects: production\'s 100 and the other project\'s cart are not counted');
  const unknown = await ok('GET', '/api/admin/metrics/unknown-flags');
  t.same(unknown.unknownFlags.map((f: any) => [f.name, f.reports]), [['no-such-flag', [{ appName: 'shop-web', environments: [{ environment: 'development', seenAt: unknown.unknownFlags[0].lastSeenAt }] }]]],
    'a name the server does not have is listed as an unknown flag; one of another project is not unknown');

  // The same store as an SDK's own metrics: a direct post adds to the same counts.
  t.equal((await api('POST', '/api/client/metrics', { appName: 'shop-web', instanceId: 'web-3', bucket: { start: TS, stop: TS, toggles: { checkout: { yes: 10, no: 0 } } } }, { authorization: CLIENT })).status, 202);
  t.equal((await ok('GET', '/api/admin/metrics/applications/shop-web')).toggles[0].yes, 14, 'an SDK\'s own post and the relay\'s add up');

  // A token of project shop counts cart, not checkout; one of production counts production only.
  t.equal((await bulk(shopToken, { applications: [], metrics: [edgeMetric('cart', 'shop-web', 'development', 5, 0), edgeMetric('checkout', 'shop-web', 'development', 7, 0)] })).status, 202);
  t.equal((await bulk(PROD, { applications: [edgeApp('shop-web', 'web-prod', 'production')], metrics: [edgeMetric('checkout', 'shop-web', 'production', 9, 0), edgeMetric('checkout', 'shop-web', 'development', 1000, 0)] })).status, 202);
  const after = await ok('GET', '/api/admin/metrics/applications/shop-web');
  t.same(after.toggles.map((c: any) => [c.featureName, c.environment, c.yes]), [['cart', 'development', 5], ['checkout', 'development', 14], ['checkout', 'production', 9]]);
  t.same(after.environments, ['development', 'production'], 'the production instance came with the production token');

  // Metrics of an application no registration named still show under it.
  t.equal((await bulk(CLIENT, { applications: [], metrics: [edgeMetric('checkout', 'batch-job', 'development', 2, 2)] })).status, 202);
  t.match(await ok('GET', '/api/admin/metrics/applications/batch-job'), { instanceCount: 1, instances: [{ instanceId: 'default' }], toggles: [{ featureName: 'checkout', yes: 2, no: 2 }] });

  // lastSeenAt: written by the flush, for the token's environment only.
  let seen: any = null;
  for (let i = 0; i < 100 && !seen?.environments.every((e: any) => e.lastSeenAt); i++) {
    seen = await ok('GET', '/api/admin/projects/default/features/checkout');
    await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(seen.environments.every((e: any) => e.lastSeenAt), 'checkout was seen in development and production');
  t.equal((await ok('GET', '/api/admin/projects/shop/features/cart')).environments.find((e: any) => e.name === 'production').lastSeenAt, null, 'cart was never counted in production');
});

t.test('bulk metrics: seenTokens count as used, within the token\'s environment', async (t) => {
  const { api, ok } = await serve(t, {
    authorization: ADMIN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: `${CLIENT},${PROD}`, INIT_FRONTEND_API_TOKENS: FRONTEND, METRICS_FLUSH_MS: '100' },
  });
  /** seenAt by `type:environment` (every seeded token is named init-<type>-token). */
  const seenAt = async (): Promise<Record<string, string | null>> =>
    Object.fromEntries((await ok('GET', '/api/admin/api-tokens')).tokens.map((x: any) => [`${x.type}:${x.environment}`, x.seenAt]));
  t.equal((await seenAt())['frontend:development'], null, 'the frontend token was never used');
  t.equal((await api('POST', BULK, { applications: [], metrics: [], seenTokens: [FRONTEND, PROD, 'not-a-token'] }, { authorization: CLIENT })).status, 202);
  let after: Record<string, string | null> = {};
  for (let i = 0; i < 100 && !after['frontend:development']; i++) {
    await new Promise((r) => setTimeout(r, 50));
    after = await seenAt();
  }
  t.type(after['frontend:development'], 'string', 'the frontend token of the same environment counts as used');
  t.type(after['client:development'], 'string', 'and so does the caller\'s own');
  t.equal(after['client:production'], null, 'a token of another environment does not');
});

t.test('bulk metrics: wrong tokens and hostile bodies', async (t) => {
  const { api } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, INIT_FRONTEND_API_TOKENS: FRONTEND } });
  const body = { applications: [], metrics: [] };
  const as = (authorization: string | undefined, b: unknown = body, headers: Record<string, string> = {}) =>
    api('POST', BULK, b, { ...(authorization === undefined ? {} : { authorization }), ...headers });
  t.equal((await as(undefined)).status, 401, 'no token: 401');
  t.equal((await as('default:development.not-a-token')).status, 401, 'an unknown token: 401');
  t.match(await as(FRONTEND), { status: 403, json: { name: 'NoAccessError' } }, 'a frontend token: 403');
  t.match(await as(ADMIN), { status: 403, json: { name: 'NoAccessError' } }, 'an admin token: 403');
  t.equal((await as(CLIENT)).status, 202);

  const refused = async (why: string, b: unknown, field: RegExp) => {
    const res = await as(CLIENT, b);
    t.equal(res.status, 400, why);
    t.match(res.json?.message ?? '', field, `${why}: the message names ${field}`);
  };
  await refused('no metrics list', { applications: [] }, /metrics/);
  await refused('no applications list', { metrics: [] }, /applications/);
  await refused('an application without a name', { applications: [{ instanceId: 'x' }], metrics: [] }, /appName/);
  await refused('a metric without a flag name', { applications: [], metrics: [{ appName: 'a', yes: 1 }] }, /featureName/);
  await refused('a flag name of 256 characters', { applications: [], metrics: [{ featureName: 'x'.repeat(256), appName: 'a', yes: 1 }] }, /featureName/);
  await refused('an sdkVersion of 256 characters', { applications: [{ appName: 'a', sdkVersion: 'x'.repeat(256) }], metrics: [] }, /sdkVersion/);
  await refused('a negative count', { applications: [], metrics: [{ featureName: 'f', appName: 'a', yes: -1 }] }, /yes/);
  await refused('a count past 2^53', { applications: [], metrics: [{ featureName: 'f', appName: 'a', no: 2 ** 60 }] }, /no/);
  await refused('a started date a Date cannot hold', { applications: [{ appName: 'a', started: 1e20 }], metrics: [] }, /started/);
  await refused('10,001 metrics in one body', { applications: [], metrics: Array.from({ length: 10_001 }, () => ({ featureName: 'f', appName: 'a' })) }, /metrics/);
  await refused('1,001 applications', { applications: Array.from({ length: 1001 }, (_, i) => ({ appName: `a${i}` })), metrics: [] }, /applications/);
  await refused('1,001 seen tokens', { applications: [], metrics: [], seenTokens: Array.from({ length: 1001 }, () => 'x') }, /seenTokens/);
  await refused('1,001 variants on one flag', { applications: [], metrics: [{ featureName: 'f', appName: 'a', variants: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`v${i}`, 1])) }] }, /variants/);
  const big = await as(CLIENT, { applications: [], metrics: [], padding: 'x'.repeat(1024 * 1024) });
  t.match(big, { status: 413, json: { name: 'PayloadTooLargeError' } }, 'a body over BODY_LIMIT_BYTES: 413');
  t.equal((await as(CLIENT, 'applications=', { 'content-type': 'application/x-www-form-urlencoded' })).status, 415, 'not JSON: 415');
  t.equal((await as(CLIENT, '{"applications":[', {})).status, 400, 'broken JSON: 400');
});

t.test('a bulk flood of invented applications stays within CLIENT_METRICS_MAX_BYTES', async (t) => {
  const { srv, api, ok } = await serve(t, {
    authorization: ADMIN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, CLIENT_METRICS_MAX_BYTES: String(2 * 1024 * 1024), PROMETHEUS_OPEN: 'true' },
  });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  const long = (tag: string, i: number) => `${tag}-${i}-`.padEnd(255, 'x');
  const POSTS = 60;
  const APPS = 350;
  const before = rssOf(srv.proc.pid!);
  const statuses: Record<number, number> = {};
  for (let p = 0; p < POSTS; p++) {
    const applications = Array.from({ length: APPS }, (_, i) => edgeApp(long('app', p * APPS + i), long('instance', i), 'development', {
      sdkVersion: long('sdk', i), sdkFlavor: long('flavor', i), sdkFlavorVersion: long('fv', i), platformName: long('platform', i), connectionId: long('conn', i),
    }));
    const metrics = Array.from({ length: 50 }, (_, i) => edgeMetric('checkout', long('metrics-only', p * 50 + i), 'development', 1, 0, { [long('variant', i)]: 1 }));
    const res = await api('POST', BULK, { applications, metrics }, { authorization: CLIENT });
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
  const after = rssOf(srv.proc.pid!);
  const prom = (await api('GET', '/internal-backstage/prometheus')).text;
  const apps = Number(/^client_apps_total (\d+)/m.exec(prom)?.[1]);
  const instances = Number(/^client_instances_total (\d+)/m.exec(prom)?.[1]);
  t.comment(`${POSTS * (APPS + 50)} applications sent: ${apps} kept, ${instances} instances; RSS ${Math.round(before / 2 ** 20)} → ${Math.round(after / 2 ** 20)} MB`);
  t.same(statuses, { 202: POSTS }, 'every post accepted');
  t.ok(apps < 1000 && instances < 1000, 'fewer than the 1,000 applications Fanion keeps at most: the byte budget evicted them, least recently seen first');
  t.ok(after - before < 120 * 2 ** 20, 'RSS grew by less than 120 MB');
  const list = await ok('GET', '/api/admin/metrics/applications?limit=1000');
  t.equal(list.total, apps, 'the view answers');
  t.ok(list.applications.some((a: any) => a.appName.startsWith(`metrics-only-${POSTS * 50 - 1}-`)), 'the newest metrics-only application is kept');
});
