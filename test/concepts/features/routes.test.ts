// Flag lifecycle through HTTP against a real server process.
import t from 'tap';
import { client, spawnServer } from '../../helpers/server.js';

t.test('flag lifecycle over HTTP', async (t) => {
  const srv = await spawnServer();
  t.teardown(() => srv.stop());
  const api = client(srv.url);
  const P = '/api/admin/projects/default/features';

  t.test('create answers 201 with the flag connected to every environment, disabled', async (t) => {
    const res = await api('POST', P, { name: 'checkout', description: 'new checkout' });
    t.equal(res.status, 201);
    t.equal(res.json.name, 'checkout');
    t.same(res.json.environments.map((e: any) => [e.name, e.enabled]), [['development', false], ['production', false]]);
  });

  t.test('a duplicate name is 409 NameExistsError', async (t) => {
    const res = await api('POST', P, { name: 'checkout' });
    t.equal(res.status, 409);
    t.equal(res.json.name, 'NameExistsError');
    t.type(res.json.id, 'string');
  });

  t.test('a name that is not URL friendly is 400 naming the field', async (t) => {
    const res = await api('POST', P, { name: 'a b' });
    t.equal(res.status, 400);
    t.equal(res.json.name, 'ValidationError');
    t.match(res.json.message, /name/);
  });

  t.test('a non-JSON content type is 415 ContentTypeerror', async (t) => {
    const res = await api('POST', P, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    t.equal(res.status, 415);
    t.equal(res.json.name, 'ContentTypeerror');
  });

  t.test('an unknown project is 404', async (t) => {
    const res = await api('POST', '/api/admin/projects/nope/features', { name: 'x1' });
    t.equal(res.status, 404);
    t.equal(res.json.name, 'NotFoundError');
  });

  t.test('PATCH changes metadata and emits stale events; name cannot change', async (t) => {
    const ok = await api('PATCH', `${P}/checkout`, [{ op: 'replace', path: '/stale', value: true }, { op: 'replace', path: '/description', value: 'd2' }]);
    t.equal(ok.status, 200);
    t.equal(ok.json.stale, true);
    t.equal(ok.json.description, 'd2');
    const bad = await api('PATCH', `${P}/checkout`, [{ op: 'replace', path: '/name', value: 'other' }]);
    t.equal(bad.status, 400);
    const variants = await api('PATCH', `${P}/checkout`, [{ op: 'add', path: '/variants/0', value: {} }]);
    t.equal(variants.status, 403);
    const wrongType = await api('PATCH', `${P}/checkout`, [{ op: 'replace', path: '/stale', value: 'yes' }]);
    t.equal(wrongType.status, 400);
    const unapplicable = await api('PATCH', `${P}/checkout`, [{ op: 'remove', path: '/nothing/here' }]);
    t.equal(unapplicable.status, 400);
  });

  t.test('switching on without an enabled strategy adds flexibleRollout 100% first', async (t) => {
    const on = await api('POST', `${P}/checkout/environments/production/on`);
    t.equal(on.status, 200);
    const view = await api('GET', `${P}/checkout`);
    const prod = view.json.environments.find((e: any) => e.name === 'production');
    t.equal(prod.enabled, true);
    t.equal(prod.strategies.length, 1);
    t.same(prod.strategies[0].parameters, { rollout: '100', stickiness: 'default', groupId: 'checkout' });
  });

  t.test('switching on an unknown environment is 404', async (t) => {
    const res = await api('POST', `${P}/checkout/environments/staging/on`);
    t.equal(res.status, 404);
  });

  t.test('archive → 202, then the flag is gone from the project; revive → 200 disabled everywhere; delete', async (t) => {
    t.equal((await api('DELETE', `${P}/checkout`)).status, 202);
    t.equal((await api('GET', `${P}/checkout`)).status, 404);
    t.equal((await api('POST', '/api/admin/archive/revive/checkout')).status, 200);
    const view = await api('GET', `${P}/checkout`);
    t.equal(view.status, 200);
    t.ok(view.json.environments.every((e: any) => !e.enabled));
    t.equal((await api('DELETE', '/api/admin/archive/checkout')).status, 404, 'a live flag is not in the archive');
    t.equal((await api('DELETE', `${P}/checkout`)).status, 202);
    t.equal((await api('DELETE', '/api/admin/archive/checkout')).status, 200);
    t.equal((await api('POST', '/api/admin/archive/revive/checkout')).status, 404);
  });

  t.test('an archived parent cannot be archived while children depend on it', async (t) => {
    await api('POST', P, { name: 'parent' });
    await api('POST', P, { name: 'child' });
    t.equal((await api('POST', `${P}/child/dependencies`, { feature: 'parent' })).status, 200);
    const res = await api('DELETE', `${P}/parent`);
    t.equal(res.status, 403);
    t.equal(res.json.name, 'NoAccessError');
    t.equal((await api('DELETE', `${P}/child/dependencies/parent`)).status, 200);
    t.equal((await api('DELETE', `${P}/parent`)).status, 202);
  });

  t.test('tags given at creation follow the tag routes\' rules: trimmed, existing type only', async (t) => {
    const ok = await api('POST', P, { name: 'tagged', tags: [{ type: 'simple', value: '  team-a  ' }] });
    t.equal(ok.status, 201);
    t.same(ok.json.tags, [{ type: 'simple', value: 'team-a' }]);
    const badType = await api('POST', P, { name: 'tagged2', tags: [{ type: 'nope', value: 'team-a' }] });
    t.equal(badType.status, 400);
    t.match(badType.json.message, /tags\[0\]\.type|tag type/);
    t.equal((await api('GET', `${P}/tagged2`)).status, 404, 'nothing was created');
  });
});
