// The answers of this section's routes compared with a real Unleash 8.2 (the oracle, see
// helpers/unleash.ts): the same requests to both, the same statuses and shapes, and each
// difference Fanion keeps on purpose asserted as such, so a change on either side is noticed.
// Names sent to the shared oracle are this run's own.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { client, serve, type Res } from '../helpers/server.js';
import { realUnleash, type Oracle } from '../helpers/unleash.js';

/** The shape of a JSON value: its keys (in order) and the shapes under them; a list by its first item. */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? [shape(v[0])] : [];
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]));
  return v === null ? 'null' : typeof v;
}

t.test('the routes of Unleash 8.x that Fanion speaks answer as the real Unleash 8.2 does', async (t) => {
  const oracle: Oracle | null = await realUnleash(t);
  if (!oracle) return;
  // Fanion with the oracle's own token strings, so both answers can be compared as they are.
  const { srv } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: oracle.admin, INIT_CLIENT_API_TOKENS: `${oracle.client},${oracle.clientProd}`, INIT_FRONTEND_API_TOKENS: oracle.frontend },
  });
  const fanion = client(srv.url);
  const unleash = client(oracle.url, {}, false);
  const both = async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
    const answer = ({ status, text, json, headers: h }: Res) => ({ status, text, json, type: h.get('content-type') });
    return { f: answer(await fanion(method, p, body, headers)), u: answer(await unleash(method, p, body, headers)) };
  };
  const run = randomBytes(4).toString('hex');
  const ts = new Date().toISOString();

  t.test('GET /ready and /health', async (t) => {
    for (const p of ['/ready', '/health']) {
      const { f, u } = await both('GET', p);
      t.same([f.status, f.json, f.type], [u.status, u.json, u.type], `${p}: ${u.status} ${u.text}`);
    }
  });

  t.test('GET /api/admin/feature-types: the same types, names, descriptions and lifetimes', async (t) => {
    const { f, u } = await both('GET', '/api/admin/feature-types', undefined, { authorization: oracle.admin });
    t.equal(f.status, u.status);
    t.same(f.json, u.json);
  });

  t.test('POST /edge/validate', async (t) => {
    const list = [oracle.client, 'bogus', oracle.frontend, `${oracle.client}x`, oracle.admin, oracle.clientProd, oracle.client];
    const { f, u } = await both('POST', '/edge/validate', { tokens: list });
    t.equal(f.status, u.status, `without a token: ${u.status}`);
    t.same(f.json, { tokens: u.json.tokens.filter((x: any) => x.type !== 'admin') }, 'the same answer, but for the admin token Unleash also lists');
    t.ok(u.json.tokens.some((x: any) => x.type === 'admin'), 'Unleash 8.2 does list it (Fanion keeps it out: no relay uses one)');
    for (const [what, body, headers] of [
      ['an empty list', { tokens: [] }, {}], ['no tokens', {}, {}], ['tokens not a list', { tokens: 'x' }, {}], ['a list for a body', [], {}],
      ['not JSON', 'tokens', { 'content-type': 'text/plain' }], ['only invalid tokens', { tokens: ['bogus', `${oracle.frontend}x`] }, {}],
    ] as [string, unknown, Record<string, string>][]) {
      const r = await both('POST', '/edge/validate', body, headers);
      t.equal(r.f.status, r.u.status, `${what}: ${r.u.status}`);
      if (r.u.status === 200) t.same(r.f.json, r.u.json, `${what}: the same answer`);
    }
    const withClient = await both('POST', '/edge/validate', { tokens: [oracle.client] }, { authorization: oracle.client });
    t.same([withClient.f.status, withClient.u.status], [200, 403], 'a client token as Authorization: Unleash 8.2 refuses it (403), Fanion answers (a relay sends its own)');
    const withAdmin = await both('POST', '/edge/validate', { tokens: [oracle.client] }, { authorization: oracle.admin });
    t.same([withAdmin.f.status, withAdmin.u.status], [403, 200], 'an admin token as Authorization: Unleash 8.2 answers, Fanion refuses (403)');
  });

  t.test('POST /api/client/metrics/bulk', async (t) => {
    const app = { appName: `fanion-oracle-${run}`, instanceId: 'i-1', environment: 'development', sdkVersion: 'unleash-client-java:10.0.0', started: ts, interval: 15000, strategies: ['default'] };
    const metric = { featureName: `fanion-oracle-ghost-${run}`, appName: app.appName, environment: 'development', timestamp: ts, yes: 1, no: 0, variants: {} };
    const body = { applications: [app], metrics: [metric] };
    for (const [what, token, status] of [['a client token', oracle.client, 202], ['a frontend token', oracle.frontend, 403], ['an admin token', oracle.admin, 403], ['no token', undefined, 401], ['an unknown token', 'default:development.nope', 401]] as const) {
      const r = await both('POST', '/api/client/metrics/bulk', body, token === undefined ? {} : { authorization: token });
      t.same([r.f.status, r.u.status], [status, status], `${what}: ${status}`);
      if (status === 202) t.same([r.f.text, r.u.text], ['', ''], 'with no body');
    }
    const none = await both('POST', '/api/client/metrics/bulk', { applications: [], metrics: [] }, { authorization: oracle.client });
    t.same([none.f.status, none.u.status], [202, 202], 'empty lists');
    const missing = await both('POST', '/api/client/metrics/bulk', { applications: [] }, { authorization: oracle.client });
    t.same([missing.f.status, missing.u.status], [400, 400], 'no metrics list: 400');
    t.match(missing.f.json.message, /metrics/, 'naming it, as Unleash does');
    const other = await both('POST', '/api/client/metrics/bulk', { applications: [], metrics: [{ ...metric, environment: 'production' }], seenTokens: [oracle.frontend], impactMetrics: [] }, { authorization: oracle.client });
    t.same([other.f.status, other.u.status], [202, 202], 'metrics of another environment, seenTokens and impactMetrics: accepted (and skipped)');
    const noEnv = await both('POST', '/api/client/metrics/bulk', { applications: [], metrics: [{ ...metric, environment: undefined }] }, { authorization: oracle.client });
    t.same([noEnv.f.status, noEnv.u.status], [202, 400], 'a metric without environment: Unleash 8.2 refuses it, Fanion counts it in the token\'s (as 8.0 does for SDK bodies)');
  });

  t.test('register and metrics without environment, with sdkFlavor', async (t) => {
    const reg = { appName: `fanion-oracle-${run}`, instanceId: 'i-2', sdkVersion: 'unleash-node-sdk:6.12.1', strategies: ['default'], started: ts, interval: 15000, sdkFlavor: 'openfeature-node', sdkFlavorVersion: '0.9.1' };
    const headers = { authorization: oracle.client, 'unleash-connection-id': `conn-${run}`, 'unleash-interval': '15000', 'unleash-sdk-flavor': 'x' };
    const r = await both('POST', '/api/client/register', reg, headers);
    t.same([r.f.status, r.u.status, r.f.text, r.u.text], [202, 202, '', '']);
    const m = await both('POST', '/api/client/metrics', { appName: reg.appName, instanceId: 'i-2', sdkFlavor: 'openfeature-node', bucket: { start: ts, stop: ts, toggles: { [`fanion-oracle-ghost-${run}`]: { yes: 1, no: 1 } } } },
      { ...headers, 'unleash-interval': 'undefined' });
    t.same([m.f.status, m.u.status], [202, 202]);
  });

  t.test('GET /api/admin/metrics/unknown-flags', async (t) => {
    const { f, u } = await both('GET', '/api/admin/metrics/unknown-flags', undefined, { authorization: oracle.admin });
    t.same([f.status, u.status], [200, 200]);
    t.ok(f.json.unknownFlags.some((x: any) => x.name === `fanion-oracle-ghost-${run}`), 'Fanion lists the name just reported (Unleash writes its reports every 2 minutes)');
    const theirs = u.json.unknownFlags.find((x: any) => x.reports.length > 0);
    if (theirs) {
      t.same(shape(f.json.unknownFlags[0]), shape({ ...theirs, lastEventAt: theirs.lastEventAt ?? null }), 'an entry has the same fields, in the same order, nested the same way');
    } else {
      t.comment('the oracle lists no unknown flag yet; only the envelope is compared');
    }
    t.same(Object.keys(f.json), Object.keys(u.json));
    const names = u.json.unknownFlags.map((x: any) => x.name);
    t.same(names, [...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)), 'Unleash lists them by name, as Fanion does');
    for (const [what, h] of [['a client token', { authorization: oracle.client }], ['no token', {}]] as const) {
      const r = await both('GET', '/api/admin/metrics/unknown-flags', undefined, h);
      t.equal(r.f.status, r.u.status, `${what}: ${r.u.status}`);
    }
  });
});
