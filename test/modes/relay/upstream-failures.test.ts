// What a relay counts and says about its upstream's failures: finding out that an open-source
// Unleash offers neither streaming nor delta (two 404s at every start) is not a failure, so
// relay_upstream_failures_total stays 0 in front of the real Unleash 8.2; an upstream that goes
// away is, and when it answers again the relay says so in one info line.
import t from 'tap';
import { spawnServer } from '../../helpers/server.js';
import { startRelay, startUpstream, UP_CLIENT, waitFor, waitReady } from '../../helpers/relay.js';
import { realUnleash } from '../../helpers/unleash.js';

/** The sum of a Prometheus metric's samples (every label set). */
function metric(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

const prometheus = async (url: string) => (await fetch(`${url}/internal-backstage/prometheus`)).text();

t.test('in front of the real Unleash 8.2, finding the protocol it offers counts no failure', async (t) => {
  const oracle = await realUnleash(t);
  if (!oracle) return;
  const relay = await startRelay(t, oracle.url, { tokens: [oracle.client] });
  await waitReady(relay.url, 30_000);
  await waitFor(async () => /relay_upstream_syncs_total\{[^}]*\} [1-9]/.test(await prometheus(relay.url)), 'a sync', 10_000, 100);
  const text = await prometheus(relay.url);
  t.match(text, /relay_upstream_connected\{scope="development\|default",protocol="polling"\} 1/, 'the relay polls Unleash (it found out streaming and delta are not there)');
  const failures = metric(text, 'relay_upstream_failures_total');
  t.equal(failures, 0, `relay_upstream_failures_total is 0 (read ${failures})`);
  t.match(relay.output(), /the upstream does not offer streaming/, 'what it found out is logged, as information');
  t.notMatch(relay.output(), /"level":40/, 'and nothing is a warning');
});

t.test('an upstream that goes away counts failures, and its return is logged once, as information', async (t) => {
  const { srv: up } = await startUpstream(t);
  const relay = await startRelay(t, up.url, { tokens: [UP_CLIENT] });
  await waitReady(relay.url);
  t.equal(metric(await prometheus(relay.url), 'relay_upstream_failures_total'), 0, 'none while the upstream answers');
  await up.kill();
  await waitFor(async () => metric(await prometheus(relay.url), 'relay_upstream_failures_total') >= 2, 'failures to be counted', 15_000, 100);
  t.match(relay.output(), /"level":40[^\n]*could not sync with the upstream/, 'each failure is a warning');
  t.notMatch(relay.output(), /the upstream answers again/);
  const back = await spawnServer({ dataDir: up.dataDir, env: { AUTH_TYPE: 'api-token', PORT: String(up.port) } });
  t.teardown(() => back.stop());
  const line = await waitFor(() => relay.output().split('\n').find((l) => l.includes('the upstream answers again')), 'the line saying the upstream is back', 20_000, 100);
  const parsed = JSON.parse(line) as { level: number; failures: number; downMs: number };
  t.equal(parsed.level, 30, 'an info line');
  t.ok(parsed.failures >= 2 && parsed.downMs > 0, `with the failures (${parsed.failures}) and how long (${parsed.downMs} ms)`);
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(relay.output().split('\n').filter((l) => l.includes('the upstream answers again')).length, 1, 'once, not at every sync after');
});
