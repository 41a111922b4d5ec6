// Environment variants over HTTP: PUT, PATCH (JSON Patch), variants-batch, Unleash's weight
// rules, and the feature-environment-variants-updated events.
import t from 'tap';
import { recorded, startInProcess } from '../../helpers/in-process-server.js';

const F = '/api/admin/projects/default/features';
const V = (env: string, f = 'exp') => `${F}/${f}/environments/${env}/variants`;

t.test('environment variants admin API', async (t) => {
  const srv = await startInProcess();
  t.teardown(() => srv.close());
  const { api } = srv;
  await api('POST', F, { name: 'exp' });

  t.test('GET starts empty', async (t) => {
    t.same((await api('GET', V('development'))).json, { version: 1, variants: [] });
  });

  t.test('PUT → 200 with weights per Unleash rules (fix kept, rest split, sorted by name) and one event with data/preData', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => {
      res = await api('PUT', V('development'), [
        { name: 'c' }, { name: 'a', weightType: 'fix', weight: 100 }, { name: 'b', payload: { type: 'json', value: '{"x":1}' }, overrides: [{ contextName: 'userId', values: ['7'] }] },
      ]);
    });
    t.equal(res.status, 200);
    t.same(res.json.variants.map((v: any) => [v.name, v.weight, v.weightType]), [['a', 100, 'fix'], ['b', 450, 'variable'], ['c', 450, 'variable']]);
    t.same(res.json.variants[1].overrides, [{ contextName: 'userId', values: ['7'] }]);
    t.equal(events.length, 1);
    t.match(events[0], { type: 'feature-environment-variants-updated', project: 'default', featureName: 'exp', environment: 'development', preData: { variants: [] } });
    t.same((events[0].data as any).variants, res.json.variants);
    t.same((await api('GET', V('development'))).json.variants, res.json.variants);
    t.same((await api('GET', V('production'))).json.variants, [], 'other environments are untouched');
    const flag = await api('GET', `${F}/exp`);
    t.equal(flag.json.environments.find((e: any) => e.name === 'development').variantCount, 3);
  });

  t.test('the remainder of an uneven split goes +1 to the first variable variants in input order', async (t) => {
    const res = await api('PUT', V('production'), [{ name: 'z' }, { name: 'y' }, { name: 'x' }]);
    t.same(res.json.variants.map((v: any) => [v.name, v.weight]), [['x', 333], ['y', 333], ['z', 334]]);
  });

  t.test('weights that do not add up and other bad variants → 400 naming the field; nothing changes', async (t) => {
    const before = (await api('GET', V('development'))).json.variants;
    const allFix = await api('PUT', V('development'), [{ name: 'a', weightType: 'fix', weight: 1000 }]);
    t.equal(allFix.status, 400);
    t.match(allFix.json.details[0].path, 'variants');
    const over = await api('PUT', V('development'), [{ name: 'a', weightType: 'fix', weight: 700 }, { name: 'b', weightType: 'fix', weight: 400 }, { name: 'c' }]);
    t.equal(over.status, 400);
    t.match(over.json.message, /1100/);
    const dup = await api('PUT', V('development'), [{ name: 'a' }, { name: 'a' }]);
    t.equal(dup.status, 400);
    t.match(dup.json.message, /unique/);
    const json = await api('PUT', V('development'), [{ name: 'a', payload: { type: 'json', value: '{nope' } }]);
    t.equal(json.status, 400);
    t.match(json.json.details[0].path, 'variants[0].payload.value');
    const weight = await api('PUT', V('development'), [{ name: 'a', weight: 1001 }]);
    t.equal(weight.status, 400);
    t.equal((await api('PUT', V('development'), { name: 'a' })).status, 400, 'the body must be an array');
    const surrogate = await api('PUT', V('development'), '[{"name":"\\ud800"}]');
    t.equal(surrogate.status, 400, 'a lone surrogate in a name is not URL friendly (and no 500)');
    t.same((await api('GET', V('development'))).json.variants, before);
  });

  t.test('unknown project, flag or environment → 404; archived flag → 404', async (t) => {
    t.equal((await api('PUT', V('staging'), [{ name: 'a' }])).status, 404);
    t.equal((await api('PUT', V('development', 'nope'), [{ name: 'a' }])).status, 404);
    t.equal((await api('GET', '/api/admin/projects/nope/features/exp/environments/development/variants')).status, 404);
    await api('POST', F, { name: 'old' });
    await api('DELETE', `${F}/old`);
    t.equal((await api('PUT', V('development', 'old'), [{ name: 'a' }])).status, 404);
  });

  t.test('PATCH applies a JSON Patch to the current list, then recomputes the weights', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => {
      res = await api('PATCH', V('development'), [{ op: 'remove', path: '/2' }, { op: 'add', path: '/-', value: { name: 'd', stickiness: 'userId' } }]);
    });
    t.equal(res.status, 200);
    t.same(res.json.variants.map((v: any) => [v.name, v.weight, v.stickiness]), [['a', 100, 'default'], ['b', 450, 'default'], ['d', 450, 'userId']]);
    t.match(events, [{ type: 'feature-environment-variants-updated', environment: 'development', preData: { variants: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } }]);
    const bad = await api('PATCH', V('development'), [{ op: 'replace', path: '/9/name', value: 'x' }]);
    t.equal(bad.status, 400, 'a patch that does not apply');
    const invalid = await api('PATCH', V('development'), [{ op: 'replace', path: '/0/weight', value: 'heavy' }]);
    t.equal(invalid.status, 400, 'a result that breaks the schema');
    t.match(invalid.json.message, /weight/);
  });

  t.test('variants-batch sets the same variants in each environment, one event each; a bad environment changes nothing', async (t) => {
    const body = { environments: ['development', 'production'], variants: [{ name: 'on' }, { name: 'off', weightType: 'fix', weight: 200 }] };
    let res: any;
    const events = await recorded(srv, async () => (res = await api('PUT', `${F}/exp/variants-batch`, body)));
    t.equal(res.status, 200);
    t.same(res.json.variants.map((v: any) => [v.name, v.weight]), [['off', 200], ['on', 800]]);
    t.same(events.map((e) => [e.type, e.environment]), [
      ['feature-environment-variants-updated', 'development'], ['feature-environment-variants-updated', 'production'],
    ]);
    t.same((events[1].preData as any).variants.map((v: any) => v.name), ['x', 'y', 'z']);
    for (const env of ['development', 'production']) t.same((await api('GET', V(env))).json.variants, res.json.variants);
    const partial = await recorded(srv, async () => {
      const r = await api('PUT', `${F}/exp/variants-batch`, { environments: ['production', 'staging'], variants: [{ name: 'q' }] });
      t.equal(r.status, 404);
    });
    t.same(partial, []);
    t.same((await api('GET', V('production'))).json.variants.map((v: any) => v.name), ['off', 'on'], 'production kept its variants');
    t.equal((await api('PUT', `${F}/exp/variants-batch`, { environments: [], variants: [] })).status, 400);
    t.equal((await api('PUT', `${F}/exp/variants-batch`, { variants: [] })).status, 400);
  });

  t.test('an empty list clears the variants', async (t) => {
    const res = await api('PUT', V('development'), []);
    t.same(res.json, { version: 1, variants: [] });
  });
});
