// /api/admin/api-tokens and start-up seeding, through HTTP against real server processes:
// create/list/update/delete, scoped admin tokens, expiry, restart survival, revocation that
// seeding cannot undo, and the generated first admin token.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { client, spawnServer, tempDataDir } from '../../helpers/server.js';

const rnd = () => randomBytes(12).toString('hex');
const ADMIN = `*:*.${rnd()}`;
const SEEDED_CLIENT = `default:development.${rnd()}`;
const TOKENS = '/api/admin/api-tokens';
const FLAGS = '/api/admin/projects/default/features';
const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: SEEDED_CLIENT };

t.test('token lifecycle over HTTP, across restarts', async (t) => {
  const dataDir = tempDataDir();
  let srv = await spawnServer({ dataDir, env });
  t.teardown(() => srv.stop());
  let admin = client(srv.url, { authorization: ADMIN });
  let created: { secret: string; id: string } = { secret: '', id: '' };

  t.test('no token is generated or printed when an admin token is seeded', async (t) => {
    t.notMatch(srv.output(), /FIRST ADMIN TOKEN/);
  });

  t.test('POST creates a client token: 201 with the secret, scoped as asked', async (t) => {
    const res = await admin('POST', TOKENS, { tokenName: 'checkout-service', type: 'backend', environment: 'production', project: 'default' });
    t.equal(res.status, 201);
    t.match(res.json.secret, /^default:production\.[0-9a-f]{64}$/);
    t.match(res.json, { tokenName: 'checkout-service', type: 'client', environment: 'production', project: 'default', projects: ['default'], expiresAt: null });
    created = res.json;
    const sdk = client(srv.url, { authorization: created.secret });
    t.equal((await sdk('GET', '/api/client/features')).status, 200, 'the new token works on the client API at once');
  });

  t.test('GET lists tokens without any secret', async (t) => {
    const res = await admin('GET', TOKENS);
    t.equal(res.status, 200);
    t.same(res.json.tokens.map((x: any) => x.tokenName).sort(), ['checkout-service', 'init-admin-token', 'init-client-token']);
    t.ok(res.json.tokens.every((x: any) => !('secret' in x)));
    for (const s of [ADMIN, SEEDED_CLIENT, created.secret]) t.notOk(res.text.includes(s.split('.')[1]), 'no secret in the listing');
    const byName = await admin('GET', `${TOKENS}/checkout-service`);
    t.same(byName.json.tokens.map((x: any) => x.id), [created.id]);
  });

  t.test('invalid bodies are 400 ValidationError naming the field; nothing is created', async (t) => {
    const cases: [unknown, RegExp][] = [
      [{ tokenName: 'x', type: 'client', environment: 'staging' }, /environment/],
      [{ tokenName: 'x', type: 'client', project: 'nope' }, /project/],
      [{ tokenName: 'x', type: 'root' }, /type/],
      [{ type: 'client' }, /tokenName/],
      [{ tokenName: 'x', type: 'client', environment: '*' }, /environment/],
      [{ tokenName: 'x', type: 'client', expiresAt: '2001-01-01T00:00:00Z' }, /expiresAt/],
      [{ tokenName: 'x', type: 'client', expiresAt: 'tomorrow' }, /expiresAt/],
    ];
    for (const [body, field] of cases) {
      const res = await admin('POST', TOKENS, body);
      t.equal(res.status, 400, JSON.stringify(body));
      t.equal(res.json.name, 'ValidationError');
      t.match(res.json.message, field);
    }
    t.equal((await admin('GET', TOKENS)).json.tokens.length, 3);
  });

  t.test('PUT changes the expiry, by secret (URL-encoded) or by id; unknown is 404 without echo', async (t) => {
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const res = await admin('PUT', `${TOKENS}/${encodeURIComponent(created.secret)}`, { expiresAt: later });
    t.equal(res.status, 200);
    t.equal(res.json.expiresAt, later);
    t.notOk(res.text.includes(created.secret.split('.')[1]));
    t.equal((await admin('PUT', `${TOKENS}/${created.id}`, { expiresAt: null })).json.expiresAt, null);
    const unknown = `default:production.${rnd()}`;
    const miss = await admin('PUT', `${TOKENS}/${encodeURIComponent(unknown)}`, { expiresAt: null });
    t.equal(miss.status, 404);
    t.equal(miss.json.name, 'NotFoundError');
    t.notOk(miss.text.includes(unknown.split('.')[1]), 'the unknown secret is not repeated');
    const odd = await admin('PATCH', `${TOKENS}/${encodeURIComponent(unknown)}`, {});
    t.equal(odd.status, 405, 'PATCH is not a method of that path');
    t.notOk(odd.text.includes(unknown.split('.')[1]), 'not even by the wrong-method answer');
  });

  t.test('events record token changes, by the acting token, never with a secret', async (t) => {
    const res = await admin('GET', '/api/admin/events');
    const types = res.json.events.map((e: any) => e.type);
    t.ok(types.includes('api-token-created'));
    t.ok(types.includes('api-token-updated'));
    const mine = res.json.events.find((e: any) => e.type === 'api-token-created' && e.data.tokenName === 'checkout-service');
    t.equal(mine.createdBy, 'init-admin-token', "createdBy is the acting token's name");
    for (const s of [ADMIN, SEEDED_CLIENT, created.secret]) t.notOk(res.text.includes(s.split('.')[1]));
  });

  t.test('a scoped admin token acts inside its project and environment only', async (t) => {
    const made = await admin('POST', TOKENS, { tokenName: 'dev-admin', type: 'admin', project: 'default', environment: 'development' });
    t.equal(made.status, 201);
    const scoped = client(srv.url, { authorization: `Bearer ${made.json.secret}` });
    t.equal((await scoped('POST', FLAGS, { name: 'scoped-flag' })).status, 201, 'creates a flag in its project');
    t.equal((await scoped('POST', `${FLAGS}/scoped-flag/environments/development/strategies`, { name: 'default' })).status, 200);
    const prod = await scoped('POST', `${FLAGS}/scoped-flag/environments/production/strategies`, { name: 'default' });
    t.equal(prod.status, 403);
    t.equal(prod.json.name, 'NoAccessError');
    t.match(prod.json.message, 'You need permission=CREATE_FEATURE_STRATEGY to perform this action on environment=production');
    const tokens = await scoped('GET', TOKENS);
    t.equal(tokens.status, 403, 'cannot see or make tokens, so it cannot widen itself');
    const events = await admin('GET', '/api/admin/events?feature=scoped-flag');
    t.equal(events.json.events.find((e: any) => e.type === 'feature-created').createdBy, 'dev-admin');
  });

  t.test('an expired token is refused with 401', async (t) => {
    const made = await admin('POST', TOKENS, { tokenName: 'short-lived', type: 'client', expiresAt: new Date(Date.now() + 2000).toISOString() });
    t.equal(made.status, 201);
    const sdk = client(srv.url, { authorization: made.json.secret });
    const early = await sdk('GET', '/api/client/features');
    const waitMs = Date.parse(made.json.expiresAt) - Date.now() + 50;
    t.equal(early.status, 200, 'works before its expiry');
    await new Promise((r) => setTimeout(r, Math.max(0, waitMs)));
    const late = await sdk('GET', '/api/client/features');
    t.equal(late.status, 401);
    t.equal(late.json.name, 'AuthenticationRequired');
    t.match(late.json.message, /expired/);
  });

  t.test('DELETE revokes at once, by secret; the seeded client token too', async (t) => {
    t.equal((await admin('DELETE', `${TOKENS}/${encodeURIComponent(SEEDED_CLIENT)}`)).status, 200);
    t.equal((await client(srv.url, { authorization: SEEDED_CLIENT })('GET', '/api/client/features')).status, 401);
    t.equal((await admin('DELETE', `${TOKENS}/${encodeURIComponent(SEEDED_CLIENT)}`)).status, 404, 'a second delete finds nothing');
    const events = await admin('GET', '/api/admin/events');
    const del = events.json.events.find((e: any) => e.type === 'api-token-deleted');
    t.equal(del.preData.tokenName, 'init-client-token');
  });

  t.test('after a restart: created tokens work, the deleted seeded token stays deleted', async (t) => {
    t.equal(await srv.stop(), 0);
    srv = await spawnServer({ dataDir, env });
    admin = client(srv.url, { authorization: ADMIN });
    t.equal((await admin('GET', TOKENS)).status, 200, 'the seeded admin token still matches (same hash key)');
    t.equal((await client(srv.url, { authorization: created.secret })('GET', '/api/client/features')).status, 200);
    t.equal((await client(srv.url, { authorization: SEEDED_CLIENT })('GET', '/api/client/features')).status, 401);
    t.match(srv.output(), /a seeded API token was deleted \(through the API, or with its project or environment\); it stays deleted/);
    const names = (await admin('GET', TOKENS)).json.tokens.map((x: any) => x.tokenName);
    t.notOk(names.includes('init-client-token'));
    t.equal(names.filter((n: string) => n === 'init-admin-token').length, 1, 'seeding twice does not duplicate');
  });

  t.test('no file in the data folder holds a secret, in clear or hex', async (t) => {
    const files = fs.readdirSync(dataDir).filter((f) => fs.statSync(path.join(dataDir, f)).isFile());
    t.ok(files.some((f) => f.startsWith('wal-')), 'the WAL is among them');
    const all = Buffer.concat(files.map((f) => fs.readFileSync(path.join(dataDir, f))));
    for (const s of [ADMIN, SEEDED_CLIENT, created.secret]) {
      const random = s.slice(s.indexOf('.') + 1);
      t.equal(all.indexOf(random), -1);
      t.equal(all.indexOf(Buffer.from(random).toString('hex')), -1);
    }
  });
});

