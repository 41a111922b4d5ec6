// The compact event log against a brute-force reference: every filter, their combinations,
// limits, offsets and pagination, over a random log spread across many small slabs.
import t from 'tap';
import { EventLog, type Visibility } from '../../../../src/core/state/events/event-log.js';
import type { EventRecord } from '../../../../src/core/state/types.js';

/** Deterministic PRNG so a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TYPES = ['feature-created', 'feature-strategy-add', 'feature-strategy-update', 'feature-environment-enabled', 'segment-created', 'tag-import'];
const PROJECTS = ['default', 'Payments', 'payments', null];
const FEATURES = [...Array.from({ length: 25 }, (_, i) => `flag-${i}`), 'Checkout', null];
const USERS = ['admin', 'Alice Ödegaard', 'bob@example.com'];
const WORDS = ['Rollout', 'ROLLOUT', 'stickiness', 'Ünïcode', 'percent%', 'under_score', 'a"quote', 'back\\slash', 'Größe', 'x'];

function randomEvents(n: number, seed: number): EventRecord[] {
  const r = rng(seed);
  const pick = <T>(list: T[]) => list[Math.floor(r() * list.length)];
  const blob = () => {
    const o: Record<string, unknown> = {};
    const k = 1 + Math.floor(r() * 3);
    for (let i = 0; i < k; i++) o[pick(['name', 'Value', 'parameters', 'list'])] = r() < 0.3 ? [pick(WORDS), Math.floor(r() * 100)] : `${pick(WORDS)}-${Math.floor(r() * 1000)}`;
    return o;
  };
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  return Array.from({ length: n }, (_, i): EventRecord => ({
    id: i + 1,
    type: pick(TYPES),
    createdAt: i % 97 === 5 ? '2026-01-01T00:00:00Z' : new Date(start + i * 1000 + Math.floor(r() * 999)).toISOString(),
    createdBy: pick(USERS),
    createdByUserId: r() < 0.5 ? null : Math.floor(r() * 10),
    environment: pick(['development', 'production', null]),
    project: pick(PROJECTS),
    featureName: pick(FEATURES),
    data: r() < 0.2 ? null : blob(),
    preData: r() < 0.5 ? null : blob(),
    tags: r() < 0.7 ? null : [{ type: 'simple', value: pick(WORDS) }],
  }));
}

interface Filter {
  type?: string;
  project?: string;
  feature?: string;
  query?: string;
}

const text = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v));

/** The definition from docs/decisions/0001-one-record-per-change.md and 0013-event-search.md, written the slow obvious way. */
function reference(events: EventRecord[], f: Filter, limit: number, offset: number) {
  const q = f.query ? f.query.toLowerCase() : null;
  const matching = events
    .filter((e) => (f.type === undefined || e.type === f.type)
      && (f.project === undefined || e.project === f.project)
      && (f.feature === undefined || e.featureName === f.feature)
      && (q === null || [e.type, e.createdBy, text(e.data), text(e.preData), text(e.tags)].some((s) => s.toLowerCase().includes(q))))
    .sort((a, b) => b.id - a.id);
  const page = matching.filter((e) => offset <= 0 || e.id <= offset).slice(0, limit);
  return { ids: page.map((e) => e.id), total: matching.length };
}

const N = 3000;
const events = randomEvents(N, 42);
// Tiny slabs so a few thousand events span dozens of them (boundaries are where bugs hide).
const log = new EventLog({ slabChars: 4096 });
for (const e of events) log.append(e);

t.test('get, oldestFirst and newestFirst give back exactly what was appended', async (t) => {
  t.equal(log.size, N);
  t.equal(log.lastId, N);
  t.same(log.get(1), events[0]);
  t.same(log.get(N), events[N - 1]);
  t.equal(log.get(0), undefined);
  t.equal(log.get(N + 1), undefined);
  t.same([...log.oldestFirst()], events);
  t.same([...log.newestFirst()].map((e) => e.id), events.map((e) => e.id).reverse());
  t.equal(log.get(6)!.createdAt, '2026-01-01T00:00:00Z', 'a timestamp in another ISO spelling is kept verbatim');
});

