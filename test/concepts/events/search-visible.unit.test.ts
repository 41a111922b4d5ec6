// Event search limited to what an admin token may see, against a brute-force reference: the
// full log filtered by the visibility rule (written here the slow obvious way) and the search
// filters, for every kind of limit, filter, page size and cursor.
import t from 'tap';
import type { AdminView } from '../../../src/core/access/access.js';
import { EventLog, type EventFilter } from '../../../src/core/state/events/event-log.js';
import { searchVisible } from '../../../src/concepts/events/search-visible.js';
import { NoAccessError } from '../../../src/core/errors.js';
import type { EventRecord } from '../../../src/core/state/types.js';

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TYPES = ['feature-created', 'feature-strategy-add', 'feature-environment-enabled', 'environment-created', 'api-token-created'];
const PROJECTS = ['default', 'shop', 'Shop', 'web', null];
const ENVS = ['development', 'production', null];

function randomLog(n: number, seed: number): EventLog {
  const r = rng(seed);
  const pick = <T>(list: T[]) => list[Math.floor(r() * list.length)];
  const log = new EventLog({ slabChars: 4096 });
  for (let i = 0; i < n; i++) {
    log.append({
      id: i + 1, type: pick(TYPES), createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(), createdBy: pick(['admin', 'ci']),
      createdByUserId: null, environment: pick(ENVS), project: pick(PROJECTS), featureName: pick(['f1', 'f2', 'f3', null]),
      data: r() < 0.5 ? { word: pick(['Rollout', 'stickiness', 'other']) } : null, preData: null, tags: null,
    });
  }
  return log;
}

/** The rule from docs/reference/authentication.md, "Events seen by a limited admin token", as the reference applies it. */
function canSee(view: AdminView, e: Pick<EventRecord, 'project' | 'environment'>): boolean {
  if (view.environment === '*' && view.projects.includes('*')) return true;
  if (e.project === null) return false;
  if (!view.projects.includes('*') && !view.projects.includes(e.project)) return false;
  return view.environment === '*' || e.environment === null || e.environment === view.environment;
}

/** The reference: every event, filtered one by one. */
function reference(log: EventLog, f: EventFilter, limit: number, offset: number, view: AdminView) {
  const q = f.query?.toLowerCase();
  const all = [...log.newestFirst()].filter((e) =>
    canSee(view, e) && (f.type === undefined || e.type === f.type) && (f.project === undefined || e.project === f.project) &&
    (f.feature === undefined || e.featureName === f.feature) &&
    (q === undefined || `${e.type}\n${e.createdBy}\n${JSON.stringify(e.data)}`.toLowerCase().includes(q)));
  return { ids: all.filter((e) => offset === 0 || e.id <= offset).slice(0, limit).map((e) => e.id), total: all.length };
}

const VIEWS: AdminView[] = [
  { projects: ['*'], environment: '*' },
  { projects: ['shop'], environment: '*' },
  { projects: ['shop', 'web'], environment: '*' },
  { projects: ['nothing-here'], environment: '*' },
  { projects: ['*'], environment: 'production' },
  { projects: ['shop'], environment: 'production' },
  { projects: ['default', 'web'], environment: 'development' },
  { projects: ['shop', 'Shop', 'web', 'gone'], environment: 'production' },
  { projects: ['*'], environment: 'no-such-environment' },
  { projects: ['web'], environment: 'no-such-environment' },
];

t.test('the visibility rule, event by event: project-less events only for unlimited views; other environments hidden', async (t) => {
  const sees = (view: AdminView, project: string | null, environment: string | null) => {
    const log = new EventLog();
    log.append({ id: 1, type: 'feature-created', createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'x', createdByUserId: null, environment, project, featureName: null, data: null, preData: null, tags: null });
    const page = searchVisible(log, {}, 10, 0, view);
    if (page.total !== page.events.length) throw new Error('total and page disagree');
    return page.total === 1;
  };
  const [full, shop, , , anyProd] = VIEWS;
  t.ok(sees(full, null, 'x'));
  t.notOk(sees(shop, null, null), 'a limited token never sees server-wide events');
  t.notOk(sees(anyProd, null, 'production'), 'not even a token of every project limited to one environment');
  t.ok(sees(shop, 'shop', 'development'));
  t.notOk(sees(shop, 'Shop', null), 'project names are exact');
  t.ok(sees(anyProd, 'web', null), 'project-level events (no environment) are visible to an environment-limited token');
  t.notOk(sees(anyProd, 'web', 'development'));
  t.ok(sees(VIEWS[8], 'web', null), 'a token of an environment no event has still sees project-level events');
  t.notOk(sees(VIEWS[8], 'web', 'production'));
});

