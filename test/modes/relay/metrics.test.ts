// SDK metrics sent to a relay reach the upstream's applications view, summed in batches every
// METRICS_INTERVAL_SECONDS; while the upstream is unreachable they wait (within
// UPSTREAM_METRICS_MAX_BYTES) and arrive once it is back, each count exactly once; what does not
// fit in the budget is dropped, counted in Prometheus and logged.
import t from 'tap';
import { countingProxy, SDK_MODES, sdkOn, startRelay, startUpstream, UP_CLIENT, waitFor, waitReady } from '../../helpers/relay.js';

const P = '/api/admin/projects/default/features';

function metric(text: string, name: string, labels = ''): number {
  const m = new RegExp(`^${name}${labels.replace(/[{}|]/g, '\\$&')} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

t.test('SDK metrics go upstream through the relay, once each, across an outage', async (t) => {
  const { srv: up, ok } = await startUpstream(t);
  await ok('POST', P, { name: 'counted' });
  await ok('POST', `${P}/counted/environments/development/strategies`, { name: 'default' });
  await ok('POST', `${P}/counted/environments/development/on`);
  const proxy = await countingProxy(t, up.url);
  const relay = await startRelay(t, proxy.url, { tokens: [UP_CLIENT], protocol: 'polling', env: { METRICS_INTERVAL_SECONDS: '1' } });
  await waitReady(relay.url);
  const sdk = await sdkOn(t, relay.url, UP_CLIENT, SDK_MODES.polling, { appName: 'relay-metrics-app', metricsInterval: 300, disableMetrics: false });
  const yesUpstream = async () => {
    const res = await fetch(`${up.url}/api/admin/metrics/applications/relay-metrics-app`, { headers: { authorization: '*:*.relay-test-admin' } });
    if (res.status !== 200) return 0;
    const app = (await res.json()) as { toggles: { featureName: string; yes: number }[]; instances: { instanceId: string }[] };
    return app.toggles.find((c) => c.featureName === 'counted')?.yes ?? 0;
  };
  for (let i = 0; i < 25; i++) sdk.isEnabled('counted');
  await waitFor(async () => (await yesUpstream()) === 25, 'the 25 evaluations to show upstream', 15_000, 100);
  t.pass('25 evaluations on the relay: 25 yes in the upstream\'s applications view');
  const app = await ok('GET', '/api/admin/metrics/applications/relay-metrics-app');
  t.ok(app.instances.length >= 1, `the application is registered upstream (instances: ${app.instances.map((i: { instanceId: string }) => i.instanceId).join(', ')})`);

  proxy.down();
  for (let i = 0; i < 40; i++) sdk.isEnabled('counted');
  await waitFor(async () => metric(await (await fetch(`${relay.url}/internal-backstage/prometheus`)).text(), 'relay_metrics_forward_failures_total') > 0, 'a failed send', 10_000, 100);
  const during = await (await fetch(`${relay.url}/internal-backstage/prometheus`)).text();
  t.ok(metric(during, 'relay_metrics_waiting_bytes') > 0, 'the counts wait in the relay while the upstream is away');
  t.equal(await yesUpstream(), 25, 'nothing reached the upstream meanwhile');
  proxy.up();
  await waitFor(async () => (await yesUpstream()) >= 65, 'the waiting counts to arrive', 15_000, 100);
  await new Promise((r) => setTimeout(r, 2500));
  t.equal(await yesUpstream(), 65, 'after the outage: 65 yes upstream, every evaluation counted exactly once');
  const after = await (await fetch(`${relay.url}/internal-backstage/prometheus`)).text();
  t.ok(metric(after, 'relay_metrics_forwarded_total', '{kind="metrics"}') >= 2, 'Prometheus counts what was forwarded');
});

t.test('past UPSTREAM_METRICS_MAX_BYTES, waiting metrics are dropped, counted and logged', async (t) => {
  const { srv: up } = await startUpstream(t);
  const proxy = await countingProxy(t, up.url);
  const relay = await startRelay(t, proxy.url, { tokens: [UP_CLIENT], protocol: 'polling', env: { METRICS_INTERVAL_SECONDS: '1', UPSTREAM_METRICS_MAX_BYTES: '20000' } });
  await waitReady(relay.url);
  proxy.down();
  const toggles = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`flag-${i}`, { yes: 1, no: 0, variants: {} }]));
  const res = await fetch(`${relay.url}/api/client/metrics`, {
    method: 'POST', headers: { authorization: UP_CLIENT, 'content-type': 'application/json' },
    body: JSON.stringify({ appName: 'budget-app', instanceId: 'i1', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles } }),
  });
  t.equal(res.status, 202, 'the SDK\'s post is accepted as always');
  const text = await (await fetch(`${relay.url}/internal-backstage/prometheus`)).text();
  const dropped = metric(text, 'relay_metrics_dropped_total', '{kind="metrics"}');
  t.ok(dropped > 0 && dropped < 500, `${dropped} of 500 counts dropped: the rest fit in 20,000 bytes`);
  t.ok(metric(text, 'relay_metrics_waiting_bytes') <= 20_000, 'what waits stays within the budget');
  await waitFor(() => /SDK metrics dropped/.test(relay.output()), 'the drop to be logged', 5000, 100);
  t.pass('logged');
});

t.test('an upstream without the bulk route gets them per application', async (t) => {
  const { srv: up, ok } = await startUpstream(t);
  await ok('POST', P, { name: 'counted' });
  await ok('POST', `${P}/counted/environments/development/on`);
  const proxy = await countingProxy(t, up.url, { notFound: ['/api/client/metrics/bulk'] });
  const relay = await startRelay(t, proxy.url, { tokens: [UP_CLIENT], protocol: 'polling', env: { METRICS_INTERVAL_SECONDS: '1' } });
  await waitReady(relay.url);
  const sdk = await sdkOn(t, relay.url, UP_CLIENT, SDK_MODES.polling, { appName: 'legacy-app', metricsInterval: 300, disableMetrics: false });
  for (let i = 0; i < 7; i++) sdk.isEnabled('counted');
  await waitFor(async () => {
    const res = await fetch(`${up.url}/api/admin/metrics/applications/legacy-app`, { headers: { authorization: '*:*.relay-test-admin' } });
    return res.status === 200 && ((await res.json()) as { toggles: { featureName: string; yes: number }[] }).toggles.some((c) => c.featureName === 'counted' && c.yes === 7);
  }, 'the counts to arrive per application', 15_000, 100);
  t.equal(proxy.counts.get('/api/client/metrics/bulk'), 1, 'the bulk route was tried once');
  t.ok((proxy.counts.get('/api/client/metrics') ?? 0) >= 1 && (proxy.counts.get('/api/client/register') ?? 0) >= 1, 'then register and metrics per application');
});

t.test('SDK metrics go upstream within the scope of the token that sent them, with a token that may carry them', async (t) => {
  const { srv: up, ok } = await startUpstream(t, { METRICS_FLUSH_MS: '200' });
  for (const id of ['alpha', 'beta']) await ok('POST', '/api/admin/projects', { id, name: id });
  await ok('POST', '/api/admin/projects/alpha/features', { name: 'a-flag' });
  await ok('POST', '/api/admin/projects/beta/features', { name: 'b-secret' });
  const token = async (tokenName: string, type: string, project: string) =>
    (await ok('POST', '/api/admin/api-tokens', { tokenName, type, environment: 'development', projects: [project] })).secret as string;
  const alphaClient = await token('alpha-client', 'client', 'alpha');
  const alphaFrontend = await token('alpha-frontend', 'frontend', 'alpha');
  const betaClient = await token('beta-client', 'client', 'beta');
  const bucket = (toggles: Record<string, number>) => ({
    start: new Date().toISOString(), stop: new Date().toISOString(),
    toggles: Object.fromEntries(Object.entries(toggles).map(([name, yes]) => [name, { yes, no: 0, variants: {} }])),
  });
  const post = (base: string, path: string, auth: string, appName: string, toggles: Record<string, number>) => fetch(`${base}${path}`, {
    method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ appName, instanceId: 'i1', bucket: bucket(toggles) }),
  }).then((r) => r.status);
  /** The yes counts of `flag` upstream, by application. */
  const usage = async (flag: string) => {
    const raw = await ok('GET', `/api/admin/client-metrics/features/${flag}/raw?hoursBack=1`);
    const by: Record<string, number> = {};
    for (const e of raw.data as { appName: string; yes: number }[]) by[e.appName] = (by[e.appName] ?? 0) + e.yes;
    return by;
  };
  const lastSeen = async (project: string, flag: string) => (await ok('GET', `/api/admin/projects/${project}/features/${flag}`)).environments.find((e: { name: string }) => e.name === 'development').lastSeenAt;

  t.equal(await post(up.url, '/api/client/metrics', alphaClient, 'direct-app', { 'b-secret': 1000, 'a-flag': 1 }), 202);
  await waitFor(async () => (await usage('a-flag'))['direct-app'] === 1, 'the direct counts upstream', 5000, 50);
  t.same(await usage('b-secret'), {}, 'sent to the upstream directly, an alpha token\'s counts of a beta flag are ignored');

  // A relay holding a wider token (every project) too: before, it forwarded everything with it.
  const wide = await startRelay(t, up.url, { tokens: [UP_CLIENT, alphaClient, alphaFrontend], protocol: 'polling', env: { METRICS_INTERVAL_SECONDS: '1' } });
  await waitReady(wide.url);
  t.equal(await post(wide.url, '/api/client/metrics', alphaClient, 'alpha-app', { 'b-secret': 999_999, 'a-flag': 5 }), 202);
  t.equal(await post(wide.url, '/api/frontend/client/metrics', alphaFrontend, 'alpha-web', { 'b-secret': 424_242, 'a-flag': 3 }), 200);
  await waitFor(async () => {
    const a = await usage('a-flag');
    return a['alpha-app'] === 5 && a['alpha-web'] === 3;
  }, 'the alpha counts to arrive upstream through the relay', 15_000, 100);
  await new Promise((r) => setTimeout(r, 1500));
  t.same(await usage('b-secret'), {}, 'through the relay, the alpha client and frontend tokens\' counts of a beta flag are not forwarded either');
  t.equal(await lastSeen('beta', 'b-secret'), null, 'and b-secret is not marked as seen upstream');

  // A relay with an alpha and a beta token only: before, it sent the beta counts with the alpha token.
  const split = await startRelay(t, up.url, { tokens: [alphaClient, betaClient], protocol: 'polling', env: { METRICS_INTERVAL_SECONDS: '1' } });
  await waitReady(split.url);
  t.equal(await post(split.url, '/api/client/metrics', betaClient, 'beta-app', { 'b-secret': 7 }), 202);
  t.equal(await post(split.url, '/api/client/metrics', alphaClient, 'alpha-app-2', { 'a-flag': 2 }), 202);
  const arrived = await waitFor(async () => (await usage('b-secret'))['beta-app'] === 7, 'the beta SDK\'s counts to arrive upstream', 10_000, 100).catch(() => false);
  t.ok(arrived, 'a beta SDK\'s counts reach the upstream (forwarded with a beta token)');
  await waitFor(async () => (await usage('a-flag'))['alpha-app-2'] === 2, 'the alpha SDK\'s counts to arrive upstream', 10_000, 100);
  const text = await (await fetch(`${split.url}/internal-backstage/prometheus`)).text();
  t.equal(metric(text, 'relay_metrics_forwarded_total', '{kind="metrics"}'), 2, 'Prometheus counts as forwarded the two counts the upstream took');
});
