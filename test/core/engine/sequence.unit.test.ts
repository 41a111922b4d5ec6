// Commands run one after the other as one change: each sees what the ones before it did, the
// state given stays as it was, and a failing step leaves nothing.
import t from 'tap';
import { inSequence } from '../../../src/core/engine/sequence.js';
import { addStrategy, setSortOrder } from '../../../src/concepts/strategies/logic.js';
import { setEnvironmentEnabled } from '../../../src/concepts/features/logic.js';
import { strategiesOf } from '../../../src/core/state/state.js';
import { fixtureState } from '../state/fixture.js';
import { runFailing, runPure } from './pure.js';

const where = { project: 'default', feature: 'alpha', environment: 'production' };

t.test('a later step sees the earlier steps\' changes; the input state is left as it was', async (t) => {
  // The second strategy goes after the first (its sortOrder and seq follow the first's), and the
  // reorder names the strategy the first step made: neither exists in the state given.
  const { change, after } = runPure(t, (state, env) => {
    const joined = inSequence(state, env, [
      addStrategy(where, { name: 'default' }),
      addStrategy(where, { name: 'flexibleRollout' }),
      setSortOrder(where, [{ id: 'id-1', sortOrder: 9 }]),
      setEnvironmentEnabled('default', 'alpha', 'production', true),
    ]);
    return { ...joined, result: joined.result.length };
  });
  t.equal(change.result, 4);
  t.same(change.events.map((e) => e.type), ['feature-strategy-add', 'feature-strategy-add', 'strategy-order-changed', 'feature-environment-enabled']);
  const list = strategiesOf(after, 'alpha', 'production');
  t.same(list.map((s) => s.name), ['default', 'flexibleRollout', 'default'], 's4 first, then the two added in order, the first moved last');
  t.same(list.map((s) => s.id), ['s4', 'id-2', 'id-1']);
  t.equal(after.featureEnvs.get('alpha')!.get('production')!.enabled, true, 'switched on without a default strategy added (it sees the added ones)');
  t.equal(change.ops.filter((o) => o.o === 'strategy.put').length, 3, 'two adds and one reorder; no default rollout');
});

t.test('a failing step fails the whole sequence, and nothing is left changed', async (t) => {
  const err = runFailing(t, (state, env) => inSequence(state, env, [
    addStrategy(where, { name: 'default' }),
    setSortOrder(where, [{ id: 'no-such-strategy', sortOrder: 1 }]),
  ]), 'ValidationError', fixtureState);
  t.match(err.message, /no-such-strategy/);
});