t.test('searchVisible equals the brute-force reference for every view, filter, limit and cursor', async (t) => {
  const log = randomLog(3000, 11);
  const filters: EventFilter[] = [
    {}, { type: 'feature-strategy-add' }, { project: 'shop' }, { feature: 'f2' }, { query: 'rollout' }, { type: 'feature-created', query: 'o' },
    { project: 'web', feature: 'f1' }, { type: 'never-happened' }, { feature: 'nope', project: 'shop' }, { project: 'web', query: 'STICK' }, { type: 'api-token-created', feature: 'f3' },
  ];
  let cases = 0;
  for (const view of VIEWS) {
    for (const filter of filters) {
      for (const [limit, offset] of [[100, 0], [7, 0], [100, 1500], [3, 2999], [1, 1]]) {
        const inView = view.projects.includes('*') || filter.project === undefined || view.projects.includes(filter.project);
        if (!inView) {
          t.throws(() => searchVisible(log, filter, limit, offset, view), NoAccessError);
          continue;
        }
        const want = reference(log, filter, limit, offset, view);
        const got = searchVisible(log, filter, limit, offset, view);
        cases++;
        if (got.total !== want.total || JSON.stringify(got.events.map((e) => e.id)) !== JSON.stringify(want.ids)) {
          t.fail(`view ${JSON.stringify(view)} filter ${JSON.stringify(filter)} limit ${limit} offset ${offset}: got ${got.total} [${got.events.map((e) => e.id).slice(0, 5)}…], want ${want.total} [${want.ids.slice(0, 5)}…]`);
        }
      }
    }
  }
  t.ok(cases > 400, `${cases} searches matched the reference`);
});

t.test('paging a limited view with offset = last id - 1 visits each visible event once, totals steady', async (t) => {
  const log = randomLog(3000, 21);
  for (const view of VIEWS.slice(1)) {
    for (const filter of [{}, { query: 'rollout' }, { type: 'feature-created' }]) {
      const want = reference(log, filter, 3000, 0, view);
      const seen: number[] = [];
      let offset = 0;
      for (;;) {
        const page = searchVisible(log, filter, 97, offset, view);
        if (page.total !== want.total) t.fail(`${JSON.stringify(view)} ${JSON.stringify(filter)}: total ${page.total} at offset ${offset}, want ${want.total}`);
        if (page.events.length === 0) break;
        seen.push(...page.events.map((e) => e.id));
        offset = page.events[page.events.length - 1].id - 1;
        if (offset === 0) break;
      }
      t.same(seen, want.ids, `${JSON.stringify(view)} ${JSON.stringify(filter)}: ${want.ids.length} events`);
    }
  }
});

t.test('a limited view stays exact after events are undone and their ids reused with other projects and environments', async (t) => {
  const log = randomLog(2000, 9);
  const at = (id: number, environment: string | null, project: string | null): EventRecord => ({
    id, type: 'feature-created', createdAt: '2026-02-01T00:00:00.000Z', createdBy: 'x', createdByUserId: null, environment, project, featureName: 'f9', data: { word: 'Rollout' }, preData: null, tags: null,
  });
  const check = (what: string) => {
    for (const view of [VIEWS[5], VIEWS[2], VIEWS[7], VIEWS[4]]) {
      for (const filter of [{}, { type: 'feature-created' }, { query: 'rollout' }]) {
        const got = searchVisible(log, filter, 20, 0, view);
        const want = reference(log, filter, 20, 0, view);
        t.same([got.total, got.events.map((e) => e.id)], [want.total, want.ids], `${what} ${JSON.stringify(view)} ${JSON.stringify(filter)}`);
      }
    }
  };
  check('before:');
  log.append(at(2001, 'production', 'shop'));
  log.append(at(2002, null, 'shop'));
  check('after appends:');
  // A failed write undoes the newest events; later ones reuse their ids with other content.
  log.removeLast(2002);
  log.removeLast(2001);
  log.append(at(2001, 'development', 'shop'));
  log.append(at(2002, 'production', 'brand-new-project'));
  check('after an undo and new events under the same ids:');
});

t.test('a project outside the view is refused naming the token limits; no event is decoded for it', async (t) => {
  const log = randomLog(200, 3);
  const err = t.throws(() => searchVisible(log, { project: 'default' }, 10, 0, { projects: ['shop', 'web'], environment: 'production' })) as Error;
  t.equal(err.name, 'NoAccessError');
  t.match(err.message, /^You need permission=READ to perform this action on environment=production in project=default: this token is limited to projects=shop,web and environment=production\.$/);
  const everything: EventRecord[] = searchVisible(log, {}, 100, 0, { projects: ['*'], environment: '*' }).events;
  t.equal(everything.length, 100, 'an unlimited view is the plain search');
});
