// The playground over HTTP on a real server: what it reports for a context (which strategy matched,
// which constraint failed and on what, the variant), who may ask about what (a token limited to a
// project or an environment), and the bounds of an advanced request, refused with a clear 400
// before anything is evaluated.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { client, serve } from '../../helpers/server.js';

const ADMIN = `*:*.${randomBytes(16).toString('hex')}`;
const P = (project: string) => `/api/admin/projects/${project}/features`;

t.test('the playground', async (t) => {
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  const admin = client(srv.url, { authorization: ADMIN });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await ok('POST', P('default'), { name: 'checkout' });
  await ok('POST', `${P('default')}/checkout/environments/development/strategies`, {
    name: 'default', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }],
  });
  await ok('POST', `${P('default')}/checkout/environments/development/strategies`, {
    name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'userId', groupId: 'checkout' },
    constraints: [{ contextName: 'plan', operator: 'STR_STARTS_WITH', values: ['GOLD'], caseInsensitive: true }],
    variants: [{ name: 'fast', weight: 1000, weightType: 'variable', stickiness: 'userId', payload: { type: 'string', value: 'f' } }],
  });
  await ok('POST', `${P('default')}/checkout/environments/development/on`);
  await ok('POST', P('shop'), { name: 'cart' });
  await ok('POST', `${P('shop')}/cart/environments/production/on`);

  await t.test('reports which strategy matched, which constraint failed (with the value), and the variant', async (t) => {
    const res = await admin('POST', '/api/admin/playground', { environment: 'development', projects: ['default'], context: { appName: 'web', userId: '7', country: 'DK', properties: { plan: 'gold-yearly' } } });
    t.equal(res.status, 200, res.text);
    t.same(res.json.features.map((f: any) => f.name), ['checkout'], 'only the projects asked about');
    const [f] = res.json.features;
    t.match(f, { isEnabled: true, isEnabledInCurrentEnvironment: true, hasUnsatisfiedDependency: false, variant: { name: 'fast', enabled: true, payload: { type: 'string', value: 'f' }, feature_enabled: true } });
    const [first, second] = f.strategies.data;
    t.match(first, { name: 'default', result: { enabled: false, evaluationStatus: 'complete' }, constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'], result: false }] });
    t.match(second, { name: 'flexibleRollout', result: { enabled: true, variant: { name: 'fast' } }, constraints: [{ contextName: 'plan', caseInsensitive: true, result: true }] });
    const off = await admin('POST', '/api/admin/playground', { environment: 'production', context: { appName: 'web', userId: '7' } });
    t.match(off.json.features.find((x: any) => x.name === 'checkout'), { isEnabled: false, isEnabledInCurrentEnvironment: false, variant: { name: 'disabled', feature_enabled: false } });
    t.match(off.json.features.find((x: any) => x.name === 'cart'), { isEnabled: true, projectId: 'shop' });
  });

  await t.test('a body without a context, or a context without appName, is a 400 naming the field', async (t) => {
    for (const [path, body, field] of [
      ['/api/admin/playground', { environment: 'development' }, /context/],
      ['/api/admin/playground', { environment: 'development', context: {} }, /appName/],
      ['/api/admin/playground', { environment: 'development', context: { appName: 'a', userId: { nested: true } } }, /userId/],
      ['/api/admin/playground/advanced', { environments: [], context: { appName: 'a' } }, /environments/],
    ] as const) {
      const res = await admin('POST', path, body);
      t.equal(res.status, 400, `${JSON.stringify(body)} → 400`);
      t.match(res.json, { name: 'ValidationError', message: field });
    }
  });

  await t.test('a deeply nested value anywhere in the body is answered, never a 500 (the answer echoes only what it read)', async (t) => {
    // Found by the admin fuzz: the answer echoed the whole body, and serializing 5,000 nested
    // arrays overflowed the stack.
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    for (const [path, body] of [
      ['/api/admin/playground', `{"environment":"development","context":{"appName":"a"},"extra":${deep}}`],
      ['/api/admin/playground/advanced', `{"environments":["development"],"projects":"*","context":{"appName":"a"},"extra":${deep}}`],
      ['/api/admin/playground', `{"environment":"development","context":{"appName":"a","properties":{"x":${deep}}}}`],
      ['/api/admin/playground/advanced', `{"environments":["development"],"context":{"appName":"a","properties":{"x":${deep}}}}`],
    ] as const) {
      const res = await admin('POST', path, body);
      t.ok(res.status === 200 || res.status === 400, `${path} with 5,000 nested arrays → ${res.status}`);
      if (res.status === 200) t.notOk('extra' in (res.json.input as object), 'the answer echoes only the fields it read');
      else t.match(res.json, { name: 'ValidationError' });
    }
  });

  await t.test('a token limited to a project sees its flags only; one limited to an environment may not ask about another', async (t) => {
    const token = async (tokenName: string, scope: Record<string, unknown>) => client(srv.url, { authorization: (await ok('POST', '/api/admin/api-tokens', { tokenName, type: 'admin', ...scope })).secret });
    const shop = await token('shop-admin', { project: 'shop' });
    const prod = await token('prod-admin', { environment: 'production' });
    const mine = await shop('POST', '/api/admin/playground', { environment: 'production', projects: '*', context: { appName: 'a' } });
    t.equal(mine.status, 200);
    t.same(mine.json.features.map((f: any) => f.name), ['cart'], 'the shop token sees the shop only');
    const asked = await shop('POST', '/api/admin/playground/advanced', { environments: ['production'], projects: ['default', 'shop'], context: { appName: 'a' } });
    t.same(asked.json.features.map((f: any) => f.name), ['cart'], 'even when it names another project');
    t.equal((await prod('POST', '/api/admin/playground', { environment: 'production', context: { appName: 'a' } })).status, 200, 'its own environment');
    for (const [path, body] of [
      ['/api/admin/playground', { environment: 'development', context: { appName: 'a' } }],
      ['/api/admin/playground/advanced', { environments: ['production', 'development'], context: { appName: 'a' } }],
    ] as const) {
      const res = await prod('POST', path, body);
      t.equal(res.status, 403, `${path} in development → 403`);
      t.match(res.json, { name: 'NoAccessError', message: /environment=development/ });
    }
  });

  await t.test('an advanced request over the bounds is refused with a 400 before it is evaluated', async (t) => {
    const list = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(',');
    // 2 environments × 2 flags × 4,000 contexts = 16,000 evaluations.
    const tooMany = await admin('POST', '/api/admin/playground/advanced', { environments: ['development', 'production'], context: { appName: 'a', userId: list(80, 'u'), sessionId: list(50, 's') } });
    t.equal(tooMany.status, 400);
    t.match(tooMany.json, { name: 'ValidationError', message: /would evaluate 16000 combinations, over the limit of 15000/ });
    // No flag at all: the contexts alone are bounded (they are made before anything is evaluated).
    const none = await admin('POST', '/api/admin/playground/advanced', { environments: ['development'], projects: ['nothing-here'], context: { appName: 'a', userId: list(200, 'u'), sessionId: list(200, 's') } });
    t.equal(none.status, 400);
    t.match(none.json, { message: /40000 combinations/ });
    // Few evaluations but a large answer: 7,000 contexts × (a flag of 30 constraints + one of none) = 14,000
    // evaluations holding 7,000 × (1 + 1 + 30 + 1) = 231,000 results.
    await ok('POST', P('shop'), { name: 'wide' });
    await ok('POST', `${P('shop')}/wide/environments/development/strategies`, {
      name: 'default', constraints: Array.from({ length: 30 }, (_, i) => ({ contextName: `f${i}`, operator: 'IN', values: ['x'] })),
    });
    const started = Date.now();
    const wide = await admin('POST', '/api/admin/playground/advanced', { environments: ['development'], projects: ['shop'], context: { appName: 'a', userId: list(100, 'u'), sessionId: list(70, 's') } });
    t.equal(wide.status, 400, wide.text.slice(0, 200));
    t.match(wide.json, { name: 'ValidationError', message: /the answer would hold 231000 results .*over the limit of 100000/ });
    t.ok(Date.now() - started < 2000, `refused in ${Date.now() - started} ms`);
    const fits = await admin('POST', '/api/admin/playground/advanced', { environments: ['development', 'production'], projects: ['shop'], context: { appName: 'a', userId: '1,2', plan: 'a,b,c' } });
    t.equal(fits.status, 200);
    t.equal(fits.json.features.length, 2);
    t.equal(fits.json.features[0].environments.production.length, 6, 'every combination in each environment');
    t.same(fits.json.features[0].environments.production[5].context, { userId: '2', plan: 'c', appName: 'a' }, 'appName last, as Unleash lists it');
  });

  await t.test('the largest answer allowed does not hold up other requests while it is evaluated', async (t) => {
    await ok('POST', '/api/admin/projects', { id: 'big', name: 'Big' });
    for (let i = 0; i < 50; i++) {
      await ok('POST', P('big'), { name: `big-${i}` });
      await ok('POST', `${P('big')}/big-${i}/environments/development/strategies`, {
        name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'userId', groupId: `big-${i}` },
        constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }, { contextName: 'plan', operator: 'STR_STARTS_WITH', values: ['g'] }],
      });
    }
    // 2 environments × 50 flags × 150 contexts: 15,000 evaluations, the most there may be (about 10 MB).
    const users = Array.from({ length: 150 }, (_, i) => `u${i}`).join(',');
    const started = Date.now();
    let done = 0;
    const big = admin('POST', '/api/admin/playground/advanced', { environments: ['development', 'production'], projects: ['big'], context: { appName: 'a', userId: users, country: 'NO', plan: 'gold' } })
      .then((r) => ((done = Date.now()), r));
    const waits: number[] = [];
    await new Promise((r) => setTimeout(r, 50));
    while (done === 0) {
      const asked = Date.now();
      await fetch(`${srv.url}/health`);
      if (done === 0) waits.push(Date.now() - asked);
    }
    const res = await big;
    t.equal(res.status, 200);
    t.equal(res.json.features.length, 50);
    const took = done - started;
    const worst = Math.max(...waits);
    t.ok(waits.length >= 2, `${waits.length} health checks answered while it ran`);
    t.ok(worst < took / 2, `the longest health check waited ${worst} ms, while the playground took ${took} ms`);
  });
});