t.test('with no admin token, one is generated, printed once, stored, and works after a restart', async (t) => {
  const dataDir = tempDataDir();
  const first = await spawnServer({ dataDir, env: { AUTH_TYPE: 'api-token' } });
  const m = /FIRST ADMIN TOKEN[^\n]*: (\*:\*\.[0-9a-f]{64})\n/.exec(first.output());
  t.ok(m, 'a clear line with the token');
  const secret = m![1];
  t.equal(first.output().split(secret).length - 1, 1, 'printed exactly once, nowhere else in the output');
  t.equal((await client(first.url, { authorization: secret })('GET', TOKENS)).status, 200);
  await first.stop();
  const second = await spawnServer({ dataDir, env: { AUTH_TYPE: 'api-token' } });
  t.teardown(() => second.stop());
  t.notMatch(second.output(), /FIRST ADMIN TOKEN/, 'not generated again');
  t.equal((await client(second.url, { authorization: secret })('GET', TOKENS)).status, 200);
});

t.test('a malformed INIT token stops start-up without printing the token', async (t) => {
  const bad = `no-scope-${rnd()}`;
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_CLIENT_API_TOKENS: bad }, expectExit: true });
  t.equal(srv.proc.exitCode, 2, "a bad setting: exit code 2, before the data folder is opened");
  t.match(srv.output(), /INIT_CLIENT_API_TOKENS\/INIT_BACKEND_API_TOKENS entry 1 is not of the form/);
  t.notOk(srv.output().includes(bad));
});

t.test('AUTH_TYPE=none says so loudly and lets anyone act as "admin"', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'none' } });
  t.teardown(() => srv.stop());
  t.match(srv.output(), /"level":40[^\n]*AUTH_TYPE=none: authentication is OFF/);
  t.notMatch(srv.output(), /FIRST ADMIN TOKEN/);
  const anyone = client(srv.url);
  t.equal((await anyone('POST', FLAGS, { name: 'open' })).status, 201);
  const ev = await anyone('GET', '/api/admin/events?feature=open');
  t.equal(ev.json.events[0].createdBy, 'admin');
  t.equal((await anyone('GET', '/api/client/features')).status, 200);
});