t.test('append refuses a gap in ids', async (t) => {
  const l = new EventLog();
  t.throws(() => l.append({ ...events[0], id: 2 }), /gap/);
});

const QUERIES = ['rollout', 'ROLLOUT', 'alice', 'ödegaard', 'GRÖSSE', 'größe', 'ünïcode', 'percent%', '%', '_', '"', 'a"quote', '\\', 'flag-1', 'strategy', 'simple', 'name":"', 'nothing-like-this', 'x-9', 'null', 'line\nbreak'];

t.test('every filter and combination matches the brute-force reference', async (t) => {
  const r = rng(7);
  const pick = <T>(list: T[]) => list[Math.floor(r() * list.length)];
  let checked = 0;
  for (let mask = 0; mask < 16; mask++) {
    for (let round = 0; round < 25; round++) {
      const f: Filter = {};
      if (mask & 1) f.type = pick([...TYPES, 'feature-deleted']);
      if (mask & 2) f.project = pick(['default', 'Payments', 'payments', 'PAYMENTS', 'nope']);
      if (mask & 4) f.feature = pick(['flag-1', 'flag-10', 'Checkout', 'checkout', 'nope']);
      if (mask & 8) f.query = pick(QUERIES);
      const limit = pick([1, 7, 100]);
      const offset = pick([0, 0, 1, Math.floor(r() * N), N, N + 50]);
      const got = log.search(f, limit, offset);
      const want = reference(events, f, limit, offset);
      t.same({ ids: got.events.map((e) => e.id), total: got.total }, want, JSON.stringify({ f, limit, offset }));
      checked++;
    }
  }
  t.equal(checked, 400);
});

t.test('a visibility limit keeps only its projects (never project-less events, unless projects is null), its environment or none, and none of its hidden types, in total and page', async (t) => {
  const r = rng(13);
  const pick = <T>(list: T[]) => list[Math.floor(r() * list.length)];
  const limits: Visibility[] = [
    { projects: '*', environment: '*' }, { projects: '*', environment: 'production' }, { projects: ['default'], environment: '*' },
    { projects: ['Payments'], environment: 'development' }, { projects: ['default', 'payments', 'nope'], environment: '*' },
    { projects: ['default', 'Payments'], environment: 'production' }, { projects: [], environment: '*' }, { projects: '*', environment: 'staging' },
    // What a person who is not an Admin sees (every event but some types), and the same with limits.
    { projects: null, environment: '*', hiddenTypes: ['segment-created', 'tag-import'] }, { projects: null, environment: '*', hiddenTypes: ['no-such-type'] },
    { projects: '*', environment: 'production', hiddenTypes: ['feature-strategy-add'] }, { projects: ['default'], environment: '*', hiddenTypes: ['feature-created', 'tag-import'] },
  ];
  const sees = (v: Visibility, e: EventRecord) => (v.projects === null || (e.project !== null && (v.projects === '*' || v.projects.includes(e.project))))
    && (v.environment === '*' || e.environment === null || e.environment === v.environment) && !(v.hiddenTypes ?? []).includes(e.type);
  let checked = 0;
  for (const visible of limits) {
    const shown = events.filter((e) => sees(visible, e));
    for (let mask = 0; mask < 16; mask++) {
      for (let round = 0; round < 6; round++) {
        const f: Filter = {};
        if (mask & 1) f.type = pick(TYPES);
        if (mask & 2) f.project = pick(['default', 'Payments', 'payments', 'nope']);
        if (mask & 4) f.feature = pick(['flag-1', 'flag-10', 'Checkout']);
        if (mask & 8) f.query = pick(QUERIES);
        const limit = pick([1, 7, 100]);
        const offset = pick([0, 0, 1, Math.floor(r() * N), N + 50]);
        const got = log.search({ ...f, visible }, limit, offset);
        t.same({ ids: got.events.map((e) => e.id), total: got.total }, reference(shown, f, limit, offset), JSON.stringify({ f, visible, limit, offset }));
        checked++;
      }
    }
  }
  t.equal(checked, limits.length * 96);
});

