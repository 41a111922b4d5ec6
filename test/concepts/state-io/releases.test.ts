// Release templates, plans (with their progress and progressions), safeguards and impact metrics
// charts through the state export and import, between two real server processes: what one
// exports, a fresh one imports to the same records (the plan served to SDKs as before); a
// document whose plan or safeguard names a flag, environment or plan that is not there is refused
// whole, naming the item; and ?drop=true drops them.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { serve } from '../../helpers/server.js';

const walBytes = (dir: string) => fs.readdirSync(dir).filter((f) => f.startsWith('wal-')).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);

const ADMIN = '*:*.state-releases-admin';
const CLIENT = '*:development.state-releases-client';
const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT };
const FLAG = '/api/admin/projects/alpha/features';
const DEV = (flag: string) => `${FLAG}/${flag}/environments/development`;
const RELEASES = ['releasePlanTemplates', 'releasePlans', 'safeguards', 'impactMetricsConfigs'] as const;
const METRIC = { metricName: 'checkout_errors', timeRange: 'hour', aggregationMode: 'count', labelSelectors: { appName: ['web'] } };

t.test('templates, plans with their progress, safeguards and charts: exported, imported into a fresh server the same, refused when dangling, dropped', async (t) => {
  const a = await serve(t, { authorization: ADMIN, env });
  const b = await serve(t, { authorization: ADMIN, env });
  const { ok } = a;

  await ok('POST', '/api/admin/projects', { id: 'alpha', name: 'Alpha' });
  for (const flag of ['checkout', 'search']) {
    await ok('POST', FLAG, { name: flag });
    await ok('POST', `${DEV(flag)}/on`);
  }
  const seg = await ok('POST', '/api/admin/segments', { name: 'nordics', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }] });
  const tpl = await ok('POST', '/api/admin/release-plan-templates', {
    name: 'Careful',
    milestones: [
      { name: 'Internal', strategies: [{ strategyName: 'flexibleRollout', parameters: { rollout: 10 }, segments: [seg.id], constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }] }] },
      { name: 'Half', strategies: [{ strategyName: 'flexibleRollout', parameters: { rollout: 50 } }] },
      { name: 'All', strategies: [{ strategyName: 'default' }] },
    ],
  });
  const plan = await ok('POST', `${DEV('checkout')}/release-plans`, { templateId: tpl.id });
  const [, half, all] = plan.milestones;
  await ok('POST', `${DEV('checkout')}/release-plans/${plan.id}/milestones/${half.id}/start`);
  await ok('PUT', `${DEV('checkout')}/progressions/${half.id}`, { targetMilestone: all.id, transitionCondition: { intervalMinutes: 60 } });
  await ok('PUT', `${DEV('checkout')}/release-plans/${plan.id}/safeguards`, { impactMetric: METRIC, triggerCondition: { operator: '>', threshold: 5 } });
  await ok('PUT', `${DEV('checkout')}/safeguards`, { impactMetric: METRIC, triggerCondition: { operator: '>', threshold: 50 } });
  // A plan outlives its template: this one's template is deleted before the export.
  const gone = await ok('POST', '/api/admin/release-plan-templates', { name: 'Short-lived', milestones: [{ name: 'Only', strategies: [{ strategyName: 'default' }] }] });
  await ok('POST', `${DEV('search')}/release-plans`, { templateId: gone.id });
  await ok('DELETE', `/api/admin/release-plan-templates/${gone.id}`);
  await ok('POST', '/api/admin/impact-metrics/config', { title: 'Errors', ...METRIC, yAxisMin: 'zero' });
  await ok('POST', `${FLAG}/checkout/impact-metrics/config`, { ...METRIC, yAxisMin: 'auto' });

  const exported = await ok('GET', '/api/admin/state/export');
  t.same(RELEASES.map((k) => exported[k].length), [2, 2, 2, 2], 'the export carries 2 templates (the built-in one), 2 plans, 2 safeguards, 2 charts');
  const exportedPlan = exported.releasePlans.find((p: any) => p.featureName === 'checkout');
  t.match(exportedPlan.milestones[1], { id: half.id, startedAt: String, transitionCondition: { intervalMinutes: 60 }, progressionTarget: all.id }, 'with the progress and progression of each milestone');

  // A fresh server has the built-in template under the same id: it is kept, the rest added.
  t.equal((await b.api('POST', '/api/admin/state/import', exported)).status, 202, 'imported into a fresh server: 202');
  const again = await b.ok('GET', '/api/admin/state/export');
  // The built-in template was there already (made when the fresh server started): kept as it was.
  const builtin = (doc: any) => doc.releasePlanTemplates.find((x: any) => x.name === 'Gradual rollout');
  t.equal(builtin(again).id, builtin(exported).id, 'the built-in template has the same id on both servers');
  builtin(again).createdAt = builtin(exported).createdAt;
  for (const k of RELEASES) t.same(again[k], exported[k], `the fresh server exports the same ${k}`);
  for (const k of ['features', 'featureEnvironments', 'featureStrategies', 'segments']) t.same(again[k], exported[k], `and the same ${k}`);
  t.same(await b.ok('GET', `${DEV('checkout')}/release-plans`), await ok('GET', `${DEV('checkout')}/release-plans`), 'the plan reads the same, its safeguards listed');
  t.same(await b.ok('GET', `${DEV('checkout')}/safeguards`), await ok('GET', `${DEV('checkout')}/safeguards`), 'the environment safeguard too');
  const served = async (api: typeof a.api) => (await api('GET', '/api/client/features', undefined, { authorization: CLIENT })).json.features.find((f: any) => f.name === 'checkout').strategies;
  t.same(await served(b.api), await served(a.api), 'SDKs get the same strategies from both');
  t.equal((await served(b.api))[0].parameters.rollout, '50', 'the active milestone\'s first');

  // Importing its own lists back into the first server, even overwriting (?keep=false), changes
  // nothing: what the import builds is identical to what the API made.
  const walBefore = walBytes(a.srv.dataDir);
  const same = Object.fromEntries([['version', 4], ...RELEASES.map((k) => [k, exported[k]])]);
  t.equal((await a.api('POST', '/api/admin/state/import?keep=false', same)).status, 202, 'the same lists imported back, overwriting: 202');
  t.equal(walBytes(a.srv.dataDir), walBefore, 'and not a byte written: every item is identical to what is there');

  // Dangling references: refused whole, naming the item; nothing changed.
  const before = await b.ok('GET', '/api/admin/state/export');
  const refusedWith = async (what: string, doc: unknown, path: RegExp, query = '') => {
    const res = await b.api('POST', `/api/admin/state/import${query}`, doc);
    t.equal(res.status, 400, `${what}: 400`);
    t.match(res.json, { id: String, name: 'ValidationError', message: path }, `${what}: the message names it`);
  };
  const other = { ...exportedPlan, id: 'another-plan' };
  await refusedWith('a plan of a flag that is not there', { version: 4, releasePlans: [{ ...other, featureName: 'nope' }] }, /releasePlans\[0\]\.featureName: flag "nope" does not exist/);
  await refusedWith('a plan in an environment that is not there', { version: 4, releasePlans: [{ ...other, featureName: 'search', environment: 'staging' }] }, /releasePlans\[0\]\.environment/);
  await refusedWith('a plan whose active milestone is not its own', { version: 4, releasePlans: [{ ...exportedPlan, activeMilestoneId: 'elsewhere' }] }, /releasePlans\[0\]\.activeMilestoneId/);
  await refusedWith('a milestone strategy of an unknown type', { version: 4, releasePlanTemplates: [{ id: 'x', name: 'X', milestones: [{ id: 'm', name: 'm', strategies: [{ id: 's', strategyName: 'nope' }] }] }] },
    /releasePlanTemplates\[0\]\.milestones\[0\]\.strategies\[0\]\.strategyName/);
  const planGuard = exported.safeguards.find((s: any) => s.action.type === 'pauseReleasePlanProgressions');
  await refusedWith('a safeguard of a plan that is not there', { version: 4, safeguards: [{ ...planGuard, id: 'g2', action: { type: 'pauseReleasePlanProgressions', id: 'nope' } }] }, /safeguards\[0\]\.action\.id/);
  await refusedWith('a second template of a name taken', { version: 4, releasePlanTemplates: [{ id: 'other', name: 'Careful' }] }, /would be named "Careful".*drop=true/);
  await refusedWith('dropping a segment a template uses', { version: 4, segments: [] }, /segment \d+, which would no longer exist/, '?drop=true');
  await refusedWith('a body that is no document', { version: 4, releasePlans: [{ featureName: 'checkout' }] }, /releasePlans/);
  t.same(await b.ok('GET', '/api/admin/state/export'), before, 'none of them changed anything');

  // A plan whose template is gone imports: the template is only where it came from.
  const search = exported.releasePlans.find((p: any) => p.featureName === 'search');
  t.notOk(exported.releasePlanTemplates.some((x: any) => x.id === search.releasePlanTemplateId), 'the search plan\'s template is not in the document');

  t.equal((await b.api('POST', '/api/admin/state/import?drop=true', { version: 4, releasePlanTemplates: [], releasePlans: [], safeguards: [], impactMetricsConfigs: [] })).status, 202, 'a drop of all four');
  const dropped = await b.ok('GET', '/api/admin/state/export');
  t.same(RELEASES.map((k) => dropped[k].length), [0, 0, 0, 0], 'leaves none of them');
  t.same(dropped.features, exported.features, 'and the flags as they were');
  t.same((await served(b.api)).map((s: any) => s.name), ['flexibleRollout'], 'SDKs no longer get the milestone\'s strategies (the flag\'s own 100 % only)');
});
