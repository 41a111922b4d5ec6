// The pure core of the client API: records, the fragment snapshot and its invalidation, driven
// by WAL records exactly as the engine feeds them.
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import type { ClientScope } from '../../../src/core/access/access.js';
import { clientFeature } from '../../../src/concepts/client-api/record.js';
import { ClientSnapshot } from '../../../src/concepts/client-api/snapshot.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { defaultOps } from '../../../src/core/state/defaults.js';
import type { Op } from '../../../src/core/state/ops.js';
import { emptyState, type State } from '../../../src/core/state/state.js';
import type { Feature, Strategy } from '../../../src/core/state/types.js';
import type { WalRecord } from '../../../src/core/log/record.js';

const NOW = '2026-01-01T00:00:00.000Z';
const actor = { name: 't', userId: null };
const scope = (environment = 'development', projects = ['*']): ClientScope => ({ environment, projects, key: `${environment}|${projects}`, actor });

function feature(name: string, over: Partial<Feature> = {}): Feature {
  return {
    name, project: 'default', type: 'release', description: null, impressionData: false, stale: false, archived: false,
    archivedAt: null, createdAt: NOW, lastSeenAt: null, dependencies: [], ...over,
  };
}

let seq = 1;
function strategy(featureName: string, environment: string, over: Partial<Strategy> = {}): Strategy {
  const n = seq++;
  return {
    id: `s${n}`, featureName, projectId: 'default', environment, name: 'default', title: null, disabled: false, sortOrder: 0,
    constraints: [], parameters: {}, variants: [], segments: [], createdAt: NOW, seq: n, ...over,
  };
}

function world() {
  const state = emptyState();
  let lsn = 0;
  const snap = new ClientSnapshot(state);
  /** Applies a record as the engine does; returns its rollback. */
  const apply = (ops: Op[]) => {
    const rec: WalRecord = { lsn: ++lsn, ops, events: [] };
    const undo = applyRecord(state, rec, true)!;
    snap.onChange(rec, 'applied');
    return () => {
      undo();
      snap.onChange(rec, 'rolled-back');
    };
  };
  apply(defaultOps(NOW));
  const addFlag = (name: string, over: Partial<Feature> = {}) =>
    apply([
      { o: 'feature.put', feature: feature(name, over) },
      { o: 'featureEnv.put', feature: name, env: { environment: 'development', enabled: true, variants: [], lastSeenAt: null } },
      { o: 'featureEnv.put', feature: name, env: { environment: 'production', enabled: false, variants: [], lastSeenAt: null } },
    ]);
  // Cached entries are updated in place: tests compare copies taken at the time.
  const get = (search = '', sc = scope()) => {
    const e = snap.response(sc, search);
    return { ...e, bytes: Buffer.concat(e.parts) };
  };
  const names = (search = '', sc = scope()) => (JSON.parse(get(search, sc).bytes.toString()).features as { name: string }[]).map((f) => f.name);
  return { state, snap, apply, addFlag, get, names };
}

t.test('clientFeature: legacy fields, ordering, disabled strategies, segments, dependencies', async (t) => {
  const state: State = emptyState();
  applyRecord(state, { lsn: 1, ops: defaultOps(NOW), events: [] }, false);
  const ops: Op[] = [
    { o: 'feature.put', feature: feature('f', { dependencies: [{ feature: 'p', enabled: false, variants: ['ignored'] }, { feature: 'q', enabled: true, variants: ['v'] }] }) },
    { o: 'segment.put', segment: { id: 7, name: 'seg', description: null, project: null, createdAt: NOW, createdBy: 't', constraints: [{ contextName: 'c', operator: 'IN', values: ['x'], caseInsensitive: false, inverted: false }] } },
    { o: 'strategy.put', strategy: strategy('f', 'development', { id: 'late', name: 'userWithId', sortOrder: 5, parameters: { userIds: 'a' } }) },
    { o: 'strategy.put', strategy: strategy('f', 'development', { id: 'first', name: 'flexibleRollout', sortOrder: 1, segments: [7, 99], parameters: { rollout: '10' } }) },
    { o: 'strategy.put', strategy: strategy('f', 'development', { id: 'tie', name: 'remoteAddress', sortOrder: 1 }) },
    { o: 'strategy.put', strategy: strategy('f', 'development', { id: 'off', name: 'applicationHostname', sortOrder: 0, disabled: true }) },
  ];
  applyRecord(state, { lsn: 2, ops, events: [] }, false);
  const rec = clientFeature(state, state.features.get('f')!, 'development');
  t.same(rec.strategies.map((s) => s.name), ['flexibleRollout', 'remoteAddress', 'userWithId'], 'sortOrder, then creation order; disabled left out');
  t.equal(rec.strategy, 'flexibleRollout');
  t.same(rec.parameters, { rollout: '10' });
  t.same(rec.strategies[0].constraints.map((c) => c.contextName), ['c'], 'segment constraints inlined; a missing segment is skipped');
  t.same(rec.dependencies, [{ feature: 'p', enabled: false }, { feature: 'q', enabled: true, variants: ['v'] }], 'variants only on enabled dependencies');
  t.equal(rec.enabled, false, 'no configuration in the environment → disabled');
  t.same(clientFeature(state, state.features.get('f')!, 'production').strategies, [{ name: 'default', parameters: {}, constraints: [], variants: [] }]);
});

