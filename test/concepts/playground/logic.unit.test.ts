// The playground's pure parts: how an advanced request's context becomes contexts, and its bounds.
import t from 'tap';
import { checkBounds, combinationCount, combinations, contextFields, MAX_EVALUATIONS } from '../../../src/concepts/playground/logic.js';

t.test('an advanced context: lists split on commas as they are, properties among the fields, appName last', async (t) => {
  const fields = contextFields({ appName: 'a,b', userId: '1, 2 ,3', properties: { tier: 'gold,free', plan: 'x' }, currentTime: '2026-01-01T00:00:00Z' });
  t.same(fields, [['userId', ['1', ' 2 ', '3']], ['tier', ['gold', 'free']], ['plan', ['x']], ['currentTime', ['2026-01-01T00:00:00Z']], ['appName', ['a', 'b']]]);
  t.equal(combinationCount(fields), 12);
  const all = [...combinations(fields)];
  t.equal(all.length, 12);
  t.same(all[0], { userId: '1', tier: 'gold', plan: 'x', currentTime: '2026-01-01T00:00:00Z', appName: 'a' });
  t.same(all[1], { userId: '1', tier: 'gold', plan: 'x', currentTime: '2026-01-01T00:00:00Z', appName: 'b' }, 'the last field changes fastest');
  t.same(all[11], { userId: '3', tier: 'free', plan: 'x', currentTime: '2026-01-01T00:00:00Z', appName: 'b' });
  t.equal(new Set(all.map((c) => JSON.stringify(c))).size, 12, 'each combination once');
});

t.test('bounds: evaluations, contexts alone, and the results an answer holds', async (t) => {
  t.doesNotThrow(() => checkBounds(3, 50, 100, 15_000));
  t.throws(() => checkBounds(3, 50, 101, 0), { name: 'ValidationError', message: /15150 combinations/ });
  t.throws(() => checkBounds(1, 0, MAX_EVALUATIONS + 1, 0), { name: 'ValidationError' }, 'contexts are bounded when no flag is selected');
  t.throws(() => checkBounds(1, 1, 10, 200_001), { name: 'ValidationError', message: /200001 results/ });
  t.equal(combinationCount(contextFields({ appName: 'a', ...Object.fromEntries(Array.from({ length: 700 }, (_, i) => [`f${i}`, 'a,b,c'])) })), Infinity, 'too many to count is still over');
  t.throws(() => checkBounds(1, 1, Infinity, 0), { name: 'ValidationError' });
});
