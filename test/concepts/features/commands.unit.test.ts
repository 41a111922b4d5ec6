// Flag commands as pure functions: same state + clock + ids → same ops and events; the input
// state is never mutated (it is deep-frozen here); failures throw before anything is built.
import t from 'tap';
import {
  addDependency, archiveFeature, createFeature, deleteArchivedFeature, patchFeature, removeDependency, reviveFeature, setEnvironmentEnabled,
} from '../../../src/concepts/features/logic.js';
import { strategiesOf } from '../../../src/core/state/state.js';
import { applyOp } from '../../../src/core/state/ops.js';
import { copiesOf, featureEnv, fixtureState } from '../../core/state/fixture.js';
import { runFailing, runPure } from '../../core/engine/pure.js';

const NOW = '2026-02-02T02:02:02.000Z';

t.test('createFeature: flag in every environment, disabled; tags created as needed; feature-created', async (t) => {
  const { change, after } = runPure(t, createFeature('default', {
    name: 'new-flag', description: 'd', tags: [{ type: 'team', value: 'core' }, { type: 'team', value: 'new' }],
  }));
  t.same(change.events.map((e) => e.type), ['feature-created']);
  t.same(change.events[0].tags, [{ type: 'team', value: 'core' }, { type: 'team', value: 'new' }]);
  const f = after.features.get('new-flag')!;
  t.equal(f.createdAt, NOW);
  t.equal(f.type, 'release');
  t.same([...after.featureEnvs.get('new-flag')!.values()].map((e) => [e.environment, e.enabled]), [['development', false], ['production', false]]);
  t.ok(after.tags.has('team:new'), 'the new tag exists');
  t.equal(change.ops.filter((o) => o.o === 'tag.put').length, 1, 'an existing tag is not put again');
  runFailing(t, createFeature('default', { name: 'alpha' }), 'NameExistsError');
  runFailing(t, createFeature('default', { name: 'gone' }), 'NameExistsError');
  runFailing(t, createFeature('nope', { name: 'x1' }), 'NotFoundError');
  runFailing(t, createFeature('default', { name: 'a b' }), 'ValidationError');
  runFailing(t, createFeature('default', { name: '..' }), 'ValidationError');
  runFailing(t, createFeature('default', { name: 'ok1', tags: [{ type: 'nosuch', value: 'v' }] }), 'ValidationError');
});

t.test('patchFeature: metadata event with data/preData, then stale-on', async (t) => {
  const { change, after } = runPure(t, patchFeature('default', 'alpha', { name: 'alpha', project: 'default', stale: true, description: null, type: 'kill-switch' }));
  t.same(change.events.map((e) => e.type), ['feature-metadata-updated', 'feature-stale-on']);
  t.equal((change.events[0].preData as { description: string }).description, 'first');
  t.equal((change.events[0].data as { type: string }).type, 'kill-switch');
  t.equal(after.features.get('alpha')!.stale, true);
  t.equal(after.features.get('alpha')!.description, null);
  runFailing(t, patchFeature('default', 'alpha', { name: 'alpha2', project: 'default' }), 'ValidationError');
  runFailing(t, patchFeature('default', 'alpha', { name: 'alpha', project: 'other' }), 'ValidationError');
  runFailing(t, patchFeature('default', 'alpha', { name: 'alpha', project: 'default', archived: true }), 'ValidationError');
  runFailing(t, patchFeature('other', 'alpha', { name: 'alpha', project: 'other' }), 'NotFoundError');
});

t.test('archiveFeature: archivedAt is the clock; refused while other flags depend on it', async (t) => {
  const { change, after } = runPure(t, archiveFeature('default', 'beta'));
  t.same(change.events.map((e) => e.type), ['feature-archived']);
  t.equal(after.features.get('beta')!.archivedAt, NOW);
  runFailing(t, archiveFeature('default', 'alpha'), 'NoAccessError');
  runFailing(t, archiveFeature('default', 'gone'), 'NotFoundError');
});

t.test('reviveFeature: un-archives and disables every environment', async (t) => {
  // An archived flag that was left enabled somewhere comes back disabled everywhere.
  const base = fixtureState();
  applyOp(base, { o: 'featureEnv.put', feature: 'gone', env: featureEnv('development', { enabled: true }) });
  const { change, after } = runPure(t, reviveFeature('gone'), copiesOf(base));
  t.same(change.events.map((e) => e.type), ['feature-revived']);
  t.equal(after.features.get('gone')!.archived, false);
  t.equal(after.features.get('gone')!.archivedAt, null);
  t.equal(after.featureEnvs.get('gone')!.get('development')!.enabled, false);
  runFailing(t, reviveFeature('alpha'), 'NotFoundError');
  runFailing(t, reviveFeature('nope'), 'NotFoundError');
});

