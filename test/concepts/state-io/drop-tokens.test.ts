// A state import with drop=true that removes projects or environments takes their API tokens
// along, in the same change, as deleting them through the API does: over HTTP against a real
// server with AUTH_TYPE=api-token, across a restart, with no secret in the events.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { client, spawnServer, tempDataDir, succeeding } from '../../helpers/server.js';

const rnd = () => randomBytes(16).toString('hex');
const ADMIN = `*:*.${rnd()}`;
const TOKENS = '/api/admin/api-tokens';
const IMPORT = '/api/admin/state/import';

interface Ev {
  id: number;
  type: string;
  data: { tokenName?: string; projects?: string[] } | null;
  preData: { tokenName?: string; projects?: string[] } | null;
}

t.test('import drop=true: tokens of dropped projects and environments are deleted or narrowed at once', async (t) => {
  const dataDir = tempDataDir();
  const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN };
  let srv = await spawnServer({ dataDir, env });
  t.teardown(() => srv.stop());
  let admin = client(srv.url, { authorization: ADMIN });
  const ok = succeeding(() => admin);
  for (const id of ['shop', 'web']) await ok('POST', '/api/admin/projects', { id, name: id });
  await ok('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
  await ok('POST', '/api/admin/projects/web/features', { name: 'banner' });
  const make = async (body: Record<string, unknown>) => (await ok('POST', TOKENS, body)).secret as string;
  const secrets = {
    shopClient: await make({ tokenName: 'shop-client', type: 'client', environment: 'development', project: 'shop' }),
    shopWebAdmin: await make({ tokenName: 'shop-web-admin', type: 'admin', projects: ['shop', 'web'] }),
    stagingClient: await make({ tokenName: 'staging-client', type: 'client', environment: 'staging' }),
    webClient: await make({ tokenName: 'web-client', type: 'client', environment: 'production', project: 'web' }),
  };
  const sdk = (secret: string) => client(srv.url, { authorization: secret })('GET', '/api/client/features');
  const asAdmin = (secret: string, path: string) => client(srv.url, { authorization: secret })('GET', path);
  const listed = async () => (await ok('GET', TOKENS)).tokens as { tokenName: string; projects: string[] }[];
  const envs = [{ name: 'development', type: 'development' }, { name: 'production', type: 'production' }];

  t.test('a drop whose document brings the project and environment back leaves their tokens alone', async (t) => {
    const res = await admin('POST', `${IMPORT}?drop=true`, { version: 4, projects: [{ id: 'default' }, { id: 'shop' }, { id: 'web' }], environments: [...envs, { name: 'staging', type: 'test' }] });
    t.equal(res.status, 202);
    for (const s of [secrets.shopClient, secrets.stagingClient, secrets.webClient]) t.equal((await sdk(s)).status, 200);
    t.equal((await listed()).length, 5);
  });

  t.test('dropping shop and staging: their tokens get 401 right after the 202, a token of shop and web keeps web', async (t) => {
    const lastBefore = (await ok('POST', '/api/admin/events/search', { limit: 1 })).events[0].id;
    const res = await admin('POST', `${IMPORT}?drop=true`, { version: 4, projects: [{ id: 'default' }, { id: 'web' }], environments: envs });
    t.equal(res.status, 202);
    for (const s of [secrets.shopClient, secrets.stagingClient]) {
      const r = await sdk(s);
      t.equal(r.status, 401);
      t.equal(r.json.name, 'AuthenticationRequired');
    }
    t.equal((await sdk(secrets.webClient)).status, 200, 'a token of a project and environment still there works');
    t.equal((await asAdmin(secrets.shopWebAdmin, '/api/admin/projects/web')).status, 200, 'the two-project admin token still works on web');
    const tokens = await listed();
    t.same(tokens.map((x) => x.tokenName).sort(), ['init-admin-token', 'shop-web-admin', 'web-client']);
    t.same(tokens.find((x) => x.tokenName === 'shop-web-admin')!.projects, ['web']);

    const events = ((await ok('POST', '/api/admin/events/search', {})).events as Ev[]).filter((e) => e.id > lastBefore).reverse();
    const name = (e: Ev) => e.preData?.tokenName ?? e.data?.tokenName ?? '';
    t.same(events.map((e) => e.type), [
      'drop-environments', 'environment-import', 'environment-import', 'drop-projects', 'project-import', 'project-import',
      'api-token-deleted', 'api-token-updated', 'api-token-deleted',
    ], 'the import events, then one event per token');
    t.same(events.filter((e) => e.type.startsWith('api-token')).map(name), ['shop-client', 'shop-web-admin', 'staging-client'], 'oldest token first');
    t.match(events.find((e) => e.type === 'api-token-updated'), { data: { projects: ['web'] }, preData: { projects: ['shop', 'web'] } });
    t.same(events.map((e) => e.id), events.map((_, i) => lastBefore + 1 + i), 'consecutive ids: recorded by the one change');
    const text = JSON.stringify(events);
    for (const s of Object.values(secrets)) t.notOk(text.includes(s.slice(s.indexOf('.') + 1)), 'no secret in the events');
  });

  t.test('after a restart (the WAL replayed) they stay deleted, also when shop and staging are imported again', async (t) => {
    await srv.stop();
    srv = await spawnServer({ dataDir, env });
    admin = client(srv.url, { authorization: ADMIN });
    t.equal((await admin('POST', IMPORT, { version: 4, projects: [{ id: 'shop' }], environments: [{ name: 'staging', type: 'test' }] })).status, 202);
    for (const s of [secrets.shopClient, secrets.stagingClient]) t.equal((await sdk(s)).status, 401);
    t.equal((await sdk(secrets.webClient)).status, 200);
    t.same((await listed()).find((x) => x.tokenName === 'shop-web-admin')!.projects, ['web'], 'nor is a narrowed token widened again');
  });
});
