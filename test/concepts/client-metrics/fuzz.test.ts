// SDK register and metrics bodies come from public tokens: every date-ish or numeric field that
// passes the schema must be one the server can keep and show. Hostile values in `started`,
// `interval`, `bucket.start`/`stop` and the counts (client and frontend routes, and a relay's bulk
// post: its applications' `started`/`interval`, its metrics' `timestamp` and counts) answer 2xx or a
// 400 naming the field, never a 500; the admin views, checked against their reply schemas by
// `client()`, keep answering 200 with what was accepted.
import t from 'tap';
import { NASTY_NUMBERS, NASTY_STRINGS } from '../../helpers/fuzz-bodies.js';
import { chance, int, pick, testRandom } from '../../helpers/random.js';
import { serve } from '../../helpers/server.js';

const ADMIN = '*:*.fuzz-admin';
const CLIENT = '*:development.fuzz-client';
const FRONTEND = 'default:development.fuzz-frontend';
const START = '2026-01-01T10:00:00.000Z';

const DATES = [
  START, '2026-01-01T23:59:60Z', '2026-02-30T00:00:00Z', '2024-02-29T00:00:00Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z',
  '+275760-09-13T00:00:00.000Z', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00.123456789012Z', '2026-01-01', 'yesterday', '', '1e20',
];
const NUMBERS = [...NASTY_NUMBERS, 1e20, -1e20, 8.64e15, 8.64e15 + 1, -8.64e15, -8.64e15 - 1, Number.MAX_SAFE_INTEGER, 0.1];
const hostile = (r: () => number): unknown => {
  const kind = int(r, 0, 3);
  if (kind === 0) return pick(r, NUMBERS);
  if (kind === 1) return pick(r, DATES);
  // Lone surrogates are refused by the body reader before any field is looked at (tested there).
  if (kind === 2) return pick(r, NASTY_STRINGS.filter((x) => !/\p{Cs}/u.test(x)));
  return pick(r, [null, true, [], {}, [1], { $date: 1 }]);
};

/** A valid register body, then one date-ish or numeric field set to a hostile value. */
function register(r: () => number, i: number): { body: Record<string, unknown>; field: string } {
  const body: Record<string, unknown> = { appName: `fuzz-${i % 7}`, instanceId: `i-${i % 5}`, strategies: ['default'], started: START, interval: 15000 };
  const field = pick(r, ['started', 'interval']);
  body[field] = hostile(r);
  return { body, field };
}

function metrics(r: () => number, i: number): { body: Record<string, unknown>; field: string } {
  const counts: Record<string, unknown> = { yes: 1, no: 0, variants: { blue: 1 } };
  const bucket: Record<string, unknown> = { start: START, stop: START, toggles: { known: counts } };
  const field = pick(r, ['bucket.start', 'bucket.stop', 'bucket.toggles.known.yes', 'bucket.toggles.known.no', 'bucket.toggles.known.variants.blue']);
  const value = chance(r, 0.5) ? pick(r, NUMBERS) : hostile(r);
  if (field.startsWith('bucket.toggles')) {
    const last = field.split('.').pop()!;
    if (last === 'blue') (counts.variants as Record<string, unknown>).blue = value;
    else counts[last] = value;
  } else bucket[field.slice('bucket.'.length)] = value;
  return { body: { appName: `fuzz-${i % 7}`, instanceId: `i-${i % 5}`, bucket }, field };
}

/** A relay's bulk body, one date-ish or numeric field of an application or a metric set to a hostile value. */
function bulk(r: () => number, i: number): { body: Record<string, unknown>; field: string } {
  const app: Record<string, unknown> = { appName: `fuzz-${i % 7}`, instanceId: `b-${i % 5}`, environment: null, started: START, interval: 15000, strategies: [] };
  const metric: Record<string, unknown> = { featureName: 'known', appName: `fuzz-${i % 7}`, environment: 'development', timestamp: START, yes: 1, no: 0, variants: { blue: 1 } };
  const key = pick(r, ['applications.started', 'applications.interval', 'metrics.timestamp', 'metrics.yes', 'metrics.no', 'metrics.variants.blue']);
  const value = chance(r, 0.5) ? pick(r, NUMBERS) : hostile(r);
  const [list, name, sub] = key.split('.');
  if (sub) (metric.variants as Record<string, unknown>)[sub] = value;
  else (list === 'applications' ? app : metric)[name] = value;
  return { body: { applications: [app], metrics: [metric] }, field: `${list}[0].${name}${sub ? `.${sub}` : ''}` };
}

