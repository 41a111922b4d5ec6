// The Frontend API and OFREP over HTTP against a real server process, with the real clients: the
// browser SDK (unleash-proxy-client, in Node) and OpenFeature's server and web SDKs with their OFREP
// providers must give the answers the official Node SDK gives for the same contexts; updateContext
// changes them (the ETag follows the body); browser metrics are counted; scope, auth, CORS and
// bounds hold.
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { OpenFeature as ServerFeature } from '@openfeature/server-sdk';
import { OpenFeature as WebFeature } from '@openfeature/web-sdk';
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { InMemoryStorageProvider, UnleashClient } from 'unleash-proxy-client';
import { client, serve } from '../../helpers/server.js';

const ADMIN = '*:*.fe-admin';
const CLIENT = '*:development.fe-client';
const FRONTEND = 'default:development.fe-frontend';
const P = '/api/admin/projects/default/features';
const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, INIT_FRONTEND_API_TOKENS: FRONTEND, METRICS_FLUSH_MS: '200' };

/** Flags with every kind of rule, in `default`, and one in another project the frontend token must not see. */
async function seed(ok: (m: string, p: string, b?: unknown) => Promise<any>) {
  const seg = await ok('POST', '/api/admin/segments', { name: 'paying', constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro', 'gold'] }] });
  const flag = async (name: string, strategies: unknown[], on = true, variants?: unknown[]) => {
    await ok('POST', P, { name });
    for (const s of strategies) await ok('POST', `${P}/${name}/environments/development/strategies`, s);
    if (variants) await ok('PUT', `${P}/${name}/environments/development/variants`, variants);
    if (on) await ok('POST', `${P}/${name}/environments/development/on`);
  };
  await flag('everyone', [{ name: 'default' }]);
  await flag('off', [{ name: 'default' }], false);
  await flag('some-users', [{ name: 'userWithId', parameters: { userIds: 'u1,u3' } }]);
  await flag('half', [{ name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'userId' } }]);
  await flag('paying', [{ name: 'default', segments: [seg.id] }]);
  await flag('nordic', [{ name: 'default', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'], caseInsensitive: true }] }]);
  await flag('colours', [{ name: 'default' }], true, [
    { name: 'red', weightType: 'variable', payload: { type: 'string', value: 'red' } },
    { name: 'blue', weightType: 'variable', payload: { type: 'string', value: 'blue' } },
  ]);
  await flag('config', [{ name: 'flexibleRollout', parameters: { rollout: '100' }, variants: [{ name: 'big', weight: 1000, weightType: 'variable', payload: { type: 'json', value: '{"size":3}' } }] }]);
  await flag('archived', [{ name: 'default' }]);
  await ok('DELETE', `${P}/archived`);
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await ok('POST', '/api/admin/projects/shop/features', { name: 'shop-only' });
  await ok('POST', '/api/admin/projects/shop/features/shop-only/environments/development/on');
}

const FLAGS = ['everyone', 'off', 'some-users', 'half', 'paying', 'nordic', 'colours', 'config', 'archived', 'shop-only'];
const contexts: { userId: string; properties: Record<string, string> }[] = [
  { userId: 'u1', properties: { plan: 'pro', country: 'no' } },
  { userId: 'u2', properties: { plan: 'free', country: 'DK' } },
  { userId: 'u3', properties: { plan: 'gold' } },
  ...Array.from({ length: 20 }, (_, i) => ({ userId: `user-${i}`, properties: { plan: i % 3 ? 'free' : 'pro', country: i % 2 ? 'SE' : 'FI' } })),
];

async function nodeSdk(t: { teardown(fn: () => void): void }, url: string): Promise<Unleash> {
  const u = new Unleash({ url: `${url}/api/`, appName: 'oracle', customHeaders: { Authorization: CLIENT }, disableMetrics: true, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true, refreshInterval: 60_000 });
  t.teardown(() => u.destroy());
  u.on(UnleashEvents.Warn, () => {});
  await new Promise<void>((resolve) => u.once(UnleashEvents.Synchronized, () => resolve()));
  return u;
}

/** What the Node SDK says for a flag the frontend token may see (projects: default). */
function expected(u: Unleash, name: string, ctx: Record<string, unknown>) {
  const visible = name !== 'shop-only';
  const enabled = visible && u.isEnabled(name, ctx as never);
  const v = u.getVariant(name, ctx as never);
  return { enabled, variant: enabled ? { name: v.name, enabled: v.enabled, payload: v.payload } : null };
}

t.test('the browser SDK and OpenFeature\'s OFREP providers answer as the Node SDK', async (t) => {
  const { srv, ok } = await serve(t, { env, authorization: ADMIN });
  await seed(ok);
  const oracle = await nodeSdk(t, srv.url);

  await t.test('unleash-proxy-client: ready, the same answers, updateContext, metrics', async (t) => {
    const browser = new UnleashClient({
      url: `${srv.url}/api/frontend`, clientKey: FRONTEND, appName: 'web-app', refreshInterval: 0, metricsInterval: 0, disableRefresh: true,
      storageProvider: new InMemoryStorageProvider(), context: contexts[0], fetch,
    });
    const ready = new Promise<void>((resolve) => browser.on('ready', () => resolve()));
    await browser.start();
    await ready;
    t.pass('ready');
    for (const ctx of contexts.slice(0, 8)) {
      await browser.updateContext(ctx);
      const got = FLAGS.map((name) => {
        const enabled = browser.isEnabled(name);
        const v = browser.getVariant(name);
        return { enabled, variant: enabled ? { name: v.name, enabled: v.enabled, payload: v.payload } : null };
      });
      t.same(got, FLAGS.map((name) => expected(oracle, name, { ...ctx, appName: 'web-app' })), `context ${JSON.stringify(ctx)}`);
    }
    browser.isEnabled('everyone');
    await browser.sendMetrics();
    browser.stop();
    const app = await ok('GET', '/api/admin/metrics/applications/web-app');
    t.ok(app.toggles.some((c: any) => c.featureName === 'everyone' && c.yes > 0), 'its metrics are counted');
  });

  await t.test('OFREP with @openfeature/server-sdk: booleans, strings and objects as the Node SDK', async (t) => {
    await ServerFeature.setProviderAndWait(new OFREPProvider({ baseUrl: srv.url, headers: [['Authorization', `Bearer ${CLIENT}`]] }));
    t.teardown(() => ServerFeature.close());
    const of = ServerFeature.getClient();
    for (const ctx of contexts) {
      const oc = { targetingKey: ctx.userId, ...ctx.properties };
      for (const name of ['everyone', 'off', 'some-users', 'half', 'paying', 'nordic']) {
        t.equal(await of.getBooleanValue(name, !oracle.isEnabled(name, ctx as never), oc), oracle.isEnabled(name, ctx as never), `${name} for ${ctx.userId}`);
      }
      t.equal(await of.getStringValue('colours', 'none', oc), oracle.getVariant('colours', ctx as never).payload?.value, `colours for ${ctx.userId}`);
      t.same(await of.getObjectValue('config', {}, oc), JSON.parse(oracle.getVariant('config', ctx as never).payload!.value as string));
    }
    const missing = await of.getBooleanDetails('no-such-flag', true, { targetingKey: 'u1' });
    t.same([missing.value, missing.errorCode], [true, 'FLAG_NOT_FOUND'], 'a missing flag: the default, FLAG_NOT_FOUND');
    const mismatch = await of.getStringDetails('everyone', 'fallback', { targetingKey: 'u1' });
    t.same([mismatch.value, mismatch.errorCode], ['fallback', 'TYPE_MISMATCH'], 'a boolean flag asked as a string: TYPE_MISMATCH, left to the client');
  });

  await t.test('OFREP with @openfeature/web-sdk: bulk evaluation, the same answers', async (t) => {
    for (const ctx of contexts.slice(0, 6)) {
      await WebFeature.setContext({ targetingKey: ctx.userId, ...ctx.properties });
      await WebFeature.setProviderAndWait(new OFREPWebProvider({ baseUrl: srv.url, headers: [['X-API-Key', FRONTEND]], pollInterval: 0 }));
      const of = WebFeature.getClient();
      for (const name of ['everyone', 'off', 'some-users', 'half', 'paying', 'nordic']) {
        t.equal(of.getBooleanValue(name, !oracle.isEnabled(name, ctx as never)), oracle.isEnabled(name, ctx as never), `${name} for ${ctx.userId}`);
      }
      t.equal(of.getStringValue('colours', 'none'), oracle.getVariant('colours', ctx as never).payload?.value);
      t.equal(of.getBooleanDetails('shop-only', false).errorCode, 'FLAG_NOT_FOUND', 'a flag of another project is not there');
      await WebFeature.close();
    }
  });
});

t.test('frontend answers: scope, ETag per body, 304, bounds, auth, CORS, remoteAddress', async (t) => {
  const { srv, api, ok } = await serve(t, { env: { ...env, FRONTEND_API_ORIGINS: 'https://app.example' }, authorization: ADMIN });
  await seed(ok);
  await ok('POST', P, { name: 'local' });
  await ok('POST', `${P}/local/environments/development/strategies`, { name: 'remoteAddress', parameters: { IPs: '127.0.0.1' } });
  await ok('POST', `${P}/local/environments/development/on`);
  await ok('POST', P, { name: 'proxied' });
  await ok('POST', `${P}/proxied/environments/development/strategies`, { name: 'remoteAddress', parameters: { IPs: '10.9.9.9' } });
  await ok('POST', `${P}/proxied/environments/development/on`);
  await ok('POST', `${P}/off/environments/production/on`);
  const fe = (path: string, headers: Record<string, string> = {}) => client(srv.url)('GET', path, undefined, { authorization: FRONTEND, ...headers });

  const u1 = await fe('/api/frontend?userId=u1&properties[plan]=pro');
  t.equal(u1.status, 200);
  t.equal(u1.headers.get('cache-control'), 'no-cache');
  const names = u1.json.toggles.map((x: any) => x.name);
  t.notOk(names.includes('shop-only'), 'not a flag of another project');
  t.notOk(names.includes('archived'), 'not an archived flag');
  t.notOk(names.includes('off'), 'only enabled flags, in the token\'s environment (it is on in production)');
  t.ok(names.includes('local'), 'remoteAddress defaults to the caller\'s address');
  t.notOk((await fe('/api/frontend', { 'x-forwarded-for': '10.9.9.9' })).json.toggles.some((x: any) => x.name === 'proxied'), 'X-Forwarded-For is not trusted by default');
  t.same(u1.json.toggles.find((x: any) => x.name === 'everyone').variant, { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true });
  const etag = u1.headers.get('etag')!;
  t.equal((await fe('/api/frontend?userId=u1&properties[plan]=pro', { 'if-none-match': etag })).status, 304);
  t.equal((await fe('/api/frontend?properties[plan]=pro&userId=u1', { 'if-none-match': etag })).status, 304, 'the same context in another order');
  const u2 = await fe('/api/frontend?userId=u2&properties[plan]=free', { 'if-none-match': etag });
  t.equal(u2.status, 200, 'another context with the old ETag: a fresh answer, since the body differs');
  const posted = await client(srv.url)('POST', '/api/frontend', { context: { userId: 'u1', properties: { plan: 'pro' } } }, { authorization: FRONTEND });
  t.same(posted.json, u1.json, 'POST with the same context: the same answer');
  await ok('POST', `${P}/everyone/environments/development/off`);
  t.equal((await fe('/api/frontend?userId=u1&properties[plan]=pro', { 'if-none-match': etag })).status, 200, 'a change makes the old ETag stale');

  const tooMany = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, 'v']));
  t.equal((await client(srv.url)('POST', '/api/frontend', { context: tooMany }, { authorization: FRONTEND })).status, 400, 'more than 1,000 properties');
  t.equal((await client(srv.url)('POST', '/api/frontend', { context: { userId: { nested: true } } }, { authorization: FRONTEND })).status, 400, 'a nested value');
  t.equal((await client(srv.url)('POST', '/api/frontend', { context: { userId: 'x'.repeat(10_001) } }, { authorization: FRONTEND })).status, 400, 'a value of more than 10,000 characters');

  t.equal((await client(srv.url)('GET', '/api/frontend')).status, 401, 'no token');
  t.equal((await fe('/api/frontend', { authorization: CLIENT })).status, 403, 'a client token');
  t.equal((await fe('/api/frontend', { authorization: ADMIN })).status, 403, 'an admin token');
  const ofrep = (path: string, headers: Record<string, string>) => client(srv.url)('POST', path, { context: { targetingKey: 'u1' } }, headers);
  const noToken = await ofrep('/ofrep/v1/evaluate/flags/everyone', {});
  t.same([noToken.status, noToken.text], [401, ''], 'OFREP: 401 without a body');
  const adminOfrep = await ofrep('/ofrep/v1/evaluate/flags', { authorization: `Bearer ${ADMIN}` });
  t.same([adminOfrep.status, adminOfrep.text], [403, ''], 'OFREP: an admin token, 403 without a body');
  const bad = await client(srv.url)('POST', '/ofrep/v1/evaluate/flags/everyone', '{"context":', { 'x-api-key': FRONTEND });
  t.same([bad.status, bad.json.errorCode], [400, 'PARSE_ERROR']);
  const invalid = await client(srv.url)('POST', '/ofrep/v1/evaluate/flags/everyone', { context: { targetingKey: ['a'] } }, { 'x-api-key': FRONTEND });
  t.same([invalid.status, invalid.json.errorCode, invalid.json.key], [400, 'INVALID_CONTEXT', 'everyone']);
  const bulk = await ofrep('/ofrep/v1/evaluate/flags', { 'x-api-key': FRONTEND });
  t.equal((await client(srv.url)('POST', '/ofrep/v1/evaluate/flags', { context: { targetingKey: 'u1' } }, { 'x-api-key': FRONTEND, 'if-none-match': bulk.headers.get('etag')! })).status, 304, 'OFREP bulk: 304 on its ETag');

  // CORS: the allowed origin gets it on answers (errors too) and preflights; others get nothing.
  const allowed = await fe('/api/frontend', { origin: 'https://app.example' });
  t.equal(allowed.headers.get('access-control-allow-origin'), 'https://app.example');
  t.equal(allowed.headers.get('access-control-expose-headers'), 'ETag');
  t.match(allowed.headers.get('vary'), /Origin/);
  t.equal((await client(srv.url)('GET', '/api/frontend', undefined, { origin: 'https://app.example' })).headers.get('access-control-allow-origin'), 'https://app.example', 'on a 401 too');
  t.equal((await fe('/api/frontend', { origin: 'https://evil.example' })).headers.get('access-control-allow-origin'), null, 'not another origin');
  const pre = await fetch(`${srv.url}/ofrep/v1/evaluate/flags`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' } });
  t.equal(pre.status, 204);
  t.equal(pre.headers.get('access-control-allow-origin'), 'https://app.example');
  t.match(pre.headers.get('access-control-allow-methods'), /POST/);
  t.equal(pre.headers.get('access-control-allow-headers'), 'content-type,x-api-key');
  const posts = await client(srv.url)('POST', '/api/frontend', { context: {} }, { authorization: FRONTEND, origin: 'https://app.example', 'sec-fetch-site': 'cross-site' });
  t.equal(posts.status, 200, 'a cross-site POST from a browser is what this API is for');
  void api;
});

t.test('TRUST_PROXY=2: the caller is the X-Forwarded-For entry the outer proxy wrote, not one the client wrote before it', async (t) => {
  const { srv, ok } = await serve(t, { env: { ...env, TRUST_PROXY: '2' }, authorization: ADMIN });
  await ok('POST', P, { name: 'proxied' });
  await ok('POST', `${P}/proxied/environments/development/strategies`, { name: 'remoteAddress', parameters: { IPs: '10.9.9.9' } });
  await ok('POST', `${P}/proxied/environments/development/on`);
  const res = await client(srv.url)('GET', '/api/frontend', undefined, { authorization: FRONTEND, 'x-forwarded-for': '10.9.9.9, 172.16.0.1' });
  t.same(res.json.toggles.map((x: any) => x.name), ['proxied']);
  const forged = await client(srv.url)('GET', '/api/frontend', undefined, { authorization: FRONTEND, 'x-forwarded-for': '10.9.9.9, 10.8.8.8, 172.16.0.1' });
  t.same(forged.json.toggles, [], 'a client that writes 10.9.9.9 itself is still 10.8.8.8, the address the outer proxy saw');
});
