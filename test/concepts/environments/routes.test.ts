// Environments over HTTP: creating one connects every flag, deleting one removes its
// configurations and strategies; events checked in-process.
import t from 'tap';
import { recorded, startInProcess } from '../../helpers/in-process-server.js';

const F = '/api/admin/projects/default/features';

t.test('environments admin API', async (t) => {
  const srv = await startInProcess();
  t.teardown(() => srv.close());
  const { api } = srv;
  await api('POST', F, { name: 'live' });
  await api('POST', F, { name: 'old' });
  await api('DELETE', `${F}/old`);

  t.test('GET lists the defaults in sort order with version 1', async (t) => {
    const res = await api('GET', '/api/admin/environments');
    t.equal(res.status, 200);
    t.equal(res.json.version, 1);
    t.same(res.json.environments, [
      { name: 'development', type: 'development', enabled: true, protected: false, sortOrder: 100 },
      { name: 'production', type: 'production', enabled: true, protected: false, sortOrder: 200 },
    ]);
  });

  t.test('POST → 201, goes last by default, records environment-created; every flag (archived too) gets a disabled config', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('POST', '/api/admin/environments', { name: 'staging', type: 'test' })));
    t.equal(res.status, 201);
    t.same(res.json, { name: 'staging', type: 'test', enabled: true, protected: false, sortOrder: 201 });
    t.equal(events.length, 1);
    t.match(events[0], { type: 'environment-created', environment: 'staging', data: { name: 'staging', type: 'test' } });
    const flag = await api('GET', `${F}/live`);
    t.same(flag.json.environments.map((e: any) => [e.name, e.enabled]), [['development', false], ['production', false], ['staging', false]]);
    const strategy = await api('POST', `${F}/live/environments/staging/strategies`, { name: 'default' });
    t.equal(strategy.status, 200, 'the new environment is usable at once');
    t.equal((await api('POST', `${F}/live/environments/staging/on`)).status, 200);
    t.equal((await api('POST', '/api/admin/archive/revive/old')).status, 200);
    const revived = await api('GET', `${F}/old`);
    t.ok(revived.json.environments.some((e: any) => e.name === 'staging'), 'the archived flag got it too');
  });

  t.test('GET one → 200; unknown → 404', async (t) => {
    t.same((await api('GET', '/api/admin/environments/staging')).json, { name: 'staging', type: 'test', enabled: true, protected: false, sortOrder: 201 });
    const missing = await api('GET', '/api/admin/environments/nope');
    t.equal(missing.status, 404);
    t.equal(missing.json.name, 'NotFoundError');
  });

  t.test('POST errors: duplicate 409, bad name 400, missing type 400, wrong sortOrder type 400', async (t) => {
    const dup = await api('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
    t.equal(dup.status, 409);
    t.equal(dup.json.name, 'NameExistsError');
    const bad = await api('POST', '/api/admin/environments', { name: 'st age', type: 'test' });
    t.equal(bad.status, 400);
    t.match(bad.json.message, /name/);
    const noType = await api('POST', '/api/admin/environments', { name: 'qa' });
    t.equal(noType.status, 400);
    t.match(noType.json.message, /type/);
    const order = await api('POST', '/api/admin/environments', { name: 'qa', type: 'test', sortOrder: 'first' });
    t.equal(order.status, 400);
    t.match(order.json.message, /sortOrder/);
  });

  t.test('PUT /update/:name → 200, records environment-updated with data and preData; list order follows sortOrder', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('PUT', '/api/admin/environments/update/staging', { sortOrder: 150 })));
    t.equal(res.status, 200);
    t.same(res.json, { name: 'staging', type: 'test', enabled: true, protected: false, sortOrder: 150 });
    t.match(events, [{ type: 'environment-updated', environment: 'staging', data: { sortOrder: 150 }, preData: { sortOrder: 201 } }]);
    const list = await api('GET', '/api/admin/environments');
    t.same(list.json.environments.map((e: any) => e.name), ['development', 'staging', 'production']);
    t.equal((await api('PUT', '/api/admin/environments/update/nope', { type: 'x' })).status, 404);
    t.equal((await api('PUT', '/api/admin/environments/update/staging', { type: '' })).status, 400);
  });

  t.test('DELETE → 200 removes the configs and strategies there through one change; records environment-deleted', async (t) => {
    const strategiesBefore = srv.running.engine.state.strategies.size;
    let res: any;
    const events = await recorded(srv, async () => (res = await api('DELETE', '/api/admin/environments/staging')));
    t.equal(res.status, 200);
    t.match(events, [{ type: 'environment-deleted', environment: 'staging', preData: { name: 'staging' } }]);
    t.equal(srv.running.engine.state.strategies.size, strategiesBefore - 1, 'the staging strategy is gone');
    const flag = await api('GET', `${F}/live`);
    t.same(flag.json.environments.map((e: any) => e.name), ['development', 'production']);
    t.equal((await api('GET', `${F}/live/environments/staging/strategies`)).status, 404);
    t.equal((await api('DELETE', '/api/admin/environments/staging')).status, 404);
  });

  t.test('a protected environment cannot be updated or deleted (403)', async (t) => {
    // No route makes an environment protected; state import can. Mark one directly to test the guard.
    const state = srv.running.engine.state;
    state.environments.set('locked', { name: 'locked', type: 'production', enabled: true, protected: true, sortOrder: 300 });
    t.teardown(() => void state.environments.delete('locked'));
    t.equal((await api('DELETE', '/api/admin/environments/locked')).status, 403);
    t.equal((await api('PUT', '/api/admin/environments/update/locked', { sortOrder: 1 })).status, 403);
    t.ok(state.environments.has('locked'));
  });

  t.test('the environment limit is 50: the 51st create is 400', async (t) => {
    const have = (await api('GET', '/api/admin/environments')).json.environments.length;
    for (let i = have; i < 50; i++) {
      const r = await api('POST', '/api/admin/environments', { name: `env-${i}`, type: 'test' });
      if (r.status !== 201) t.fail(`create ${i} failed: ${r.status}`);
    }
    const over = await api('POST', '/api/admin/environments', { name: 'env-over', type: 'test' });
    t.equal(over.status, 400);
    t.match(over.json.message, /limit of 50/);
  });
});
