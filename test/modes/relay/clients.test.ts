// A relay behind a relay, and the other clients a relay serves: the Node SDK on the second relay
// answers like the SDK on the upstream and hears of an upstream change within a second (each hop
// streams); the browser SDK (unleash-proxy-client) on Edge's /api/proxy path and OpenFeature's
// OFREP provider on the relay answer as the Node SDK does on the upstream; SDK metrics cross both
// relays.
import { OpenFeature as ServerFeature } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import t from 'tap';
import { InMemoryStorageProvider, UnleashClient } from 'unleash-proxy-client';
import type { Unleash } from 'unleash-client';
import { differences, SDK_MODES, sdkAnswers, sdkOn, startRelay, startUpstream, UP_CLIENT, UP_FRONTEND, waitFor, waitReady } from '../../helpers/relay.js';
import { randomContext, randomFlagDocument } from '../../helpers/random-flags.js';
import { testRandom } from '../../helpers/random.js';

const P = '/api/admin/projects/default/features';

/** What a server-side evaluation can be compared on: every field set, no clock-dependent time. */
function frontendContext(raw: Record<string, unknown>): Record<string, unknown> {
  const { currentTime: _ignored, ...rest } = raw;
  return { ...rest, remoteAddress: (raw.remoteAddress as string | undefined) ?? '10.0.0.1' };
}

/** OFREP's object value is a JSON payload that parses to an object. */
function parsesToObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null;
  } catch {
    return false;
  }
}

function expected(u: Unleash, name: string, ctx: Record<string, unknown>) {
  const enabled = u.isEnabled(name, ctx as never);
  const v = u.getVariant(name, ctx as never);
  return { enabled, variant: enabled ? { name: v.name, enabled: v.enabled, payload: v.payload ?? null } : null };
}

