// A change to a flag's environment in words (ui/src/change-words.ts), as the question asked before
// it in production and the note after it say it: "60 % → 100 % of users in production, for
// everyone", when production is left with no strategy (switched off by the server) and when a
// flag with none goes on for everyone. Bundled as the
// console bundles it and run here without a browser (esbuild reads the files: not a unit test by
// the tiers' rule, though it starts nothing).
import t from 'tap';
import { uiModule } from '../helpers/ui-module.js';

interface Strategy { id?: string; name: string; title?: string | null; disabled?: boolean; parameters: Record<string, string>; constraints: any[]; segments: number[]; variants: any[] }
interface Question { title: string; body: string; confirm: string; done: string }
interface Env { flag: string; name: string; type?: string; enabled: boolean; strategies: Strategy[] }
interface Words {
  asksFirst(env: { type?: string }): boolean;
  switchesOff(env: Env, change: any): boolean;
  changeQuestion(env: Env, change: any, segmentName?: (id: number) => string): Question;
  switchQuestion(flag: string, env: { name: string; hasEnabledStrategies?: boolean }, on: boolean): Question;
  variantWords(v: any[]): string;
}

const rollout = (share: string, extra: Partial<Strategy> = {}): Strategy => ({
  id: 's1', name: 'flexibleRollout', title: null, disabled: false, parameters: { rollout: share, stickiness: 'default', groupId: 'checkout' }, constraints: [], segments: [], variants: [], ...extra,
});
const country = { contextName: 'country', operator: 'IN', values: ['NO', 'SE'], inverted: false, caseInsensitive: false };
const prod = (strategies: Strategy[], enabled = true): Env => ({ flag: 'checkout', name: 'production', type: 'production', enabled, strategies });

t.test('which environments ask first: those of type production, as the switch', async (t) => {
  const w = await uiModule<Words>('change-words.ts');
  t.equal(w.asksFirst({ type: 'production' }), true);
  t.equal(w.asksFirst({ type: 'development' }), false);
  t.equal(w.asksFirst({}), false, 'an unknown type does not ask');
});

t.test('a rollout moved: the shares, who, where, and for whom', async (t) => {
  const w = await uiModule<Words>('change-words.ts');
  const before = rollout('60');
  const q = w.changeQuestion(prod([before]), { kind: 'edit', before, after: rollout('100') });
  t.equal(q.title, 'Change a strategy of checkout in production?');
  t.equal(q.body, '60 % → 100 % of users in production, for everyone. Users in production see it within seconds.');
  t.equal(q.done, 'checkout in production: 60 % → 100 % of users in production, for everyone.');
  t.equal(q.confirm, 'Save in production');
  const narrowed = rollout('30', { constraints: [country] });
  t.equal(w.changeQuestion(prod([narrowed]), { kind: 'edit', before: narrowed, after: { ...narrowed, parameters: { ...narrowed.parameters, rollout: '50' } } }).body,
    '30 % → 50 % of users in production, where country is one of NO, SE. Users in production see it within seconds.');
  const random = rollout('5', { parameters: { rollout: '5', stickiness: 'random' } });
  t.match(w.changeQuestion(prod([random]), { kind: 'edit', before: random, after: { ...random, parameters: { rollout: '10', stickiness: 'random' } } }).body, /^5 % → 10 % of requests in production/);
  // More than the share changed: both sentences, whole.
  const other = w.changeQuestion(prod([before]), { kind: 'edit', before, after: rollout('100', { constraints: [country] }) });
  t.equal(other.body, '60% of users, by userId (else sessionId, else at random), for everyone → 100% of users, by userId (else sessionId, else at random), where country is one of NO, SE. Users in production see it within seconds.');
});

