// /api/admin/strategies over HTTP against a real server: built-ins listed and locked, custom
// strategy types created, changed, deprecated, used by flags (their parameters checked against
// the definition), refused deletion while in use, events for each change, and all of it kept
// across a restart.
import t from 'tap';
import { client, serve, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.strategy-types-admin';
const CLIENT = '*:development.strategy-types-client';
const S = '/api/admin/strategies';
const F = '/api/admin/projects/default/features';

t.test('strategy types: the whole life of a custom one, and the built-ins locked', async (t) => {
  const { srv, api, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });

  const list = await ok('GET', S);
  t.same(list.strategies.map((s: any) => s.name).slice(0, 5), ['default', 'userWithId', 'applicationHostname', 'remoteAddress', 'flexibleRollout'], 'built-ins listed');
  t.ok(list.strategies.every((s: any) => s.editable === false), 'none of them editable');

  const region = {
    name: 'by-region', displayName: 'Region', description: 'On in listed regions',
    parameters: [
      { name: 'regions', type: 'list', description: 'regions', required: true },
      { name: 'share', type: 'percentage', required: false },
      { name: 'beta', type: 'boolean' },
      { name: 'minVersion', type: 'number' },
    ],
  };
  const created = await api('POST', S, region);
  t.equal(created.status, 201);
  t.equal(created.headers.get('location'), `${S}/by-region`);
  t.same(created.json, { ...region, title: null, editable: true, deprecated: false, parameters: region.parameters.map((p) => ({ description: '', required: false, ...p })) });
  t.equal((await api('POST', S, region)).status, 409, 'a taken name is 409');
  t.equal((await api('POST', S, { name: 'bad name' })).status, 400, 'a name that is not URL friendly');
  t.equal((await api('POST', S, { name: 'x1', parameters: [{ name: 'p', type: 'date' }] })).status, 400, 'an unknown parameter type');
  t.equal((await api('POST', S, { name: 'x2', parameters: [{ name: 'p' }, { name: 'p' }] })).status, 400, 'a parameter twice');
  t.equal((await ok('GET', `${S}/by-region`)).displayName, 'Region');
  t.equal((await api('GET', `${S}/nope`)).status, 404);

  // Built-ins cannot be changed or deleted.
  t.equal((await api('PUT', `${S}/flexibleRollout`, { description: 'x' })).status, 403);
  t.equal((await api('DELETE', `${S}/userWithId`)).status, 403);
  t.equal((await api('POST', `${S}/default/deprecate`)).status, 403, 'default cannot be deprecated');

  // A flag uses it: its parameters are checked against the definition.
  await ok('POST', F, { name: 'regional' });
  const strategies = `${F}/regional/environments/development/strategies`;
  const missing = await api('POST', strategies, { name: 'by-region', parameters: {} });
  t.equal(missing.status, 400);
  t.match(missing.json.message, /requires the parameter "regions" \(list\)/);
  t.match((await api('POST', strategies, { name: 'by-region', parameters: { regions: 'eu', share: '101' } })).json.message, /"share" must be a whole number from 0 to 100/);
  t.match((await api('POST', strategies, { name: 'by-region', parameters: { regions: 'eu', beta: 'yes' } })).json.message, /"beta" must be "true" or "false"/);
  t.match((await api('POST', strategies, { name: 'by-region', parameters: { regions: 'eu', minVersion: 'v2' } })).json.message, /"minVersion" must be a number/);
  const used = await api('POST', strategies, { name: 'by-region', parameters: { regions: 'eu,us', share: '50', beta: 'true', minVersion: '2.5' } });
  t.equal(used.status, 200, `a strategy of the custom type: ${used.text}`);
  const unknown = await api('POST', strategies, { name: 'no-such-type' });
  t.equal(unknown.status, 400);
  t.match(unknown.json.message, /strategy type "no-such-type" does not exist; the known ones are default, userWithId, .*by-region/);

  // The client API serves it; deleting it while in use is refused.
  await ok('POST', `${F}/regional/environments/development/on`);
  const served = (await client(srv.url, { authorization: CLIENT })('GET', '/api/client/features')).json.features.find((f: any) => f.name === 'regional');
  t.same(served.strategies.map((s: any) => s.name), ['by-region']);
  const inUse = await api('DELETE', `${S}/by-region`);
  t.equal(inUse.status, 403);
  t.match(inUse.json.message, /used by 1 flag environment\(s\): regional \(development\)/);

  // Update, deprecate, reactivate.
  const updated = await api('PUT', `${S}/by-region`, { description: 'On in the listed regions', parameters: [{ name: 'regions', type: 'list', required: true }] });
  t.equal(updated.status, 200);
  t.equal(updated.json.parameters.length, 1);
  t.equal((await api('PUT', `${S}/by-region`, { name: 'renamed' })).status, 400, 'the name cannot change');
  t.equal((await api('POST', `${S}/by-region/deprecate`)).status, 200);
  t.equal((await ok('GET', `${S}/by-region`)).deprecated, true);
  t.equal((await api('POST', `${S}/by-region/reactivate`)).status, 200);
  t.equal((await ok('GET', `${S}/by-region`)).deprecated, false);

  // Who may: an admin token; not a client token, not no token.
  t.equal((await client(srv.url)('GET', S)).status, 401);
  t.equal((await client(srv.url, { authorization: CLIENT })('POST', S, { name: 'sneaky' })).status, 403);

  // Once no flag uses it, it can go.
  await ok('DELETE', `${strategies}/${used.json.id}`);
  await ok('POST', S, { name: 'short-lived' });
  t.equal((await api('DELETE', `${S}/short-lived`)).status, 200);
  t.equal((await api('GET', `${S}/short-lived`)).status, 404);

  const events = (await ok('GET', '/api/admin/events')).events.map((e: any) => e.type).filter((type: string) => type.startsWith('strategy-') && type !== 'strategy-order-changed');
  t.same(events.reverse(), ['strategy-created', 'strategy-updated', 'strategy-deprecated', 'strategy-reactivated', 'strategy-created', 'strategy-deleted'], 'one event per change');

  // Kept across a restart.
  await srv.stop();
  const again = await spawnServer({ dataDir: srv.dataDir, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN } });
  t.teardown(() => again.stop());
  const after = await client(again.url, { authorization: ADMIN })('GET', `${S}/by-region`);
  t.same([after.status, after.json.description, after.json.deprecated], [200, 'On in the listed regions', false]);
});
