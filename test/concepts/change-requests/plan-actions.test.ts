// Release plans through four eyes, over HTTP against a real server with two people: ann (an
// Editor) may not touch production's release plan directly; she drafts each release-plan action
// (apply a template, start a milestone, set and remove a progression, add and remove a safeguard,
// resume, remove the plan); bob approves and applies; what SDKs are served changes only at Applied,
// and each request's changes land as one change. A plan removed, or moved on, since a change was
// drafted is a conflict that blocks the apply; bad payloads are refused naming the field.
import t, { type Test } from 'tap';
import { signInAs, STRONG, withSession } from '../../helpers/people.js';
import { client, serve } from '../../helpers/server.js';

const ADMIN = '*:*.cr-plans-admin-token';
const CLIENT = '*:production.cr-plans-client-token';
const CR = '/api/admin/projects/shop/change-requests';
const DRAFT = '/api/admin/projects/shop/environments/production/change-requests';
const FLAGS = '/api/admin/projects/shop/features';
const SAFEGUARD = {
  impactMetric: { metricName: 'errors', timeRange: 'hour', aggregationMode: 'count', labelSelectors: { appName: ['shop'] } },
  triggerCondition: { operator: '>', threshold: 5 },
};

type Caller = ReturnType<typeof withSession>;
const json = (res: { status: number; text: string; json: any }, status: number, what: string) => {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res.json;
};

async function setup(t: Test) {
  const { srv, api, ok } = await serve(t, {
    env: {
      AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG,
      CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS: 'production', SIGN_IN_LIMIT_PER_ADDRESS: '1000',
    },
    authorization: ADMIN,
  });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  for (const name of ['ann', 'bob']) await ok('POST', '/api/admin/user-admin', { username: name, password: STRONG, rootRole: 'Editor' });
  const ann = withSession(srv.url, await signInAs(srv.url, 'ann', STRONG));
  const bob = withSession(srv.url, await signInAs(srv.url, 'bob', STRONG));
  const templateId: string = (await ok('GET', '/api/admin/release-plan-templates'))[0].id;
  const sdk = client(srv.url, { authorization: CLIENT });
  /** The rollouts production serves for `flag`, in order (what an SDK gets). */
  const served = async (flag: string) => {
    const f = (await sdk('GET', '/api/client/features')).json.features.find((x: any) => x.name === flag);
    return { enabled: f?.enabled, rollouts: (f?.strategies ?? []).map((s: any) => s.parameters?.rollout ?? s.name) };
  };
  const plans = async (flag: string) => ok('GET', `${FLAGS}/${flag}/environments/production/release-plans`);
  return { srv, api, ok, ann, bob, templateId, served, plans };
}

/** ann drafts `changes`, sends them; bob approves; the request, approved (not applied). */
async function approved(ann: Caller, bob: Caller, changes: unknown[]) {
  const cr = json(await ann('POST', DRAFT, changes), 200, 'draft');
  json(await ann('PUT', `${CR}/${cr.id}/state`, { state: 'In review' }), 200, 'review');
  return json(await bob('PUT', `${CR}/${cr.id}/state`, { state: 'Approved' }), 200, 'approve');
}

/** The types of the events written since `total` events, oldest first, and whether they share one time (one change). */
async function since(api: (m: string, p: string) => Promise<any>, total: number) {
  const events = (await api('GET', '/api/admin/events')).json;
  const fresh = events.events.slice(0, events.totalEvents - total).reverse();
  return { types: fresh.map((e: any) => e.type), times: new Set(fresh.map((e: any) => e.createdAt)).size };
}