t.test('the ETag changes exactly when the bytes change', async (t) => {
  const w = world();
  w.addFlag('a');
  w.addFlag('b');
  const seen = new Map<string, string>();
  const check = (label: string) => {
    const e = w.get();
    const text = e.bytes.toString();
    for (const [etag, bytes] of seen) t.equal(etag === e.etag, bytes === text, `${label}: same ETag ⇔ same bytes`);
    seen.set(e.etag, text);
    return e;
  };
  const first = check('start');
  w.apply([{ o: 'lastSeen', feature: 'a', environment: 'development', at: NOW }]);
  w.apply([{ o: 'project.put', project: { id: 'p2', name: 'P2', description: null, mode: 'open', defaultStickiness: 'default', createdAt: NOW, updatedAt: null } }]);
  const same = check('invisible changes');
  t.equal(same.etag, first.etag);
  t.equal(same.parts, first.parts, 'the very same buffers are served: nothing was re-stitched');
  w.apply([{ o: 'strategy.put', strategy: strategy('a', 'development', { id: 'sa', name: 'userWithId' }) }]);
  const withStrategy = check('strategy added');
  t.not(withStrategy.etag, first.etag);
  w.apply([{ o: 'feature.put', feature: feature('a', { description: 'x' }) }]);
  check('metadata');
  w.apply([{ o: 'feature.put', feature: feature('a', { description: null }) }]);
  t.equal(check('back to the previous content').etag, withStrategy.etag, 'the same bytes give the same ETag again');
  w.apply([{ o: 'strategy.del', id: 'sa' }]);
  t.equal(check('strategy removed').etag, first.etag, 'removing the strategy restores the first bytes and ETag');
});

t.test('one changed flag re-serializes one fragment; other environments and filters keep their ETag', async (t) => {
  const w = world();
  for (let i = 0; i < 100; i++) w.addFlag(`f${String(i).padStart(3, '0')}`, { project: i % 2 ? 'odd' : 'default' });
  const dev = w.get();
  const prod = w.get('', scope('production'));
  const odd = w.get('?project=odd');
  const before = w.snap.stats().serialized;
  w.apply([{ o: 'strategy.put', strategy: strategy('f010', 'development', { name: 'userWithId', parameters: { userIds: 'u' } }) }]);
  const dev2 = w.get();
  t.equal(w.snap.stats().serialized - before, 1, 'only f010 in development was serialized again');
  t.not(dev2.etag, dev.etag);
  t.ok(dev2.bytes.toString().includes('"userWithId"'));
  t.equal(w.get('', scope('production')).etag, prod.etag, 'production unchanged');
  const odd2 = w.get('?project=odd');
  t.equal(odd2.etag, odd.etag, 'a change in project default leaves the project=odd response alone');
  t.equal(odd2.parts, odd.parts);
});

