// The recent-changes window and the delta events built from it, without a server: what a
// resumed client is told, where the window ends, rolled-back changes forgotten, and removals
// announced only to views that could have held the flag.
import t from 'tap';
import { changes } from '../../../src/concepts/push/delta.js';
import { RecentChanges } from '../../../src/concepts/push/recent.js';
import { emptyTouch, type Touch } from '../../../src/core/state/touch.js';
import { emptyState } from '../../../src/core/state/state.js';
import type { Feature } from '../../../src/core/state/types.js';

const touch = (flags: Record<string, string | null>, segments: Record<number, string | null> = {}): Touch => {
  const t0 = emptyTouch();
  for (const [name, before] of Object.entries(flags)) t0.flags.set(name, { before, environments: null, tags: false });
  for (const [id, before] of Object.entries(segments)) t0.segments.set(Number(id), before);
  return t0;
};

t.test('the window answers ids inside it, merged, and refuses older, newer and evicted ones', async (t) => {
  const w = new RecentChanges(10, 3);
  w.add(1, 11, touch({ a: null }));
  w.add(2, 13, touch({ b: 'default' }));
  w.add(3, 14, touch({ a: 'default' }, { 7: null }));
  t.same([...w.since(10, 14)!.flags.keys()].sort(), ['a', 'b']);
  t.equal(w.since(10, 14)!.flags.get('a')!.before, null, 'the oldest change says where a flag was before');
  t.same([...w.since(13, 14)!.flags.keys()], ['a'], 'only after the id');
  t.equal(w.since(14, 14)!.flags.size, 0, 'the current id: nothing');
  t.equal(w.since(12, 14)!.flags.size, 2, 'an id inside a change of several events (12..13): that change is sent again');
  t.equal(w.since(9, 14), null, 'before the window');
  t.equal(w.since(15, 14), null, 'an id never given');
  w.add(4, 15, touch({ c: null }));
  t.equal(w.since(10, 15), null, 'the oldest change left the window: its start moved');
  t.ok(w.since(11, 15));
  w.dropFrom(3);
  t.same([...w.since(11, 15)!.flags.keys()], ['b'], 'rolled-back changes are forgotten');
});

t.test('delta events: updates for what the view selects, removals only where it could have been', async (t) => {
  const state = emptyState();
  const flag = (name: string, project: string, archived = false): Feature => ({
    name, project, type: 'release', description: null, impressionData: false, stale: false, archived, archivedAt: null, createdAt: 'x', lastSeenAt: null, dependencies: [],
  });
  state.features.set('live', flag('live', 'default'));
  state.features.set('gone', flag('gone', 'default', true));
  const all = { environment: 'development', projects: null, tags: null, namePrefix: null };
  const shop = { environment: 'development', projects: ['shop'], tags: null, namePrefix: null };
  const prefixed = { ...all, namePrefix: 'x-' };
  const tc = touch({ live: null, gone: 'default' });
  t.same(changes(state, all, tc, 5).map((e) => e.type), ['feature-removed', 'feature-updated'], 'by name: gone (archived) removed, live updated');
  t.same(changes(state, shop, tc, 5), [], 'another project hears nothing');
  t.same(changes(state, prefixed, tc, 5), [], 'a name filter hears nothing of names it does not select');
  const onlyProd = emptyTouch();
  onlyProd.flags.set('live', { before: 'default', environments: new Set(['production']), tags: false });
  t.same(changes(state, all, onlyProd, 6), [], 'a change in another environment');
});
