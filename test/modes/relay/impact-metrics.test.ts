// Impact metrics an SDK sends to a relay reach the upstream, which keeps them: summed per series
// between sends, waiting while the upstream is away and counted there exactly once when it is back.
import t from 'tap';
import { countingProxy, SDK_MODES, sdkOn, startRelay, startUpstream, UP_ADMIN, UP_CLIENT, waitFor, waitReady } from '../../helpers/relay.js';

t.test('impact metrics go upstream through the relay, once each, across an outage', async (t) => {
  const { srv: up } = await startUpstream(t, { METRICS_FLUSH_MS: '100' });
  const proxy = await countingProxy(t, up.url);
  const relay = await startRelay(t, proxy.url, { tokens: [UP_CLIENT], protocol: 'polling', env: { METRICS_INTERVAL_SECONDS: '1' } });
  await waitReady(relay.url);
  const sdk = await sdkOn(t, relay.url, UP_CLIENT, SDK_MODES.polling, { appName: 'relay-impact-app', metricsInterval: 200, disableMetrics: false });
  const upstreamTotal = async () => {
    const text = await (await fetch(`${up.url}/internal-backstage/impact/metrics`, { headers: { authorization: UP_ADMIN } })).text();
    return Number(/^relay_orders\{[^}]*appName="relay-impact-app"[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
  };
  sdk.impactMetrics.defineCounter('relay.orders', 'Orders through the relay');
  sdk.impactMetrics.incrementCounter('relay.orders', 5);
  await waitFor(async () => (await upstreamTotal()) === 5, 'the 5 orders upstream', 15_000, 100);
  t.pass('a counter incremented on an SDK of the relay shows upstream');

  proxy.down();
  sdk.impactMetrics.incrementCounter('relay.orders', 3);
  await new Promise((r) => setTimeout(r, 1500));
  sdk.impactMetrics.incrementCounter('relay.orders', 4);
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(await upstreamTotal(), 5, 'nothing reached the upstream while it was away');
  proxy.up();
  await waitFor(async () => (await upstreamTotal()) >= 12, 'the waiting increments to arrive', 15_000, 100);
  await new Promise((r) => setTimeout(r, 2500));
  t.equal(await upstreamTotal(), 12, 'after the outage: every increment counted exactly once');
  t.equal((await fetch(`${relay.url}/api/admin/impact-metrics?metricName=relay_orders`, { headers: { authorization: UP_CLIENT } })).status, 404, 'the relay itself keeps none and answers no admin route');
});
