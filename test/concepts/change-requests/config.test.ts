// Change requests' configuration over HTTP against real servers, on Unleash Enterprise's routes and
// shapes: every environment of a project listed (off and one approval where never set), a PUT that
// answers 204 and records change-request-configuration-updated, kept across a restart; bad input
// refused with a 400 naming the field and nothing kept; the Terraform provider's way of turning it
// off (requiredApprovals 0); who may set it (Admins, Editors, the project's Owner); and the
// server's default for new projects.
import t from 'tap';
import { STRONG, signInAs, withSession } from '../../helpers/people.js';
import { serve, spawnServer, client, succeeding } from '../../helpers/server.js';

const ADMIN = '*:*.change-request-config-admin';
const CONFIG = (p: string) => `/api/admin/projects/${p}/change-requests/config`;
const PUT = (p: string, e: string) => `/api/admin/projects/${p}/environments/${e}/change-requests/config`;
const ENV = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG };

t.test('GET lists every environment; PUT sets one (204, an event), kept across a restart; bad input changes nothing', async (t) => {
  const { srv, api, ok } = await serve(t, { env: ENV, authorization: ADMIN });
  await ok('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
  t.same(await ok('GET', CONFIG('default')), [
    { environment: 'development', type: 'development', changeRequestEnabled: false, requiredApprovals: 1 },
    { environment: 'production', type: 'production', changeRequestEnabled: false, requiredApprovals: 1 },
    { environment: 'staging', type: 'test', changeRequestEnabled: false, requiredApprovals: 1 },
  ], 'off everywhere, in sort order');

  const put = await api('PUT', PUT('default', 'production'), { changeRequestsEnabled: true, requiredApprovals: 2 });
  t.equal(put.status, 204, 'PUT answers 204, as Unleash');
  t.equal(put.text, '', 'with no body');
  const byEnv = async (p = 'default') => Object.fromEntries((await ok('GET', CONFIG(p))).map((c: any) => [c.environment, [c.changeRequestEnabled, c.requiredApprovals]]));
  t.same(await byEnv(), { development: [false, 1], production: [true, 2], staging: [false, 1] });
  const { events } = await ok('GET', '/api/admin/events?limit=1');
  t.match(events[0], { type: 'change-request-configuration-updated', project: 'default', environment: 'production', data: { changeRequestsEnabled: true, requiredApprovals: 2 }, preData: { changeRequestsEnabled: false, requiredApprovals: 1 } }, 'an event says who changed what');

  const bad: [string, unknown][] = [
    ['0 approvals while on', { changeRequestsEnabled: true, requiredApprovals: 0 }],
    ['11 approvals', { changeRequestsEnabled: true, requiredApprovals: 11 }],
    ['11 approvals while off', { changeRequestsEnabled: false, requiredApprovals: 11 }],
    ['a fraction', { changeRequestsEnabled: true, requiredApprovals: 1.5 }],
    ['a negative count', { changeRequestsEnabled: false, requiredApprovals: -1 }],
    ['approvals as a string', { changeRequestsEnabled: true, requiredApprovals: '2' }],
    ['no changeRequestsEnabled', { requiredApprovals: 2 }],
    ['changeRequestsEnabled as a string', { changeRequestsEnabled: 'yes' }],
  ];
  const eventsBefore = (await ok('GET', '/api/admin/events')).totalEvents;
  for (const [what, body] of bad) {
    const res = await api('PUT', PUT('default', 'staging'), body);
    t.equal(res.status, 400, `${what}: 400`);
    t.match(res.json, { id: String, name: 'ValidationError', message: /changeRequestsEnabled|requiredApprovals/ }, `${what}: names the field`);
  }
  t.same(await byEnv(), { development: [false, 1], production: [true, 2], staging: [false, 1] }, 'nothing was kept');
  t.equal((await ok('GET', '/api/admin/events')).totalEvents, eventsBefore, 'and no event');
  t.equal((await api('PUT', PUT('nope', 'production'), { changeRequestsEnabled: true })).status, 404, 'an unknown project: 404');
  t.equal((await api('PUT', PUT('default', 'nope'), { changeRequestsEnabled: true })).status, 404, 'an unknown environment: 404');
  t.equal((await api('GET', CONFIG('nope'))).status, 404, 'GET of an unknown project: 404');

  // Unleash's Terraform provider turns it off with requiredApprovals 0, and on without a count.
  t.equal((await api('PUT', PUT('default', 'production'), { changeRequestsEnabled: false, requiredApprovals: 0 })).status, 204, "the provider's destroy: off, with 0");
  t.same((await byEnv()).production, [false, 2], 'off; the count is kept for the next time');
  t.equal((await api('PUT', PUT('default', 'production'), { changeRequestsEnabled: true })).status, 204);
  t.same((await byEnv()).production, [true, 2], 'on again without a count: the one kept');

  await srv.stop();
  const again = await spawnServer({ dataDir: srv.dataDir, env: ENV });
  t.teardown(() => again.stop());
  const ok2 = succeeding(() => client(again.url, { authorization: ADMIN }));
  t.same(Object.fromEntries((await ok2('GET', CONFIG('default'))).map((c: any) => [c.environment, [c.changeRequestEnabled, c.requiredApprovals]])),
    { development: [false, 1], production: [true, 2], staging: [false, 1] }, 'kept across a restart (replayed from the log)');
});

t.test('who may set it: Admins, Editors, the project\'s Owner (within an environment limit); everyone reads it', async (t) => {
  const { srv, ok } = await serve(t, { env: { ...ENV, SIGN_IN_LIMIT_PER_ADDRESS: '1000' }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  const people: [string, Record<string, unknown>][] = [
    ['editor', { rootRole: 'Editor' }],
    ['owner', { rootRole: 'Viewer', projects: [{ project: 'shop', role: 'Owner' }] }],
    ['owner-dev', { rootRole: 'Viewer', projects: [{ project: 'shop', role: 'Owner' }], environments: ['development'] }],
    ['member', { rootRole: 'Viewer', projects: [{ project: 'shop', role: 'Member' }] }],
    ['viewer', { rootRole: 'Viewer' }],
  ];
  for (const [username, fields] of people) await ok('POST', '/api/admin/user-admin', { username, password: STRONG, ...fields });
  const as = async (username: string) => withSession(srv.url, await signInAs(srv.url, username, STRONG));
  const cases: [string, string, boolean][] = [
    ['admin', 'production', true], ['editor', 'production', true], ['owner', 'production', true],
    ['owner-dev', 'production', false], ['owner-dev', 'development', true], ['member', 'production', false], ['viewer', 'production', false],
  ];
  for (const [who, environment, allowed] of cases) {
    const call = await as(who);
    t.equal((await call('GET', CONFIG('shop'))).status, 200, `${who} reads it`);
    const res = await call('PUT', PUT('shop', environment), { changeRequestsEnabled: true, requiredApprovals: 1 });
    if (allowed) t.equal(res.status, 204, `${who} sets ${environment}`);
    else t.match(res, { status: 403, json: { name: 'NoAccessError', message: /^You need permission=UPDATE_PROJECT to perform this action on environment=/ } }, `${who} may not set ${environment}`);
  }
  t.equal((await client(srv.url, { authorization: ADMIN })('PUT', PUT('default', 'production'), { changeRequestsEnabled: true })).status, 204, 'an admin token sets it');

  // GET /api/admin/user lists the review permissions, for the console to show.
  const listed = async (who: string) => ((await (await as(who))('GET', '/api/admin/user')).json.permissions as { permission: string; project?: string; environment?: string }[])
    .filter((e) => /CHANGE_REQUEST|^ADMIN$/.test(e.permission));
  t.same(await listed('admin'), [{ permission: 'ADMIN' }, { permission: 'APPROVE_CHANGE_REQUEST' }], 'an Admin: everything, approving named by itself');
  t.same(await listed('editor'), [{ permission: 'APPROVE_CHANGE_REQUEST' }, { permission: 'APPLY_CHANGE_REQUEST' }], 'an Editor: approve and apply everywhere');
  t.same(await listed('owner-dev'), [{ permission: 'APPROVE_CHANGE_REQUEST', project: 'shop', environment: 'development' }, { permission: 'APPLY_CHANGE_REQUEST', project: 'shop', environment: 'development' }], 'an Owner: in their project and environments');
  t.same(await listed('member'), [], 'a Member: neither');
  t.same((await client(srv.url, { authorization: ADMIN })('GET', '/api/admin/user')).json.permissions, [{ permission: 'ADMIN' }], 'an admin token: ADMIN, which does not allow approving');
});

t.test("the server's default protects chosen environments of every new project, and leaves existing ones alone", async (t) => {
  const { ok } = await serve(t, {
    env: { ...ENV, CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS: 'type:production,qa', CHANGE_REQUESTS_DEFAULT_APPROVALS: '3' },
    authorization: ADMIN,
  });
  await ok('POST', '/api/admin/environments', { name: 'qa', type: 'test' });
  await ok('POST', '/api/admin/environments', { name: 'live-eu', type: 'production' });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  const byEnv = async (p: string) => Object.fromEntries((await ok('GET', CONFIG(p))).map((c: any) => [c.environment, [c.changeRequestEnabled, c.requiredApprovals]]));
  t.same(await byEnv('shop'), { development: [false, 1], production: [true, 3], qa: [true, 3], 'live-eu': [true, 3] }, 'by type and by name, with the default count');
  t.same(await byEnv('default'), { development: [false, 1], production: [false, 1], qa: [false, 1], 'live-eu': [false, 1] }, 'a project that existed is not changed');
  const { events } = await ok('GET', '/api/admin/events?limit=4');
  t.same(events.map((e: any) => e.type).sort(), ['change-request-configuration-updated', 'change-request-configuration-updated', 'change-request-configuration-updated', 'project-created'], 'created with its rules, each an event');
});

t.test('by default, nothing is protected: a new project starts with change requests off', async (t) => {
  const { ok } = await serve(t, { env: ENV, authorization: ADMIN });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  t.ok((await ok('GET', CONFIG('shop'))).every((c: any) => c.changeRequestEnabled === false), 'off everywhere');
  await ok('POST', '/api/admin/projects/shop/features', { name: 'f' });
  await ok('POST', '/api/admin/projects/shop/features/f/environments/production/on');
  t.equal((await ok('GET', '/api/admin/projects/shop/features/f')).environments.find((e: any) => e.name === 'production').enabled, true, 'production is switched directly');
});
