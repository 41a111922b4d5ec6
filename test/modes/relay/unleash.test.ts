// A relay in front of the real Unleash 8.2 (open source: no streaming, no delta, so the relay
// finds that out and polls with If-None-Match): the official Node SDK on the relay, in polling,
// delta and streaming modes, answers like the same SDK on Unleash itself for 2,000 random
// contexts over random flags made through Unleash's admin API (strategies, constraints, segments
// by id, strategy variants with payloads, dependencies); an Unleash change reaches a streaming SDK
// on the relay within the refresh interval; SDK metrics sent to the relay show in Unleash's
// applications view. The Unleash instance is shared: every name here is this run's own.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { HOSTNAME } from '../../helpers/evaluation.js';
import { differences, SDK_MODES, sdkAnswers, sdkOn, startRelay, waitFor, waitReady } from '../../helpers/relay.js';
import { FIELDS, randomContext, words } from '../../helpers/random-flags.js';
import { chance, int, pick, testRandom, type Rng } from '../../helpers/random.js';
import { client } from '../../helpers/server.js';
import { realUnleash } from '../../helpers/unleash.js';

const CONTEXTS = 2000;
const REFRESH_S = 1;

/** A constraint Unleash 8.2 accepts (it has no IN_CIDR, no inverted REGEX; values must suit the operator). */
function constraint(r: Rng) {
  const contextName = pick(r, FIELDS);
  const op = pick(r, ['IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS', 'NUM_EQ', 'NUM_GT', 'NUM_LTE', 'DATE_AFTER', 'DATE_BEFORE', 'SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'REGEX']);
  const c: Record<string, unknown> = { contextName, operator: op, inverted: chance(r, 0.2), caseInsensitive: chance(r, 0.3) };
  if (['IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS'].includes(op)) c.values = [...new Set(Array.from({ length: int(r, 1, 3) }, () => pick(r, words.filter((w) => w !== ''))))];
  else if (op.startsWith('NUM')) c.value = String(int(r, 0, 20));
  else if (op.startsWith('DATE')) c.value = pick(r, ['2020-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z']);
  else if (op.startsWith('SEMVER')) c.value = pick(r, ['1.2.3', '2.0.0', '2.0.0-beta.1']);
  else {
    c.value = pick(r, ['^a', 'o$', 'P[a-z]+']);
    c.inverted = false; // Unleash refuses an inverted REGEX
  }
  return c;
}

/** A strategy of the types Unleash 8.2 still has, with what it accepts. */
function strategy(r: Rng, segments: number[]) {
  const name = pick(r, ['default', 'flexibleRollout', 'flexibleRollout', 'remoteAddress', 'applicationHostname']);
  const parameters: Record<string, string> = {};
  if (name === 'flexibleRollout') {
    parameters.rollout = String(pick(r, [0, 10, 50, 90, 100]));
    parameters.stickiness = pick(r, ['default', 'userId', 'sessionId']);
    parameters.groupId = pick(r, ['g1', 'g2']);
  }
  if (name === 'remoteAddress') parameters.IPs = pick(r, ['10.0.0.1', '10.0.0.0/24, 1.2.3.4', '192.168.1.0/24']);
  if (name === 'applicationHostname') parameters.hostNames = pick(r, [HOSTNAME, 'elsewhere']);
  const n = chance(r, 0.35) ? int(r, 1, 3) : 0;
  const variants = Array.from({ length: n }, (_, i) => ({
    name: `v${i}`, weight: Math.floor(1000 / n), weightType: 'variable', stickiness: pick(r, ['default', 'userId', 'sessionId']),
    ...(chance(r, 0.6) ? { payload: pick(r, [{ type: 'string', value: 'x' }, { type: 'json', value: '{"a":1}' }, { type: 'number', value: '42' }]) } : {}),
  }));
  return { name, parameters, disabled: chance(r, 0.1), constraints: Array.from({ length: int(r, 0, 2) }, () => constraint(r)), variants, segments: segments.filter(() => chance(r, 0.2)) };
}

t.test('a relay in front of the real Unleash 8.2 answers as Unleash does', async (t) => {
  const oracle = await realUnleash(t);
  if (!oracle) return;
  const r = testRandom('relay-unleash');
  const run = `relay-${randomBytes(4).toString('hex')}`;
  const api = client(oracle.url, { authorization: oracle.admin });
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
    return res.json;
  };
  const F = '/api/admin/projects/default/features';
  // Context fields the constraints name (409: another run made them already).
  for (const name of FIELDS.filter((f) => !['userId', 'sessionId', 'remoteAddress'].includes(f))) await api('POST', '/api/admin/context', { name });
  const segments: number[] = [];
  for (let i = 0; i < 3; i++) segments.push((await ok('POST', '/api/admin/segments', { name: `${run}-seg${i}`, constraints: [constraint(r)] })).id);
  const flags: string[] = [];
  for (let i = 0; i < 20; i++) {
    const name = `${run}-f${i}`;
    await ok('POST', F, { name });
    for (let k = int(r, 0, 3); k > 0; k--) await ok('POST', `${F}/${name}/environments/development/strategies`, strategy(r, segments));
    if (chance(r, 0.85)) await ok('POST', `${F}/${name}/environments/development/on`);
    if (i > 5 && chance(r, 0.3)) await ok('POST', `${F}/${name}/dependencies`, { feature: pick(r, flags.slice(0, 5)), enabled: chance(r, 0.7) });
    flags.push(name);
  }
  const probe = `${run}-probe`;
  await ok('POST', F, { name: probe });
  await ok('POST', `${F}/${probe}/environments/development/strategies`, { name: 'default' });
  t.teardown(async () => {
    // Archived, so the shared instance does not fill up with this run's flags.
    for (const name of [probe, ...[...flags].reverse()]) await api('DELETE', `${F}/${name}`);
  });

  const contexts = Array.from({ length: CONTEXTS }, () => randomContext(r));
  const direct = await sdkOn(t, oracle.url, oracle.client, SDK_MODES.polling);
  const want = sdkAnswers(direct, flags, contexts);
  t.ok(want.some((a) => a.includes(' true ')) && want.some((a) => a.includes(' false ')), 'the flags answer both ways');

  const relay = await startRelay(t, oracle.url, { tokens: [oracle.client, oracle.frontend], refresh: REFRESH_S, env: { METRICS_INTERVAL_SECONDS: '1' } });
  await waitReady(relay.url, 30_000);
  const prometheus = await (await fetch(`${relay.url}/internal-backstage/prometheus`)).text();
  t.match(prometheus, /relay_upstream_connected\{scope="development\|default",protocol="polling"\} 1/, 'Unleash has no streaming or delta: the relay polls it');
  for (const [mode, m] of Object.entries(SDK_MODES)) {
    const sdk = await sdkOn(t, relay.url, oracle.client, m);
    t.same(differences(sdkAnswers(sdk, flags, contexts), want, flags, contexts), [], `a ${mode} SDK on the relay: ${flags.length} flags × ${CONTEXTS} contexts answer as on Unleash`);
  }

  const streaming = await sdkOn(t, relay.url, oracle.client, SDK_MODES.streaming);
  const times: number[] = [];
  for (let i = 0; i < 2; i++) {
    const target = !streaming.isEnabled(probe);
    const started = performance.now();
    await ok('POST', `${F}/${probe}/environments/development/${target ? 'on' : 'off'}`);
    await waitFor(() => streaming.isEnabled(probe) === target, 'the Unleash change to reach the relay\'s streaming SDK', 15_000, 5);
    times.push(Math.round(performance.now() - started));
  }
  t.ok(Math.max(...times) < REFRESH_S * 1000 + 2000, `Unleash change → streaming SDK on the relay: ${times.join(', ')} ms (refresh ${REFRESH_S} s)`);

  const appName = `${run}-app`;
  const withMetrics = await sdkOn(t, relay.url, oracle.client, SDK_MODES.polling, { appName, metricsInterval: 300, disableMetrics: false });
  for (let i = 0; i < 10; i++) withMetrics.isEnabled(probe);
  await waitFor(async () => (await api('GET', `/api/admin/metrics/applications/${appName}`)).status === 200, `${appName} in Unleash's applications view`, 30_000, 250);
  t.pass('SDK metrics sent to the relay show in Unleash\'s applications view');
});
