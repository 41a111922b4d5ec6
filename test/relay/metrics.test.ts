// SDK metrics sent to a relay reach the upstream's applications view, summed in batches every
// METRICS_INTERVAL_SECONDS; while the upstream is unreachable they wait (within
// UPSTREAM_METRICS_MAX_BYTES) and arrive once it is back, each count exactly once; what does not
// fit in the budget is dropped, counted in Prometheus and logged.
import t from 'tap';
import { countingProxy, SDK_MODES, sdkOn, startRelay, startUpstream, UP_CLIENT, waitFor, waitReady } from '../helpers/relay.js';

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
