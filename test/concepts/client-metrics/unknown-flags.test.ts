// The unknown flags: names SDKs report that the server does not have. Unit tests of the store's
// rules (budget, least-recently-reported eviction, a day's retention, Unleash's listing), then a
// real server flooded with invented names by a client token: memory stays bounded.
import t from 'tap';
import { MAX_LISTED_UNKNOWN_FLAGS, UnknownFlags } from '../../../src/concepts/client-metrics/unknown-flags.js';
import { emptyState } from '../../../src/core/state/state.js';
import { feature } from '../../core/state/fixture.js';
import { rssOf } from '../../helpers/hostile.js';
import { MAIN, serve } from '../../helpers/server.js';

const T = (s: number) => new Date(Date.UTC(2026, 10, 20, 10, 0, s)).toISOString();
const ms = (iso: string) => Date.parse(iso);

t.test('reports are listed by name, per application and environment, in Unleash 8.2\'s shape', async (t) => {
  const state = emptyState();
  const u = new UnknownFlags(1024 * 1024);
  u.report('zeta', 'web', 'production', T(1));
  u.report('alpha', 'web', 'production', T(2));
  u.report('alpha', 'api', 'development', T(3));
  u.report('alpha', 'web', 'development', T(4));
  u.report('alpha', 'web', 'production', T(5));
  state.events.append({ id: 1, type: 'feature-deleted', createdAt: T(0), createdBy: 'x', createdByUserId: null, environment: null, project: 'default', featureName: 'zeta', data: null, preData: null, tags: null });
  t.same(u.list(state, ms(T(6))), [
    {
      name: 'alpha', lastSeenAt: T(5), lastEventAt: null,
      reports: [
        { appName: 'api', environments: [{ environment: 'development', seenAt: T(3) }] },
        { appName: 'web', environments: [{ environment: 'development', seenAt: T(4) }, { environment: 'production', seenAt: T(5) }] },
      ],
    },
    { name: 'zeta', lastSeenAt: T(1), lastEventAt: T(0), reports: [{ appName: 'web', environments: [{ environment: 'production', seenAt: T(1) }] }] },
  ], 'names in order, applications and environments in order; lastEventAt tells of a flag of that name that was deleted');

  state.features.set('zeta', feature('zeta'));
  t.same(u.list(state, ms(T(6))).map((f) => f.name), ['alpha'], 'a name that exists by now is not listed');
  t.same(u.list(state, ms(T(4)) + 24 * 3600 * 1000 + 1).map((f) => f.name), ['alpha'], 'a day after, only what was reported within the day');
  t.same(u.list(state, ms(T(5)) + 24 * 3600 * 1000 + 1), [], 'and then nothing');
  t.same(u.size(), { bytes: 0, reports: 0 }, 'what is past the day is forgotten, not only hidden');
});

t.test('names and applications holding any character stay apart', async (t) => {
  const u = new UnknownFlags(1024 * 1024);
  u.report('a\u0000b', 'c', 'development', T(1));
  u.report('a', 'b\u0000c', 'development', T(2));
  t.same(u.list(emptyState(), ms(T(3))).map((f) => [f.name, f.reports[0].appName]), [['a', 'b\u0000c'], ['a\u0000b', 'c']]);
});

t.test('past the budget the least recently reported go first, and the bytes stay within it', async (t) => {
  const state = emptyState();
  const budget = 64 * 1024;
  const u = new UnknownFlags(budget);
  let most = 0;
  for (let i = 0; i < 20_000; i++) {
    u.report(`ghost-${String(i).padStart(5, '0')}`.padEnd(200, 'x'), 'app', 'development', T(0));
    // Reported again every 20 names, fewer than the budget holds: it keeps moving to the end.
    if (i % 20 === 0) u.report(`ghost-00000`.padEnd(200, 'x'), 'app', 'development', T(0));
    most = Math.max(most, u.size().bytes);
  }
  t.ok(most <= budget, `never above the budget (${most} of ${budget} bytes)`);
  const { reports } = u.size();
  t.ok(reports > 30 && reports < 200, `${reports} reports kept of 20,000 names`);
  const names = u.list(state, ms(T(1))).map((f) => f.name.slice(0, 11));
  t.ok(names.includes('ghost-19999'), 'the newest is kept');
  t.ok(names.includes('ghost-00000'), 'an old one reported again recently is kept');
  t.notOk(names.includes('ghost-00001'), 'an old one not reported again is gone');
});

