// /api/admin/context over HTTP against a real server: the built-in fields listed and locked,
// custom fields created, validated, changed and deleted with their events, legal values enforced
// on new constraints (strategies and segments), and all of it kept across a restart.
import t from 'tap';
import { client, serve, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.context-admin';
const CLIENT = '*:development.context-client';
const C = '/api/admin/context';
const F = '/api/admin/projects/default/features';

t.test('context fields: built-ins, a custom one with legal values, events, restart', async (t) => {
  const { srv, api, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });

  t.same((await ok('GET', C)).map((f: any) => f.name), ['appName', 'environment', 'userId', 'sessionId', 'remoteAddress', 'currentTime'], 'the built-in fields');
  t.equal((await ok('GET', `${C}/userId`)).stickiness, true, 'userId can be a stickiness');
  t.equal((await api('PUT', `${C}/userId`, { description: 'x' })).status, 403, 'built-ins cannot change');
  t.equal((await api('DELETE', `${C}/appName`)).status, 403, 'nor go');

  t.equal((await api('POST', `${C}/validate`, { name: 'country' })).status, 200, 'a free name');
  t.equal((await api('POST', `${C}/validate`, { name: 'userId' })).status, 409, 'a built-in name is taken');
  t.equal((await api('POST', `${C}/validate`, { name: 'two words' })).status, 400, 'a name that is not URL friendly');

  const country = { name: 'country', description: 'ISO country', legalValues: [{ value: 'NO', description: 'Norway' }, { value: 'SE' }], stickiness: false };
  const created = await api('POST', C, country);
  t.equal(created.status, 201);
  t.equal(created.headers.get('location'), `${C}/country`);
  t.same(created.json.legalValues, [{ value: 'NO', description: 'Norway' }, { value: 'SE', description: '' }]);
  t.equal((await api('POST', C, country)).status, 409, 'a taken name');
  t.equal((await api('POST', C, { name: 'dup', legalValues: [{ value: 'a' }, { value: 'a' }] })).status, 400, 'a legal value twice');
  t.equal((await api('GET', `${C}/nope`)).status, 404);

  // Legal values hold for new constraints, in strategies and in segments.
  await ok('POST', F, { name: 'nordic' });
  const strategies = `${F}/nordic/environments/development/strategies`;
  const illegal = await api('POST', strategies, { name: 'default', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'DK'] }] });
  t.equal(illegal.status, 400);
  t.match(illegal.json.message, /"DK" is not a legal value of context field "country"; use one of "NO", "SE"/);
  t.equal((await api('POST', strategies, { name: 'default', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }] })).status, 200);
  t.equal((await api('POST', strategies, { name: 'default', constraints: [{ contextName: 'city', operator: 'IN', values: ['anything'] }] })).status, 200, 'a field nobody defined takes any value');
  t.equal((await api('POST', '/api/admin/segments', { name: 'danes', constraints: [{ contextName: 'country', operator: 'IN', values: ['DK'] }] })).status, 400, 'segments too');

  const updated = await api('PUT', `${C}/country`, { legalValues: [{ value: 'NO' }, { value: 'SE' }, { value: 'DK' }], stickiness: true });
  t.equal(updated.status, 200);
  t.same([updated.json.legalValues.length, updated.json.stickiness, updated.json.description], [3, true, 'ISO country']);
  t.equal((await api('POST', '/api/admin/segments', { name: 'danes', constraints: [{ contextName: 'country', operator: 'IN', values: ['DK'] }] })).status, 201, 'DK is legal now');
  t.equal((await api('PUT', `${C}/country`, { name: 'land' })).status, 400, 'the name cannot change');

  await ok('POST', C, { name: 'tier' });
  t.equal((await api('DELETE', `${C}/tier`)).status, 200);
  t.equal((await api('GET', `${C}/tier`)).status, 404);
  t.equal((await client(srv.url)('GET', C)).status, 401, 'no token');
  t.equal((await client(srv.url, { authorization: CLIENT })('POST', C, { name: 'x' })).status, 403, 'a client token');

  const events = (await ok('GET', '/api/admin/events')).events.map((e: any) => e.type).filter((type: string) => type.startsWith('context-field-'));
  t.same(events.reverse(), ['context-field-created', 'context-field-updated', 'context-field-created', 'context-field-deleted']);

  await srv.stop();
  const again = await spawnServer({ dataDir: srv.dataDir, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN } });
  t.teardown(() => again.stop());
  const after = await client(again.url, { authorization: ADMIN })('GET', `${C}/country`);
  t.same([after.status, after.json.legalValues.map((v: any) => v.value), after.json.stickiness], [200, ['NO', 'SE', 'DK'], true], 'kept across a restart');
});