t.test('tags: adding or removing a flag tag changes what a tag filter selects', async (t) => {
  const w = world();
  w.addFlag('a');
  w.addFlag('b');
  t.same(w.names('?tag=simple:x'), []);
  w.apply([{ o: 'tag.put', tag: { type: 'simple', value: 'x' } }, { o: 'featureTag.add', feature: 'b', tag: { type: 'simple', value: 'x' } }]);
  t.same(w.names('?tag=simple:x'), ['b']);
  t.same(w.names('?tag[]=simple:x&tag[]=simple:y'), ['b']);
  w.apply([{ o: 'featureTag.del', feature: 'b', tag: { type: 'simple', value: 'x' } }]);
  t.same(w.names('?tag=simple:x'), []);
  t.throws(() => w.get('?tag=broken'), { name: 'ValidationError' });
});

t.test('segments: a segment change reaches every strategy using it', async (t) => {
  const w = world();
  w.addFlag('a');
  const seg = (values: string[]) => ({ id: 1, name: 's', description: null, project: null, createdAt: NOW, createdBy: 't', constraints: [{ contextName: 'c', operator: 'IN', values, caseInsensitive: false, inverted: false }] });
  w.apply([{ o: 'segment.put', segment: seg(['1']) }, { o: 'strategy.put', strategy: strategy('a', 'development', { segments: [1] }) }]);
  t.match(w.get().bytes.toString(), /"values":\["1"\]/);
  w.apply([{ o: 'segment.put', segment: seg(['2']) }]);
  t.match(w.get().bytes.toString(), /"values":\["2"\]/);
});

t.test('archive, delete, new environment and rollback', async (t) => {
  const w = world();
  w.addFlag('a');
  w.addFlag('b');
  t.same(w.names(), ['a', 'b']);
  w.apply([{ o: 'feature.put', feature: feature('a', { archived: true, archivedAt: NOW }) }]);
  t.same(w.names(), ['b'], 'archived flags leave the list');
  t.equal(w.snap.feature(scope(), 'a'), null);
  w.apply([{ o: 'feature.del', name: 'b' }]);
  t.same(w.names(), []);
  // An environment asked for before it exists, then created.
  t.same(w.names('', scope('staging')), []);
  w.addFlag('c');
  w.apply([
    { o: 'env.put', environment: { name: 'staging', type: 'test', enabled: true, protected: false, sortOrder: 300 } },
    { o: 'featureEnv.put', feature: 'c', env: { environment: 'staging', enabled: true, variants: [], lastSeenAt: null } },
  ]);
  t.equal(JSON.parse(w.get('', scope('staging')).bytes.toString()).features[0].enabled, true);
  const before = w.get();
  const undo = w.apply([{ o: 'strategy.put', strategy: strategy('c', 'development', { name: 'userWithId' }) }, { o: 'feature.put', feature: feature('d') }]);
  t.not(w.get().etag, before.etag);
  undo();
  t.equal(w.get().etag, before.etag, 'a rolled-back record disappears from the response');
  t.same(w.names(), ['c']);
});

t.test('scopes: token projects bound the query', async (t) => {
  const w = world();
  w.addFlag('a');
  w.addFlag('b', { project: 'other' });
  t.same(w.names('', scope('development', ['other'])), ['b']);
  t.same(w.names('?project=default', scope('development', ['other'])), [], 'a project outside the token yields nothing');
  t.same(w.names('?project=default&project=other', scope('development', ['other'])), ['b']);
  t.equal(w.snap.feature(scope('development', ['other']), 'a'), null);
  t.ok(w.snap.feature(scope('development', ['other']), 'b'));
});