t.test('hostile dates and numbers in register and metrics bodies: 2xx or a 400 naming the field, never a 500', async (t) => {
  const { api, ok } = await serve(t, {
    authorization: ADMIN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, INIT_FRONTEND_API_TOKENS: FRONTEND, METRICS_FLUSH_MS: '100' },
  });
  await ok('POST', '/api/admin/projects/default/features', { name: 'known' });
  const r = testRandom('client-metrics-fuzz');
  const statuses: Record<string, number> = {};
  const problems: string[] = [];
  for (let i = 0; i < 300; i++) {
    const [path, token, { body, field }] = pick(r, [
      ['/api/client/register', CLIENT, register(r, i)],
      ['/api/client/metrics', CLIENT, metrics(r, i)],
      ['/api/frontend/client/metrics', FRONTEND, metrics(r, i)],
      ['/api/client/metrics/bulk', CLIENT, bulk(r, i)],
    ] as const);
    const res = await api('POST', path, body, { authorization: token });
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    const what = `${path} ${field}=${JSON.stringify((field.split('.').reduce((o: any, k) => o?.[k], body)))}`;
    if (res.status === 400) {
      if (res.json?.name !== 'ValidationError' || !String(res.json?.message).includes(`"${field}"`)) problems.push(`${what}: 400 ${res.text}`);
    } else if (res.status !== 200 && res.status !== 202) problems.push(`${what}: ${res.status} ${res.text}`);
    if (i % 25 === 24) {
      // The views show what was kept; `client()` checks each answer against its schema.
      const list = await api('GET', '/api/admin/metrics/applications?limit=1000');
      if (list.status !== 200) problems.push(`after ${what}: the list answers ${list.status} ${list.text.slice(0, 200)}`);
      for (const app of list.json?.applications ?? []) {
        const one = await api('GET', `/api/admin/metrics/applications/${encodeURIComponent(app.appName)}`);
        if (one.status !== 200) problems.push(`after ${what}: ${app.appName} answers ${one.status}`);
      }
    }
  }
  t.comment(`statuses: ${JSON.stringify(statuses)}`);
  t.same(problems, [], 'every answer a 2xx or a 400 naming the field');
  t.ok((statuses[202] ?? 0) + (statuses[200] ?? 0) > 0 && (statuses[400] ?? 0) > 0, 'both accepted and refused bodies were tried');
  const known = (await ok('GET', '/api/admin/projects/default/features/known')).environments.find((e: { name: string }) => e.name === 'development');
  t.equal((await api('GET', '/health')).status, 200, 'the server is fine');
  t.type(known.lastSeenAt, 'string', 'metrics still reach lastSeenAt');
});

t.test('register with "started": 1e20 → 400 naming the field (it was a 500: an invalid date)', async (t) => {
  const { api } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_CLIENT_API_TOKENS: CLIENT }, authorization: CLIENT });
  for (const started of [1e20, -1e20, 8.64e15 + 1]) {
    const res = await api('POST', '/api/client/register', { appName: 'a', strategies: [], started, interval: 1000 });
    t.equal(res.status, 400, String(started));
    t.equal(res.json?.name, 'ValidationError');
    t.match(res.json?.message, /"started"/);
  }
  const res = await api('POST', '/api/client/register', { appName: 'a', strategies: [], started: 8.64e15, interval: 1000 });
  t.equal(res.status, 202, 'the latest date there is');
});

t.test('numbers that pass the schema are shown as they were counted: a fractional interval, counts that would overflow', async (t) => {
  const { api } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
  await api('POST', '/api/admin/projects/default/features', { name: 'known' });
  const sdk = (path: string, body: unknown) => api('POST', path, body, { authorization: CLIENT });
  t.equal((await sdk('/api/client/register', { appName: 'a', instanceId: 'i', strategies: [], started: START, interval: 1.5 })).status, 202);
  const big = { appName: 'a', instanceId: 'i', bucket: { start: START, stop: START, toggles: { known: { yes: 1e308, no: 0, variants: { v: 1e308 } } } } };
  const first = await sdk('/api/client/metrics', big);
  if (first.status === 202) {
    t.equal((await sdk('/api/client/metrics', big)).status, 202);
  } else {
    t.equal(first.status, 400, 'a count beyond the largest exact integer is refused');
    t.match(first.json?.message, /"bucket\.toggles\.known\.yes"/);
    const most = { ...big, bucket: { ...big.bucket, toggles: { known: { yes: Number.MAX_SAFE_INTEGER, no: 0, variants: { v: Number.MAX_SAFE_INTEGER } } } } };
    for (let i = 0; i < 3; i++) t.equal((await sdk('/api/client/metrics', most)).status, 202);
  }
  // `api` checks the answer against its reply schema: counts and the interval must still be numbers.
  const app = await api('GET', '/api/admin/metrics/applications/a');
  t.equal(app.status, 200);
  const c = app.json.toggles[0];
  t.ok(Number.isFinite(c.yes) && Number.isFinite(c.variants.v), `counts stay finite (${c.yes}, ${c.variants.v})`);
  t.equal(app.json.instances[0].interval, 1.5);
});
