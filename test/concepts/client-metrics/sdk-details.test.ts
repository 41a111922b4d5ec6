// What SDKs of today say about themselves, kept per instance and shown in the applications view:
// the official Node SDK (unleash-client 6.12, whose bodies carry no environment since Unleash 8.0)
// with an sdkFlavor, and raw requests carrying Unleash 8.1's headers instead of body fields.
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { serve } from '../../helpers/server.js';

const ADMIN = '*:*.details-admin';
const PROD = 'default:production.details-prod';
const FRONTEND = 'default:development.details-frontend';
const START = '2026-11-20T10:00:00.000Z';

async function until<T>(what: string, read: () => Promise<T | null | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await read();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

t.test('the Node SDK registers without an environment; its details show per instance', async (t) => {
  const { srv, ok } = await serve(t, {
    authorization: ADMIN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: PROD, INIT_FRONTEND_API_TOKENS: FRONTEND },
  });
  await ok('POST', '/api/admin/projects/default/features', { name: 'banner' });
  const warnings: string[] = [];
  const sdk = new Unleash({
    url: `${srv.url}/api/`, appName: 'shop-api', instanceId: 'api-1', customHeaders: { Authorization: PROD },
    // The static context's environment is the SDK's own business: its bodies carry none.
    environment: 'staging',
    sdkFlavor: 'openfeature-node', sdkFlavorVersion: '0.9.1',
    refreshInterval: 60_000, metricsInterval: 250, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
  });
  sdk.on(UnleashEvents.Warn, (w) => warnings.push(String(w)));
  sdk.on(UnleashEvents.Error, (e) => warnings.push(String(e)));
  t.teardown(() => sdk.destroy());
  await new Promise((resolve) => sdk.once(UnleashEvents.Synchronized, resolve));
  sdk.isEnabled('banner');
  sdk.isEnabled('no-such-flag');
  const app = await until('the SDK\'s counts', async () => {
    const a = await ok('GET', '/api/admin/metrics/applications').then((r) => r.applications.find((x: any) => x.appName === 'shop-api'));
    return a?.toggles.length ? a : null;
  });
  t.equal(app.instances.length, 1);
  const inst = app.instances[0];
  t.match(inst, {
    instanceId: 'api-1', environment: 'production', sdkVersion: /^unleash-node-sdk:6\.12\./, sdkFlavor: 'openfeature-node', sdkFlavorVersion: '0.9.1',
    interval: 250, platformName: 'node',
  }, "the token's environment (not the SDK's static context), the SDK, its flavor and interval");
  t.type(inst.connectionId, 'string', 'its connection id');
  t.same(app.toggles.map((c: any) => [c.featureName, c.environment, c.yes + c.no]), [['banner', 'production', 1]]);
  const unknown = await ok('GET', '/api/admin/metrics/unknown-flags');
  t.same(unknown.unknownFlags.map((f: any) => [f.name, f.reports[0].appName, f.reports[0].environments[0].environment]), [['no-such-flag', 'shop-api', 'production']],
    'the name the SDK asked for that the server does not have is an unknown flag');
  t.same(warnings, [], 'the SDK warned of nothing');
});

