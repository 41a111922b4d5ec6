// Strategy commands as pure functions: same state + clock + ids → same ops and events; the input
// state is never mutated; bad input throws before anything is built.
import t from 'tap';
import { strategiesOf } from '../../../src/core/state/state.js';
import { addStrategy, copyEnvironment, deleteStrategy, MAX_STRATEGIES, setSortOrder, updateStrategy, type Where } from '../../../src/concepts/strategies/logic.js';
import { copiesOf, fixtureState, strategy as fixtureStrategy } from '../../core/state/fixture.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { runFailing, runPure } from '../../core/engine/pure.js';

const dev: Where = { project: 'default', feature: 'alpha', environment: 'development' };
const prod: Where = { project: 'default', feature: 'alpha', environment: 'production' };

t.test('addStrategy builds the strategy with the env id and clock and one feature-strategy-add event', async (t) => {
  const { change, after } = runPure(t, addStrategy(dev, {
    name: 'flexibleRollout',
    parameters: { rollout: 25 },
    constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }],
    variants: [{ name: 'b' }, { name: 'a', weight: 100, weightType: 'fix' }],
    segments: [1],
  }));
  t.equal(change.ops.length, 1);
  t.equal(change.result.id, 'id-1', 'the id comes from the id source');
  t.same(change.result.parameters, { rollout: '25', stickiness: 'default', groupId: 'alpha' }, 'flexibleRollout defaults, values as strings');
  t.equal(change.result.sortOrder, 3, 'sortOrder is max + 1');
  t.same(change.result.variants.map((v) => [v.name, v.weight]), [['a', 100], ['b', 900]]);
  t.same(change.events.map((e) => e.type), ['feature-strategy-add']);
  t.equal(change.events[0].environment, 'development');
  const stored = after.strategies.get('id-1')!;
  t.equal(stored.createdAt, '2026-02-02T02:02:02.000Z', 'createdAt is the env clock');
  t.equal(stored.seq, 5, 'seq continues the state counter');
  t.same(strategiesOf(after, 'alpha', 'development').map((s) => s.id), ['s1', 's2', 's3', 'id-1']);
});

t.test('addStrategy uses the project default stickiness', async (t) => {
  const { change } = runPure(t, addStrategy({ project: 'default', feature: 'beta', environment: 'development' }, { name: 'flexibleRollout' }));
  t.equal(change.result.parameters.stickiness, 'default');
});

t.test('addStrategy refuses bad input without touching the state', async (t) => {
  runFailing(t, addStrategy(dev, { name: 'noSuchType' }), 'ValidationError');
  runFailing(t, addStrategy(dev, { name: 'flexibleRollout', parameters: { rollout: '101' } }), 'ValidationError');
  runFailing(t, addStrategy(dev, { name: 'default', segments: [42] }), 'ValidationError');
  runFailing(t, addStrategy(dev, { name: 'default', constraints: [{ contextName: 'x', operator: 'NUM_GT', value: 'x' }] }), 'ValidationError');
  runFailing(t, addStrategy(dev, { name: 'default', variants: [{ name: 'f', weight: 1000, weightType: 'fix' }] }), 'ValidationError');
  runFailing(t, addStrategy({ ...dev, feature: 'nope' }, { name: 'default' }), 'NotFoundError');
  runFailing(t, addStrategy({ ...dev, feature: 'gone' }, { name: 'default' }), 'NotFoundError');
  runFailing(t, addStrategy({ ...dev, project: 'other' }, { name: 'default' }), 'NotFoundError');
  runFailing(t, addStrategy({ ...dev, environment: 'staging' }, { name: 'default' }), 'NotFoundError');
  runFailing(t, addStrategy({ ...dev, feature: 'beta', environment: 'production' }, { name: 'default' }), 'NotFoundError');
});

t.test('updateStrategy keeps id, seq and createdAt; emits data and preData', async (t) => {
  const { change, after } = runPure(t, updateStrategy(dev, 's2', { name: 'default', title: 'T', constraints: [] }));
  t.same(change.events.map((e) => e.type), ['feature-strategy-update']);
  t.equal((change.events[0].preData as { id: string }).id, 's2');
  t.equal((change.events[0].data as { title: string }).title, 'T');
  const s2 = after.strategies.get('s2')!;
  t.equal(s2.seq, 2);
  t.equal(s2.createdAt, '2026-01-01T00:00:00.000Z');
  t.same(s2.segments, [1], 'fields left out keep their value');
  runFailing(t, updateStrategy(dev, 's4', { name: 'default' }), 'NotFoundError');
  runFailing(t, updateStrategy(dev, 'nope', { name: 'default' }), 'NotFoundError');
});

t.test('disabling the last enabled strategy of an enabled environment switches it off', async (t) => {
  let base = runPure(t, updateStrategy(dev, 's1', { disabled: true })).after;
  base = runPure(t, updateStrategy(dev, 's2', { disabled: true }), copiesOf(base)).after;
  const { change, after } = runPure(t, updateStrategy(dev, 's3', { disabled: true }), copiesOf(base));
  t.same(change.events.map((e) => e.type), ['feature-strategy-update', 'feature-environment-disabled']);
  t.equal(after.featureEnvs.get('alpha')!.get('development')!.enabled, false);
});