t.test('deleteArchivedFeature: removes the flag, its strategies, tags and dependencies on it', async (t) => {
  // Archive beta (which depends on alpha), then archive alpha and delete it.
  const b = runPure(t, archiveFeature('default', 'beta')).after;
  const a = runPure(t, archiveFeature('default', 'alpha'), copiesOf(b)).after;
  const { change, after } = runPure(t, deleteArchivedFeature('alpha'), copiesOf(a));
  t.same(change.events.map((e) => e.type), ['feature-deleted']);
  t.same(change.events[0].tags, [{ type: 'simple', value: 'x' }, { type: 'team', value: 'core' }]);
  t.notOk(after.features.has('alpha'));
  t.notOk(after.featureEnvs.has('alpha'));
  t.notOk(after.featureTags.has('alpha'));
  t.same([...after.strategies.keys()], [], 'its strategies are gone');
  t.same(after.features.get('beta')!.dependencies, [], 'beta no longer depends on it');
  runFailing(t, deleteArchivedFeature('beta'), 'NotFoundError');
});

t.test('setEnvironmentEnabled: on with no enabled strategy adds flexibleRollout 100% first', async (t) => {
  const { change, after } = runPure(t, setEnvironmentEnabled('default', 'beta', 'development', true));
  t.same(change.events.map((e) => e.type), ['feature-strategy-add', 'feature-environment-enabled']);
  const [s] = strategiesOf(after, 'beta', 'development');
  t.equal(s.id, 'id-1');
  t.equal(s.name, 'flexibleRollout');
  t.same(s.parameters, { rollout: '100', stickiness: 'default', groupId: 'beta' });
  t.equal(after.featureEnvs.get('beta')!.get('development')!.enabled, true);
  const withStrategy = runPure(t, setEnvironmentEnabled('default', 'alpha', 'production', true));
  t.same(withStrategy.change.events.map((e) => e.type), ['feature-environment-enabled'], 'an enabled strategy exists: nothing added');
  const same = runPure(t, setEnvironmentEnabled('default', 'alpha', 'development', true));
  t.same(same.change, { ops: [], events: [], result: null }, 'no state change, no event');
  const off = runPure(t, setEnvironmentEnabled('default', 'alpha', 'development', false));
  t.same(off.change.events.map((e) => e.type), ['feature-environment-disabled']);
  runFailing(t, setEnvironmentEnabled('default', 'alpha', 'staging', true), 'NotFoundError');
  runFailing(t, setEnvironmentEnabled('default', 'beta', 'production', true), 'NotFoundError');
  runFailing(t, setEnvironmentEnabled('default', 'gone', 'development', true), 'NotFoundError');
});

t.test('dependencies: add and remove, with their events and rules', async (t) => {
  const base = runPure(t, removeDependency('default', 'beta', null));
  t.same(base.change.events.map((e) => e.type), ['feature-dependencies-removed']);
  const add = runPure(t, addDependency('default', 'alpha', { feature: 'beta', enabled: false, variants: ['v'] }), copiesOf(base.after));
  t.same(add.change.events.map((e) => e.type), ['feature-dependency-added']);
  t.same(add.after.features.get('alpha')!.dependencies, [{ feature: 'beta', enabled: false, variants: [] }], 'variants only when enabled');
  const rm = runPure(t, removeDependency('default', 'beta', 'alpha'));
  t.same(rm.change.events.map((e) => e.type), ['feature-dependency-removed']);
  runFailing(t, removeDependency('default', 'alpha', 'beta'), 'NotFoundError');
  runFailing(t, addDependency('default', 'alpha', { feature: 'alpha' }), 'ValidationError');
  runFailing(t, addDependency('default', 'alpha', { feature: 'nope' }), 'ValidationError');
  runFailing(t, addDependency('default', 'alpha', { feature: 'gone' }), 'ValidationError');
  runFailing(t, addDependency('default', 'alpha', { feature: 'beta' }), 'ValidationError');
  const none = runPure(t, removeDependency('default', 'alpha', null));
  t.same(none.change, { ops: [], events: [], result: null });
});