t.test('a relay behind a relay; the browser SDK and OFREP on a relay', async (t) => {
  const r = testRandom('relay-clients');
  const { srv: up, ok } = await startUpstream(t);
  const { doc, flags } = randomFlagDocument(r, { count: 15, prefix: 'cf', environment: 'development' });
  await ok('POST', '/api/admin/state/import', doc);
  await ok('POST', P, { name: 'probe' });
  await ok('POST', `${P}/probe/environments/development/strategies`, { name: 'default' });
  const first = await startRelay(t, up.url, { env: { METRICS_INTERVAL_SECONDS: '1' } });
  await waitReady(first.url);
  const second = await startRelay(t, first.url, { env: { METRICS_INTERVAL_SECONDS: '1' } });
  await waitReady(second.url);
  const oracle = await sdkOn(t, up.url, UP_CLIENT, SDK_MODES.polling);

  await t.test('the Node SDK two relays away answers as on the upstream, and hears of changes within a second', async (t) => {
    const text = await (await fetch(`${second.url}/internal-backstage/prometheus`)).text();
    t.match(text, /relay_upstream_connected\{scope="development\|\*",protocol="streaming"\} 1/, 'the second relay streams from the first');
    const contexts = Array.from({ length: 500 }, () => randomContext(r));
    const want = sdkAnswers(oracle, flags, contexts);
    const streaming = await sdkOn(t, second.url, UP_CLIENT, SDK_MODES.streaming);
    t.same(differences(sdkAnswers(streaming, flags, contexts), want, flags, contexts), [], `${flags.length} flags × 500 contexts alike`);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const target = !streaming.isEnabled('probe');
      const started = performance.now();
      await ok('POST', `${P}/probe/environments/development/${target ? 'on' : 'off'}`);
      await waitFor(() => streaming.isEnabled('probe') === target, 'the change to cross both relays', 10_000, 2);
      times.push(Math.round(performance.now() - started));
    }
    t.ok(Math.max(...times) < 1000, `upstream → relay → relay → SDK: ${times.join(', ')} ms`);
  });

  await t.test('SDK metrics two relays away reach the upstream (the first relay forwards the bulk it gets)', async (t) => {
    const sdk = await sdkOn(t, second.url, UP_CLIENT, SDK_MODES.polling, { appName: 'chained-app', metricsInterval: 300, disableMetrics: false });
    for (let i = 0; i < 12; i++) sdk.isEnabled('probe');
    const app = await waitFor(async () => {
      const res = await fetch(`${up.url}/api/admin/metrics/applications/chained-app`, { headers: { authorization: '*:*.relay-test-admin' } });
      const body = res.status === 200 ? ((await res.json()) as { toggles: { featureName: string; yes: number; no: number }[] }) : null;
      const c = body?.toggles.find((x) => x.featureName === 'probe');
      return c && c.yes + c.no === 12 ? c : undefined;
    }, 'the counts to cross both relays', 15_000, 100);
    t.equal(app.yes + app.no, 12, '12 evaluations on the second relay: 12 upstream');
  });

  const contexts = Array.from({ length: 40 }, () => frontendContext(randomContext(r)));

  await t.test('unleash-proxy-client on /api/proxy answers as the Node SDK on the upstream', async (t) => {
    const browser = new UnleashClient({
      url: `${second.url}/api/proxy`, clientKey: UP_FRONTEND, appName: 'relay-browser', refreshInterval: 0, metricsInterval: 0, disableRefresh: true,
      storageProvider: new InMemoryStorageProvider(), context: contexts[0], fetch,
    });
    const ready = new Promise<void>((resolve) => browser.on('ready', () => resolve()));
    await browser.start();
    await ready;
    let alike = 0;
    for (const ctx of contexts) {
      await browser.updateContext(ctx);
      const got = flags.map((name) => {
        const enabled = browser.isEnabled(name);
        const v = browser.getVariant(name);
        return { enabled, variant: enabled ? { name: v.name, enabled: v.enabled, payload: v.payload ?? null } : null };
      });
      const want = flags.map((name) => expected(oracle, name, { ...ctx, appName: 'relay-browser' }));
      if (JSON.stringify(got) === JSON.stringify(want)) alike++;
      else t.same(got, want, `context ${JSON.stringify(ctx)}`);
    }
    browser.stop();
    t.equal(alike, contexts.length, `${flags.length} flags × ${contexts.length} contexts alike`);
  });

  await t.test('OpenFeature\'s OFREP provider on the relay answers as the Node SDK on the upstream', async (t) => {
    await ServerFeature.setProviderAndWait(new OFREPProvider({ baseUrl: second.url, headers: [['Authorization', `Bearer ${UP_CLIENT}`]] }));
    t.teardown(() => ServerFeature.close());
    const of = ServerFeature.getClient();
    let alike = 0;
    let compared = 0;
    for (const ctx of contexts.slice(0, 20)) {
      const { userId, properties, ...top } = ctx as { userId: string; properties: Record<string, string> } & Record<string, unknown>;
      const oc = { targetingKey: userId, ...top, ...properties };
      for (const name of flags) {
        compared++;
        const want = oracle.isEnabled(name, ctx as never);
        const got = await of.getBooleanDetails(name, !want, oc);
        if (got.errorCode === 'TYPE_MISMATCH') {
          // A variant with a payload: OFREP's value is the payload (protocols.md §3), compared as such.
          const p = oracle.getVariant(name, ctx as never).payload!;
          // A payload that is not what its type says ("json" that is no object) has no OFREP value to compare.
          if ((p.type === 'json' && !parsesToObject(p.value as string)) || (p.type === 'number' && !Number.isFinite(Number(p.value)))) {
            compared--;
            continue;
          }
          const value = p.type === 'json' ? await of.getObjectValue(name, {}, oc) : p.type === 'number' ? await of.getNumberValue(name, -1, oc) : await of.getStringValue(name, '', oc);
          const expected = p.type === 'json' ? JSON.parse(p.value as string) : p.type === 'number' ? Number(p.value) : p.value;
          if (JSON.stringify(value) === JSON.stringify(expected) && want) alike++;
          else t.same(value, expected, `${name} for ${JSON.stringify(oc)}: the payload`);
        } else if (got.value === want) alike++;
        else t.equal(got.value, want, `${name} for ${JSON.stringify(oc)}`);
      }
    }
    t.equal(alike, compared, `${compared} evaluations alike (booleans, or the payload a variant carries)`);
  });
});