t.test('headers fill in what a body leaves out; a body field wins; advisory headers never fail a request', async (t) => {
  const { api, ok } = await serve(t, {
    authorization: ADMIN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: PROD, INIT_FRONTEND_API_TOKENS: FRONTEND },
  });
  const register = (instanceId: string, headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
    api('POST', '/api/client/register', { appName: 'raw', instanceId, strategies: ['default'], started: START, interval: 1000, ...extra }, { authorization: PROD, ...headers });
  const instance = async (id: string) => (await ok('GET', '/api/admin/metrics/applications/raw')).instances.find((i: any) => i.instanceId === id);

  t.equal((await register('h-1', {
    'unleash-sdk-flavor': 'my-wrapper', 'unleash-sdk-flavor-version': '3.1.0', 'x-unleash-connection-id': 'conn-x', 'unleash-sdk': 'unleash-client-go:4.1.0',
  })).status, 202);
  t.match(await instance('h-1'), { sdkFlavor: 'my-wrapper', sdkFlavorVersion: '3.1.0', connectionId: 'conn-x', sdkVersion: 'unleash-client-go:4.1.0', interval: 1000 });

  t.equal((await register('h-2', { 'unleash-connection-id': 'conn-a', 'x-unleash-connection-id': 'conn-b', 'unleash-sdk-flavor': 'from-header' },
    { sdkFlavor: 'from-body', connectionId: 'conn-body' })).status, 202);
  t.match(await instance('h-2'), { sdkFlavor: 'from-body', connectionId: 'conn-body' }, 'body fields win over headers');
  t.equal((await register('h-3', { 'unleash-connection-id': 'conn-a', 'x-unleash-connection-id': 'conn-b' })).status, 202);
  t.match(await instance('h-3'), { connectionId: 'conn-a' }, 'unleash-connection-id before x-unleash-connection-id');

  // Metrics carry the same: an instance first seen through its metrics.
  const metrics = (instanceId: string, headers: Record<string, string>) =>
    api('POST', '/api/client/metrics', { appName: 'raw', instanceId, bucket: { start: START, stop: START, toggles: {} } }, { authorization: PROD, ...headers });
  t.equal((await metrics('m-1', { 'unleash-interval': '15000', 'unleash-sdk-flavor': 'of-go', 'unleash-sdk-flavor-version': '1.0.0' })).status, 202);
  t.match(await instance('m-1'), { interval: 15000, sdkFlavor: 'of-go', sdkFlavorVersion: '1.0.0' }, 'the interval header is kept when the body has none');
  t.equal((await metrics('m-2', { 'unleash-interval': 'undefined' })).status, 202, 'unleash-interval "undefined" (as the Node SDK sends it) is no reason to refuse');
  t.equal((await metrics('m-3', { 'unleash-sdk-flavor': 'x'.repeat(256), 'unleash-interval': '-5' })).status, 202, 'nor a header too long to keep');
  t.match(await instance('m-3'), { sdkFlavor: null, interval: null }, 'such headers are simply not kept');
  t.match(await register('b-1', {}, { sdkFlavor: 'x'.repeat(256) }), { status: 400, json: { message: /sdkFlavor/ } }, 'a body field too long is a 400 naming it');
  // A metrics body may carry fields its schema does not name: none of them is kept.
  t.equal((await api('POST', '/api/client/metrics', { appName: 'raw', instanceId: 'm-4', interval: 'often', started: { not: 'a date' }, sdkType: 'x'.repeat(10_000), bucket: { start: START, stop: START, toggles: {} } },
    { authorization: PROD })).status, 202);
  t.match(await instance('m-4'), { interval: null, started: null }, 'fields a metrics body is not checked for are not kept');
  t.match(await api('POST', '/api/client/metrics', { appName: 'raw', sdkVersion: 'x'.repeat(256) }, { authorization: PROD }), { status: 400, json: { message: /sdkVersion/ } });

  // The browser SDK's metrics: the flavor headers Unleash reads on the Frontend API.
  t.equal((await api('POST', '/api/frontend/client/metrics', { appName: 'web', instanceId: 'browser', bucket: { start: START, stop: START, toggles: {} } },
    { authorization: FRONTEND, 'unleash-sdk-flavor': 'react', 'unleash-sdk-flavor-version': '4.2.0', 'unleash-sdk': 'unleash-client-js:3.8.2' })).status, 200);
  t.match((await ok('GET', '/api/admin/metrics/applications/web')).instances[0], { instanceId: 'browser', environment: 'development', sdkFlavor: 'react', sdkFlavorVersion: '4.2.0', sdkVersion: 'unleash-client-js:3.8.2' });
});
