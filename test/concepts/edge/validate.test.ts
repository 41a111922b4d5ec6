// POST /edge/validate against a real server process: the valid client and frontend tokens of a
// list, in Unleash 8.2's shape and order; nothing about the others but their absence; the callers
// Unleash Edge is (no token) and a relay is (a client or frontend token) answered, wrong tokens
// refused, and hostile bodies bounded.
import t from 'tap';
import { client, serve } from '../../helpers/server.js';

const ADMIN = '*:*.edge-admin';
const CLIENT = 'default:development.edge-client';
const PROD = 'default:production.edge-prod';
const FRONTEND = 'default:development.edge-frontend';
const V = '/edge/validate';
const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: `${CLIENT},${PROD}`, INIT_FRONTEND_API_TOKENS: FRONTEND };

t.test('/edge/validate lists the valid SDK tokens and says nothing of the others', async (t) => {
  const { srv, ok } = await serve(t, { env, authorization: ADMIN });
  const api = client(srv.url);
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  const multi = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'two-projects', type: 'backend', environment: 'production', projects: ['default', 'shop'] })).secret;
  const soon = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'expiring', type: 'client', environment: 'development', expiresAt: new Date(Date.now() + 1500).toISOString() })).secret;
  const revoked = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'revoked', type: 'client', environment: 'development' })).secret;
  const id = (await ok('GET', '/api/admin/api-tokens')).tokens.find((x: any) => x.tokenName === 'revoked').id;
  await ok('DELETE', `/api/admin/api-tokens/${id}`);
  await new Promise((r) => setTimeout(r, 1600));
  const ask = (tokens: unknown, authorization?: string) => api('POST', V, { tokens }, authorization === undefined ? {} : { authorization });

  const res = await ask([CLIENT, 'bogus', FRONTEND, ADMIN, multi, soon, revoked, `${CLIENT}x`, '', CLIENT]);
  t.equal(res.status, 200);
  t.same(res.json, {
    tokens: [
      { token: CLIENT, type: 'client', projects: ['default'], environment: 'development' },
      { token: FRONTEND, type: 'frontend', projects: ['default'], environment: 'development' },
      { token: multi, type: 'client', projects: ['default', 'shop'], environment: 'production' },
      { token: CLIENT, type: 'client', projects: ['default'], environment: 'development' },
    ],
  }, 'the valid client (backend ones included) and frontend tokens, in the order given, repeats kept; admin, unknown, expired, deleted and empty ones left out');
  t.same(Object.keys(res.json.tokens[0]), ['token', 'type', 'projects', 'environment'], "Unleash 8.2's fields, in its order");

  // Invalid tokens of every kind get the same answer, byte for byte: nothing tells them apart.
  const answers = new Set<string>();
  for (const bad of [['bogus'], [ADMIN], [soon], [revoked], [`${CLIENT}x`], ['*:*.'], ['x'.repeat(1000)], [' ']]) {
    const r = await ask(bad);
    answers.add(`${r.status} ${r.headers.get('content-type')} ${r.headers.get('content-length')} ${r.text}`);
  }
  t.same([...answers], ['200 application/json; charset=utf-8 13 {"tokens":[]}'], 'admin, unknown, expired, deleted and malformed tokens are all just absent');
  t.same((await ask([])).json, { tokens: [] }, 'an empty list is fine');

  // Who may ask.
  t.equal((await ask([CLIENT])).status, 200, 'without a token, as Unleash Edge asks');
  t.equal((await ask([CLIENT], '')).status, 200, 'an empty Authorization header is no token');
  t.same((await ask([PROD], CLIENT)).json.tokens.map((x: any) => x.environment), ['production'], 'with a client token (of any environment it may ask about any token it holds)');
  t.equal((await ask([CLIENT], FRONTEND)).status, 200, 'with a frontend token');
  t.equal((await ask([CLIENT], `Bearer ${CLIENT}`)).status, 200, 'with Bearer');
  t.match(await ask([CLIENT], ADMIN), { status: 403, json: { name: 'NoAccessError' } }, 'an admin token: 403');
  t.match(await ask([CLIENT], 'default:development.nope'), { status: 401, json: { name: 'AuthenticationRequired' } }, 'an unknown token: 401');
  t.match(await ask([CLIENT], revoked), { status: 401 }, 'a deleted token: 401');
});

t.test('/edge/validate: hostile bodies are bounded', async (t) => {
  const { api } = await serve(t, { env });
  const ask = (body: unknown, headers: Record<string, string> = {}) => api('POST', V, body, headers);
  t.match(await ask({ tokens: Array.from({ length: 1001 }, () => CLIENT) }), { status: 400, json: { name: 'ValidationError', message: /tokens/ } }, '1,001 tokens: 400');
  t.equal((await ask({ tokens: Array.from({ length: 1000 }, () => CLIENT) })).json.tokens.length, 1000, '1,000 tokens: answered');
  t.match(await ask({ tokens: ['x'.repeat(1001)] }), { status: 400, json: { message: /tokens/ } }, 'a token of 1,001 characters: 400');
  t.match(await ask({ tokens: [CLIENT, 7] }), { status: 400, json: { message: /tokens/ } }, 'a token that is not a string: 400');
  t.match(await ask({ tokens: CLIENT }), { status: 400 }, 'tokens not a list: 400');
  t.match(await ask({}), { status: 400, json: { message: /tokens/ } }, 'no tokens: 400');
  t.match(await ask([CLIENT]), { status: 400 }, 'a list instead of an object: 400');
  t.match(await ask({ tokens: [], padding: 'x'.repeat(128 * 1024) }), { status: 413, json: { name: 'PayloadTooLargeError' } }, 'a body over 128 KiB: 413');
  t.equal((await ask('tokens=x', { 'content-type': 'text/plain' })).status, 415, 'not JSON: 415');
  t.equal((await ask('{"tokens":')).status, 400, 'broken JSON: 400');
  t.equal((await api('GET', V)).status, 405, 'GET: 405');
});

t.test('/edge/validate with EDGE_VALIDATE_REQUIRE_TOKEN=true refuses callers without a token', async (t) => {
  const { api } = await serve(t, { env: { ...env, EDGE_VALIDATE_REQUIRE_TOKEN: 'true' } });
  t.equal((await api('POST', V, { tokens: [CLIENT] })).status, 401, 'no token: 401');
  t.equal((await api('POST', V, { tokens: [CLIENT] }, { authorization: ADMIN })).status, 403, 'admin: 403');
  t.same((await api('POST', V, { tokens: [CLIENT] }, { authorization: FRONTEND })).json.tokens.length, 1, 'a frontend token: answered');
});

t.test('/edge/validate with AUTH_TYPE=none still checks the tokens it is given', async (t) => {
  const { api, ok } = await serve(t, { env: { AUTH_TYPE: 'none' } });
  const made = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'edge', type: 'client', environment: 'production' })).secret;
  t.same((await api('POST', V, { tokens: [made, 'default:development.made-up'] })).json.tokens.map((x: any) => x.token), [made]);
});
