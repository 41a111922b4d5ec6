// Flag types as Unleash 8 has them, `sunset` (8.0) included: listed with their expected lifetime,
// accepted when a flag is created or changed, and anything else refused naming the allowed ones.
import t from 'tap';
import { serve } from '../../helpers/server.js';

const ADMIN = '*:*.flag-types-admin';
const LIMITED = 'default:production.flag-types-limited';
const P = '/api/admin/projects/default/features';

t.test('flag types: listed with lifetimes, sunset usable, unknown ones refused', async (t) => {
  const { api } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: `${ADMIN},${LIMITED}` }, authorization: ADMIN });

  const list = await api('GET', '/api/admin/feature-types');
  t.equal(list.status, 200);
  t.equal(list.json.version, 1);
  t.same(list.json.types.map((x: any) => [x.id, x.lifetimeDays]), [
    ['release', 40], ['experiment', 40], ['operational', 7], ['kill-switch', null], ['permission', null], ['sunset', 90],
  ], 'the six types of Unleash 8, with its expected lifetimes in days (null: permanent)');
  t.match(list.json.types.at(-1), { name: 'Sunset', description: /planned removal/ });
  t.equal((await api('GET', '/api/admin/feature-types', undefined, { authorization: LIMITED })).status, 200, 'an admin token limited to a project may read them');

  const created = await api('POST', P, { name: 'old-checkout', type: 'sunset' });
  t.equal(created.status, 201);
  t.equal(created.json.type, 'sunset');
  const patched = await api('PATCH', `${P}/old-checkout`, [{ op: 'replace', path: '/type', value: 'kill-switch' }]);
  t.same([patched.status, patched.json.type], [200, 'kill-switch']);
  t.equal((await api('PATCH', `${P}/old-checkout`, [{ op: 'replace', path: '/type', value: 'sunset' }])).json.type, 'sunset', 'and back to sunset');
  const search = await api('GET', '/api/admin/search/features?type=IS:sunset');
  t.same(search.json.features.map((f: any) => f.name), ['old-checkout'], 'the flag search filters on it');

  const wrong = await api('POST', P, { name: 'x', type: 'sundown' });
  t.equal(wrong.status, 400);
  t.match(wrong.json.message, /type/);
  t.match(JSON.stringify(wrong.json), /sunset/, 'the refusal lists the allowed types, sunset among them');
  t.equal((await api('PATCH', `${P}/old-checkout`, [{ op: 'replace', path: '/type', value: 'sundown' }])).status, 400);
});
