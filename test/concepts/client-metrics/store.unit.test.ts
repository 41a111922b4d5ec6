// The pure parts of client metrics: the in-memory store and the lastSeen command.
import t from 'tap';
import type { ClientScope } from '../../../src/core/access/access.js';
import { recordLastSeen } from '../../../src/concepts/client-metrics/logic.js';
import { ClientMetricsStore, HOUR_MS, USAGE_HOURS } from '../../../src/concepts/client-metrics/store.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { defaultOps } from '../../../src/core/state/defaults.js';
import { emptyState } from '../../../src/core/state/state.js';

const NOW = '2026-01-01T00:00:00.000Z';
const scope: ClientScope = { environment: 'production', projects: ['*'], key: 'k', actor: { name: 'sdk', userId: null } };

function stateWith(...flags: string[]) {
  const state = emptyState();
  applyRecord(state, { lsn: 1, ops: defaultOps(NOW), events: [] }, false);
  let lsn = 2;
  for (const name of flags) {
    applyRecord(state, {
      lsn: lsn++, events: [],
      ops: [
        { o: 'feature.put', feature: { name, project: 'default', type: 'release', description: null, impressionData: false, stale: false, archived: false, archivedAt: null, createdAt: NOW, lastSeenAt: null, dependencies: [] } },
        { o: 'featureEnv.put', feature: name, env: { environment: 'production', enabled: true, variants: [], lastSeenAt: null } },
      ],
    }, false);
  }
  return state;
}

const bucket = (toggles: Record<string, { yes?: number; no?: number; variants?: Record<string, number> }>) => ({
  appName: 'app', instanceId: 'i', bucket: { start: NOW, stop: NOW, toggles },
});

t.test('record: flags outside the token\'s projects are neither counted nor marked as seen', async (t) => {
  const store = new ClientMetricsStore(stateWith('a'));
  store.record({ ...scope, projects: ['shop'] }, bucket({ a: { yes: 5, no: 1 } }), NOW);
  t.same(store.application('app')!.toggles, [], 'no counts');
  t.same(store.takePending(), [], 'no lastSeen');
  store.record({ ...scope, projects: ['shop', 'default'] }, bucket({ a: { yes: 1 } }), NOW);
  t.same(store.takePending(), [{ feature: 'a', environment: 'production', at: NOW }], 'one of its projects: counted');
});

t.test('record: counts add up per flag and environment; unknown flags and empty rows are dropped', async (t) => {
  const store = new ClientMetricsStore(stateWith('a', 'b'));
  store.record(scope, bucket({ a: { yes: 2, no: 1, variants: { x: 2 } }, b: { yes: 0, no: 0 }, ghost: { yes: 9 } }), '2026-01-02T00:00:00.000Z');
  store.record(scope, bucket({ a: { yes: 1, variants: { x: 1, y: 1 } } }), '2026-01-03T00:00:00.000Z');
  const app = store.application('app')!;
  t.same(app.toggles.map((c) => [c.featureName, c.environment, c.yes, c.no, c.variants]), [['a', 'production', 3, 1, { x: 3, y: 1 }]]);
  t.same(store.takePending(), [{ feature: 'a', environment: 'production', at: '2026-01-03T00:00:00.000Z' }], 'one pending lastSeen per flag environment, the latest');
  t.same(store.takePending(), [], 'taking empties it');
});

t.test('restorePending keeps the newer of a failed batch and what arrived meanwhile', async (t) => {
  const store = new ClientMetricsStore(stateWith('a', 'b'));
  store.record(scope, bucket({ a: { yes: 1 }, b: { yes: 1 } }), '2026-01-02T00:00:00.000Z');
  const failed = store.takePending();
  store.record(scope, bucket({ a: { yes: 1 } }), '2026-01-05T00:00:00.000Z');
  store.restorePending(failed);
  const pending = store.takePending().sort((x, y) => (x.feature < y.feature ? -1 : 1));
  t.same(pending.map((p) => [p.feature, p.at]), [['a', '2026-01-05T00:00:00.000Z'], ['b', '2026-01-02T00:00:00.000Z']]);
});

t.test('register: instances are filed under the token environment; no instance id means "default"', async (t) => {
  const store = new ClientMetricsStore(stateWith());
  store.register(scope, { appName: 'app', strategies: ['default'], started: 0, interval: 1000 }, NOW);
  const app = store.application('app')!;
  t.same(app.instances.map((i) => [i.instanceId, i.environment, i.started]), [['default', 'production', '1970-01-01T00:00:00.000Z']]);
  t.same(app.strategies, ['default']);
  t.equal(store.application('other'), null);
});

