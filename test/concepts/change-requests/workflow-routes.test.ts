// Four eyes over HTTP against a real server, with three people: ann drafts changes to production,
// sends them to review and cannot approve them herself (nor can an API token); bob approves and
// applies; the official Node SDK sees nothing of it before Applied and all of it after. Then:
// rejection and cancellation, an edit revoking approvals, a conflict blocking apply, and the
// routes refusing what the workflow does not allow.
import t, { type Test } from 'tap';
import { signInAs, STRONG, withSession } from '../../helpers/people.js';
import { client, serve, type Spawned } from '../../helpers/server.js';
import { syncedSdk } from '../../helpers/unleash-sdk.js';
import { until } from '../../helpers/receiver.js';

const ADMIN = '*:*.change-requests-admin-token';
const CLIENT = '*:production.change-requests-client-token';
const CR = '/api/admin/projects/shop/change-requests';
const DRAFT = '/api/admin/projects/shop/environments/production/change-requests';
const FLAGS = '/api/admin/projects/shop/features';

/** A server where new projects need one approval in production (its default rule), and three Editors. */
async function fourEyes(t: Test, approvals = 1, env: Record<string, string> = {}) {
  const { srv, api, ok } = await serve(t, {
    env: {
      AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG,
      CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS: 'production', CHANGE_REQUESTS_DEFAULT_APPROVALS: String(approvals), SIGN_IN_LIMIT_PER_ADDRESS: '1000', ...env,
    },
    authorization: ADMIN,
  });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  for (const name of ['ann', 'bob', 'carol']) await ok('POST', '/api/admin/user-admin', { username: name, password: STRONG, rootRole: 'Editor' });
  const people = await sessions(srv);
  return { srv, api, ok, ...people };
}

async function sessions(srv: Spawned) {
  const as = async (name: string) => withSession(srv.url, await signInAs(srv.url, name, STRONG));
  return { ann: await as('ann'), bob: await as('bob'), carol: await as('carol'), admin: await as('admin') };
}

/** `who` drafts one switch of `flag`, sends it to review and tries to approve it; the answer to the approval. */
async function approveOwn(who: ReturnType<typeof withSession>, flag: string) {
  const cr = json(await who('POST', DRAFT, { feature: flag, action: 'updateEnabled', payload: { enabled: true } }), 200, 'draft');
  json(await who('PUT', `${CR}/${cr.id}/state`, { state: 'In review' }), 200, 'review');
  return who('PUT', `${CR}/${cr.id}/state`, { state: 'Approved' });
}

const json = (res: { status: number; text: string; json: any }, status: number, what: string) => {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res.json;
};

