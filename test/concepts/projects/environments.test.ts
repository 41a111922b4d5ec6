// A project's environments over HTTP, as Unleash's Terraform provider (`unleash_project_environment`)
// uses them: taking production out of a project switches its flags off there (the SDK sees them
// off), hides it from the flag and the project, and refuses changes there; adding it back brings
// the flags back, off, with their strategies. Then what is refused (already there, unknown names,
// change requests on), and the answers compared with the real Unleash 8.2 where asking does not
// change the shared oracle.
import t from 'tap';
import { client, serve, spawnServer } from '../../helpers/server.js';
import { realUnleash } from '../../helpers/unleash.js';

const ADMIN = '*:*.project-environments-admin';
const CLIENT = '*:production.project-environments-client';
const FLAGS = '/api/admin/projects/shop/features';
const LIST = '/api/admin/environments/project/shop';

t.test('taken out of a project and added back: flags off there meanwhile, strategies kept, changes there refused', async (t) => {
  const { srv, api, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await ok('POST', FLAGS, { name: 'cart' });
  await ok('POST', `${FLAGS}/cart/environments/production/strategies`, { name: 'default', title: 'everyone' });
  await ok('POST', `${FLAGS}/cart/environments/production/on`);
  const sdk = client(srv.url, { authorization: CLIENT });
  const served = async () => (await sdk('GET', '/api/client/features')).json.features.find((f: any) => f.name === 'cart');
  t.match(await served(), { enabled: true, strategies: [{ name: 'default' }] });
  const listed = await ok('GET', LIST);
  t.match(listed, { version: 1, environments: [{ name: 'development', visible: true, projectEnabledToggleCount: 0 }, { name: 'production', visible: true, projectEnabledToggleCount: 1, projectApiTokenCount: 1 }] });

  const events = (await ok('GET', '/api/admin/events')).totalEvents;
  const removed = await api('DELETE', '/api/admin/projects/shop/environments/production');
  t.equal(removed.status, 200, 'removed (200, as Unleash)');
  const fresh = (await ok('GET', '/api/admin/events')).events.slice(0, 2).reverse();
  t.match(fresh, [
    { type: 'feature-environment-disabled', featureName: 'cart', environment: 'production', project: 'shop' },
    { type: 'project-environment-removed', project: 'shop', environment: 'production', data: null },
  ], "the flag's switch-off, then the removal");
  t.equal((await ok('GET', '/api/admin/events')).totalEvents, events + 2);
  t.match(await served(), { enabled: false, strategies: [{ name: 'default' }] }, 'SDKs get it off there');
  t.match((await ok('GET', LIST)).environments[1], { name: 'production', visible: false, projectEnabledToggleCount: 0 }, 'listed, not visible');
  t.same((await ok('GET', `${FLAGS}/cart`)).environments.map((e: any) => e.name), ['development'], 'the flag shows only its project\'s environments');
  t.same((await ok('GET', '/api/admin/projects/shop')).environments.map((e: any) => e.environment), ['development'], 'so does the project');
  const on = await api('POST', `${FLAGS}/cart/environments/production/on`);
  t.equal(on.status, 404, 'switching it on there is refused');
  t.match(on.json, { name: 'NotFoundError', message: /not an environment of project "shop"/ });
  t.equal((await api('POST', `${FLAGS}/cart/environments/production/strategies`, { name: 'default' })).status, 404, 'and so is a new strategy');
  const imported = await api('POST', '/api/admin/features-batch/import', { project: 'shop', environment: 'production', data: { features: [{ name: 'cart', project: 'shop' }], featureEnvironments: [{ featureName: 'cart', environment: 'production', enabled: true }] } });
  t.equal(imported.status, 404, 'and an import into it');
  t.equal((await api('POST', `${FLAGS}/cart/environments/development/on`)).status, 200, 'development is unchanged');
  t.equal((await api('DELETE', '/api/admin/projects/shop/environments/production')).status, 404, 'not removed twice');

  const added = await api('POST', '/api/admin/projects/shop/environments', { environment: 'production' });
  t.equal(added.status, 200, 'added back (200, as Unleash)');
  t.match((await ok('GET', '/api/admin/events')).events[0], { type: 'project-environment-added', project: 'shop', environment: 'production' });
  const back = (await ok('GET', `${FLAGS}/cart`)).environments.find((e: any) => e.name === 'production');
  t.match(back, { enabled: false, strategies: [{ name: 'default', title: 'everyone' }] }, 'the flag is back there, off, with its strategy');
  t.equal(back.strategies.length, 1);
  t.equal((await api('POST', `${FLAGS}/cart/environments/production/on`)).status, 200, 'and can be switched on again');

  const again = await api('POST', '/api/admin/projects/shop/environments', { environment: 'production' });
  t.equal(again.status, 409, 'already there: 409 (the Terraform provider takes it as done)');
  t.match(again.json, { name: 'NameExistsError', message: /already has the environment "production"/ });

  // With change requests on there, taking it out would switch production off without four eyes.
  await ok('PUT', '/api/admin/projects/shop/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 2 });
  t.match((await ok('GET', LIST)).environments[1], { name: 'production', requiredApprovals: 2 }, 'requiredApprovals: the rule\'s, where change requests are on');
  const guarded = await api('DELETE', '/api/admin/projects/shop/environments/production');
  t.equal(guarded.status, 400);
  t.match(guarded.json.message, /Change requests are on in production of project shop: turn them off there/);
  t.match(await served(), { enabled: true }, 'nothing changed');
  // As the Terraform provider deletes the resource: change requests off (0 approvals), then the environment.
  await ok('PUT', '/api/admin/projects/shop/environments/production/change-requests/config', { changeRequestsEnabled: false, requiredApprovals: 0 });
  t.equal((await api('DELETE', '/api/admin/projects/shop/environments/production')).status, 200);
  // And creates it: the environment with change requests, in one call.
  t.equal((await api('POST', '/api/admin/projects/shop/environments', { environment: 'production', changeRequestsEnabled: true })).status, 200);
  t.match((await ok('GET', '/api/admin/projects/shop/change-requests/config')).find((c: any) => c.environment === 'production'), { changeRequestEnabled: true, requiredApprovals: 2 });

  // An environment deleted and made again is every project's again.
  await ok('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
  await ok('DELETE', '/api/admin/projects/shop/environments/staging');
  await ok('DELETE', '/api/admin/environments/staging');
  await ok('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
  t.match((await ok('GET', LIST)).environments.find((e: any) => e.name === 'staging'), { visible: true });

  for (const [what, call, status, path] of [
    ['an unknown environment', ['POST', '/api/admin/projects/shop/environments', { environment: 'nowhere' }], 400, null],
    ['no environment', ['POST', '/api/admin/projects/shop/environments', {}], 400, 'environment'],
    ['changeRequestsEnabled not a boolean', ['POST', '/api/admin/projects/shop/environments', { environment: 'development', changeRequestsEnabled: 'yes' }], 400, 'changeRequestsEnabled'],
    ['an unknown project', ['POST', '/api/admin/projects/nope/environments', { environment: 'development' }], 404, null],
    ['removing from an unknown project', ['DELETE', '/api/admin/projects/nope/environments/development'], 404, null],
    ['removing an unknown environment', ['DELETE', '/api/admin/projects/shop/environments/nowhere'], 404, null],
    ['listing an unknown project', ['GET', '/api/admin/environments/project/nope'], 404, null],
  ] as const) {
    const res = await api(call[0], call[1], call[2]);
    t.equal(res.status, status, `${what}: ${status}`);
    t.match(res.json, { id: String, name: String, message: String }, `${what}: a clear error`);
    if (path) t.match(res.json.details, [{ path }], `${what}: names the field`);
  }

  // Restarted, the project remembers (the removal is in the log).
  await ok('DELETE', '/api/admin/projects/shop/environments/staging');
  await srv.stop();
  const again2 = await spawnServer({ dataDir: srv.dataDir, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT } });
  t.teardown(() => again2.stop());
  t.match((await client(again2.url, { authorization: ADMIN })('GET', LIST)).json.environments.find((e: any) => e.name === 'staging'), { visible: false }, 'after a restart');
});

t.test('the answers Unleash 8.2 gives where asking changes nothing: the list and the refusals', async (t) => {
  const oracle = await realUnleash(t);
  if (!oracle) return;
  const { api } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: oracle.admin }, authorization: oracle.admin });
  const unleash = client(oracle.url, { authorization: oracle.admin }, false);
  const [ours, theirs] = [(await api('GET', '/api/admin/environments/project/default')).json, (await unleash('GET', '/api/admin/environments/project/default')).json];
  const shape = (o: any) => ({ ...o, environments: o.environments.map((e: any) => Object.fromEntries(Object.entries(e).map(([k, v]) => [k, k.startsWith('project') || k === 'sortOrder' ? typeof v : v]))) });
  t.same(shape(ours), shape(theirs), 'the same list: names, types, order, flags; counts and sort orders numbers on both (the seeds differ)');
  const asks: [string, string, unknown][] = [
    ['POST', '/api/admin/projects/default/environments', { environment: 'development' }],
    ['POST', '/api/admin/projects/default/environments', { environment: 'no-such-environment' }],
    ['POST', '/api/admin/projects/default/environments', {}],
    ['POST', '/api/admin/projects/default/environments', { environment: 'development', changeRequestsEnabled: 'yes' }],
    ['POST', '/api/admin/projects/no-such-project/environments', { environment: 'development' }],
  ];
  for (const [method, path, body] of asks) {
    const [a, b] = [await api(method, path, body), await unleash(method, path, body)];
    t.equal(a.status, b.status, `${method} ${path} ${JSON.stringify(body)}: ${b.status} on both`);
  }
});
