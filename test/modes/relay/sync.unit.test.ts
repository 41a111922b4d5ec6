// The relay's pure core: an upstream answer becomes ops that make a scope of the state equal to
// it, and nothing more: an unchanged flag gets no op (so ETags stay), flags leave the scope when
// the upstream stops sending them, other scopes and projects are left alone, segments go only
// when nothing names them. Upstream bodies are read strictly.
import t from 'tap';
import { clientFeature } from '../../../src/concepts/client-api/record.js';
import { resolveEvents, type Command } from '../../../src/core/engine/command.js';
import { MAX_UPSTREAM_FLAGS, MAX_UPSTREAM_ITEMS, MAX_UPSTREAM_VALUES, readEvents, readFullAnswer, readStreamData, UpstreamFormatError } from '../../../src/modes/relay/remote.js';
import { Slicer } from '../../../src/core/slices.js';
import { normalizeScope, covers, widest } from '../../../src/modes/relay/scope.js';
import { foldEvents, fullUpdate, syncScope, syncScopeInSlices } from '../../../src/modes/relay/sync.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { defaultOps } from '../../../src/core/state/defaults.js';
import { storeEvent } from '../../../src/core/state/events/stored.js';
import { emptyState, type State } from '../../../src/core/state/state.js';
import { fixedEnv } from '../../core/state/fixture.js';
import { runPure } from '../../core/engine/pure.js';

const SRC = 'http://upstream:4242';
const dev = normalizeScope('development', ['*']);
const prod = normalizeScope('production', ['*']);

function base(): State {
  const s = emptyState();
  applyRecord(s, { lsn: 1, ops: defaultOps('2026-01-01T00:00:00.000Z'), events: [] }, false);
  return s;
}

let ids = 0;
function apply<R>(s: State, cmd: Command<R>): { ops: number; events: number; result: R } {
  const env = { ...fixedEnv(), newId: () => `id-${++ids}` };
  const change = cmd(s, env);
  applyRecord(s, { lsn: s.revision + 2, ops: change.ops, events: resolveEvents(s, env, change.events).map(storeEvent) }, false);
  return { ops: change.ops.length, events: change.events.length, result: change.result };
}

const flag = (name: string, extra: Record<string, unknown> = {}) => ({
  name, type: 'release', enabled: true, project: 'default', stale: false, description: null, impressionData: false,
  strategies: [{ name: 'flexibleRollout', constraints: [], parameters: { rollout: '50', stickiness: 'default', groupId: name }, variants: [] }],
  variants: [], ...extra,
});

const answer = (features: unknown[], segments?: unknown[]) => readFullAnswer({ version: 2, features, ...(segments ? { segments } : {}) });

t.test('a full answer fills an empty scope, once', async (t) => {
  const { change, after } = runPure(t, syncScope(dev, fullUpdate(answer([flag('a'), flag('b', { enabled: false, strategies: [] })])), SRC), base);
  t.equal(change.result.updated, 2);
  t.equal(change.events.length, 2, 'one event per flag');
  t.same(change.events.map((e) => e.type), ['feature-created', 'feature-created']);
  const rec = clientFeature(after, after.features.get('a')!, 'development');
  t.same(rec.strategies, [{ name: 'flexibleRollout', constraints: [], parameters: { rollout: '50', stickiness: 'default', groupId: 'a' }, variants: [] }]);
  t.equal(rec.enabled, true);
  t.equal(clientFeature(after, after.features.get('b')!, 'development').enabled, false);
  const again = syncScope(dev, fullUpdate(answer([flag('a'), flag('b', { enabled: false, strategies: [] })])), SRC)(after, fixedEnv());
  t.same(again.ops, [], 'the same answer again changes nothing');
  t.same(again.events, []);
});

t.test('only what changed gets ops, and strategies keep their ids', async (t) => {
  const s = base();
  apply(s, syncScope(dev, fullUpdate(answer([flag('a'), flag('b'), flag('c')])), SRC));
  const idBefore = [...s.strategies.values()].find((x) => x.featureName === 'b')!.id;
  const changed = flag('b', { strategies: [{ name: 'flexibleRollout', constraints: [], parameters: { rollout: '75', stickiness: 'default', groupId: 'b' }, variants: [] }] });
  const c = syncScope(dev, fullUpdate(answer([flag('a'), changed, flag('c')])), SRC)(s, fixedEnv());
  t.same(c.ops.map((o) => o.o), ['strategy.put']);
  t.equal((c.ops[0] as { strategy: { id: string } }).strategy.id, idBefore, 'the strategy is updated in place');
  t.same(c.events.map((e) => [e.type, e.featureName]), [['feature-updated', 'b']]);
  t.equal(c.events[0].createdBy, undefined, 'createdBy comes from the actor (the relay)');
  t.match(c.events[0].data, { source: SRC });
});

