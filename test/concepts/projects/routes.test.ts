// Projects over HTTP (in-process server, so the recorded events can be checked too).
import t from 'tap';
import { recorded, startInProcess } from '../../helpers/in-process-server.js';

t.test('projects admin API', async (t) => {
  const srv = await startInProcess();
  t.teardown(() => srv.close());
  const { api } = srv;

  t.test('POST creates a project → 201 with counts, and records project-created with the project as data', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => {
      res = await api('POST', '/api/admin/projects', { id: 'web', name: 'Web', description: 'site', defaultStickiness: 'userId' });
    });
    t.equal(res.status, 201);
    t.match(res.json, { id: 'web', name: 'Web', description: 'site', mode: 'open', defaultStickiness: 'userId', featureCount: 0 });
    t.equal(events.length, 1);
    t.match(events[0], { type: 'project-created', project: 'web', createdBy: 'admin', data: { id: 'web', name: 'Web' }, preData: null });
  });

  t.test('a duplicate id is 409 NameExistsError and records nothing', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('POST', '/api/admin/projects', { id: 'web', name: 'Again' })));
    t.equal(res.status, 409);
    t.equal(res.json.name, 'NameExistsError');
    t.same(events, []);
  });

  t.test('invalid bodies are 400 naming the field; non-JSON is 415', async (t) => {
    const noName = await api('POST', '/api/admin/projects', { id: 'x1' });
    t.equal(noName.status, 400);
    t.match(noName.json.message, /name/);
    const badId = await api('POST', '/api/admin/projects', { id: 'a b', name: 'x' });
    t.equal(badId.status, 400);
    t.match(badId.json.message, /id/);
    const badMode = await api('POST', '/api/admin/projects', { id: 'x2', name: 'x', mode: 'secret' });
    t.equal(badMode.status, 400);
    t.match(badMode.json.message, /mode/);
    const form = await api('POST', '/api/admin/projects', 'id=x', { 'content-type': 'text/plain' });
    t.equal(form.status, 415);
    t.equal(form.json.name, 'ContentTypeerror');
  });

  t.test('GET lists projects with featureCount; GET one shows its flags; unknown → 404', async (t) => {
    await api('POST', '/api/admin/projects/web/features', { name: 'w1' });
    await api('POST', '/api/admin/projects/web/features', { name: 'w2' });
    await api('DELETE', '/api/admin/projects/web/features/w2');
    const list = await api('GET', '/api/admin/projects');
    t.equal(list.status, 200);
    t.equal(list.json.version, 1);
    const web = list.json.projects.find((p: any) => p.id === 'web');
    t.match(web, { featureCount: 1, archivedFeatureCount: 1 });
    t.ok(list.json.projects.some((p: any) => p.id === 'default'));
    const one = await api('GET', '/api/admin/projects/web');
    t.equal(one.status, 200);
    t.same(one.json.features.map((f: any) => f.name), ['w1']);
    t.same(one.json.environments.map((e: any) => e.environment), ['development', 'production']);
    const missing = await api('GET', '/api/admin/projects/nope');
    t.equal(missing.status, 404);
    t.equal(missing.json.name, 'NotFoundError');
  });

  t.test('PUT updates → 200, keeps left-out fields, records project-updated with data and preData', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('PUT', '/api/admin/projects/web', { name: 'Web shop', mode: 'protected' })));
    t.equal(res.status, 200);
    t.match(res.json, { id: 'web', name: 'Web shop', description: 'site', mode: 'protected', defaultStickiness: 'userId' });
    t.type(res.json.updatedAt, 'string');
    t.equal(events.length, 1);
    t.match(events[0], { type: 'project-updated', project: 'web', data: { name: 'Web shop', mode: 'protected' }, preData: { name: 'Web', mode: 'open' } });
  });

  t.test('PUT errors: unknown project 404, id mismatch 400, missing name 400', async (t) => {
    t.equal((await api('PUT', '/api/admin/projects/nope', { name: 'x' })).status, 404);
    const mismatch = await api('PUT', '/api/admin/projects/web', { id: 'other', name: 'x' });
    t.equal(mismatch.status, 400);
    t.match(mismatch.json.message, /id/);
    t.equal((await api('PUT', '/api/admin/projects/web', { description: 'only' })).status, 400);
  });

  t.test('a new project\'s defaultStickiness is what flexibleRollout strategies default to', async (t) => {
    await api('POST', '/api/admin/projects', { id: 'sticky', name: 'S', defaultStickiness: 'sessionId' });
    await api('POST', '/api/admin/projects/sticky/features', { name: 'st1' });
    const s = await api('POST', '/api/admin/projects/sticky/features/st1/environments/development/strategies', { name: 'flexibleRollout' });
    t.equal(s.json.parameters.stickiness, 'sessionId');
  });

  t.test('DELETE refuses the default project and projects holding flags, archived ones included (403)', async (t) => {
    const def = await api('DELETE', '/api/admin/projects/default');
    t.equal(def.status, 403);
    t.match(def.json.message, /default project/);
    const held = await api('DELETE', '/api/admin/projects/web');
    t.equal(held.status, 403);
    t.match(held.json.message, /2 flag\(s\), 1 of them archived/);
    await api('DELETE', '/api/admin/projects/web/features/w1');
    await api('DELETE', '/api/admin/archive/w1');
    const stillArchived = await api('DELETE', '/api/admin/projects/web');
    t.equal(stillArchived.status, 403, 'the archived flag w2 still holds it');
    await api('DELETE', '/api/admin/archive/w2');
    t.equal((await api('GET', '/api/admin/projects/web')).status, 200, 'nothing was removed by the refusals');
  });

  t.test('DELETE an empty project → 200, takes its segments along, records segment-deleted then project-deleted', async (t) => {
    const seg = await api('POST', '/api/admin/segments', { name: 'web-seg', project: 'web', constraints: [] });
    t.equal(seg.status, 201);
    let res: any;
    const events = await recorded(srv, async () => (res = await api('DELETE', '/api/admin/projects/web')));
    t.equal(res.status, 200);
    t.same(events.map((e) => e.type), ['segment-deleted', 'project-deleted']);
    t.match(events[1], { project: 'web', preData: { id: 'web', name: 'Web shop' } });
    t.equal((await api('GET', '/api/admin/projects/web')).status, 404);
    t.equal((await api('GET', `/api/admin/segments/${seg.json.id}`)).status, 404);
    t.equal((await api('DELETE', '/api/admin/projects/web')).status, 404, 'deleting again is 404');
  });

  t.test('the project limit is 500: the 501st create is 400', async (t) => {
    const have = (await api('GET', '/api/admin/projects')).json.projects.length;
    for (let i = have; i < 500; i++) {
      const r = await api('POST', '/api/admin/projects', { id: `bulk-${i}`, name: `Bulk ${i}` });
      if (r.status !== 201) t.fail(`create ${i} failed: ${r.status}`);
    }
    const over = await api('POST', '/api/admin/projects', { id: 'one-too-many', name: 'x' });
    t.equal(over.status, 400);
    t.match(over.json.message, /limit of 500/);
  });
});
