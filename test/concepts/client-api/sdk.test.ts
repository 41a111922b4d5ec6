// The official Node SDK (unleash-client 6.12.1) against a real Fanion process: flags built
// through the admin API must evaluate as Unleash would, changes must reach the SDK at its next
// poll, unchanged polls must be 304s, and register/metrics must be accepted.
import os from 'node:os';
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { client, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.sdk-test-admin';
const SDK_TOKEN = '*:development.sdk-test-client';
const P = '/api/admin/projects/default/features';
const ENV = 'development';

function waitFor<T>(fn: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      const v = fn();
      if (v) return resolve(v);
      if (Date.now() - started > ms) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 25);
    };
    tick();
  });
}

t.test('the Node SDK evaluates flags built through the admin API', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: SDK_TOKEN, METRICS_FLUSH_MS: '200' } });
  t.teardown(() => srv.stop());
  const api = client(srv.url, { authorization: ADMIN });
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
    return res;
  };
  const flag = async (name: string, strategies: unknown[], on = true) => {
    await ok('POST', P, { name });
    for (const s of strategies) await ok('POST', `${P}/${name}/environments/${ENV}/strategies`, s);
    if (on) await ok('POST', `${P}/${name}/environments/${ENV}/on`);
  };
  const withConstraint = (c: Record<string, unknown>) => [{ name: 'default', constraints: [c] }];

  // Every built-in strategy.
  await flag('s-default', [{ name: 'default' }]);
  await flag('s-users', [{ name: 'userWithId', parameters: { userIds: 'u1, u2' } }]);
  await flag('s-host', [{ name: 'applicationHostname', parameters: { hostNames: os.hostname() } }]);
  await flag('s-host-other', [{ name: 'applicationHostname', parameters: { hostNames: 'no-such-host.example' } }]);
  await flag('s-ip', [{ name: 'remoteAddress', parameters: { IPs: '10.0.0.0/8, 1.2.3.4' } }]);
  await flag('s-rollout-100', [{ name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'userId' } }]);
  await flag('s-rollout-0', [{ name: 'flexibleRollout', parameters: { rollout: '0', stickiness: 'userId' } }]);
  await flag('s-rollout-50', [{ name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'userId', groupId: 'g' } }]);
  await flag('s-legacy-user', [{ name: 'gradualRolloutUserId', parameters: { percentage: '100', groupId: 'g' } }]);
  await flag('s-legacy-session', [{ name: 'gradualRolloutSessionId', parameters: { percentage: '100', groupId: 'g' } }]);
  await flag('s-legacy-random-100', [{ name: 'gradualRolloutRandom', parameters: { percentage: '100' } }]);
  await flag('s-legacy-random-0', [{ name: 'gradualRolloutRandom', parameters: { percentage: '0' } }]);
  await flag('s-two', [{ name: 'userWithId', parameters: { userIds: 'u9' } }, { name: 'remoteAddress', parameters: { IPs: '9.9.9.9' } }]);

  // Constraint operators.
  await flag('c-in', withConstraint({ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }));
  await flag('c-not-in', withConstraint({ contextName: 'country', operator: 'NOT_IN', values: ['NO'] }));
  await flag('c-inverted', withConstraint({ contextName: 'country', operator: 'IN', values: ['NO'], inverted: true }));
  await flag('c-ends', withConstraint({ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@corp.com'] }));
  await flag('c-ends-ci', withConstraint({ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@CORP.COM'], caseInsensitive: true }));
  await flag('c-starts', withConstraint({ contextName: 'email', operator: 'STR_STARTS_WITH', values: ['admin'] }));
  await flag('c-contains', withConstraint({ contextName: 'email', operator: 'STR_CONTAINS', values: ['corp'] }));
  for (const op of ['NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE']) {
    await flag(`c-${op.toLowerCase()}`, withConstraint({ contextName: 'age', operator: op, value: '30' }));
  }
  await flag('c-date-after', withConstraint({ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2020-01-01T00:00:00.000Z' }));
  await flag('c-date-before', withConstraint({ contextName: 'currentTime', operator: 'DATE_BEFORE', value: '2020-01-01T00:00:00.000Z' }));
  for (const op of ['SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE']) {
    await flag(`c-${op.toLowerCase()}`, withConstraint({ contextName: 'version', operator: op, value: '1.2.3' }));
  }

  // Segments: their constraints are inlined into the strategy.
  const seg = await ok('POST', '/api/admin/segments', { name: 'norway', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }] });
  await flag('seg', [{ name: 'default', constraints: [{ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@corp.com'] }], segments: [seg.json.id] }]);

  // Strategy variants, and environment variants with an override.
  await flag('v-strategy', [{
    name: 'flexibleRollout', parameters: { rollout: '100' },
    variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'b' } }],
  }]);
  await flag('v-env', [{ name: 'default' }]);
  await ok('PUT', `${P}/v-env/environments/${ENV}/variants`, [
    { name: 'a', weight: 500, weightType: 'variable', stickiness: 'default' },
    { name: 'b', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"x":1}' }, overrides: [{ contextName: 'userId', values: ['forced-b'] }] },
  ]);

  // Dependencies.
  await flag('d-parent-off', [{ name: 'default' }], false);
  await flag('d-child', [{ name: 'default' }]);
  await ok('POST', `${P}/d-child/dependencies`, { feature: 's-default' });
  await flag('d-child-variant', [{ name: 'default' }]);
  await ok('POST', `${P}/d-child-variant/dependencies`, { feature: 'v-strategy', enabled: true, variants: ['blue'] });
  await flag('d-child-wrong-variant', [{ name: 'default' }]);
  await ok('POST', `${P}/d-child-wrong-variant/dependencies`, { feature: 'v-strategy', enabled: true, variants: ['red'] });
  await flag('d-child-of-off', [{ name: 'default' }]);
  await ok('POST', `${P}/d-child-of-off/dependencies`, { feature: 'd-parent-off' });
  await flag('d-child-wants-off', [{ name: 'default' }]);
  await ok('POST', `${P}/d-child-wants-off/dependencies`, { feature: 'd-parent-off', enabled: false });

  // Disabled: off in this environment, or only on in another one, or every strategy disabled.
  await flag('off-here', [{ name: 'default' }], false);
  await ok('POST', P, { name: 'prod-only' });
  await ok('POST', `${P}/prod-only/environments/production/on`);
  await flag('strategy-disabled', [{ name: 'userWithId', parameters: { userIds: 'nobody' } }, { name: 'default', disabled: true }]);

  const problems: unknown[] = [];
  const events = { unchanged: 0, changed: 0, registered: 0, sent: 0 };
  const unleash = new Unleash({
    url: `${srv.url}/api/`,
    appName: 'fanion-sdk-test',
    instanceId: 'sdk-test-1',
    environment: ENV,
    customHeaders: { Authorization: SDK_TOKEN },
    refreshInterval: 250,
    metricsInterval: 300,
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
  });
  t.teardown(() => unleash.destroy());
  unleash.on(UnleashEvents.Warn, (w) => problems.push(['warn', w]));
  unleash.on(UnleashEvents.Error, (e) => problems.push(['error', e]));
  unleash.on(UnleashEvents.Unchanged, () => events.unchanged++);
  unleash.on(UnleashEvents.Changed, () => events.changed++);
  unleash.on(UnleashEvents.Registered, () => events.registered++);
  unleash.on(UnleashEvents.Sent, () => events.sent++);
  await new Promise<void>((resolve, reject) => {
    unleash.once(UnleashEvents.Synchronized, () => resolve());
    setTimeout(() => reject(new Error(`SDK did not synchronize: ${JSON.stringify(problems)}`)), 10_000);
  });

  const on = (name: string, ctx: Record<string, unknown> = {}) => unleash.isEnabled(name, ctx as never);
  const props = (p: Record<string, string>) => ({ properties: p });

  t.test('built-in strategies', async (t) => {
    t.equal(on('s-default'), true, 'default');
    t.equal(on('s-users', { userId: 'u2' }), true, 'userWithId: listed user');
    t.equal(on('s-users', { userId: 'u3' }), false, 'userWithId: other user');
    t.equal(on('s-host'), true, 'applicationHostname: this host');
    t.equal(on('s-host-other'), false, 'applicationHostname: other host');
    t.equal(on('s-ip', { remoteAddress: '10.20.30.40' }), true, 'remoteAddress: in CIDR');
    t.equal(on('s-ip', { remoteAddress: '1.2.3.4' }), true, 'remoteAddress: exact');
    t.equal(on('s-ip', { remoteAddress: '5.6.7.8' }), false, 'remoteAddress: outside');
    t.equal(on('s-rollout-100', { userId: 'x' }), true, 'flexibleRollout 100%');
    t.equal(on('s-rollout-0', { userId: 'x' }), false, 'flexibleRollout 0%');
    let yes = 0;
    for (let i = 0; i < 1000; i++) if (on('s-rollout-50', { userId: `user-${i}` })) yes++;
    t.ok(yes > 400 && yes < 600, `flexibleRollout 50% enables about half (${yes}/1000)`);
    t.equal(on('s-rollout-50', { userId: 'user-7' }), on('s-rollout-50', { userId: 'user-7' }), 'sticky per user');
    t.equal(on('s-legacy-user', { userId: 'x' }), true, 'gradualRolloutUserId 100%');
    t.equal(on('s-legacy-session', { sessionId: 's1' }), true, 'gradualRolloutSessionId 100%');
    t.equal(on('s-legacy-random-100'), true, 'gradualRolloutRandom 100%');
    t.equal(on('s-legacy-random-0'), false, 'gradualRolloutRandom 0%');
    t.equal(on('s-two', { remoteAddress: '9.9.9.9' }), true, 'any strategy of several');
    t.equal(on('s-two', { userId: 'u9' }), true, 'any strategy of several (the other)');
    t.equal(on('s-two', { userId: 'u8' }), false);
  });

  t.test('constraint operators', async (t) => {
    t.equal(on('c-in', props({ country: 'SE' })), true);
    t.equal(on('c-in', props({ country: 'DK' })), false);
    t.equal(on('c-not-in', props({ country: 'DK' })), true);
    t.equal(on('c-not-in', props({ country: 'NO' })), false);
    t.equal(on('c-inverted', props({ country: 'NO' })), false, 'inverted IN');
    t.equal(on('c-inverted', props({ country: 'SE' })), true, 'inverted IN');
    t.equal(on('c-ends', props({ email: 'a@corp.com' })), true);
    t.equal(on('c-ends', props({ email: 'a@CORP.com' })), false, 'case-sensitive by default');
    t.equal(on('c-ends-ci', props({ email: 'a@corp.com' })), true, 'caseInsensitive');
    t.equal(on('c-starts', props({ email: 'admin@x' })), true);
    t.equal(on('c-starts', props({ email: 'x@admin' })), false);
    t.equal(on('c-contains', props({ email: 'a@corp.com' })), true);
    t.equal(on('c-contains', props({ email: 'a@x.com' })), false);
    const num: [string, string, boolean][] = [
      ['num_eq', '30', true], ['num_eq', '31', false], ['num_gt', '31', true], ['num_gt', '30', false],
      ['num_gte', '30', true], ['num_gte', '29', false], ['num_lt', '29', true], ['num_lt', '30', false],
      ['num_lte', '30', true], ['num_lte', '31', false],
    ];
    for (const [op, age, want] of num) t.equal(on(`c-${op}`, props({ age })), want, `${op} ${age}`);
    t.equal(on('c-date-after', { currentTime: new Date('2021-06-01T00:00:00Z') }), true);
    t.equal(on('c-date-after', { currentTime: new Date('2019-06-01T00:00:00Z') }), false);
    t.equal(on('c-date-before', { currentTime: new Date('2019-06-01T00:00:00Z') }), true);
    t.equal(on('c-date-before', { currentTime: new Date('2021-06-01T00:00:00Z') }), false);
    const semver: [string, string, boolean][] = [
      ['semver_eq', '1.2.3', true], ['semver_eq', '1.2.4', false], ['semver_gt', '1.3.0', true], ['semver_gt', '1.2.3', false],
      ['semver_lt', '1.2.2', true], ['semver_lt', '1.2.3', false], ['semver_gte', '1.2.3', true], ['semver_gte', '1.2.2', false],
      ['semver_lte', '1.2.3', true], ['semver_lte', '1.2.4', false],
    ];
    for (const [op, version, want] of semver) t.equal(on(`c-${op}`, props({ version })), want, `${op} ${version}`);
  });

  t.test('segments', async (t) => {
    t.equal(on('seg', props({ country: 'NO', email: 'a@corp.com' })), true, 'segment and own constraint both hold');
    t.equal(on('seg', props({ country: 'SE', email: 'a@corp.com' })), false, 'segment constraint fails');
    t.equal(on('seg', props({ country: 'NO', email: 'a@x.com' })), false, 'own constraint fails');
  });

  t.test('variants', async (t) => {
    const v = unleash.getVariant('v-strategy', { userId: 'x' });
    t.equal(v.name, 'blue', 'strategy variant');
    t.equal(v.enabled, true);
    t.same(v.payload, { type: 'string', value: 'b' });
    t.equal(unleash.getVariant('v-env', { userId: 'forced-b' }).name, 'b', 'an override picks its variant');
    t.same(unleash.getVariant('v-env', { userId: 'forced-b' }).payload, { type: 'json', value: '{"x":1}' });
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) seen.add(unleash.getVariant('v-env', { userId: `u${i}` }).name);
    t.same([...seen].sort(), ['a', 'b'], 'environment variants split users');
    t.equal(unleash.getVariant('off-here').name, 'disabled', 'a disabled flag gives the disabled variant');
  });

  t.test('dependencies', async (t) => {
    t.equal(on('d-child'), true, 'parent enabled');
    t.equal(on('d-child-variant', { userId: 'x' }), true, 'parent gives the required variant');
    t.equal(on('d-child-wrong-variant', { userId: 'x' }), false, 'parent gives another variant');
    t.equal(on('d-child-of-off'), false, 'parent disabled');
    t.equal(on('d-child-wants-off'), true, 'dependency on a disabled parent');
  });

  t.test('disabled environments and strategies', async (t) => {
    t.equal(on('off-here'), false, 'off in this environment');
    t.equal(on('prod-only'), false, 'on only in production');
    t.equal(on('strategy-disabled', { userId: 'x' }), false, 'a disabled default strategy does not count');
  });

  t.test('polls return 304 while nothing changes; a change is seen at the next poll', async (t) => {
    const start = events.unchanged;
    await waitFor(() => events.unchanged >= start + 2, 'two 304 polls');
    t.pass('the SDK got 304s');
    const changedBefore = events.changed;
    await ok('POST', `${P}/s-default/environments/${ENV}/off`);
    await waitFor(() => events.changed > changedBefore, 'the SDK to see the change', 5_000);
    t.equal(on('s-default'), false, 'the switched-off flag is off in the SDK');
    t.equal(on('d-child'), false, 'and its child with it');
  });

  t.test('register and metrics are accepted and recorded', async (t) => {
    const sentBefore = events.sent;
    for (let i = 0; i < 5; i++) on('c-in', props({ country: 'NO' }));
    await waitFor(() => events.registered >= 1 && events.sent > sentBefore, 'register and a metrics post after these evaluations');
    const app = await api('GET', '/api/admin/metrics/applications/fanion-sdk-test');
    t.equal(app.status, 200);
    t.ok(app.json.instances.some((i: any) => i.instanceId === 'sdk-test-1' && i.environment === ENV), 'the instance is listed');
    t.ok(app.json.strategies.includes('flexibleRollout'), 'with the strategies the SDK knows');
    const counts = app.json.toggles.find((c: any) => c.featureName === 'c-in');
    t.ok(counts && counts.yes >= 5, 'yes counts of evaluations arrived');
    let lastSeen: string | null = null;
    for (let i = 0; i < 200 && !lastSeen; i++) {
      const view = await api('GET', `${P}/c-in`);
      lastSeen = view.json.environments.find((e: any) => e.name === ENV).lastSeenAt;
      if (!lastSeen) await new Promise((r) => setTimeout(r, 50));
    }
    t.type(lastSeen, 'string', 'lastSeenAt of the flag environment is set after the metrics flush');
  });

  t.test('no warn or error events from the SDK', async (t) => {
    t.same(problems, []);
  });
});