t.test('fewer strategies: the extra ones are deleted; an environment toggle is one op', async (t) => {
  const s = base();
  const two = flag('a', { strategies: [{ name: 'default' }, { name: 'userWithId', parameters: { userIds: 'u1' } }] });
  apply(s, syncScope(dev, fullUpdate(answer([two])), SRC));
  t.equal(s.strategies.size, 2);
  const r = apply(s, syncScope(dev, fullUpdate(answer([flag('a', { strategies: [{ name: 'default' }] })])), SRC));
  t.equal(s.strategies.size, 1);
  t.equal(r.events, 1);
  const off = syncScope(dev, fullUpdate(answer([flag('a', { enabled: false, strategies: [{ name: 'default' }] })])), SRC)(s, fixedEnv());
  t.same(off.ops.map((o) => o.o), ['featureEnv.put']);
});

t.test('a flag missing from a full answer leaves the scope; it stays while another environment holds it', async (t) => {
  const s = base();
  apply(s, syncScope(dev, fullUpdate(answer([flag('a'), flag('b')])), SRC));
  apply(s, syncScope(prod, fullUpdate(answer([flag('a')])), SRC));
  const r = apply(s, syncScope(dev, fullUpdate(answer([])), SRC));
  t.equal(r.result.removed, 2);
  t.notOk(s.features.has('b'), 'b is gone: no environment holds it');
  t.ok(s.features.has('a'), 'a stays: production holds it');
  t.notOk(s.featureEnvs.get('a')!.has('development'));
  t.equal([...s.strategies.values()].filter((x) => x.featureName === 'a').length, 1, 'only production\'s strategy is left');
  t.equal([...s.strategies.values()].filter((x) => x.featureName === 'b').length, 0, 'no strategy of a deleted flag is left behind');
});

t.test('a scope of some projects touches only their flags', async (t) => {
  const s = base();
  const other = normalizeScope('development', ['other']);
  apply(s, syncScope(dev, fullUpdate(answer([flag('a'), flag('x', { project: 'other' })])), SRC));
  t.ok(s.projects.has('other'), 'a flag\'s project is created when missing');
  const r = apply(s, syncScope(other, fullUpdate(answer([])), SRC));
  t.equal(r.result.removed, 1);
  t.ok(s.features.has('a'), 'the default project\'s flag is not this scope\'s to remove');
  t.notOk(s.features.has('x'));
  // A flag that moved to a project outside the scope has left it.
  apply(s, syncScope(dev, fullUpdate(answer([flag('a'), flag('x', { project: 'other' })])), SRC));
  const moved = apply(s, syncScope(other, { full: false, flags: new Map([['x', readFullAnswer({ features: [flag('x', { project: 'default' })] }).flags[0]]]), segments: new Map() }, SRC));
  t.equal(moved.result.removed, 1);
});

t.test('segments: kept by id, changed in place, removed only when no strategy names them', async (t) => {
  const s = base();
  const seg = { id: 7, name: 'seven', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }] };
  const withSeg = flag('a', { strategies: [{ name: 'default', segments: [7] }] });
  apply(s, syncScope(dev, fullUpdate(answer([withSeg], [seg])), SRC));
  apply(s, syncScope(prod, fullUpdate(answer([withSeg], [seg])), SRC));
  t.same(clientFeature(s, s.features.get('a')!, 'development', 'by-id').strategies[0].segments, [7]);
  t.same(clientFeature(s, s.features.get('a')!, 'development').strategies[0].constraints, [{ ...seg.constraints[0], caseInsensitive: false, inverted: false }], 'inlined for polling SDKs');
  // Development stops naming it: production still does, so it stays.
  apply(s, syncScope(dev, fullUpdate(answer([flag('a', { strategies: [{ name: 'default' }] })], [])), SRC));
  t.ok(s.segments.has(7));
  const changed = { ...seg, constraints: [{ contextName: 'country', operator: 'IN', values: ['SE'] }] };
  const c = apply(s, syncScope(prod, fullUpdate(answer([withSeg], [changed])), SRC));
  t.equal(c.result.segments, 1);
  t.same(s.segments.get(7)!.constraints[0].values, ['SE']);
  const gone = apply(s, syncScope(prod, fullUpdate(answer([flag('a', { strategies: [{ name: 'default' }] })], [])), SRC));
  t.equal(gone.result.segments, 1);
  t.notOk(s.segments.has(7), 'named by nothing and listed by no answer: removed');
});