t.test('every release-plan action goes through a change request: nothing is served before Applied, all of it after', async (t) => {
  const { api, ok, ann, bob, templateId, served, plans } = await setup(t);
  await ok('POST', FLAGS, { name: 'rollout' });
  const PLANS = `${FLAGS}/rollout/environments/production/release-plans`;

  const direct = await ann('POST', PLANS, { templateId });
  t.equal(direct.status, 403, 'ann may not apply a template to production directly');
  t.match(direct.json.message, /SKIP_CHANGE_REQUEST.*change requests are required in production of project shop/);

  // 1. Apply the template and switch production on, in one request.
  const first = await approved(ann, bob, [
    { feature: 'rollout', action: 'addReleasePlan', payload: { templateId } },
    { feature: 'rollout', action: 'updateEnabled', payload: { enabled: true } },
  ]);
  t.same(await plans('rollout'), [], 'approved is not applied: no plan yet');
  t.same(await served('rollout'), { enabled: false, rollouts: ['default'] }, 'and SDKs are served nothing new (a flag without strategies is served the default one)');
  let total = (await api('GET', '/api/admin/events')).json.totalEvents;
  t.match(json(await bob('PUT', `${CR}/${first.id}/state`, { state: 'Applied' }), 200, 'apply'), { state: 'Applied' });
  const [plan] = await plans('rollout');
  const m = plan.milestones.map((x: any) => x.id);
  t.equal(plan.activeMilestoneId, m[0], 'the plan is there, its first milestone started (the environment is on)');
  t.same(await served('rollout'), { enabled: true, rollouts: ['25'] }, 'SDKs get the first milestone');
  let after = await since(api, total);
  t.same(after.types, ['release-plan-added', 'feature-environment-enabled', 'release-plan-milestone-started', 'change-request-applied'], "each change's events, then the request's");
  t.equal(after.times, 1, 'written as one change');

  // 2. Start the second milestone, set its progression, add a safeguard to the plan.
  const second = await approved(ann, bob, [
    { feature: 'rollout', action: 'startMilestone', payload: { planId: plan.id, milestoneId: m[1] } },
    { feature: 'rollout', action: 'changeMilestoneProgression', payload: { sourceMilestone: m[1], targetMilestone: m[2], transitionCondition: { intervalMinutes: 30 } } },
    { feature: 'rollout', action: 'changeSafeguard', payload: { planId: plan.id, safeguard: SAFEGUARD } },
  ]);
  t.same(await served('rollout'), { enabled: true, rollouts: ['25'] }, 'approved: still the first milestone');
  total = (await api('GET', '/api/admin/events')).json.totalEvents;
  json(await bob('PUT', `${CR}/${second.id}/state`, { state: 'Applied' }), 200, 'apply');
  const [moved] = await plans('rollout');
  t.equal(moved.activeMilestoneId, m[1], 'second milestone active');
  t.match(moved.milestones[1], { transitionCondition: { intervalMinutes: 30 } }, 'with its progression');
  t.match(moved.safeguards, [{ action: { type: 'pauseReleasePlanProgressions', id: plan.id }, triggerCondition: { operator: '>', threshold: 5 } }], 'and the safeguard');
  t.same(await served('rollout'), { enabled: true, rollouts: ['50'] }, 'SDKs get the second milestone');
  after = await since(api, total);
  t.same(after.types, ['release-plan-milestone-started', 'milestone-progression-changed', 'safeguard-changed', 'change-request-applied']);
  t.equal(after.times, 1, 'one change');

  // 3. Switched off directly (the admin token may skip), the plan pauses; resume it, remove the progression and the safeguard, then the plan.
  await ok('POST', '/api/admin/projects/shop/features/rollout/environments/production/off');
  t.ok((await plans('rollout'))[0].milestones[1].pausedAt, 'switching off paused the plan');
  const third = await approved(ann, bob, [
    { feature: 'rollout', action: 'resumeMilestoneProgression', payload: { planId: plan.id } },
    { feature: 'rollout', action: 'deleteMilestoneProgression', payload: { sourceMilestone: m[1] } },
    { feature: 'rollout', action: 'deleteSafeguard', payload: { planId: plan.id, safeguardId: moved.safeguards[0].id } },
  ]);
  t.ok((await plans('rollout'))[0].milestones[1].pausedAt, 'approved: still paused');
  json(await bob('PUT', `${CR}/${third.id}/state`, { state: 'Applied' }), 200, 'apply');
  const [bare] = await plans('rollout');
  t.match(bare.milestones[1], { pausedAt: null, transitionCondition: null }, 'resumed, its progression removed');
  t.same(bare.safeguards, [], 'safeguard removed');
  await ok('POST', '/api/admin/projects/shop/features/rollout/environments/production/on');

  const fourth = await approved(ann, bob, [{ feature: 'rollout', action: 'deleteReleasePlan', payload: { planId: plan.id } }]);
  t.same(await served('rollout'), { enabled: true, rollouts: ['50'] }, 'approved: the plan still serves');
  json(await bob('PUT', `${CR}/${fourth.id}/state`, { state: 'Applied' }), 200, 'apply');
  t.same(await plans('rollout'), [], 'plan removed');
  t.same(await served('rollout'), { enabled: true, rollouts: ['default'] }, 'its milestone is no longer served');
});