t.test('what leaves no strategy says the environment goes off; with none, switched on is for everyone', async (t) => {
  const w = await uiModule<Words>('change-words.ts');
  const only = rollout('30');
  t.equal(w.changeQuestion(prod([only]), { kind: 'delete', before: only }).body,
    'Deleted: "30% of users, by userId (else sessionId, else at random), for everyone". checkout then has no strategy left in production, so production is switched off for it: off for everyone there.');
  t.equal(w.switchesOff(prod([only]), { kind: 'delete', before: only }), true);
  t.equal(w.switchesOff(prod([only], false), { kind: 'delete', before: only }), false, 'an environment already off is not switched off');
  t.match(w.changeQuestion(prod([only]), { kind: 'disable', before: only }).body, /no strategy left in production, so production is switched off for it: off for everyone there\.$/);
  t.match(w.changeQuestion(prod([only]), { kind: 'edit', before: only, after: { ...only, disabled: true } }).body, /switched off for it/, 'an edit that disables it too');
  const second = rollout('10', { id: 's2', title: 'Beta' });
  t.equal(w.changeQuestion(prod([only, second]), { kind: 'delete', before: second }).body, 'Deleted: "Beta". Users in production see it within seconds.', 'another strategy stays: nothing about everyone');
  t.match(w.changeQuestion(prod([only, { ...second, disabled: true }]), { kind: 'disable', before: only }).body, /switched off for it/, 'a disabled one left does not count');
  t.equal(w.switchesOff(prod([only, second]), { kind: 'delete', before: second }), false);
  t.equal(w.changeQuestion(prod([]), { kind: 'add', after: rollout('25', { id: undefined }) }).body,
    'Added in production: 25% of users, by userId (else sessionId, else at random), for everyone. checkout is on for everyone in production now; from then on, only for those this strategy lets in.');
  t.equal(w.changeQuestion(prod([only], false), { kind: 'delete', before: only }).body,
    'Deleted: "30% of users, by userId (else sessionId, else at random), for everyone". production is off: users there see none of this until it is switched on, and then, with no strategy, checkout is on for everyone.');
  t.equal(w.switchQuestion('checkout', { name: 'production', hasEnabledStrategies: false }, true).body,
    'production is a production environment: SDKs there see checkout on within seconds. It has no strategy there, so it goes on for everyone.');
  t.equal(w.switchQuestion('checkout', { name: 'production', hasEnabledStrategies: true }, true).body, 'production is a production environment: SDKs there see checkout on within seconds.');
  t.match(w.switchQuestion('checkout', { name: 'production', hasEnabledStrategies: false }, false).body, /^production is a production environment: SDKs there see checkout off within seconds\.$/, 'turning off is never for everyone');
  t.equal(w.switchQuestion('checkout', { name: 'production', hasEnabledStrategies: false }, true).done, 'checkout turned on in production.');
});

t.test('reorder and variants', async (t) => {
  const w = await uiModule<Words>('change-words.ts');
  const a = rollout('30', { title: 'First' });
  const b = rollout('50', { id: 's2', title: 'Second' });
  t.equal(w.changeQuestion(prod([a, b]), { kind: 'move', before: b, by: -1 }).body,
    '"Second" moves from place 2 to 1 of 2: the first that matches gives the variant. Users in production see it within seconds.');
  const v = (name: string, weight: number, weightType = 'variable') => ({ name, weight, weightType, stickiness: 'default' });
  t.equal(w.variantWords([]), 'no variants');
  t.equal(w.variantWords([v('blue', 500), v('red', 500)]), 'blue 50 %, red 50 %');
  t.equal(w.variantWords([v('blue', 200, 'fix'), v('red', 0), v('green', 0)]), 'blue 20 %, red 40 %, green 40 %', 'variable ones share what fixed ones leave');
  t.equal(w.changeQuestion(prod([a]), { kind: 'variants', before: [v('blue', 1000)], after: [v('blue', 500), v('red', 500)] }).done,
    'checkout in production: Variants: blue 100 % → blue 50 %, red 50 %.');
  t.match(w.changeQuestion(prod([a]), { kind: 'variants', before: [v('blue', 1000)], after: [{ ...v('blue', 1000), payload: { type: 'string', value: 'x' } }] }).body,
    /^Variants blue 100 %: payloads or stickiness changed, not the shares\./, 'same shares: says what else changed');
  t.match(w.changeQuestion(prod([a]), { kind: 'edit', before: a, after: { ...a, title: 'Renamed', parameters: { ...a.parameters, groupId: 'other' } } }).body,
    /^"First": its title, parameters changed, not whom it is on for\./, 'an edit its words do not show');
});