t.test('deleteStrategy: feature-strategy-remove with preData; switches off when none enabled is left', async (t) => {
  const one = runPure(t, deleteStrategy(dev, 's1'));
  t.same(one.change.events.map((e) => e.type), ['feature-strategy-remove']);
  t.equal((one.change.events[0].preData as { id: string }).id, 's1');
  t.notOk(one.after.strategies.has('s1'));
  // production is disabled, so removing its only strategy emits no disable event.
  const p = runPure(t, deleteStrategy(prod, 's4'));
  t.same(p.change.events.map((e) => e.type), ['feature-strategy-remove']);
  let base = one.after;
  base = runPure(t, deleteStrategy(dev, 's2'), copiesOf(base)).after;
  const last = runPure(t, deleteStrategy(dev, 's3'), copiesOf(base));
  t.same(last.change.events.map((e) => e.type), ['feature-environment-disabled', 'feature-strategy-remove']);
  runFailing(t, deleteStrategy(dev, 's4'), 'NotFoundError');
});

t.test('setSortOrder reorders with strategy-order-changed; unknown ids are a ValidationError', async (t) => {
  const { change, after } = runPure(t, setSortOrder(dev, [{ id: 's3', sortOrder: -1 }, { id: 's1', sortOrder: 5 }]));
  t.same(change.events.map((e) => e.type), ['strategy-order-changed']);
  t.same(change.events[0].data, { strategyIds: ['s3', 's2', 's1'] });
  t.same(change.events[0].preData, { strategyIds: ['s1', 's2', 's3'] });
  t.same(strategiesOf(after, 'alpha', 'development').map((s) => s.id), ['s3', 's2', 's1']);
  const same = runPure(t, setSortOrder(dev, [{ id: 's1', sortOrder: 0 }]));
  t.same(same.change, { ops: [], events: [], result: null }, 'an unchanged order is no change at all');
  runFailing(t, setSortOrder(dev, [{ id: 's4', sortOrder: 1 }]), 'ValidationError');
});

t.test('copyEnvironment adds the source strategies in their order after the target ones, as one change', async (t) => {
  const { change, after } = runPure(t, copyEnvironment(prod, 'development'));
  const source = strategiesOf(after, 'alpha', 'development');
  const target = strategiesOf(after, 'alpha', 'production');
  t.same(target.map((s) => s.id), ['s4', 'id-1', 'id-2', 'id-3'], 'the target keeps its own first, then the copies');
  t.same(target.slice(1).map((s) => [s.constraints, s.segments]), source.map((s) => [s.constraints, s.segments]), 'constraints and segments copied, in order');
  t.same(change.result.strategies.map((s) => s.id), ['id-1', 'id-2', 'id-3']);
  t.equal(change.result.variants, null, 'the source has no variants: the target keeps its own');
  t.same(change.events.map((e) => [e.type, e.environment]), [['feature-strategy-add', 'production'], ['feature-strategy-add', 'production'], ['feature-strategy-add', 'production']]);
  t.same(strategiesOf(after, 'alpha', 'development').map((s) => s.id), ['s1', 's2', 's3'], 'the source is unchanged');
});

t.test("copyEnvironment sets the source's variants in the target", async (t) => {
  const withVariants = () => {
    const s = fixtureState();
    const fe = s.featureEnvs.get('alpha')!.get('development')!;
    s.featureEnvs.get('alpha')!.set('development', { ...fe, variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }] });
    return s;
  };
  const { change, after } = runPure(t, copyEnvironment(prod, 'development'), withVariants);
  t.same(after.featureEnvs.get('alpha')!.get('production')!.variants.map((v) => [v.name, v.weight]), [['blue', 1000]]);
  t.same(change.result.variants?.map((v) => v.name), ['blue']);
  t.same(change.events.at(-1)?.type, 'feature-environment-variants-updated');
});

t.test('copyEnvironment refuses the same environment, an unknown one, nothing to copy, and a copy past the limit, whole', async (t) => {
  runFailing(t, copyEnvironment(dev, 'development'), 'ValidationError');
  runFailing(t, copyEnvironment(prod, 'staging'), 'NotFoundError');
  runFailing(t, copyEnvironment({ ...prod, feature: 'nope' }, 'development'), 'NotFoundError');
  // production holds one strategy; development's three would make MAX_STRATEGIES + 1 if production held MAX - 2.
  const crowded = () => {
    const s = fixtureState();
    for (let i = 0; i < MAX_STRATEGIES - 3; i++) {
      const seq = 100 + i;
      applyRecord(s, { lsn: 1, ops: [{ o: 'strategy.put', strategy: fixtureStrategy(`p${i}`, 'alpha', 'production', seq, { sortOrder: i + 1 }) }], events: [] }, false);
    }
    return s;
  };
  const err = runFailing(t, copyEnvironment(prod, 'development'), 'ValidationError', crowded);
  t.match(err.message, String(MAX_STRATEGIES));
  const empty = () => {
    const s = fixtureState();
    for (const id of ['s1', 's2', 's3']) applyRecord(s, { lsn: 1, ops: [{ o: 'strategy.del', id }], events: [] }, false);
    return s;
  };
  t.match(runFailing(t, copyEnvironment(prod, 'development'), 'ValidationError', empty).message, /nothing to copy/);
});
