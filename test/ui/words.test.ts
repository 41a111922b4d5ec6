// Strategies in the console's words (ui/src/words.ts): "25% of users, by userId, where country is
// one of NO, SE", bundled as the console bundles it and run here without a browser.
import t from 'tap';
import { uiModule } from '../helpers/ui-module.js';

interface Strategy { name: string; title?: string | null; disabled?: boolean; parameters: Record<string, string>; constraints: any[]; segments: number[]; variants: any[] }
interface Words {
  strategyWords(s: { name: string; parameters: Record<string, string> }): string;
  strategySentence(s: Strategy, segmentName?: (id: number) => string): string;
  rolloutOf(s: { name: string; parameters: Record<string, string> }): number | null;
}

const strategy = (extra: Partial<Strategy> = {}): Strategy => ({
  name: 'flexibleRollout', title: null, disabled: false, parameters: { rollout: '25', stickiness: 'userId', groupId: 'checkout' }, constraints: [], segments: [], variants: [], ...extra,
});
const country = { contextName: 'country', operator: 'IN', values: ['NO', 'SE'], inverted: false, caseInsensitive: false };

t.test('strategies in words', async (t) => {
  const w = await uiModule<Words>('words.ts');
  t.equal(w.strategyWords(strategy()), '25% of users, by userId');
  t.equal(w.strategyWords(strategy({ parameters: { rollout: '100', stickiness: 'default', groupId: 'x' } })), '100% of users, by userId (else sessionId, else at random)');
  t.equal(w.strategyWords(strategy({ parameters: { rollout: '5', stickiness: 'random' } })), '5% of requests, at random');
  t.equal(w.strategyWords({ name: 'default', parameters: {} }), 'Everyone');
  t.equal(w.strategyWords({ name: 'userWithId', parameters: { userIds: 'alice,bob ,' } }), 'Users alice, bob');
  t.equal(w.strategyWords({ name: 'gradualRolloutSessionId', parameters: { percentage: '30', groupId: 'g' } }), '30% of sessions');
  t.equal(w.strategyWords({ name: 'region-rollout', parameters: { regions: 'eu' } }), 'region-rollout: regions eu', 'a custom type: its parameters');
  t.equal(w.strategySentence(strategy({ constraints: [country, { contextName: 'appName', operator: 'STR_ENDS_WITH', values: ['-web'], inverted: true, caseInsensitive: true }], segments: [3, 9] }), (id) => (id === 3 ? 'beta' : `#${id}`)),
    '25% of users, by userId, where country is one of NO, SE and appName NOT ends with -web (any case), in segments beta, #9');
  t.equal(w.rolloutOf(strategy()), 25);
  t.equal(w.rolloutOf({ name: 'flexibleRollout', parameters: { rollout: 'lots' } }), null, 'a rollout that is not a number: none');
  t.equal(w.rolloutOf({ name: 'default', parameters: {} }), null);
});

