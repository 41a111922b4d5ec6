// Tokens scoped to a project or environment that is deleted, over HTTP against a real server
// (AUTH_TYPE=api-token): they stop working at once, stay dead when the name is created again and
// across a restart (even when still listed in INIT_*_API_TOKENS), and the events say so without
// any secret.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { client, spawnServer, tempDataDir, succeeding } from '../../helpers/server.js';

const rnd = () => randomBytes(16).toString('hex');
const ADMIN = `*:*.${rnd()}`;
const SEEDED_SHOP = `shop:development.${rnd()}`;
const TOKENS = '/api/admin/api-tokens';

t.test('deleting a project or an environment takes the tokens scoped to it along', async (t) => {
  const dataDir = tempDataDir();
  const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN };
  let srv = await spawnServer({ dataDir, env });
  t.teardown(() => srv.stop());
  let admin = client(srv.url, { authorization: ADMIN });
  const ok = succeeding(() => admin);
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await ok('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
  await ok('POST', '/api/admin/projects/shop/features', { name: 'cart' });
  await ok('POST', '/api/admin/projects/default/features', { name: 'home' });
  const make = async (body: Record<string, unknown>) => (await ok('POST', TOKENS, body)).secret as string;
  const secrets = {
    shopClient: await make({ tokenName: 'shop-client', type: 'client', environment: 'development', project: 'shop' }),
    bothClient: await make({ tokenName: 'both-client', type: 'client', environment: 'development', projects: ['default', 'shop'] }),
    shopAdmin: await make({ tokenName: 'shop-admin', type: 'admin', project: 'shop' }),
    stagingClient: await make({ tokenName: 'staging-client', type: 'client', environment: 'staging' }),
    stagingAdmin: await make({ tokenName: 'staging-admin', type: 'admin', environment: 'staging' }),
  };
  const sdk = (secret: string) => client(srv.url, { authorization: secret })('GET', '/api/client/features');
  const listed = async () => (await ok('GET', TOKENS)).tokens as { tokenName: string; projects: string[] }[];

  t.test('before: every token works', async (t) => {
    for (const s of [secrets.shopClient, secrets.bothClient, secrets.stagingClient]) t.equal((await sdk(s)).status, 200);
    t.equal((await client(srv.url, { authorization: secrets.shopAdmin })('GET', '/api/admin/projects/shop')).status, 200);
  });

  t.test('a project holding flags still cannot be deleted, and its tokens are untouched', async (t) => {
    const res = await admin('DELETE', '/api/admin/projects/shop');
    t.equal(res.status, 403);
    t.equal((await sdk(secrets.shopClient)).status, 200);
    t.equal((await listed()).length, 6);
  });

  t.test('deleting the project: its own tokens get 401 at once, a token of two projects keeps the other', async (t) => {
    await ok('DELETE', '/api/admin/projects/shop/features/cart');
    await ok('DELETE', '/api/admin/archive/cart');
    const lastBefore = (await ok('POST', '/api/admin/events/search', { limit: 1 })).events[0].id;
    t.equal((await admin('DELETE', '/api/admin/projects/shop')).status, 200);
    for (const s of [secrets.shopClient, secrets.shopAdmin]) {
      const res = await client(srv.url, { authorization: s })('GET', s === secrets.shopAdmin ? '/api/admin/events' : '/api/client/features');
      t.equal(res.status, 401);
      t.equal(res.json.name, 'AuthenticationRequired');
    }
    const both = await sdk(secrets.bothClient);
    t.equal(both.status, 200);
    t.same(both.json.features.map((f: { name: string }) => f.name), ['home']);
    const tokens = await listed();
    t.same(tokens.map((x) => x.tokenName).sort(), ['both-client', 'init-admin-token', 'staging-admin', 'staging-client']);
    t.same(tokens.find((x) => x.tokenName === 'both-client')!.projects, ['default']);
    const events = (await ok('POST', '/api/admin/events/search', { offset: 0 })).events.filter((e: { id: number }) => e.id > lastBefore);
    t.same(events.map((e: { type: string; data: any; preData: any }) => `${e.type} ${e.preData?.tokenName ?? e.data?.tokenName ?? e.preData?.id ?? ''}`.trim()).sort(),
      ['api-token-deleted shop-admin', 'api-token-deleted shop-client', 'api-token-updated both-client', 'project-deleted shop'].sort(), 'project-deleted and one event per token');
    const ids = events.map((e: { id: number }) => e.id).sort((a: number, b: number) => a - b);
    t.same(ids, ids.map((_: number, i: number) => lastBefore + 1 + i), 'consecutive ids: recorded by one change');
    const text = JSON.stringify(events);
    for (const s of Object.values(secrets)) t.notOk(text.includes(s.slice(s.indexOf('.') + 1)), 'no secret in the events');
  });

  t.test('a project created again under the same name does not bring its old tokens back', async (t) => {
    await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop again' });
    t.equal((await sdk(secrets.shopClient)).status, 401);
    t.same((await listed()).find((x) => x.tokenName === 'both-client')!.projects, ['default'], 'nor widens a token that lost it');
  });

  t.test('deleting an environment: its client and admin tokens get 401 at once, others go on', async (t) => {
    t.equal((await admin('DELETE', '/api/admin/environments/staging')).status, 200);
    t.equal((await sdk(secrets.stagingClient)).status, 401);
    t.equal((await client(srv.url, { authorization: secrets.stagingAdmin })('GET', '/api/admin/events')).status, 401);
    t.equal((await sdk(secrets.bothClient)).status, 200);
    await ok('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
    t.equal((await sdk(secrets.stagingClient)).status, 401, 'an environment created again under the same name does not bring them back');
  });

  t.test('after a restart they stay deleted, even a seeded one still listed in INIT_CLIENT_API_TOKENS', async (t) => {
    await srv.stop();
    srv = await spawnServer({ dataDir, env: { ...env, INIT_CLIENT_API_TOKENS: SEEDED_SHOP } });
    admin = client(srv.url, { authorization: ADMIN });
    t.equal((await sdk(SEEDED_SHOP)).status, 200, 'the seeded token of the re-created project works');
    await ok('DELETE', '/api/admin/projects/shop');
    t.equal((await sdk(SEEDED_SHOP)).status, 401);
    await srv.stop();
    srv = await spawnServer({ dataDir, env: { ...env, INIT_CLIENT_API_TOKENS: SEEDED_SHOP } });
    admin = client(srv.url, { authorization: ADMIN });
    t.match(srv.output(), /a seeded API token was deleted \(through the API, or with its project or environment\); it stays deleted/, 'start-up warns instead of failing on the unknown project');
    for (const s of [SEEDED_SHOP, secrets.shopClient, secrets.stagingClient]) t.equal((await sdk(s)).status, 401);
    t.equal((await sdk(secrets.bothClient)).status, 200);
    t.same((await listed()).find((x) => x.tokenName === 'both-client')!.projects, ['default']);
  });
});