t.test('a plan removed, or moved on, since the change was drafted is a conflict: the apply is refused and nothing changes', async (t) => {
  const { ok, ann, bob, templateId, served, plans } = await setup(t);
  await ok('POST', FLAGS, { name: 'moving' });
  await ok('POST', `${FLAGS}/moving/environments/production/on`);
  const plan = await ok('POST', `${FLAGS}/moving/environments/production/release-plans`, { templateId });
  const m = plan.milestones.map((x: any) => x.id);

  const start = await approved(ann, bob, [{ feature: 'moving', action: 'startMilestone', payload: { planId: plan.id, milestoneId: m[2] } }]);
  // Meanwhile the plan moves on, directly.
  await ok('POST', `${FLAGS}/moving/environments/production/release-plans/${plan.id}/milestones/${m[1]}/start`);
  const view = json(await bob('GET', `${CR}/${start.id}`), 200, 'view');
  t.match(view.features[0], { conflict: /active milestone this change was made against has been changed since/ }, 'shown as a conflict');
  const refused = await bob('PUT', `${CR}/${start.id}/state`, { state: 'Applied' });
  t.equal(refused.status, 409);
  t.match(refused.json, { name: 'ConflictError', message: /cannot be applied: change \d+: The release plan's active milestone/ });
  t.equal((await plans('moving'))[0].activeMilestoneId, m[1], 'nothing applied: still the milestone started directly');
  t.same(await served('moving'), { enabled: true, rollouts: ['50', '100'] }, "the milestone started directly, before the flag's own strategy");
  json(await bob('PUT', `${CR}/${start.id}/state`, { state: 'Rejected' }), 200, 'reject');

  const progression = await approved(ann, bob, [
    { feature: 'moving', action: 'changeMilestoneProgression', payload: { sourceMilestone: m[1], targetMilestone: m[2], transitionCondition: { intervalMinutes: 5 } } },
    { feature: 'moving', action: 'resumeMilestoneProgression', payload: { planId: plan.id } },
  ]);
  // Meanwhile the plan is removed, directly.
  await ok('DELETE', `${FLAGS}/moving/environments/production/release-plans/${plan.id}`);
  const gone = json(await bob('GET', `${CR}/${progression.id}`), 200, 'view');
  t.match(gone.features[0].changes, [{ conflict: /progression this change was made against has been deleted since/ }, { conflict: /release plan this change was made against has been deleted since/ }]);
  const refusedGone = await bob('PUT', `${CR}/${progression.id}/state`, { state: 'Applied' });
  t.equal(refusedGone.status, 409);
  t.match(refusedGone.json.message, /\(and 1 more change in conflict\)/);
  t.same(await plans('moving'), [], 'nothing applied');
  t.equal(json(await bob('GET', `${CR}/${progression.id}`), 200, 'view').state, 'Approved', 'the request waits, approved');
});

t.test('release-plan changes are checked like their routes: bad payloads name the field, unknown plans are 404, nothing is drafted', async (t) => {
  const { ok, ann, templateId } = await setup(t);
  await ok('POST', FLAGS, { name: 'checked' });
  const plan = await ok('POST', `${FLAGS}/checked/environments/production/release-plans`, { templateId });
  const m = plan.milestones.map((x: any) => x.id);
  const cases: [string, unknown, number, RegExp | object][] = [
    ['addReleasePlan without a template', { feature: 'checked', action: 'addReleasePlan', payload: {} }, 400, { details: [{ path: 'payload.templateId' }] }],
    ['a second plan on the flag', { feature: 'checked', action: 'addReleasePlan', payload: { templateId } }, 400, /already has a release plan/],
    ['startMilestone without a plan', { feature: 'checked', action: 'startMilestone', payload: { milestoneId: m[1] } }, 400, { details: [{ path: 'payload.planId' }] }],
    ['startMilestone of an unknown plan', { feature: 'checked', action: 'startMilestone', payload: { planId: 'nope', milestoneId: m[1] } }, 404, /release plan "nope"/],
    ['startMilestone of an unknown milestone', { feature: 'checked', action: 'startMilestone', payload: { planId: plan.id, milestoneId: 'nope' } }, 404, /milestone "nope"/],
    ['a progression of 0 minutes', {
      feature: 'checked', action: 'changeMilestoneProgression', payload: { sourceMilestone: m[0], targetMilestone: m[1], transitionCondition: { intervalMinutes: 0 } },
    }, 400, { details: [{ path: 'payload.transitionCondition.intervalMinutes' }] }],
    ['a progression without its source', { feature: 'checked', action: 'changeMilestoneProgression', payload: { targetMilestone: m[1], transitionCondition: { intervalMinutes: 5 } } }, 400, { details: [{ path: 'payload.sourceMilestone' }] }],
    ['removing a progression that is not there', { feature: 'checked', action: 'deleteMilestoneProgression', payload: { sourceMilestone: m[0] } }, 404, /no progression/],
    ['a safeguard with a bad operator', {
      feature: 'checked', action: 'changeSafeguard', payload: { planId: plan.id, safeguard: { ...SAFEGUARD, triggerCondition: { operator: '>=', threshold: 1 } } },
    }, 400, { details: [{ path: 'payload.safeguard.triggerCondition.operator' }] }],
    ['removing an unknown safeguard', { feature: 'checked', action: 'deleteSafeguard', payload: { planId: plan.id, safeguardId: 'nope' } }, 404, /safeguard "nope"/],
    ['resume without a plan', { feature: 'checked', action: 'resumeMilestoneProgression', payload: {} }, 400, { details: [{ path: 'payload.planId' }] }],
    ['removing an unknown plan', { feature: 'checked', action: 'deleteReleasePlan', payload: { planId: 'nope' } }, 404, /release plan "nope"/],
  ];
  for (const [what, body, status, shape] of cases) {
    const res = await ann('POST', DRAFT, body);
    t.equal(res.status, status, `${what}: ${status} (got ${res.text.slice(0, 160)})`);
    t.match(res.json, shape instanceof RegExp ? { id: String, name: String, message: shape } : { id: String, name: 'ValidationError', ...shape }, what);
  }
  t.same((await ann('GET', CR)).json, [], 'nothing was drafted');

  // In a draft, setting and removing one milestone's progression replace each other; starting twice keeps the last.
  const draft = json(await ann('POST', DRAFT, [
    { feature: 'checked', action: 'changeMilestoneProgression', payload: { sourceMilestone: m[0], targetMilestone: m[1], transitionCondition: { intervalMinutes: 5 } } },
    { feature: 'checked', action: 'startMilestone', payload: { planId: plan.id, milestoneId: m[1] } },
  ]), 200, 'draft');
  const again = json(await ann('POST', DRAFT, [
    { feature: 'checked', action: 'changeMilestoneProgression', payload: { sourceMilestone: m[0], targetMilestone: m[2], transitionCondition: { intervalMinutes: 9 } } },
    { feature: 'checked', action: 'startMilestone', payload: { planId: plan.id, milestoneId: m[2] } },
  ]), 200, 'draft again');
  t.equal(again.id, draft.id);
  t.match(again.features[0].changes, [{ action: 'changeMilestoneProgression', payload: { targetMilestone: m[2] } }, { action: 'startMilestone', payload: { milestoneId: m[2] } }]);
  t.equal(again.features[0].changes.length, 2, 'the same two slots, the last of each');
});