t.test('ann drafts, cannot approve her own; bob approves and applies; the SDK sees nothing before Applied and everything after', async (t) => {
  const { srv, api, ok, ann, bob, admin } = await fourEyes(t);
  await ok('POST', FLAGS, { name: 'checkout' });
  const sdk = await syncedSdk(t, srv.url, { token: CLIENT, refreshInterval: 100 });
  t.notOk(sdk.isEnabled('checkout'), 'off for the SDK to begin with');

  const draft = json(await ann('POST', DRAFT, [
    { feature: 'checkout', action: 'addStrategy', payload: { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'checkout' } } },
    { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
  ]), 200, 'draft');
  t.match(draft, { state: 'Draft', environment: 'production', project: 'shop', minApprovals: 1, createdBy: { username: 'ann' } });
  t.same(draft.features.map((f: any) => f.changes.map((c: any) => c.action)), [['addStrategy', 'updateEnabled']]);
  const again = json(await ann('POST', DRAFT, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } }), 200, 'same draft');
  t.equal(again.id, draft.id, 'one draft per person, project and environment');

  t.equal((await bob('GET', `${CR}/${draft.id}`)).status, 404, 'a draft is its author\'s alone');
  t.same((await bob('GET', CR)).json, [], 'and not listed for anyone else');
  t.equal((await bob('PUT', `${CR}/${draft.id}/state`, { state: 'In review' })).status, 404, 'nor moved by them');
  t.equal((await ann('PUT', `${CR}/${draft.id}/title`, { title: 'Open checkout to everyone' })).status, 200);

  json(await ann('PUT', `${CR}/${draft.id}/state`, { state: 'In review', comment: 'ready' }), 200, 'sent to review');
  const own = await ann('PUT', `${CR}/${draft.id}/state`, { state: 'Approved' });
  t.equal(own.status, 403, 'ann cannot approve her own request');
  t.match(own.json, { name: 'NoAccessError', message: /your own change request/ });
  const token = await api('PUT', `${CR}/${draft.id}/state`, { state: 'Approved' });
  t.equal(token.status, 403, 'an API token cannot approve');
  t.match(token.json.message, /API token cannot approve/);
  t.equal((await bob('PUT', `${CR}/${draft.id}/state`, { state: 'Applied' })).status, 400, 'not applied before it is approved');

  t.same(json(await ann('GET', `${CR}/open`), 200, 'open').map((c: any) => c.id), [draft.id], 'ann\'s open requests');
  t.same(json(await bob('GET', `${CR}/open`), 200, 'open'), [], 'none of them bob\'s');
  t.same(json(await bob('GET', `${CR}/pending`), 200, 'pending').map((c: any) => c.id), [draft.id], 'in review: pending for everyone');
  t.same(json(await bob('GET', `${CR}/pending/checkout`), 200, 'pending').map((c: any) => c.id), [draft.id], 'pending for the flag it changes');
  t.same(json(await bob('GET', `${CR}/pending/other-flag`), 200, 'pending'), [], 'and for no other');
  const reviewers = json(await ann('GET', `${CR}/available-reviewers/production`), 200, 'reviewers');
  t.same(reviewers.reviewers.map((r: any) => r.username).sort(), ['admin', 'bob', 'carol'], 'everyone who may approve, but ann');
  t.same(json(await bob('GET', `${CR}/actionable`), 200, 'actionable'), { total: 1 }, 'one request waits for bob');
  t.same(json(await ann('GET', `${CR}/actionable`), 200, 'actionable'), { total: 0 }, 'none for ann: it is hers');

  const approved = json(await bob('PUT', `${CR}/${draft.id}/state`, { state: 'Approved' }), 200, 'approved');
  t.match(approved, { state: 'Approved', title: 'Open checkout to everyone', approvals: [{ createdBy: { username: 'bob' } }], comments: [{ text: 'ready' }] });
  await new Promise((r) => setTimeout(r, 400));
  t.notOk(sdk.isEnabled('checkout'), 'approved is not applied: the SDK still sees it off');
  const raw = (await client(srv.url, { authorization: CLIENT })('GET', '/api/client/features')).json.features.find((f: any) => f.name === 'checkout');
  t.match(raw, { enabled: false, strategies: [] }, 'and so does the client API');

  const before = (await api('GET', '/api/admin/events')).json.totalEvents;
  const applied = json(await bob('PUT', `${CR}/${draft.id}/state`, { state: 'Applied' }), 200, 'applied');
  t.equal(applied.state, 'Applied');
  t.ok(applied.stateTimestamps.Applied, 'when it was applied');
  await until('checkout on for the SDK', () => sdk.isEnabled('checkout'), 5_000);
  const flag = (await api('GET', `${FLAGS}/checkout`)).json.environments.find((e: any) => e.name === 'production');
  t.match(flag, { enabled: true, strategies: [{ name: 'flexibleRollout', parameters: { rollout: '100' } }] }, 'the strategy and the switch, as asked');
  t.equal(flag.strategies.length, 1, 'the switch saw the strategy the same request added: no default one besides');
  const events = (await api('GET', '/api/admin/events')).json;
  const recent = events.events.slice(0, events.totalEvents - before).map((e: any) => [e.type, e.createdBy]).reverse();
  t.same(recent, [['feature-strategy-add', 'bob'], ['feature-environment-enabled', 'bob'], ['change-request-applied', 'bob']], 'each change\'s event, then change-request-applied');
  const trail = events.events.filter((e: any) => /^change-/.test(e.type) && e.type !== 'change-request-configuration-updated').map((e: any) => e.type).reverse();
  t.same(trail, ['change-request-created', 'change-added', 'change-added', 'change-added', 'change-request-sent-to-review', 'change-request-approved', 'change-request-applied']);
  t.equal((await bob('PUT', `${CR}/${draft.id}/state`, { state: 'Applied' })).status, 400, 'applied once');
  t.same(json(await ann('GET', `${CR}/count`), 200, 'count'), { total: 0, approved: 0, applied: 1, rejected: 0, reviewRequired: 0, scheduled: 0 });
  await ok('POST', FLAGS, { name: 'admins-own' });
  t.equal((await approveOwn(admin, 'admins-own')).status, 403, 'an Admin does not approve their own either (CHANGE_REQUESTS_ADMIN_SELF_APPROVE off)');
});

