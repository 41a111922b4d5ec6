// Segments over HTTP: CRUD, name uniqueness, constraint validation, the in-use and project
// rules, and the events recorded.
import t from 'tap';
import { recorded, startInProcess } from '../../helpers/in-process-server.js';

const S = '/api/admin/segments';
const inList = (values: string[]) => [{ contextName: 'userId', operator: 'IN', values }];

t.test('segments admin API', async (t) => {
  const srv = await startInProcess();
  t.teardown(() => srv.close());
  const { api } = srv;
  await api('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await api('POST', '/api/admin/projects/shop/features', { name: 'cart' });
  await api('POST', '/api/admin/projects/default/features', { name: 'home' });

  let id = 0;
  t.test('POST → 201 with the segment (id from the counter, createdBy the caller); records segment-created', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('POST', S, { name: 'beta-users', description: 'd', constraints: inList(['1', '2']) })));
    t.equal(res.status, 201);
    t.match(res.json, { id: 1, name: 'beta-users', description: 'd', project: null, createdBy: 'admin' });
    t.same(res.json.constraints, [{ contextName: 'userId', operator: 'IN', values: ['1', '2'], caseInsensitive: false, inverted: false }]);
    id = res.json.id;
    t.match(events, [{ type: 'segment-created', data: { id: 1, name: 'beta-users' } }]);
  });

  t.test('GET lists and gets; unknown or non-numeric id → 404', async (t) => {
    const list = await api('GET', S);
    t.equal(list.status, 200);
    t.same(list.json.segments.map((s: any) => s.name), ['beta-users']);
    t.equal((await api('GET', `${S}/${id}`)).json.name, 'beta-users');
    t.equal((await api('GET', `${S}/999`)).status, 404);
    t.equal((await api('GET', `${S}/abc`)).status, 404);
  });

  t.test('POST errors: duplicate name 409, bad constraint 400 naming the field, unknown project 400, missing constraints 400', async (t) => {
    const dup = await api('POST', S, { name: 'beta-users', constraints: [] });
    t.equal(dup.status, 409);
    const op = await api('POST', S, { name: 's2', constraints: [{ contextName: 'x', operator: 'LIKE', values: ['a'] }] });
    t.equal(op.status, 400);
    t.match(op.json.message, /operator/);
    const noValues = await api('POST', S, { name: 's2', constraints: [{ contextName: 'x', operator: 'IN', values: [] }] });
    t.equal(noValues.status, 400);
    t.match(noValues.json.details[0].path, 'constraints[0].values');
    const project = await api('POST', S, { name: 's2', project: 'nope', constraints: [] });
    t.equal(project.status, 400);
    t.match(project.json.message, /project/);
    t.equal((await api('POST', S, { name: 's2' })).status, 400);
    const tooMany = await api('POST', S, { name: 's2', constraints: [...inList(Array.from({ length: 600 }, (_, i) => `a${i}`)), ...inList(Array.from({ length: 401 }, (_, i) => `b${i}`))] });
    t.equal(tooMany.status, 400);
    t.match(tooMany.json.message, /at most 1000 values/);
    t.equal((await api('GET', S)).json.segments.length, 1, 'nothing was created');
  });

  t.test('PUT → 204, records segment-updated with data and preData; name clash 409', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('PUT', `${S}/${id}`, { name: 'beta', constraints: inList(['3']) })));
    t.equal(res.status, 204);
    t.equal(res.text, '');
    t.match(events, [{ type: 'segment-updated', data: { name: 'beta', constraints: [{ values: ['3'] }] }, preData: { name: 'beta-users', constraints: [{ values: ['1', '2'] }] } }]);
    t.equal((await api('GET', `${S}/${id}`)).json.description, 'd', 'a left-out description is kept');
    await api('POST', S, { name: 'other', constraints: [] });
    t.equal((await api('PUT', `${S}/${id}`, { name: 'other', constraints: [] })).status, 409);
    t.equal((await api('PUT', `${S}/${id}`, { name: 'beta', constraints: [] })).status, 204, 'keeping its own name is fine');
    t.equal((await api('PUT', `${S}/999`, { name: 'x', constraints: [] })).status, 404);
  });

  t.test('a segment used by a strategy cannot be deleted (403) nor moved to a project its users are not in (400)', async (t) => {
    const st = await api('POST', '/api/admin/projects/shop/features/cart/environments/development/strategies', { name: 'default', segments: [id] });
    t.equal(st.status, 200);
    const used = await api('GET', `${S}/${id}/strategies`);
    t.match(used.json.strategies, [{ featureName: 'cart', projectId: 'shop', environment: 'development', strategyName: 'default' }]);
    const del = await api('DELETE', `${S}/${id}`);
    t.equal(del.status, 403);
    t.match(del.json.message, /cart\/development/);
    const move = await api('PUT', `${S}/${id}`, { name: 'beta', project: 'default', constraints: [] });
    t.equal(move.status, 400);
    t.match(move.json.message, /outside project "default"/);
    const ok = await api('PUT', `${S}/${id}`, { name: 'beta', project: 'shop', constraints: [] });
    t.equal(ok.status, 204, 'its users are all in "shop"');
    const cross = await api('POST', '/api/admin/projects/default/features/home/environments/development/strategies', { name: 'default', segments: [id] });
    t.equal(cross.status, 400, 'a project segment cannot be used by another project\'s flag');
    await api('DELETE', `/api/admin/projects/shop/features/cart/environments/development/strategies/${st.json.id}`);
  });

  t.test('DELETE an unused segment → 204, records segment-deleted with preData; again → 404', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('DELETE', `${S}/${id}`)));
    t.equal(res.status, 204);
    t.match(events, [{ type: 'segment-deleted', project: 'shop', preData: { id, name: 'beta' } }]);
    t.equal((await api('DELETE', `${S}/${id}`)).status, 404);
  });

  t.test('ids are never reused after a delete', async (t) => {
    const res = await api('POST', S, { name: 'fresh', constraints: [] });
    t.ok(res.json.id > id + 1, `new id ${res.json.id} is past the deleted ${id} and "other"`);
  });

  t.test('the segment limit is 300: the 301st create is 400', async (t) => {
    const have = (await api('GET', S)).json.segments.length;
    for (let i = have; i < 300; i++) {
      const r = await api('POST', S, { name: `bulk-${i}`, constraints: [] });
      if (r.status !== 201) t.fail(`create ${i} failed: ${r.status}`);
    }
    const over = await api('POST', S, { name: 'over', constraints: [] });
    t.equal(over.status, 400);
    t.match(over.json.message, /limit of 300/);
  });
});
