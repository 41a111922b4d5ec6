// The console's words for strategies and for what an event changed (ui/src/words.ts, ui/src/diff.ts),
// bundled as the console bundles them and run here without a browser.
import t from 'tap';
import { uiModule } from '../helpers/ui-module.js';

interface Strategy { name: string; title?: string | null; disabled?: boolean; parameters: Record<string, string>; constraints: any[]; segments: number[]; variants: any[] }
interface Diff {
  eventChanges(e: { type: string; environment?: string | null; data?: unknown; preData?: unknown }, segmentName?: (id: number) => string): string[];
  shown(v: unknown): string;
}
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

t.test('what an event changed, in words', async (t) => {
  const d = await uiModule<Diff>('diff.ts');
  const update = (pre: Partial<Strategy>, post: Partial<Strategy>) => d.eventChanges({ type: 'feature-strategy-update', environment: 'production', preData: strategy(pre), data: strategy(post) });
  t.same(update({}, { parameters: { rollout: '50', stickiness: 'userId', groupId: 'checkout' } }), ['rollout 25 → 50'], 'a rollout moved');
  t.same(update({}, { constraints: [country] }), ['constraint added: country is one of NO, SE']);
  t.same(update({ constraints: [country] }, { constraints: [{ ...country, values: ['NO', 'SE', 'DK'] }] }),
    ['constraint added: country is one of NO, SE, DK', 'constraint removed: country is one of NO, SE'], 'a constraint edited: the new one and the old one');
  t.same(update({ constraints: [country, country] }, { constraints: [country] }), ['constraint removed: country is one of NO, SE'], 'one of two equal constraints removed');
  t.same(update({}, { disabled: true, title: 'half', parameters: { rollout: '25', stickiness: 'sessionId', groupId: 'checkout' } }), ['title "" → half', 'disabled', 'stickiness userId → sessionId']);
  t.same(update({ segments: [1] }, { segments: [2] }), ['segment added: #2', 'segment removed: #1']);
  t.same(update({ variants: [{ name: 'blue', weight: 1000, weightType: 'variable' }] }, { variants: [{ name: 'blue', weight: 500, weightType: 'variable' }, { name: 'red', weight: 500, weightType: 'variable', payload: { type: 'string', value: 'dark red' } }] }),
    ['variant blue: weight 100% → 50%', 'variant added: red (50%, string "dark red")']);
  t.same(update({}, {}), ['saved without changes']);

  t.same(d.eventChanges({ type: 'feature-strategy-add', environment: 'production', data: strategy({ constraints: [country] }) }),
    ['strategy added in production: 25% of users, by userId, where country is one of NO, SE']);
  t.same(d.eventChanges({ type: 'feature-strategy-remove', environment: 'development', preData: { name: 'default', parameters: {}, constraints: [], segments: [], variants: [] } }), ['strategy removed in development: Everyone']);
  t.same(d.eventChanges({ type: 'feature-environment-enabled', environment: 'production' }), ['turned on in production']);
  t.same(d.eventChanges({ type: 'feature-environment-disabled', environment: 'production' }), ['turned off in production']);
  t.same(d.eventChanges({ type: 'feature-metadata-updated', preData: { name: 'x', type: 'release', description: 'Old text', impressionData: false }, data: { name: 'x', type: 'kill-switch', description: 'New', impressionData: true } }),
    ['type release → kill-switch', 'description "Old text" → New', 'impressionData false → true']);
  t.same(d.eventChanges({ type: 'feature-tagged', data: { type: 'team', value: 'web' } }), ['tag added: team:web']);
  t.same(d.eventChanges({ type: 'feature-untagged', preData: { type: 'team', value: 'web' } }), ['tag removed: team:web']);
  t.same(d.eventChanges({ type: 'feature-dependency-added', data: { feature: 'payments', enabled: true, variants: [] } }), ['depends on payments being on']);
  t.same(d.eventChanges({ type: 'feature-environment-variants-updated', preData: { variants: [] }, data: { variants: [{ name: 'blue', weight: 1000, weightType: 'variable' }] } }), ['variant added: blue (100%)']);
  t.same(d.eventChanges({ type: 'feature-created', data: { name: 'x', type: 'release' } }), ['created as a release flag']);
  t.same(d.eventChanges({ type: 'feature-created', data: { name: 'x', type: 'experiment' } }), ['created as an experiment flag']);
  t.same(d.eventChanges({ type: 'segment-updated', preData: { name: 's', constraints: [], project: null }, data: { name: 's', constraints: [], project: 'shop', meta: { a: 1 } } }),
    ['project none → shop', 'meta set to {"a":1}'], 'any other event: its fields compared');
  t.same(d.eventChanges({ type: 'api-token-created', data: { tokenName: 't', environment: 'production', seenAt: null } }), ['tokenName t, environment production'], 'something made: what it holds, in one line');
  t.same(d.eventChanges({ type: 'tag-type-deleted', preData: { name: 'team' } }), ['removed: name team']);
  t.same(d.eventChanges({ type: 'feature-archived', data: null, preData: null }), ['archived']);
  t.same(d.eventChanges({ type: 'something-new', data: null, preData: null }), [], 'nothing to say: no line');
});