t.test('two approvals; an edit revokes them; a conflict blocks apply; reject and cancel', async (t) => {
  const { api, ok, ann, bob, carol } = await fourEyes(t, 2);
  await ok('POST', FLAGS, { name: 'banner' });
  // The admin token skips change requests (its Admin's right): a strategy to edit.
  const strategy = await ok('POST', `${FLAGS}/banner/environments/production/strategies`, { name: 'default' });
  const cr = json(await ann('POST', DRAFT, { feature: 'banner', action: 'updateStrategy', payload: { id: strategy.id, name: 'flexibleRollout', parameters: { rollout: '50' } } }), 200, 'draft');
  json(await ann('PUT', `${CR}/${cr.id}/state`, { state: 'In review' }), 200, 'review');
  t.match(json(await bob('PUT', `${CR}/${cr.id}/state`, { state: 'Approved' }), 200, 'bob'), { state: 'In review', approvals: [{}] }, 'one of two approvals');
  t.equal((await bob('PUT', `${CR}/${cr.id}/state`, { state: 'Approved' })).status, 409, 'not twice by the same person');

  const changeId = cr.features[0].changes[0].id;
  t.equal((await bob('PUT', `${CR}/${cr.id}/changes/${changeId}`, { feature: 'banner', action: 'updateStrategy', payload: { id: strategy.id, parameters: { rollout: '1' } } })).status, 403, 'only its author edits a change');
  const edited = json(await ann('PUT', `${CR}/${cr.id}/changes/${changeId}`, { feature: 'banner', action: 'updateStrategy', payload: { id: strategy.id, name: 'flexibleRollout', parameters: { rollout: '25' } } }), 200, 'edit');
  t.match(edited, { state: 'In review', approvals: [] }, 'editing revokes the approvals');
  const bad = await ann('PUT', `${CR}/${cr.id}/changes/${changeId}`, { feature: 'banner', action: 'updateStrategy', payload: { id: strategy.id, name: 'flexibleRollout', parameters: { rollout: 'lots' } } });
  t.equal(bad.status, 400, 'an edit is checked like the direct route');
  t.match(bad.json.message, /rollout/);

  json(await bob('PUT', `${CR}/${cr.id}/state`, { state: 'Approved' }), 200, 'bob again');
  t.match(json(await carol('PUT', `${CR}/${cr.id}/state`, { state: 'Approved' }), 200, 'carol'), { state: 'Approved' }, 'two approvals: approved');

  // Someone changes the strategy directly meanwhile.
  await ok('PUT', `${FLAGS}/banner/environments/production/strategies/${strategy.id}`, { name: 'default', title: 'edited meanwhile' });
  const seen = json(await bob('GET', `${CR}/${cr.id}`), 200, 'view');
  t.match(seen.features[0], { name: 'banner', conflict: /changed since/, changes: [{ conflict: /strategy this change was made against has been changed/ }] }, 'shown as a conflict');
  const refused = await bob('PUT', `${CR}/${cr.id}/state`, { state: 'Applied' });
  t.equal(refused.status, 409, 'cannot be applied over it');
  t.match(refused.json, { name: 'ConflictError', message: /cannot be applied: change \d+: The strategy this change was made against has been changed/ });
  const now = await ok('GET', `${FLAGS}/banner/environments/production/strategies/${strategy.id}`);
  t.match(now, { name: 'default', title: 'edited meanwhile' }, 'nothing applied');
  t.equal(json(await bob('GET', `${CR}/${cr.id}`), 200, 'view').state, 'Approved', 'the request waits, approved');

  t.equal((await ann('PUT', `${CR}/${cr.id}/state`, { state: 'Rejected' })).status, 403, 'the author does not reject her own');
  t.match(json(await carol('PUT', `${CR}/${cr.id}/state`, { state: 'Rejected', comment: 'stale' }), 200, 'reject'), { state: 'Rejected', rejections: [{ createdBy: { username: 'carol' } }] });
  t.equal((await ann('PUT', `${CR}/${cr.id}/state`, { state: 'Cancelled' })).status, 400, 'a rejected request is closed');

  const second = json(await ann('POST', DRAFT, { feature: 'banner', action: 'archiveFeature' }), 200, 'another draft');
  t.not(second.id, cr.id, 'a new draft: the last one left review');
  t.equal((await bob('PUT', `${CR}/${second.id}/state`, { state: 'Cancelled' })).status, 404);
  json(await ann('PUT', `${CR}/${second.id}/state`, { state: 'Cancelled' }), 200, 'cancel');
  const third = json(await ann('POST', DRAFT, { feature: 'banner', action: 'updateEnabled', payload: { enabled: true } }), 200, 'third');
  t.equal((await ann('DELETE', `${CR}/${third.id}`)).status, 204, 'a draft can be deleted');
  t.equal((await ann('GET', `${CR}/${third.id}`)).status, 404);
  const types = (await api('GET', '/api/admin/events')).json.events.map((e: any) => e.type);
  for (const type of ['change-request-approval-added', 'change-edited', 'change-request-rejected', 'change-request-cancelled', 'change-request-discarded']) t.ok(types.includes(type), `${type} recorded`);
  t.notOk((await ok('GET', `${FLAGS}/banner`)).archived, 'the cancelled archive never happened');
});

