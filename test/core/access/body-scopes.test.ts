// Scoped admin tokens on routes whose scope is partly in the body: variants-batch names its
// environments there, segments their project. Each must be checked against the token.
import t from 'tap';
import { client } from '../../helpers/server.js';
import { startInProcess } from '../../helpers/in-process-server.js';

const ROOT = '*:*.root-secret-for-tests';
const DEV = 'default:development.dev-only-secret';

t.test('scoped admin tokens on variants, tags and segments', async (t) => {
  const srv = await startInProcess({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: `${ROOT},${DEV}` } });
  t.teardown(() => srv.close());
  const root = client(srv.url, { authorization: ROOT });
  const dev = client(srv.url, { authorization: DEV });
  const anon = client(srv.url);
  t.equal((await root('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' })).status, 201);
  t.equal((await root('POST', '/api/admin/projects/default/features', { name: 'exp' })).status, 201);
  t.equal((await root('POST', '/api/admin/projects/shop/features', { name: 'cart' })).status, 201);

  t.test('no token → 401 on every kind of route', async (t) => {
    t.equal((await anon('GET', '/api/admin/projects')).status, 401);
    t.equal((await anon('PUT', '/api/admin/projects/default/features/exp/variants-batch', { environments: ['development'], variants: [] })).status, 401);
    t.equal((await anon('POST', '/api/admin/tag-types', { name: 'team' })).status, 401);
  });

  t.test('variants-batch: a development-only token may set development, not production too (403, nothing changed)', async (t) => {
    const okRes = await dev('PUT', '/api/admin/projects/default/features/exp/variants-batch', { environments: ['development'], variants: [{ name: 'a' }] });
    t.equal(okRes.status, 200);
    const denied = await dev('PUT', '/api/admin/projects/default/features/exp/variants-batch', { environments: ['development', 'production'], variants: [{ name: 'b' }] });
    t.equal(denied.status, 403);
    t.equal(denied.json.name, 'NoAccessError');
    t.match(denied.json.message, /UPDATE_FEATURE_ENVIRONMENT_VARIANTS.*production/);
    t.same((await root('GET', '/api/admin/projects/default/features/exp/environments/development/variants')).json.variants.map((v: any) => v.name), ['a']);
    t.equal((await dev('PUT', '/api/admin/projects/default/features/exp/environments/production/variants', [{ name: 'c' }])).status, 403);
  });

  t.test('flag tags follow the flag\'s project; server-wide routes need an unrestricted token', async (t) => {
    t.equal((await dev('POST', '/api/admin/features/exp/tags', { type: 'simple', value: 'mine' })).status, 201);
    const other = await dev('POST', '/api/admin/features/cart/tags', { type: 'simple', value: 'theirs' });
    t.equal(other.status, 403);
    t.match(other.json.message, /UPDATE_FEATURE.*project=shop/);
    t.equal((await dev('POST', '/api/admin/environments', { name: 'qa', type: 'test' })).status, 403);
    t.equal((await dev('DELETE', '/api/admin/projects/shop')).status, 403);
    t.equal((await dev('POST', '/api/admin/segments', { name: 's', project: 'shop', constraints: [] })).status, 403);
    t.equal((await root('POST', '/api/admin/segments', { name: 's', project: 'shop', constraints: [] })).status, 201);
  });
});