t.test('delta events fold into one update; a hydration starts over', async (t) => {
  const events = readEvents({
    events: [
      { type: 'hydration', eventId: 1, features: [flag('a'), flag('b')], segments: [] },
      { type: 'feature-updated', eventId: 2, feature: flag('c') },
      { type: 'feature-removed', eventId: 3, featureName: 'a', project: 'default' },
      { type: 'something-new', eventId: 4 },
    ],
  });
  t.equal(events.length, 3, 'an unknown event type is left out');
  const u = foldEvents(events);
  t.equal(u.full, true);
  t.same([...u.flags.keys()].sort(), ['b', 'c']);
  const partial = foldEvents(readEvents({ events: [{ type: 'feature-removed', eventId: 5, featureName: 'b', project: 'default' }, { type: 'segment-removed', eventId: 6, segmentId: 3 }] }));
  t.equal(partial.full, false);
  t.equal(partial.flags.get('b'), null);
  t.equal(partial.segments.get(3), null);
  const s = base();
  apply(s, syncScope(dev, u, SRC));
  t.same([...s.features.keys()].sort(), ['b', 'c']);
  const r = apply(s, syncScope(dev, partial, SRC));
  t.equal(r.result.removed, 1);
  t.same([...s.features.keys()], ['c']);
  // Two updates of one flag in a batch: the last wins, with no duplicate strategies.
  const twice = foldEvents(readEvents({ events: [
    { type: 'feature-updated', eventId: 7, feature: flag('d', { strategies: [{ name: 'default' }] }) },
    { type: 'feature-updated', eventId: 8, feature: flag('d', { strategies: [{ name: 'userWithId', parameters: { userIds: 'x' } }] }) },
  ] }));
  apply(s, syncScope(dev, twice, SRC));
  t.same([...s.strategies.values()].filter((x) => x.featureName === 'd').map((x) => x.name), ['userWithId']);
});

t.test('upstream bodies are read strictly, and normalized', async (t) => {
  t.throws(() => readFullAnswer({ features: 'no' }), UpstreamFormatError);
  t.throws(() => readFullAnswer({ features: [{ name: 3 }] }), UpstreamFormatError);
  t.throws(() => readEvents({ events: [{ type: 'feature-updated', eventId: 1 }] }), UpstreamFormatError, 'a known event without its payload');
  t.throws(() => readStreamData('text'), UpstreamFormatError);
  const [f] = answer([{ name: 'n', strategies: [{ name: 'flexibleRollout', parameters: { rollout: 100 }, constraints: [{ contextName: 'age', operator: 'NUM_GT', value: 3 }] }] }]).flags;
  t.same(f.strategies[0].parameters, { rollout: '100' }, 'parameters become strings');
  t.same(f.strategies[0].constraints[0], { contextName: 'age', operator: 'NUM_GT', caseInsensitive: false, inverted: false, value: '3' });
  t.equal(f.project, 'default');
  t.equal(f.enabled, false);
  t.same(readStreamData({ features: [flag('z')] })[0].type, 'hydration', 'a stream frame with a whole state is a hydration');
});