t.test('what the workflow refuses; then every action in one request, applied as its direct route would', async (t) => {
  const { ok, ann, bob, admin } = await fourEyes(t, 1, { CHANGE_REQUESTS_ADMIN_SELF_APPROVE: 'true' });
  await ok('POST', FLAGS, { name: 'promo' });
  const missing = await ann('POST', DRAFT, { feature: 'promo', action: 'addStrategy', payload: { parameters: {} } });
  t.equal(missing.status, 400);
  t.match(missing.json, { name: 'ValidationError', details: [{ path: 'payload.name' }] }, 'the payload is checked with the action\'s schema, naming the field');
  const unknown = await ann('POST', DRAFT, [{ feature: 'promo', action: 'updateEnabled', payload: { enabled: true } }, { feature: 'promo', action: 'flyToTheMoon', payload: {} }]);
  t.equal(unknown.status, 400);
  t.match(unknown.json.details, [{ path: '[1].action' }]);
  const gone = await ann('POST', DRAFT, { feature: 'promo', action: 'deleteStrategy', payload: { id: 'no-such-strategy' } });
  t.equal(gone.status, 404, 'a change that cannot apply today is refused as its route would refuse it');
  t.equal((await ann('POST', DRAFT, { feature: 'nope', action: 'updateEnabled', payload: { enabled: true } })).status, 404);
  const dev = await ann('POST', '/api/admin/projects/shop/environments/development/change-requests', { feature: 'promo', action: 'updateEnabled', payload: { enabled: true } });
  t.equal(dev.status, 400, 'development is not protected: change it directly');
  t.match(dev.json.message, /not enabled for environment "development"/);
  const seg = await ok('POST', '/api/admin/segments', { name: 'vip', project: 'default', constraints: [] });
  const other = await ann('POST', DRAFT, { action: 'updateSegment', payload: { id: seg.id, name: 'vip', constraints: [] } });
  t.equal(other.status, 400);
  t.match(other.json.message, /belongs to project "default"/);
  t.same((await ann('GET', CR)).json, [], 'nothing was drafted');

  // Every action, each through its own route's command, in one request.
  const P = `${FLAGS}/promo/environments/production`;
  const s1 = await ok('POST', `${P}/strategies`, { name: 'default' });
  const s2 = await ok('POST', `${P}/strategies`, { name: 'default', title: 'to delete' });
  for (const name of ['parent', 'child', 'old']) await ok('POST', FLAGS, { name });
  await ok('POST', `${FLAGS}/child/dependencies`, { feature: 'parent' });
  const keep = await ok('POST', '/api/admin/segments', { name: 'shop-seg', project: 'shop', constraints: [] });
  const drop = await ok('POST', '/api/admin/segments', { name: 'shop-gone', project: 'shop', constraints: [] });
  const all = [
    { feature: 'promo', action: 'addStrategy', payload: { name: 'flexibleRollout', parameters: { rollout: '10' } } },
    { feature: 'promo', action: 'updateStrategy', payload: { id: s1.id, name: 'flexibleRollout', parameters: { rollout: '30' } } },
    { feature: 'promo', action: 'deleteStrategy', payload: { id: s2.id } },
    { feature: 'promo', action: 'reorderStrategy', payload: [{ id: s1.id, sortOrder: 9 }] },
    { feature: 'promo', action: 'patchVariant', payload: { variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }] } },
    { feature: 'promo', action: 'updateEnabled', payload: { enabled: true } },
    { feature: 'promo', action: 'addDependency', payload: { feature: 'parent' } },
    { feature: 'child', action: 'deleteDependency', payload: { feature: 'parent' } },
    { feature: 'old', action: 'archiveFeature' },
    { action: 'updateSegment', payload: { id: keep.id, name: 'shop-seg', constraints: [{ contextName: 'userId', operator: 'IN', values: ['7'] }] } },
    { action: 'deleteSegment', payload: { id: drop.id } },
  ];
  const big = json(await ann('POST', DRAFT, all), 200, 'every action');
  t.equal(big.features.flatMap((f: any) => f.changes).length + big.segments.length, all.length, `${all.length} changes in the draft`);
  t.same(big.segments.map((c: any) => c.name), ['shop-seg', 'shop-gone'], 'segment changes name their segment');
  json(await ann('PUT', `${CR}/${big.id}/state`, { state: 'In review' }), 200, 'review');
  json(await bob('PUT', `${CR}/${big.id}/state`, { state: 'Approved' }), 200, 'approve');
  json(await bob('PUT', `${CR}/${big.id}/state`, { state: 'Applied' }), 200, 'apply');
  const promo = await ok('GET', `${FLAGS}/promo`);
  const prod = promo.environments.find((e: any) => e.name === 'production');
  t.equal(prod.enabled, true, 'switched on');
  t.same(prod.strategies.map((x: any) => [x.name, x.parameters.rollout]), [['flexibleRollout', '10'], ['flexibleRollout', '30']], 'added, updated and moved last; the other deleted');
  t.same(prod.variants.map((v: any) => v.name), ['blue'], 'variants set');
  t.same(promo.dependencies.map((d: any) => d.feature), ['parent'], 'dependency added');
  t.same((await ok('GET', `${FLAGS}/child`)).dependencies, [], 'dependency removed');
  t.ok((await ok('GET', '/api/admin/archive/features')).features.some((f: any) => f.name === 'old'), 'archived');
  t.same((await ok('GET', `/api/admin/segments/${keep.id}`)).constraints.map((c: any) => c.values), [['7']], 'segment updated');
  t.equal((await ann('GET', `/api/admin/segments/${drop.id}`)).status, 404, 'segment deleted');
  await ok('POST', FLAGS, { name: 'self' });
  t.equal((await approveOwn(admin, 'self')).status, 200, 'with CHANGE_REQUESTS_ADMIN_SELF_APPROVE an Admin approves their own');
  t.equal((await approveOwn(ann, 'self')).status, 403, 'an Editor still does not');
});

t.test('with AUTH_TYPE=none every caller is the same anonymous Admin: its own requests go through', async (t) => {
  const { api, ok } = await serve(t);
  await ok('PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 });
  await ok('POST', '/api/admin/projects/default/features', { name: 'open-door' });
  const base = '/api/admin/projects/default/change-requests';
  const cr = await ok('POST', '/api/admin/projects/default/environments/production/change-requests', { feature: 'open-door', action: 'updateEnabled', payload: { enabled: true } });
  await ok('PUT', `${base}/${cr.id}/state`, { state: 'In review' });
  t.equal((await api('PUT', `${base}/${cr.id}/state`, { state: 'Approved' })).status, 200, 'approved by its (only possible) author');
  t.equal((await api('PUT', `${base}/${cr.id}/state`, { state: 'Applied' })).status, 200, 'and applied');
  t.equal((await ok('GET', '/api/admin/projects/default/features/open-door')).environments.find((e: any) => e.name === 'production').enabled, true);
});