t.test('recordLastSeen: one op per known flag environment, nothing for deleted flags or older times', async (t) => {
  const state = stateWith('a', 'b');
  state.featureEnvs.get('b')!.get('production')!.lastSeenAt = '2026-06-01T00:00:00.000Z';
  const change = recordLastSeen([
    { feature: 'a', environment: 'production', at: '2026-02-01T00:00:00.000Z' },
    { feature: 'b', environment: 'production', at: '2026-02-01T00:00:00.000Z' },
    { feature: 'gone', environment: 'production', at: '2026-02-01T00:00:00.000Z' },
    { feature: 'a', environment: 'nowhere', at: '2026-02-01T00:00:00.000Z' },
  ])(state);
  t.same(change.ops, [{ o: 'lastSeen', feature: 'a', environment: 'production', at: '2026-02-01T00:00:00.000Z' }]);
  t.same(change.events, [], 'metrics make no events');
  t.equal(state.featureEnvs.get('a')!.get('production')!.lastSeenAt, null, 'the command does not touch state');
});

const register = (appName: string, instanceId: string, strategies: string[] = [], pad = '') => ({
  appName, instanceId, strategies, started: NOW, interval: 1000, sdkVersion: `unleash-client-node:6${pad}`, platformName: `node${pad}`, platformVersion: `20${pad}`,
});

t.test('past the byte budget the least recently seen instances go first, and an application with its last one', async (t) => {
  const store = new ClientMetricsStore(stateWith('a'), 40_000);
  const pad = 'x'.repeat(200);
  for (let i = 0; i < 30; i++) store.register(scope, register('old', `o${i}`, [], pad), NOW);
  for (let i = 0; i < 30; i++) store.register(scope, register(`app${i}`, 'only', [], pad), NOW);
  const size = store.size();
  t.ok(size.bytes <= 40_000, `estimated bytes within the budget (${size.bytes})`);
  t.ok(size.instances < 60, `some instances were evicted (${size.instances} kept of 60)`);
  t.equal(store.application('old'), null, "the application seen first lost all its instances, and went");
  t.not(store.application('app29'), null, 'the newest application is kept');
  const listed = store.applications(0, 1000);
  t.equal(listed.total, size.applications);
  t.equal(listed.applications[0].appName, 'app29', 'listed most recently seen first');

  // Seeing an instance again makes it the newest: it outlives others registered before it.
  const lru = new ClientMetricsStore(stateWith('a'), 20_000);
  for (let i = 0; i < 5; i++) lru.register(scope, register('app', `i${i}`, [], pad), NOW);
  lru.register(scope, register('app', 'i0', [], pad), NOW);
  for (let i = 5; i < 40; i++) lru.register(scope, register('app', `i${i}`, [], pad), NOW);
  const ids = lru.application('app')!.instances.map((i) => i.instanceId);
  t.notOk(ids.includes('i1'), 'i1, not seen again, is gone');
  t.equal(lru.application('app')!.instanceCount, ids.length);
});

t.test('bytes are given back: evicting an application returns all it held to the estimate', async (t) => {
  const first = (s: ClientMetricsStore) => {
    s.register(scope, register('first', 'f', ['s1', 's2'], 'z'.repeat(100)), NOW);
    s.record(scope, { appName: 'first', instanceId: 'f', bucket: { start: NOW, stop: NOW, toggles: { a: { yes: 1, variants: { v: 1 } } } } }, NOW);
  };
  const second = (s: ClientMetricsStore) => s.register(scope, register('second', 's'), NOW);
  const alone = (fill: (s: ClientMetricsStore) => void) => {
    const s = new ClientMetricsStore(stateWith('a'), 1_000_000);
    fill(s);
    return s.size().bytes;
  };
  // Room for either application, not both.
  const tiny = new ClientMetricsStore(stateWith('a'), Math.max(alone(first), alone(second)));
  first(tiny);
  t.equal(tiny.size().bytes, alone(first));
  second(tiny);
  t.same(tiny.size(), { ...tiny.size(), applications: 1, instances: 1 }, 'only the newest application stays');
  t.equal(tiny.size().bytes, alone(second), 'the estimate is exactly that of the one application left');
  t.ok(alone(first) > alone(second));
});

t.test('strategy names are capped per application; variant names that are Object.prototype members are plain names', async (t) => {
  const store = new ClientMetricsStore(stateWith('a'));
  store.register(scope, register('app', 'i', Array.from({ length: 80 }, (_, i) => `s${i}`)), NOW);
  store.register(scope, register('app', 'i', Array.from({ length: 80 }, (_, i) => `t${i}`)), NOW);
  t.equal(store.application('app')!.strategies.length, 100, 'at most 100 strategy names');
  // Built by JSON.parse, as the server does, so "__proto__" is an own key.
  const body = JSON.parse(`{"appName":"app","instanceId":"i","bucket":{"start":"${NOW}","stop":"${NOW}","toggles":{"a":{"yes":1,"variants":{"constructor":2,"toString":1,"__proto__":3,"hasOwnProperty":4}}}}}`);
  store.record(scope, body, NOW);
  store.record(scope, body, NOW);
  const counted = store.application('app')!.toggles[0].variants;
  t.same(JSON.parse(JSON.stringify(counted)), JSON.parse('{"constructor":4,"toString":2,"__proto__":6,"hasOwnProperty":8}'), 'each counted as a name');
});

