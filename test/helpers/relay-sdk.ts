// A relay in front of a Fanion upstream, following it by one protocol (streaming, delta or
// polling): the official Node SDK on the relay, in polling, delta and streaming modes, must answer
// exactly like the same SDK on the upstream for 2,000 random contexts over random flags (segments,
// variants, dependencies...), and a change on the upstream must reach a streaming SDK on the relay
// within a second when the upstream pushes, within the refresh interval when it is polled. One test
// file per protocol (test/relay/sdk-*.test.ts), so they run side by side.
import type { Test } from 'tap';
import { differences, SDK_MODES, sdkAnswers, sdkOn, startRelay, startUpstream, UP_CLIENT, waitFor, waitReady } from './relay.js';
import { randomContext, randomFlagDocument } from './random-flags.js';
import { testRandom } from './random.js';

const P = '/api/admin/projects/default/features';
const CONTEXTS = 2000;
const REFRESH_S = 1;

/** The protocol a relay follows its upstream with, as its Prometheus text says. */
async function protocolInUse(url: string): Promise<string | null> {
  const text = await (await fetch(`${url}/internal-backstage/prometheus`)).text();
  return /relay_upstream_connected\{scope="development\|\*",protocol="(\w+)"\} 1/.exec(text)?.[1] ?? null;
}

export async function relayAnswersAsUpstream(t: Test, protocol: 'streaming' | 'delta' | 'polling'): Promise<void> {
  const r = testRandom(`relay-sdk-${protocol}`);
  const { srv: up, ok } = await startUpstream(t);
  const { doc, flags } = randomFlagDocument(r, { count: 25, prefix: 'rf', environment: 'development' });
  await ok('POST', '/api/admin/state/import', doc);
  await ok('POST', P, { name: 'probe' });
  await ok('POST', `${P}/probe/environments/development/strategies`, { name: 'default' });
  const contexts = Array.from({ length: CONTEXTS }, () => randomContext(r));
  const onUpstream = await sdkOn(t, up.url, UP_CLIENT, SDK_MODES.polling);
  const want = sdkAnswers(onUpstream, flags, contexts);
  t.ok(want.some((a) => a.includes(' true ')) && want.some((a) => a.includes(' false ')), 'the flags answer both ways');

  const relay = await startRelay(t, up.url, { protocol, refresh: REFRESH_S });
  await waitReady(relay.url);
  t.equal(await protocolInUse(relay.url), protocol, `Prometheus shows the upstream followed by ${protocol}`);
  for (const [mode, m] of Object.entries(SDK_MODES)) {
    const sdk = await sdkOn(t, relay.url, UP_CLIENT, m);
    t.same(differences(sdkAnswers(sdk, flags, contexts), want, flags, contexts), [], `a ${mode} SDK on the relay: ${flags.length} flags × ${CONTEXTS} contexts answer as on the upstream`);
  }
  const streaming = await sdkOn(t, relay.url, UP_CLIENT, SDK_MODES.streaming);
  const times: number[] = [];
  // Polled upstreams take up to an interval per change: two changes there, three with push.
  for (let i = 0; i < (protocol === 'streaming' ? 3 : 2); i++) {
    const target = !streaming.isEnabled('probe');
    const started = performance.now();
    await ok('POST', `${P}/probe/environments/development/${target ? 'on' : 'off'}`);
    await waitFor(() => streaming.isEnabled('probe') === target, `the change to reach the relay's streaming SDK (${protocol})`, 10_000, 2);
    times.push(Math.round(performance.now() - started));
  }
  const limit = protocol === 'streaming' ? 1000 : REFRESH_S * 1000 + 1000;
  t.ok(Math.max(...times) < limit, `upstream change → streaming SDK on the relay: ${times.join(', ')} ms (under ${limit} ms)`);
}
