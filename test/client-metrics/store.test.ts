// The pure parts of client metrics: the in-memory store and the lastSeen command.
import t from 'tap';
import type { ClientScope } from '../../src/auth/authenticator.js';
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