t.test('each query word, alone and with a selective filter (row-by-row path), matches the reference', async (t) => {
  for (const query of QUERIES) {
    for (const extra of [{}, { feature: 'flag-3' }, { type: 'tag-import', feature: 'Checkout' }]) {
      const f = { ...extra, query };
      const got = log.search(f, 100, 0);
      const want = reference(events, f, 100, 0);
      t.same({ ids: got.events.map((e) => e.id), total: got.total }, want, JSON.stringify(f));
    }
  }
});

t.test('returned events carry every field of the original', async (t) => {
  const page = log.search({ query: 'rollout' }, 100, 0);
  for (const e of page.events) t.same(e, events[e.id - 1]);
});

t.test('paging with offset = last id - 1 visits every matching event exactly once, newest first', async (t) => {
  for (const f of [{}, { type: 'feature-created' }, { project: 'default', query: 'rollout' }, { query: 'a' }]) {
    const want = reference(events, f, N, 0).ids;
    const seen: number[] = [];
    let offset = 0;
    for (;;) {
      const page = log.search(f, 37, offset);
      t.equal(page.total, want.length);
      if (page.events.length === 0) break;
      seen.push(...page.events.map((e) => e.id));
      offset = page.events[page.events.length - 1].id - 1;
      if (offset === 0) break;
    }
    t.same(seen, want, JSON.stringify(f));
  }
});

t.test('removeLast undoes appends across slab boundaries, indexes included', async (t) => {
  const l = new EventLog({ slabChars: 512 });
  for (const e of events.slice(0, 400)) l.append(e);
  t.throws(() => l.removeLast(399), /cannot undo/);
  for (let id = 400; id > 250; id--) l.removeLast(id);
  t.equal(l.lastId, 250);
  const kept = events.slice(0, 250);
  t.same([...l.oldestFirst()], kept);
  for (const f of [{ type: 'feature-created' }, { feature: 'flag-2' }, { project: 'default', query: 'rollout' }, { query: 'alice' }]) {
    const got = l.search(f, 100, 0);
    t.same({ ids: got.events.map((e) => e.id), total: got.total }, reference(kept, f, 100, 0), JSON.stringify(f));
  }
  // And the log grows again normally after the undo.
  for (const e of events.slice(250, 300)) l.append(e);
  t.same([...l.oldestFirst()], events.slice(0, 300));
  t.same(l.search({ feature: 'flag-2' }, 100, 0).total, reference(events.slice(0, 300), { feature: 'flag-2' }, 100, 0).total);
});

t.test('repeated free-text searches stay right as the log grows and shrinks (cached scans)', async (t) => {
  const l = new EventLog({ slabChars: 2048 });
  const all = randomEvents(2000, 99);
  for (const e of all.slice(0, 1000)) l.append(e);
  const check = (n: number, label: string) => {
    for (const query of ['rollout', 'alice', 'größe', 'x']) {
      for (const f of [{ query }, { query, project: 'default' }, { query, feature: 'flag-7' }]) {
        for (const offset of [0, Math.floor(n / 2)]) {
          const got = l.search(f, 50, offset);
          t.same({ ids: got.events.map((e) => e.id), total: got.total }, reference(all.slice(0, n), f, 50, offset), `${label} ${JSON.stringify(f)} offset ${offset}`);
        }
      }
    }
  };
  check(1000, 'first');
  check(1000, 'again');
  for (const e of all.slice(1000, 1700)) l.append(e);
  check(1700, 'after appends');
  for (let id = 1700; id > 1300; id--) l.removeLast(id);
  check(1300, 'after undo');
  for (const e of all.slice(1300, 2000)) l.append(e);
  check(2000, 'after more appends');
});

