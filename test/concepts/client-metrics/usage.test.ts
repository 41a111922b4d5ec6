// One flag's usage over time through a real server process: SDK counts kept by the hour per
// application and environment, served as Unleash serves them (GET
// /api/admin/client-metrics/features/:name/raw and its summary), within the token's reach; and a
// client inventing variant names across many flags stays within CLIENT_METRICS_MAX_BYTES.
import t from 'tap';
import { rssOf } from '../../helpers/hostile.js';
import { serve } from '../../helpers/server.js';

const ADMIN = '*:*.usage-admin';
const DEV = 'default:development.usage-dev';
const PROD = 'default:production.usage-prod';
const RAW = (name: string, q = '') => `/api/admin/client-metrics/features/${name}/raw${q}`;

const metrics = (appName: string, toggles: Record<string, { yes?: number; no?: number; variants?: Record<string, number> }>) => {
  const now = new Date().toISOString();
  return { appName, instanceId: `${appName}-1`, bucket: { start: now, stop: now, toggles } };
};

t.test('usage by the hour: per application and environment, in Unleash\'s raw shape, with its summary', async (t) => {
  const { api, ok } = await serve(t, { authorization: ADMIN, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: `${DEV},${PROD}` } });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await ok('POST', '/api/admin/projects/shop/features', { name: 'cart' });
  t.same((await ok('GET', RAW('checkout'))).data, [], 'nothing counted yet: no hours');
  const post = async (token: string, body: unknown) => t.equal((await api('POST', '/api/client/metrics', body, { authorization: token })).status, 202);
  await post(DEV, metrics('web', { checkout: { yes: 3, no: 2, variants: { blue: 2, disabled: 1 } } }));
  await post(DEV, metrics('web', { checkout: { yes: 1, no: 0, variants: { blue: 1 } } }));
  await post(DEV, metrics('worker', { checkout: { yes: 0, no: 4 } }));
  await post(PROD, metrics('web', { checkout: { yes: 9 } }));

  const raw = await ok('GET', RAW('checkout', '?hoursBack=2'));
  t.same([raw.version, raw.maturity], [1, 'stable'], "Unleash's envelope");
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
  // A run that crosses an hour boundary files later posts in the next hour: compare what does not depend on it.
  const summed = new Map<string, [number, number, Record<string, number>]>();
  for (const e of raw.data as { appName: string; environment: string; timestamp: string; yes: number; no: number; variants: Record<string, number>; featureName: string }[]) {
    t.same(Object.keys(e).sort(), ['appName', 'environment', 'featureName', 'no', 'timestamp', 'variants', 'yes'], 'the fields of an Unleash raw entry');
    t.equal(e.featureName, 'checkout');
    t.match(e.timestamp, /^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/, 'on the hour');
    const key = `${e.environment}/${e.appName}`;
    const [yes, no, variants] = summed.get(key) ?? [0, 0, {}];
    for (const [v, n] of Object.entries(e.variants)) variants[v] = (variants[v] ?? 0) + n;
    summed.set(key, [yes + e.yes, no + e.no, variants]);
  }
  t.same(Object.fromEntries(summed), {
    'development/web': [4, 2, { blue: 3, disabled: 1 }],
    'development/worker': [0, 4, {}],
    'production/web': [9, 0, {}],
  }, 'counts per environment and application');
  t.ok(raw.data.some((e: { timestamp: string }) => e.timestamp === hour), `filed under this hour (${hour})`);

  const summary = await ok('GET', '/api/admin/client-metrics/features/checkout');
  t.same([summary.featureName, summary.seenApplications], ['checkout', ['web', 'worker']], 'the applications that evaluated it');
  const lastHour = Object.fromEntries((summary.lastHourUsage as { environment: string; yes: number; no: number }[]).map((e) => [e.environment, [e.yes, e.no]]));
  t.same(lastHour, { development: [4, 6], production: [9, 0] }, 'the last hour per environment, over applications');

  for (const bad of ['0', '49', '-1', 'x', '1e3', '']) {
    const res = await api('GET', RAW('checkout', `?hoursBack=${bad}`));
    t.equal(res.status, 400, `hoursBack=${bad}: 400`);
    t.match(res.json?.message, /hoursBack/);
  }
  t.equal((await api('GET', RAW('checkout', '?hoursBack=48'))).status, 200, '48 hours: the most');
  t.equal((await api('GET', RAW('checkout', '?hoursBack=1.5'))).status, 200, 'a fraction of an hour');
  t.same((await ok('GET', RAW('no-such-flag'))).data, [], 'a name never counted: empty, as in Unleash');

  await post(DEV, metrics('web', { cart: { yes: 5 } }));
  const devOnlyDefault = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'default-reader', type: 'admin', projects: ['default'] })).secret;
  const mine = await api('GET', RAW('checkout'), undefined, { authorization: devOnlyDefault });
  t.equal(mine.status, 200, 'a token of the flag\'s project sees its usage');
  const theirs = await api('GET', RAW('cart'), undefined, { authorization: devOnlyDefault });
  t.equal(theirs.status, 403, 'not that of another project\'s flag');
});

t.test('a client inventing variant names across many flags stays within CLIENT_METRICS_MAX_BYTES', async (t) => {
  const budget = 2 * 1024 * 1024;
  const { srv, api, ok } = await serve(t, {
    authorization: ADMIN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: DEV, CLIENT_METRICS_MAX_BYTES: String(budget) },
  });
  const flags = Array.from({ length: 30 }, (_, i) => `flag-${i}`);
  for (const name of flags) await ok('POST', '/api/admin/projects/default/features', { name });
  const held = async () => Number(/^client_metrics_bytes (\d+)/m.exec((await api('GET', '/internal-backstage/prometheus')).text)?.[1]);
  t.equal((await api('POST', '/api/client/metrics', metrics('polite', { 'flag-1': { yes: 1 } }), { authorization: DEV })).status, 202);
  t.ok((await held()) > 0, 'a polite application\'s counts are held');
  const before = rssOf(srv.proc.pid!);
  let most = 0;
  // Each post: 30 flags × 100 new variant names of 255 characters, from one application and
  // instance: the totals and this hour each keep 100 names a flag, 3.5 MB in all, past the budget.
  for (let round = 0; round < 10; round++) {
    const toggles = Object.fromEntries(flags.map((f) => [f, {
      yes: 1, variants: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`${round}-${i}-`.padEnd(255, 'v'), 1])),
    }]));
    t.equal((await api('POST', '/api/client/metrics', metrics('greedy', toggles), { authorization: DEV })).status, 202);
    most = Math.max(most, await held());
  }
  const after = rssOf(srv.proc.pid!);
  t.comment(`${Math.round((10 * 30 * 100 * 255) / 2 ** 20)} MB of variant names sent; at most ${most} bytes held; RSS ${Math.round(before / 2 ** 20)} → ${Math.round(after / 2 ** 20)} MB`);
  t.ok(most <= budget, `the store held at most ${most} bytes (budget ${budget})`);
  t.ok(after - before < 100 * 2 ** 20, 'RSS grew by less than 100 MB');
  t.equal((await api('GET', RAW('flag-0', '?hoursBack=48'))).status, 200, 'usage still answers');
  // The polite application reporting again is counted.
  t.equal((await api('POST', '/api/client/metrics', metrics('polite', { 'flag-1': { yes: 2 } }), { authorization: DEV })).status, 202);
  t.ok((await ok('GET', RAW('flag-1'))).data.some((e: { appName: string; yes: number }) => e.appName === 'polite' && e.yes === 2), 'its counts are kept');
});
