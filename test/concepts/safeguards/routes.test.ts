// Safeguards over HTTP against a real server: both kinds on Unleash's routes and shapes (204 on
// PUT and DELETE, listed on the flag's environment and on the plan), who may set them (whoever may
// change the flag's environment; project Members yes, Viewers no), bad input refused with a 400
// that names the field and nothing kept, and a safeguard that goes with its plan.
import t from 'tap';
import { STRONG, signInAs, withSession } from '../../helpers/people.js';
import { serve } from '../../helpers/server.js';

const ADMIN = '*:*.safeguards-routes-admin';
const P = '/api/admin/projects/default/features';
const FLAG_ENV = `${P}/checkout/environments/development`;
const BODY = {
  impactMetric: { metricName: 'checkout_errors', timeRange: 'hour', aggregationMode: 'count', labelSelectors: { appName: ['shop'] } },
  triggerCondition: { operator: '>', threshold: 5 },
};

t.test('both kinds of safeguard: set, listed in Unleash\'s shape, replaced, removed; permissions and bad input', async (t) => {
  const { srv, api, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG }, authorization: ADMIN });
  await ok('POST', P, { name: 'checkout' });
  await ok('POST', `${FLAG_ENV}/on`);

  const put = await api('PUT', `${FLAG_ENV}/safeguards`, BODY);
  t.equal(put.status, 204, 'PUT answers 204');
  const [sg] = await ok('GET', `${FLAG_ENV}/safeguards`);
  t.match(sg, {
    id: String, action: { type: 'disableFeatureEnvironment', project: 'default', featureName: 'checkout', environment: 'development' },
    triggerCondition: { operator: '>', threshold: 5 }, impactMetric: { id: String, ...BODY.impactMetric }, triggeredAt: null,
  }, 'listed as Unleash shapes it');
  t.equal((await api('PUT', `${FLAG_ENV}/safeguards`, { ...BODY, id: sg.id, triggerCondition: { operator: '<', threshold: 1 } })).status, 204);
  const replaced = await ok('GET', `${FLAG_ENV}/safeguards`);
  t.same(replaced.map((x: any) => [x.id, x.triggerCondition.operator]), [[sg.id, '<']], 'with its id, the safeguard is replaced');

  const templates = await ok('GET', '/api/admin/release-plan-templates');
  const plan = await ok('POST', `${FLAG_ENV}/release-plans`, { templateId: templates[0].id });
  t.equal((await api('PUT', `${FLAG_ENV}/release-plans/${plan.id}/safeguards`, BODY)).status, 204);
  const [onPlan] = await ok('GET', `${FLAG_ENV}/release-plans/${plan.id}/safeguards`);
  t.match(onPlan, { action: { type: 'pauseReleasePlanProgressions', id: plan.id }, triggerCondition: BODY.triggerCondition });
  t.same((await ok('GET', `${FLAG_ENV}/release-plans`))[0].safeguards.map((x: any) => x.id), [onPlan.id], 'the plan lists its safeguards');
  t.same((await ok('GET', `${FLAG_ENV}/safeguards`)).map((x: any) => x.id), [sg.id], 'the environment lists only its own');

  // Bad input: a 400 naming the field, nothing kept.
  const bad: [string, unknown][] = [
    ['no trigger condition', { impactMetric: BODY.impactMetric }],
    ['an unknown operator', { ...BODY, triggerCondition: { operator: '>=', threshold: 5 } }],
    ['a threshold that is not a number', { ...BODY, triggerCondition: { operator: '>', threshold: '5' } }],
    ['an unknown time range', { ...BODY, impactMetric: { ...BODY.impactMetric, timeRange: 'year' } }],
    ['an unknown aggregation', { ...BODY, impactMetric: { ...BODY.impactMetric, aggregationMode: 'max' } }],
    ['an empty label selector', { ...BODY, impactMetric: { ...BODY.impactMetric, labelSelectors: { appName: [] } } }],
    ['no metric name', { ...BODY, impactMetric: { ...BODY.impactMetric, metricName: '' } }],
  ];
  for (const [what, body] of bad) {
    const res = await api('PUT', `${FLAG_ENV}/safeguards`, body);
    t.equal(res.status, 400, `${what}: 400`);
    t.match(res.json, { id: String, name: 'ValidationError', message: String }, `${what}: a clear error`);
  }
  t.equal((await ok('GET', `${FLAG_ENV}/safeguards`)).length, 1, 'nothing was kept');
  t.equal((await api('PUT', `${FLAG_ENV}/safeguards`, { ...BODY, id: 'nope' })).status, 404, 'an unknown id to replace: 404');
  t.equal((await api('PUT', `${P}/nope/environments/development/safeguards`, BODY)).status, 404, 'an unknown flag: 404');
  t.equal((await api('PUT', `${FLAG_ENV}/release-plans/nope/safeguards`, BODY)).status, 404, 'an unknown plan: 404');
  t.equal((await api('DELETE', `${FLAG_ENV}/safeguards/${onPlan.id}`)).status, 404, 'a plan\'s safeguard is not removed through the environment');

  // Who may: a Member of the project may; a Viewer reads but may not change.
  await ok('POST', '/api/admin/user-admin', { username: 'member', password: STRONG, rootRole: 'Viewer', projects: [{ project: 'default', role: 'Member' }] });
  await ok('POST', '/api/admin/user-admin', { username: 'viewer', password: STRONG, rootRole: 'Viewer' });
  const member = withSession(srv.url, await signInAs(srv.url, 'member', STRONG));
  const viewer = withSession(srv.url, await signInAs(srv.url, 'viewer', STRONG));
  t.equal((await viewer('GET', `${FLAG_ENV}/safeguards`)).status, 200, 'a Viewer lists them');
  const refused = await viewer('PUT', `${FLAG_ENV}/safeguards`, BODY);
  t.equal(refused.status, 403, 'a Viewer may not set one');
  t.equal((await viewer('DELETE', `${FLAG_ENV}/safeguards/${sg.id}`)).status, 403, 'nor remove one');
  t.equal((await member('PUT', `${FLAG_ENV}/safeguards`, BODY)).status, 204, 'a Member of the project may');
  t.equal((await ok('GET', `${FLAG_ENV}/safeguards`)).length, 2);

  t.equal((await api('DELETE', `${FLAG_ENV}/safeguards/${sg.id}`)).status, 204, 'DELETE answers 204');
  t.equal((await ok('GET', `${FLAG_ENV}/safeguards`)).length, 1);
  // A plan's safeguards go with it.
  await ok('DELETE', `${FLAG_ENV}/release-plans/${plan.id}`);
  const again = await ok('POST', `${FLAG_ENV}/release-plans`, { templateId: templates[0].id });
  t.same((await ok('GET', `${FLAG_ENV}/release-plans/${again.id}/safeguards`)), [], 'a new plan starts without the old one\'s safeguards');
  const events = (await ok('GET', '/api/admin/events')).events.map((e: any) => e.type);
  t.ok(events.includes('safeguard-changed') && events.includes('safeguard-deleted'), 'changes are events');
});
