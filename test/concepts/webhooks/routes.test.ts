// /api/admin/addons over HTTP against a real server: Unleash's shapes, validation with clear
// errors, secrets masked after creation, events for every change, unlimited admins only, restart,
// and no answer kept by a cache.
import t from 'tap';
import { client, serve, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.addons-admin-secret';
const BASE = '/api/admin/addons';
const hook = (over: Record<string, unknown> = {}, params: Record<string, string> = {}) => ({
  provider: 'webhook', enabled: true, description: 'to the team chat', events: ['feature-created'],
  parameters: { url: 'https://hooks.example.com/fanion', ...params }, ...over,
});

t.test('create, read, list, replace, delete; secrets shown once; events recorded', async (t) => {
  const { srv, api, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  const created = await api('POST', BASE, hook({}, { authorization: 'Bearer receiver-token', customHeaders: '{"X-Team":"core"}' }));
  t.equal(created.status, 200);
  const { id } = created.json;
  t.match(created.json, { provider: 'webhook', enabled: true, events: ['feature-created'], projects: [], environments: [], description: 'to the team chat' });
  t.equal(created.json.parameters.authorization, 'Bearer receiver-token', 'the creator sees what they set');
  t.match(created.json.parameters.signingSecret, /^[0-9a-f]{64}$/, 'and the signing secret made for it, this once');
  const secret = created.json.parameters.signingSecret;

  const got = await ok('GET', `${BASE}/${id}`);
  t.equal(got.parameters.authorization, '*****', 'sensitive parameters are masked afterwards');
  t.equal(got.parameters.signingSecret, '*****');
  t.equal(got.parameters.customHeaders, '{"X-Team":"core"}');
  t.match(got.delivery, { attempts: 0, lastError: null, delivered: 0 });
  const list = await ok('GET', BASE);
  t.equal(list.addons.length, 1);
  t.equal(list.providers[0].name, 'webhook');
  t.ok(list.providers[0].parameters.some((p: { name: string; sensitive: boolean }) => p.name === 'authorization' && p.sensitive));
  t.ok(list.providers[0].events.includes('feature-environment-enabled'));

  // What the UI does: send back what it read, masks included, with one change.
  const replaced = await api('PUT', `${BASE}/${id}`, { ...got, description: 'renamed', events: ['feature-created', 'feature-archived'] });
  t.equal(replaced.status, 200);
  t.equal(replaced.json.description, 'renamed');
  t.equal(replaced.json.parameters.authorization, '*****');
  const all = (await ok('GET', '/api/admin/events')).events.filter((e: { type: string }) => e.type === 'addon-config-updated');
  t.equal(all.length, 1);
  t.equal(all[0].data.parameters.authorization, '*****', 'events never hold a secret');
  t.equal(all[0].preData.description, 'to the team chat');
  t.notOk(JSON.stringify(await ok('GET', '/api/admin/events')).includes('receiver-token'), 'no event holds the authorization value');
  t.notOk(JSON.stringify(await ok('GET', '/api/admin/events')).includes(secret), 'nor the signing secret');

  // Restart: the addon and its kept secrets are still there.
  await srv.stop();
  const again = await spawnServer({ dataDir: srv.dataDir, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN } });
  t.teardown(() => again.stop());
  const api2 = client(again.url, { authorization: ADMIN });
  const after = (await api2('GET', `${BASE}/${id}`)).json;
  t.match(after, { id, description: 'renamed', events: ['feature-created', 'feature-archived'] });
  const next = await api2('POST', BASE, hook());
  t.equal(next.json.id, id + 1, 'ids go on after a restart');

  t.equal((await api2('DELETE', `${BASE}/${id}`)).status, 200);
  t.equal((await api2('GET', `${BASE}/${id}`)).status, 404);
  t.equal((await api2('DELETE', `${BASE}/${id}`)).status, 404);
  const types = (await api2('GET', '/api/admin/events')).json.events.map((e: { type: string }) => e.type);
  t.ok(['addon-config-created', 'addon-config-updated', 'addon-config-deleted'].every((x) => types.includes(x)), 'created, updated and deleted are events');
});

t.test('bad addons are refused with a message naming what is wrong, and nothing is kept', async (t) => {
  const { api, ok } = await serve(t);
  const cases: [string, unknown, RegExp][] = [
    ['unknown provider', hook({ provider: 'slack' }), /"slack" is not a provider; known: webhook/],
    ['no url', { ...hook(), parameters: {} }, /parameters\.url.*required/],
    ['not http', hook({}, { url: 'file:///etc/passwd' }), /http or https URL/],
    ['not a URL', hook({}, { url: 'nope' }), /http or https URL/],
    ['unknown parameter', hook({}, { urll: 'x' }), /parameters\.urll: is not a parameter of the webhook provider/],
    ['bad template', hook({}, { bodyTemplate: '{{#event}}open' }), /not a Mustache template/],
    ['unknown event', hook({ events: ['feature-exploded'] }), /"feature-exploded" is not an event type/],
    ['no events', hook({ events: [] }), /events: list at least one event type/],
    ['unknown project', hook({ projects: ['nowhere'] }), /project "nowhere" does not exist/],
    ['unknown environment', hook({ environments: ['moon'] }), /environment "moon" does not exist/],
    ['headers not JSON', hook({}, { customHeaders: '{nope' }), /customHeaders.*JSON object/],
    ['reserved header', hook({}, { customHeaders: '{"X-Fanion-Signature":"forged"}' }), /set by Fanion/],
    ['header injection', hook({}, { customHeaders: '{"X-A":"1\\r\\nX-B: 2"}' }), /on one line/],
    ['short secret', hook({}, { signingSecret: 'short' }), /at least 16 characters/],
    ['mask on create', hook({}, { authorization: '*****' }), /stands for a value already set/],
    ['not a boolean', hook({ enabled: 'yes' }), /enabled/],
  ];
  for (const [name, body, message] of cases) {
    const res = await api('POST', BASE, body);
    t.equal(res.status, 400, name);
    t.match(res.json?.message ?? '', message, `${name}: ${res.json?.message}`);
  }
  t.same((await ok('GET', BASE)).addons, [], 'nothing was created');
  t.equal((await api('GET', `${BASE}/abc`)).status, 404);
  t.equal((await api('PUT', `${BASE}/99`, hook())).status, 404);
});

t.test('only unlimited admin tokens reach addons: they see every project\'s events', async (t) => {
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  const limited = client(srv.url, { authorization: (await ok('POST', '/api/admin/api-tokens', { tokenName: 'shop-admin', type: 'admin', project: 'shop' })).secret });
  t.equal((await limited('GET', BASE)).status, 403);
  t.equal((await limited('POST', BASE, hook({ projects: ['shop'] }))).status, 403);
  const client_ = client(srv.url, { authorization: (await ok('POST', '/api/admin/api-tokens', { tokenName: 'sdk', type: 'client' })).secret });
  t.equal((await client_('GET', BASE)).status, 403);
  t.equal((await client(srv.url)('GET', BASE)).status, 401);
});

t.test('no cache may keep an addon answer: every one says Cache-Control: no-store', async (t) => {
  const { api } = await serve(t);
  const created = await api('POST', BASE, hook({}, { authorization: 'Bearer receiver-token' }));
  const { id } = created.json;
  const answers = [
    ['POST (shows the signing secret)', created],
    ['GET one', await api('GET', `${BASE}/${id}`)],
    ['GET all', await api('GET', BASE)],
    ['PUT', await api('PUT', `${BASE}/${id}`, hook({ description: 'changed' }, { authorization: '*****' }))],
    ['DELETE', await api('DELETE', `${BASE}/${id}`)],
  ] as const;
  for (const [name, res] of answers) {
    t.equal(res.status, 200, name);
    t.equal(res.headers.get('cache-control'), 'no-store', name);
  }
});