t.test(`the listing stops at ${MAX_LISTED_UNKNOWN_FLAGS} names, the first by name`, async (t) => {
  const u = new UnknownFlags(64 * 1024 * 1024);
  for (let i = 1500; i > 0; i--) u.report(`n${String(i).padStart(4, '0')}`, 'app', 'development', T(0));
  const list = u.list(emptyState(), ms(T(1)));
  t.equal(list.length, MAX_LISTED_UNKNOWN_FLAGS);
  t.same([list[0].name, list.at(-1)!.name], ['n0001', 'n1000']);
});

const ADMIN = '*:*.unknown-admin';
const CLIENT = 'default:development.unknown-client';
const TS = '2026-11-20T10:00:00.000Z';

t.test('a server flooded with invented names keeps them within UNKNOWN_FLAGS_MAX_BYTES', async (t) => {
  // A 128 MB heap: the names sent (115 MB of one-byte strings, more as keys and reports) cannot all
  // be kept in it, so a store that kept them would kill the server. RSS alone cannot tell: how much
  // of the posts' garbage is still uncollected depends on the machine's load (it grew 167 MB once).
  const { srv, api, ok } = await serve(t, {
    command: [process.execPath, '--max-old-space-size=128', MAIN],
    authorization: ADMIN, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, UNKNOWN_FLAGS_MAX_BYTES: String(256 * 1024) },
  });
  await ok('POST', '/api/admin/projects/default/features', { name: 'real' });
  // 450,000 names: kept without a budget, they took RSS from 96 to 351 MB (measured).
  const POSTS = 150;
  const PER_POST = 3000;
  const name = (p: number, i: number) => `ghost-${p}-${i}-`.padEnd(255, 'x');
  const before = rssOf(srv.proc.pid!);
  const statuses: Record<number, number> = {};
  for (let p = 0; p < POSTS; p++) {
    const toggles: Record<string, { yes: number; no: number }> = { real: { yes: 1, no: 0 } };
    for (let i = 0; i < PER_POST; i++) toggles[name(p, i)] = { yes: 1, no: 0 };
    const res = await api('POST', '/api/client/metrics', { appName: `app-${p % 3}`, instanceId: 'i', bucket: { start: TS, stop: TS, toggles } }, { authorization: CLIENT });
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
  t.same(statuses, { 202: POSTS }, 'every post is accepted');
  const after = rssOf(srv.proc.pid!);
  const sent = POSTS * PER_POST;
  const prom = (await api('GET', '/internal-backstage/prometheus')).text;
  const reports = Number(/^unknown_flag_reports (\d+)/m.exec(prom)?.[1]);
  const bytes = Number(/^unknown_flags_bytes (\d+)/m.exec(prom)?.[1]);
  t.comment(`${sent} names of 255 characters reported (${Math.round((sent * 255 * 2) / 2 ** 20)} MB as strings): ${reports} kept, ${bytes} bytes estimated; RSS ${Math.round(before / 2 ** 20)} → ${Math.round(after / 2 ** 20)} MB`);
  t.ok(bytes <= 256 * 1024, 'the estimate is within the budget');
  t.ok(reports > 100 && reports < 2000, 'a few hundred of the newest reports kept');
  t.equal(srv.proc.exitCode, null, 'the server lives on its 128 MB heap');
  const list = await ok('GET', '/api/admin/metrics/unknown-flags');
  t.equal(list.unknownFlags.length, reports, 'each kept report is listed (one application and environment per name here)');
  t.ok(list.unknownFlags.every((f: any) => f.name.startsWith(`ghost-${POSTS - 1}-`)), 'the listed ones are of the last post');
  t.notOk(list.unknownFlags.some((f: any) => f.name === 'real'), 'the real flag is not unknown');
  t.equal((await ok('GET', '/api/admin/metrics/applications/app-2')).toggles.find((c: any) => c.featureName === 'real').yes, POSTS / 3, 'and it is counted as before');
  t.equal((await api('GET', '/api/admin/metrics/unknown-flags', undefined, { authorization: CLIENT })).status, 403, 'a client token may not read them');
});
