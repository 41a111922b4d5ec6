// Event search limited to what an admin token may see, against a brute-force reference: the
// full log filtered by the visibility rule and the search filters, for every kind of limit,
// filter, page size and cursor (including walks spanning several chunks).
import t from 'tap';
import type { AdminView } from '../../src/auth/authenticator.js';
import { EventLog, type EventFilter } from '../../src/events/event-log.js';
import { EnvironmentIndex } from '../../src/events/search-index.js';
import { canSee, searchVisible } from '../../src/events/search-visible.js';
import { NoAccessError } from '../../src/errors.js';
import type { EventRecord } from '../../src/state/types.js';

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
];

t.test('the visibility rule: project-less events only for unlimited views; other environments hidden', async (t) => {
  const full = VIEWS[0];
  const shop = VIEWS[1];
  const anyProd = VIEWS[4];
  t.ok(canSee(full, { project: null, environment: 'x' }));
  t.notOk(canSee(shop, { project: null, environment: null }), 'a limited token never sees server-wide events');
  t.notOk(canSee(anyProd, { project: null, environment: 'production' }), 'not even a token of every project limited to one environment');
  t.ok(canSee(shop, { project: 'shop', environment: 'development' }));
  t.notOk(canSee(shop, { project: 'Shop', environment: null }), 'project names are exact');
  t.ok(canSee(anyProd, { project: 'web', environment: null }), 'project-level events (no environment) are visible to an environment-limited token');
  t.notOk(canSee(anyProd, { project: 'web', environment: 'development' }));
});

t.test('searchVisible equals the brute-force reference for every view, filter, limit and cursor', async (t) => {
  const log = randomLog(3000, 11);
  const index = new EnvironmentIndex(log);
  const filters: EventFilter[] = [{}, { type: 'feature-strategy-add' }, { project: 'shop' }, { feature: 'f2' }, { query: 'rollout' }, { type: 'feature-created', query: 'o' }, { project: 'web', feature: 'f1' }, { type: 'never-happened' }, { feature: 'nope', project: 'shop' }];
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
        for (const [how, got] of [['walk', searchVisible(log, filter, limit, offset, view)], ['index', searchVisible(log, filter, limit, offset, view, index)]] as const) {
          cases++;
          if (got.total !== want.total || JSON.stringify(got.events.map((e) => e.id)) !== JSON.stringify(want.ids)) {
            t.fail(`${how}: view ${JSON.stringify(view)} filter ${JSON.stringify(filter)} limit ${limit} offset ${offset}: got ${got.total} [${got.events.map((e) => e.id).slice(0, 5)}…], want ${want.total} [${want.ids.slice(0, 5)}…]`);
          }
        }
      }
    }
  }
  t.ok(cases > 400, `${cases} searches matched the reference`);
});

t.test('an environment-limited walk over more matches than one chunk counts every one', async (t) => {
  const log = randomLog(26_000, 5);
  for (const view of [VIEWS[4], VIEWS[5]]) {
    for (const [limit, offset] of [[100, 0], [50, 20_000]]) {
      const got = searchVisible(log, {}, limit, offset, view);
      const want = reference(log, {}, limit, offset, view);
      t.equal(got.total, want.total, `${JSON.stringify(view)}: total ${want.total}`);
      t.same(got.events.map((e) => e.id), want.ids, 'the same page');
    }
  }
});

t.test('the environment index catches up with new events and forgets rolled-back ones', async (t) => {
  const log = randomLog(70_000, 9);
  const index = new EnvironmentIndex(log);
  const view = VIEWS[5];
  const check = (what: string) => {
    for (const filter of [{}, { type: 'feature-created' }]) {
      const got = searchVisible(log, filter, 20, 0, view, index);
      const want = reference(log, filter, 20, 0, view);
      t.same([got.total, got.events.map((e) => e.id)], [want.total, want.ids], `${what} ${JSON.stringify(filter)}`);
    }
  };
  check('over more than one catch-up chunk:');
  const at = (id: number, environment: string | null, project: string | null): EventRecord => ({
    id, type: 'feature-created', createdAt: '2026-02-01T00:00:00.000Z', createdBy: 'x', createdByUserId: null, environment, project, featureName: 'f9', data: null, preData: null, tags: null,
  });
  log.append(at(70_001, 'production', 'shop'));
  log.append(at(70_002, null, 'shop'));
  check('after appends:');
  // A failed write undoes the newest events; later ones reuse their ids with other content.
  log.removeLast(70_002);
  log.removeLast(70_001);
  index.rolledBack();
  log.append(at(70_001, 'development', 'shop'));
  log.append(at(70_002, 'production', 'web'));
  check('after a rollback and new events under the same ids:');
  log.removeLast(70_002);
  check('after a rollback the index did not hear of (the log is shorter):');
});

t.test('a project outside the view is refused naming the token limits; no event is decoded for it', async (t) => {
  const log = randomLog(200, 3);
  const err = t.throws(() => searchVisible(log, { project: 'default' }, 10, 0, { projects: ['shop', 'web'], environment: 'production' })) as Error;
  t.equal(err.name, 'NoAccessError');
  t.match(err.message, /^You need permission=READ to perform this action on environment=production in project=default: this token is limited to projects=shop,web and environment=production\.$/);
  const everything: EventRecord[] = searchVisible(log, {}, 100, 0, { projects: ['*'], environment: '*' }).events;
  t.equal(everything.length, 100, 'an unlimited view is the plain search');
});