t.test('exportColumns/importColumns rebuild the same log: events, searches, then appends and undo', async (t) => {
  // Chunks of uneven sizes, with a tiny slab size, so imported slabs, merged slabs and slabs
  // opened by appends after an import all occur; the source has 5 events in a slab still open.
  const copy = new EventLog({ slabChars: 4096 });
  for (let from = 1; from <= N - 500; from += 733) copy.importColumns(log.exportColumns(from, Math.min(N - 500, from + 732)));
  for (const e of events.slice(N - 500, N - 100)) copy.append(e);
  copy.importColumns(log.exportColumns(N - 99, N));
  t.equal(copy.lastId, N);
  t.same([...copy.oldestFirst()], events, 'every field of every event, odd dates included');
  for (const f of [{}, { type: 'feature-created' }, { feature: 'flag-2', query: 'rollout' }, { project: 'Payments' }, { query: 'ödegaard' }, { query: 'größe' }, { query: 'a"quote' }]) {
    for (const offset of [0, 1234]) {
      const got = copy.search(f, 50, offset);
      t.same({ ids: got.events.map((e) => e.id), total: got.total }, reference(events, f, 50, offset), JSON.stringify({ f, offset }));
    }
  }
  const more = randomEvents(N + 40, 5).slice(N);
  for (const e of more) copy.append(e);
  for (let id = N + 40; id > N - 10; id--) copy.removeLast(id);
  t.same([...copy.oldestFirst()], events.slice(0, N - 10), 'undo reaches back into an imported chunk');
  t.same(copy.search({ query: 'alice' }, 100, 0).total, reference(events.slice(0, N - 10), { query: 'alice' }, 100, 0).total);
});

t.test('importColumns refuses a chunk that does not fit or does not add up, and leaves the log unchanged', async (t) => {
  const l = new EventLog();
  for (const e of events.slice(0, 10)) l.append(e);
  const good = log.exportColumns(11, 20);
  t.throws(() => l.importColumns(log.exportColumns(12, 20)), /starts at 12/);
  t.throws(() => l.importColumns({ ...good, text: good.text + 'x' }), /do not add up/);
  t.throws(() => l.importColumns({ ...good, type: good.type.subarray(1) }), /wrong length/);
  t.throws(() => l.importColumns({ ...good, project: good.project.map(() => good.strings.length + 1) }), /not in the chunk's table/);
  const noDate = { ...good, createdAt: good.createdAt.map(() => NaN), oddDates: {} };
  t.throws(() => l.importColumns(noDate), /no date/);
  t.equal(l.lastId, 10);
  l.importColumns(good);
  t.same([...l.oldestFirst()], events.slice(0, 20));
});

t.test('keepNewest: a log of the newest events only, same ids, searchable, appended to and undone like any', async (t) => {
  const keep = 700;
  const kept = log.keepNewest(keep);
  t.equal(log.size, N, 'the log it came from is left whole');
  t.equal(kept.size, keep);
  t.equal(kept.lastId, N);
  t.equal(kept.firstId, N - keep + 1);
  t.equal(kept.get(N - keep), undefined, 'an event let go is not found');
  t.same(kept.get(N - keep + 1), events[N - keep]);
  t.same([...kept.oldestFirst()], events.slice(N - keep));
  const tail = events.slice(N - keep);
  for (const f of [{}, { type: 'feature-created' }, { feature: 'flag-2' }, { query: 'rollout' }]) {
    for (const offset of [0, N - 100, N - keep - 5]) {
      const got = kept.search(f, 50, offset);
      t.same({ ids: got.events.map((e) => e.id), total: got.total }, reference(tail, f, 50, offset), JSON.stringify({ f, offset }));
    }
  }
  const more = randomEvents(N + 20, 9).slice(N);
  for (const e of more) kept.append(e);
  t.equal(kept.lastId, N + 20, 'appends go on from the newest id');
  for (let id = N + 20; id > N + 10; id--) kept.removeLast(id);
  t.same([...kept.oldestFirst()], [...tail, ...more.slice(0, 10)]);
  const again = kept.keepNewest(5);
  t.same([...again.oldestFirst()].map((e) => e.id), [N + 6, N + 7, N + 8, N + 9, N + 10], 'kept again from a kept log');
  const copy = new EventLog();
  copy.startAt(again.firstId);
  copy.importColumns(again.exportColumns(again.firstId, again.lastId));
  t.same([...copy.oldestFirst()], [...again.oldestFirst()], 'read back as a checkpoint reads it: started at its first id');
  t.throws(() => copy.startAt(1), /holds events/);
  t.throws(() => kept.exportColumns(N - keep, N), /not in the log/);
});
