// A project at a glance: the pure overview (counts by type, state and environment; stale,
// potentially stale and never evaluated flags, capped lists with whole counts) and the flag
// search's `potentially-stale` state, then GET /api/admin/projects/:id/overview over HTTP, where
// an SDK's evaluation takes a flag off the "never evaluated" list.
import t from 'tap';
import { isPotentiallyStale } from '../../../src/concepts/features/flag-types.js';
import { searchFeatures } from '../../../src/concepts/features/search.js';
import { OVERVIEW_LISTED, projectOverview } from '../../../src/concepts/projects/overview.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { defaultOps } from '../../../src/core/state/defaults.js';
import type { Op } from '../../../src/core/state/ops.js';
import { emptyState } from '../../../src/core/state/state.js';
import { feature, featureEnv, T0 } from '../../core/state/fixture.js';
import { serve } from '../../helpers/server.js';

const DAY = 86_400_000;
const daysAfter = (days: number) => Date.parse(T0) + days * DAY;

function stateOf(ops: Op[]) {
  const state = emptyState();
  applyRecord(state, { lsn: 1, ops: [...defaultOps(T0), ...ops], events: [] }, false);
  return state;
}

t.test('potentially stale: past its type\'s expected lifetime and not marked stale; permanent types never', async (t) => {
  const at = (type: string, stale = false) => ({ type, stale, createdAt: T0 });
  t.equal(isPotentiallyStale(at('release'), daysAfter(40)), false, 'a release flag at 40 days');
  t.equal(isPotentiallyStale(at('release'), daysAfter(41)), true, 'at 41');
  t.equal(isPotentiallyStale(at('operational'), daysAfter(8)), true, 'an operational flag at 8 days');
  t.equal(isPotentiallyStale(at('kill-switch'), daysAfter(5000)), false, 'a kill switch: permanent');
  t.equal(isPotentiallyStale(at('release', true), daysAfter(100)), false, 'stale already');
});

t.test('the overview counts every live flag of the project and lists those needing attention', async (t) => {
  const ops: Op[] = [
    { o: 'project.put', project: { id: 'shop', name: 'Shop', description: null, mode: 'open', defaultStickiness: 'default', createdAt: T0, updatedAt: null } },
    { o: 'feature.put', feature: feature('kill', { type: 'kill-switch' }) },
    { o: 'featureEnv.put', feature: 'kill', env: featureEnv('production', { enabled: true, lastSeenAt: T0 }) },
    { o: 'feature.put', feature: feature('old-stale', { stale: true }) },
    { o: 'feature.put', feature: feature('young', { createdAt: new Date(daysAfter(30)).toISOString() }) },
    { o: 'featureEnv.put', feature: 'young', env: featureEnv('development', { enabled: true }) },
    { o: 'featureEnv.put', feature: 'young', env: featureEnv('production') },
    { o: 'feature.put', feature: feature('archived', { archived: true, archivedAt: T0 }) },
    { o: 'feature.put', feature: feature('elsewhere', { project: 'shop' }) },
  ];
  for (let i = 0; i < OVERVIEW_LISTED + 10; i++) ops.push({ o: 'feature.put', feature: feature(`exp-${String(i).padStart(2, '0')}`, { type: 'experiment' }) });
  const state = stateOf(ops);
  const o = projectOverview(state, state.projects.get('default')!, daysAfter(50));
  t.equal(o.featureCount, 3 + OVERVIEW_LISTED + 10, 'live flags of the project only');
  t.same(o.featureTypeCounts, [{ type: 'release', count: 2 }, { type: 'experiment', count: OVERVIEW_LISTED + 10 }, { type: 'kill-switch', count: 1 }], 'by type, types without flags left out');
  t.same(o.stale, { count: 1, items: [{ name: 'old-stale', type: 'release', createdAt: T0 }] });
  t.equal(o.potentiallyStale.count, OVERVIEW_LISTED + 10, 'every experiment past 40 days; the young flag and the kill switch are not');
  t.equal(o.potentiallyStale.items.length, OVERVIEW_LISTED, `listed: at most ${OVERVIEW_LISTED}`);
  t.same(o.neverEvaluated, { count: 1, items: [{ name: 'young', environment: 'development' }] }, 'on, and no SDK has evaluated it there');
  t.same(o.environmentCounts.map((e) => [e.environment, e.enabled, e.disabled]), [['development', 1, 0], ['production', 1, 1]]);
  t.equal(o.health, Math.round((100 * 2) / o.featureCount), 'health: the share neither stale nor potentially stale');
  t.equal(o.technicalDebt, 100 - o.health);

  const found = searchFeatures(state, { project: 'IS:default', state: 'IS:potentially-stale', limit: '1000' }, null, daysAfter(50));
  t.equal(found.total, OVERVIEW_LISTED + 10, 'the search finds the same potentially stale flags');
  t.same(searchFeatures(state, { project: 'IS:default', state: 'IS:active', sortBy: 'name', limit: '3' }, null, daysAfter(50)).features.map((f) => f.name), ['exp-00', 'exp-01', 'exp-02'], 'potentially stale flags are still active');
  t.same(searchFeatures(state, { project: 'IS:default', state: 'IS_NOT:potentially-stale', sortBy: 'name' }, null, daysAfter(50)).features.map((f) => f.name), ['kill', 'old-stale', 'young']);
});

const ADMIN = '*:*.overview-admin';
const CLIENT = 'default:development.overview-client';

t.test('GET /api/admin/projects/:id/overview: an evaluation takes a flag off the never-evaluated list', async (t) => {
  const { api, ok } = await serve(t, { authorization: ADMIN, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '100' } });
  const empty = await ok('GET', '/api/admin/projects/default/overview');
  t.same([empty.featureCount, empty.health, empty.neverEvaluated.count], [0, 100, 0], 'an empty project');
  for (const name of ['banner', 'search']) {
    await ok('POST', '/api/admin/projects/default/features', { name });
    await ok('POST', `/api/admin/projects/default/features/${name}/environments/development/on`);
  }
  t.same((await ok('GET', '/api/admin/projects/default/overview')).neverEvaluated.items.map((x: { name: string }) => x.name), ['banner', 'search']);
  const now = new Date().toISOString();
  t.equal((await api('POST', '/api/client/metrics', { appName: 'web', bucket: { start: now, stop: now, toggles: { banner: { yes: 1 } } } }, { authorization: CLIENT })).status, 202);
  let names: string[] = [];
  for (let i = 0; i < 50; i++) {
    names = (await ok('GET', '/api/admin/projects/default/overview')).neverEvaluated.items.map((x: { name: string }) => x.name);
    if (names.length === 1) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.same(names, ['search'], 'banner was evaluated (its lastSeenAt written by the next flush)');
  t.equal((await api('GET', '/api/admin/projects/nowhere/overview')).status, 404, 'an unknown project: 404');
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  const shopOnly = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'shop', type: 'admin', projects: ['shop'] })).secret;
  t.equal((await api('GET', '/api/admin/projects/shop/overview', undefined, { authorization: shopOnly })).status, 200, 'a project token: its own project');
  t.equal((await api('GET', '/api/admin/projects/default/overview', undefined, { authorization: shopOnly })).status, 403, 'not another');
});
