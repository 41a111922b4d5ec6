// The pure parts of client metrics: the in-memory store and the lastSeen command.
import t from 'tap';
import type { ClientScope } from '../../src/auth/access.js';
import { recordLastSeen } from '../../src/client-metrics/logic.js';
import { ClientMetricsStore } from '../../src/client-metrics/store.js';
import { applyRecord } from '../../src/state/apply.js';
import { defaultOps } from '../../src/state/defaults.js';
import { emptyState } from '../../src/state/state.js';

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
  const tiny = new ClientMetricsStore(stateWith('a'), 1);
  tiny.register(scope, register('first', 'f', ['s1', 's2'], 'z'.repeat(100)), NOW);
  tiny.record(scope, { appName: 'first', instanceId: 'f', bucket: { start: NOW, stop: NOW, toggles: { a: { yes: 1, variants: { v: 1 } } } } }, NOW);
  const withFirst = tiny.size().bytes;
  tiny.register(scope, register('second', 's'), NOW);
  t.same(tiny.size(), { ...tiny.size(), applications: 1, instances: 1 }, 'with a budget of 1 byte only the newest instance stays');
  const fresh = new ClientMetricsStore(stateWith('a'), 1_000_000);
  fresh.register(scope, register('second', 's'), NOW);
  t.equal(tiny.size().bytes, fresh.size().bytes, 'the estimate is exactly that of the one application left');
  t.ok(withFirst > fresh.size().bytes);
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
