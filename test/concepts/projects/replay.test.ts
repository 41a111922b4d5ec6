// Every change made through the project, environment, segment, tag and variant routes replays
// from the WAL to the same state: stop the server, start it on the same data folder, compare.
import t from 'tap';
import { dumpState } from '../../../src/core/state/dump.js';
import { startInProcess } from '../../helpers/in-process-server.js';

t.test('admin changes outside flags and strategies replay to the same state, events included', async (t) => {
  const first = await startInProcess();
  const { api } = first;
  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await api(method, path, body);
    if (r.status >= 300) t.fail(`${method} ${path} → ${r.status} ${r.text}`);
    return r;
  };
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop', defaultStickiness: 'userId' });
  await ok('PUT', '/api/admin/projects/shop', { name: 'Shop 2', mode: 'protected' });
  await ok('POST', '/api/admin/projects', { id: 'tmp', name: 'Tmp' });
  await ok('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
  await ok('POST', '/api/admin/environments', { name: 'qa', type: 'test', sortOrder: 5 });
  await ok('PUT', '/api/admin/environments/update/qa', { type: 'qa' });
  await ok('POST', '/api/admin/projects/shop/features', { name: 'cart' });
  const seg = await ok('POST', '/api/admin/segments', { name: 'vip', project: 'shop', constraints: [{ contextName: 'tier', operator: 'IN', values: ['gold'] }] });
  await ok('POST', '/api/admin/segments', { name: 'gone', project: 'tmp', constraints: [] });
  await ok('POST', '/api/admin/projects/shop/features/cart/environments/staging/strategies', { name: 'default', segments: [seg.json.id] });
  await ok('POST', '/api/admin/projects/shop/features/cart/environments/qa/strategies', { name: 'default' });
  await ok('PUT', `/api/admin/segments/${seg.json.id}`, { name: 'vip', project: 'shop', constraints: [] });
  await ok('DELETE', '/api/admin/projects/tmp');
  await ok('DELETE', '/api/admin/environments/qa');
  await ok('POST', '/api/admin/tag-types', { name: 'team' });
  await ok('POST', '/api/admin/features/cart/tags', { type: 'team', value: 'checkout' });
  await ok('POST', '/api/admin/features/cart/tags', { type: 'simple', value: 'web' });
  await ok('DELETE', '/api/admin/tags/simple/web');
  await ok('PUT', '/api/admin/projects/shop/features/cart/environments/staging/variants', [{ name: 'a' }, { name: 'b', weightType: 'fix', weight: 10 }]);
  await ok('PUT', '/api/admin/projects/shop/features/cart/variants-batch', { environments: ['development', 'production'], variants: [{ name: 'x' }] });
  await ok('PATCH', '/api/admin/projects/shop/features/cart/environments/production/variants', [{ op: 'add', path: '/-', value: { name: 'y' } }]);
  const before = dumpState(first.running.engine.state);
  await first.close();

  const second = await startInProcess({ dataDir: first.dataDir });
  t.teardown(() => second.close());
  t.same(dumpState(second.running.engine.state), before, 'the replayed state equals the state before the restart');
  const next = await second.api('POST', '/api/admin/segments', { name: 'after', constraints: [] });
  t.equal(next.json.id, 3, 'segment ids continue after the replay without reuse');
});