t.test('the response cache is bounded by entries and by bytes', async (t) => {
  const state = emptyState();
  applyRecord(state, { lsn: 1, ops: defaultOps(NOW), events: [] }, false);
  for (let i = 0; i < 20; i++) applyRecord(state, { lsn: 2 + i, ops: [{ o: 'feature.put', feature: feature(`flag-${i}`) }], events: [] }, false);
  const byCount = new ClientSnapshot(state, { maxEntries: 3 });
  for (let i = 0; i < 10; i++) byCount.response(scope(), `?namePrefix=flag-${i}`);
  t.equal(byCount.stats().entries, 3);
  // Past the memo of parsed query strings (1,000), answers stay right and the bound holds.
  const sc = scope();
  for (let i = 0; i < 1500; i++) {
    const e = byCount.response(sc, `?namePrefix=flag-1&x=${i}`);
    if (i % 500 === 0) t.same(JSON.parse(Buffer.concat(e.parts).toString()).features.map((f: { name: string }) => f.name).sort(), ['flag-1', ...Array.from({ length: 10 }, (_, k) => `flag-1${k}`)].sort());
  }
  t.equal(byCount.stats().entries, 3);
  const full = new ClientSnapshot(state).response(scope(), '').length;
  const byBytes = new ClientSnapshot(state, { maxBytes: full * 2 });
  for (let i = 0; i < 10; i++) byBytes.response(scope(), `?namePrefix=flag-${i}`);
  byBytes.response(scope(), '');
  byBytes.response(scope(), '?project=default');
  t.ok(byBytes.stats().cachedBytes <= full * 2 || byBytes.stats().entries === 1, `cached bytes ${byBytes.stats().cachedBytes} stay within the bound`);
  t.ok(byBytes.stats().entries < 12);
});

t.test('the gzip copy follows asynchronously and holds the same bytes', async (t) => {
  const w = world();
  w.addFlag('a');
  const e = w.snap.response(scope(), '');
  t.equal(e.gzip, null, 'identity first');
  for (let i = 0; i < 1000 && e.gzip === null; i++) await new Promise((r) => setTimeout(r, 5));
  t.ok(e.gzip);
  t.equal(gunzipSync(e.gzip!).toString(), Buffer.concat(e.parts).toString());
  w.apply([{ o: 'feature.put', feature: feature('a', { stale: true }) }]);
  const e2 = w.get();
  t.equal(e2.gzip, null, 'new bytes drop the old gzip copy until the new one is ready');
});

t.test('large responses are blocks: one change re-stitches one block, the bytes stay valid JSON', async (t) => {
  const w = world();
  const all: Op[] = [];
  for (let i = 0; i < 3000; i++) {
    const name = `bulk-${String(i).padStart(4, '0')}`;
    all.push({ o: 'feature.put', feature: feature(name) });
    all.push({ o: 'featureEnv.put', feature: name, env: { environment: 'development', enabled: i % 2 === 0, variants: [], lastSeenAt: null } });
  }
  w.apply(all);
  const first = w.get();
  t.ok(first.parts.length > 10, `${first.parts.length} blocks`);
  const parsed = JSON.parse(first.bytes.toString());
  t.equal(parsed.features.length, 3000);
  t.equal(first.length, first.bytes.length);
  t.same(parsed.features.map((f: { name: string }) => f.name), [...parsed.features.map((f: { name: string }) => f.name)].sort());

  const built = () => w.snap.stats().blocksBuilt;
  let before = built();
  w.apply([{ o: 'featureEnv.put', feature: 'bulk-1501', env: { environment: 'development', enabled: true, variants: [], lastSeenAt: null } }]);
  const changed = w.get();
  t.equal(built() - before, 1, 'one flag changed → one block re-stitched');
  t.not(changed.etag, first.etag);
  t.equal(JSON.parse(changed.bytes.toString()).features[1501].enabled, true);
  t.equal(changed.parts.filter((p, i) => p !== first.parts[i]).length, 1, 'every other block is the same buffer');

  for (const name of ['bulk-0000a', 'bulk-2999z', 'bulk-1500x', 'aaa-first', 'zzz-last']) {
    before = built();
    w.addFlag(name);
    const e = w.get();
    t.ok(built() - before <= 2, `adding ${name} re-stitches ${built() - before} block(s)`);
    t.doesNotThrow(() => JSON.parse(e.bytes.toString()));
  }
  before = built();
  w.apply([{ o: 'feature.del', name: 'bulk-1500x' }]);
  t.ok(built() - before <= 2, 'removing a flag re-stitches at most two blocks');
  const final = JSON.parse(w.get().bytes.toString()).features.map((f: { name: string }) => f.name);
  t.equal(final.length, 3004);
  t.equal(final[0], 'aaa-first');
  t.equal(final[final.length - 1], 'zzz-last');
});

t.test('an empty selection is one block holding the empty envelope', async (t) => {
  const w = world();
  const e = w.get();
  t.equal(e.parts.length, 1);
  t.equal(e.bytes.toString(), '{"version":1,"features":[]}');
});