t.test('upstream answers past the bounds are refused whole, naming the bound; read in slices, the same', async (t) => {
  const many = (n: number) => ({ features: Array.from({ length: n }, (_, i) => flag(`f-${i}`)) });
  t.equal(readFullAnswer(many(MAX_UPSTREAM_FLAGS)).flags.length, MAX_UPSTREAM_FLAGS, `${MAX_UPSTREAM_FLAGS} flags are taken`);
  t.throws(() => readFullAnswer(many(MAX_UPSTREAM_FLAGS + 1)), { name: 'UpstreamFormatError', message: new RegExp(`more than ${MAX_UPSTREAM_FLAGS} flags`) });
  const inEvents = { events: Array.from({ length: MAX_UPSTREAM_FLAGS + 1 }, (_, i) => ({ type: 'feature-updated', eventId: i + 1, feature: flag(`e-${i}`) })) };
  t.throws(() => readEvents(inEvents), { message: new RegExp(`more than ${MAX_UPSTREAM_FLAGS} flags`) }, 'counted across delta events too');
  const strategies = Array.from({ length: MAX_UPSTREAM_ITEMS + 1 }, () => ({ name: 'default' }));
  t.throws(() => readFullAnswer({ features: [flag('wide', { strategies })] }), { message: /strategies must NOT have more than 1000 items/ });
  const values = Array.from({ length: 10_000 }, (_, i) => `v${i}`);
  const heavy = (name: string) => flag(name, { strategies: [{ name: 'default', constraints: Array.from({ length: 20 }, () => ({ contextName: 'userId', operator: 'IN', values })) }] });
  const fits = MAX_UPSTREAM_VALUES / (20 * 10_000);
  t.equal(readFullAnswer({ features: Array.from({ length: fits }, (_, i) => heavy(`h-${i}`)) }).flags.length, fits, `${MAX_UPSTREAM_VALUES} constraint values are taken`);
  t.throws(() => readFullAnswer({ features: Array.from({ length: fits + 1 }, (_, i) => heavy(`h-${i}`)) }), { message: new RegExp(`more than ${MAX_UPSTREAM_VALUES} constraint values`) });
  const slicer = new Slicer(1);
  t.same(await readFullAnswer(many(3000), slicer), readFullAnswer(many(3000)), 'read in slices, the same values');
  await t.rejects(readFullAnswer(many(MAX_UPSTREAM_FLAGS + 1), slicer), UpstreamFormatError);
});

t.test('a large update built in slices is the same change as at once', async (t) => {
  const s = base();
  apply(s, syncScope(dev, fullUpdate(answer(Array.from({ length: 50 }, (_, i) => flag(`old-${i}`)))), SRC));
  const update = fullUpdate(answer(Array.from({ length: 3000 }, (_, i) => flag(i % 2 ? `new-${i}` : `old-${i % 50}`, { enabled: i % 3 === 0 }))));
  let n = 0;
  const env = { ...fixedEnv(), newId: () => `same-${++n}` };
  const once = syncScope(dev, update, SRC)(s, env);
  n = 0;
  const sliced = await syncScopeInSlices(dev, update, SRC)(s, env, new Slicer(1));
  t.same(sliced, once);
  t.ok(once.ops.length > 3000, `${once.ops.length} ops`);
});

t.test('deltas cannot add up past the flags one answer may hold', async (t) => {
  const s = base();
  apply(s, syncScope(dev, fullUpdate(answer(Array.from({ length: MAX_UPSTREAM_FLAGS - 1 }, (_, i) => flag(`f-${i}`, { strategies: [] })))), SRC));
  const add = (...names: string[]) => syncScope(dev, { full: false, flags: new Map(names.map((n) => [n, readFullAnswer({ features: [flag(n)] }).flags[0]])), segments: new Map() }, SRC);
  t.throws(() => add('one', 'two')(s, fixedEnv()), { name: 'UpstreamFormatError', message: new RegExp(`more than ${MAX_UPSTREAM_FLAGS} flags`) });
  t.equal(apply(s, add('one')).result.updated, 1, 'up to the bound, taken');
  t.equal(apply(s, add('f-1')).result.updated, 1, 'a flag held changed: taken');
});

t.test('scopes: covering and the widest to follow', async (t) => {
  const all = normalizeScope('development', ['*']);
  const ab = normalizeScope('development', ['b', 'a', 'a']);
  const a = normalizeScope('development', ['a']);
  t.same(ab.projects, ['a', 'b']);
  t.ok(covers(all, ab));
  t.ok(covers(ab, a));
  t.notOk(covers(a, ab));
  t.notOk(covers(all, normalizeScope('production', ['a'])));
  t.same(widest([a, ab, normalizeScope('production', ['a'])]), [ab, normalizeScope('production', ['a'])]);
  t.same(widest([a, normalizeScope('development', ['a'])]), [a], 'two equal scopes: one is followed');
  t.same(widest([a, all, ab]), [all]);
});
