// What an event changed, in the console's words (ui/src/diff.ts): bundled as the console bundles
// it and run here without a browser.
import t from 'tap';
import { uiModule } from '../helpers/ui-module.js';

interface Strategy { name: string; title?: string | null; disabled?: boolean; parameters: Record<string, string>; constraints: any[]; segments: number[]; variants: any[] }
interface Diff {
  eventChanges(e: { type: string; environment?: string | null; data?: unknown; preData?: unknown }, segmentName?: (id: number) => string): string[];
  shown(v: unknown): string;
}

const strategy = (extra: Partial<Strategy> = {}): Strategy => ({
  name: 'flexibleRollout', title: null, disabled: false, parameters: { rollout: '25', stickiness: 'userId', groupId: 'checkout' }, constraints: [], segments: [], variants: [], ...extra,
});
const country = { contextName: 'country', operator: 'IN', values: ['NO', 'SE'], inverted: false, caseInsensitive: false };

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