/** `hours` hours after NOW, plus `minutes`. */
const at = (hours: number, minutes = 0) => new Date(Date.parse(NOW) + hours * HOUR_MS + minutes * 60_000).toISOString();

t.test('usage: counts by the hour they arrived in, per application and environment, kept for 48 hours', async (t) => {
  const store = new ClientMetricsStore(stateWith('a', 'b'));
  const dev: ClientScope = { ...scope, environment: 'development' };
  store.record(scope, bucket({ a: { yes: 2, no: 1, variants: { blue: 2 } } }), at(0, 5));
  store.record(scope, bucket({ a: { yes: 1, no: 0, variants: { blue: 1, red: 3 } }, b: { yes: 7 } }), at(0, 55));
  store.record(scope, { ...bucket({ a: { yes: 4 } }), appName: 'other' }, at(1, 1));
  store.record(dev, bucket({ a: { no: 3 } }), at(1, 30));
  t.same(store.usage('a', Date.parse(NOW)).map((e) => [e.timestamp, e.environment, e.appName, e.yes, e.no, e.variants]), [
    [at(0), 'production', 'app', 3, 1, { blue: 3, red: 3 }],
    [at(1), 'development', 'app', 0, 3, {}],
    [at(1), 'production', 'other', 4, 0, {}],
  ], 'one entry per hour, application and environment, oldest first');
  t.same(store.usage('a', Date.parse(at(0, 30))).map((e) => e.timestamp), [at(1), at(1)], 'from the first whole hour after `since`');
  t.same(store.usage('b', 0).map((e) => [e.yes, e.no]), [[7, 0]], 'another flag, its own counts');
  t.same(store.usage('nothing', 0), [], 'a flag never counted: nothing');

  // Two days and more later: the hours older than 48 go when the flag is counted again.
  for (let h = 2; h <= 60; h++) store.record(scope, bucket({ a: { yes: 1 } }), at(h));
  const hours = store.usage('a', 0).filter((e) => e.appName === 'app' && e.environment === 'production').map((e) => e.timestamp);
  t.equal(hours.length, USAGE_HOURS + 1, `${USAGE_HOURS} hours back and the current one`);
  t.equal(hours[0], at(60 - USAGE_HOURS), 'the oldest kept is 48 hours before the newest');
  t.equal(store.application('app')!.toggles.find((c) => c.featureName === 'a' && c.environment === 'production')!.yes, 3 + 59, 'the totals keep everything');
});

t.test('usage: a clock set back adds to the newest hour; the bytes given back when hours expire match those taken', async (t) => {
  const store = new ClientMetricsStore(stateWith('a'));
  store.record(scope, bucket({ a: { yes: 1 } }), at(5));
  store.record(scope, bucket({ a: { yes: 1 } }), at(3));
  t.same(store.usage('a', 0).map((e) => [e.timestamp, e.yes]), [[at(5), 2]], 'one bucket, in order');
  const fresh = new ClientMetricsStore(stateWith('a'));
  fresh.record(scope, bucket({ a: { yes: 1, variants: { v: 1 } } }), at(200));
  const one = fresh.size().bytes;
  const aged = new ClientMetricsStore(stateWith('a'));
  for (let h = 0; h < 100; h++) aged.record(scope, bucket({ a: { yes: 1, variants: { [`v${h % 7}`]: 1 } } }), at(h));
  aged.record(scope, bucket({ a: { yes: 1, variants: { v: 1 } } }), at(200));
  const totalsOnly = Array.from({ length: 7 }, (_, i) => 48 + 24 + 2 * `v${i}`.length).reduce((x, y) => x + y, 0);
  t.equal(aged.size().bytes, one + totalsOnly, 'only the totals\' variant names outlive the expired hours');
});

t.test('one application inventing variant names across flags and hours stays within the budget', async (t) => {
  const flags = Array.from({ length: 10 }, (_, i) => `f${i}`);
  const budget = 1024 * 1024;
  const store = new ClientMetricsStore(stateWith(...flags), budget);
  const long = (h: number, i: number) => `${'v'.repeat(240)}-${h}-${i}`;
  let most = 0;
  for (let h = 0; h < 30; h++) {
    const toggles = Object.fromEntries(flags.map((f) => [f, { yes: 1, variants: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [long(h, i), 1])) }]));
    store.record(scope, bucket(toggles), at(h));
    most = Math.max(most, store.size().bytes);
  }
  t.ok(most <= budget && most > budget / 2, `at most ${most} estimated bytes held (budget ${budget})`);
  store.record(scope, bucket({ f0: { yes: 1 } }), at(31));
  t.same(store.usage('f0', 0).map((e) => e.yes), [1], 'and it reports again afresh');
});
