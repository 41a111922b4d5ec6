// Response hygiene: `X-Content-Type-Options: nosniff` on every answer (errors, 404s, the poll's
// prebuilt 200/304/gzip answers, Node's own parser errors), `Cache-Control: no-store` on every
// answer about token secrets, and a strategy parameter named "__proto__" refused, not dropped.
import net from 'node:net';
import t from 'tap';
import { client, spawnServer } from '../helpers/server.js';

const ADMIN = '*:*.headers-admin-secret';
const CLIENT = '*:development.headers-client-secret';
const P = '/api/admin/projects/default/features';

/** Sends raw bytes and returns the whole answer Node wrote before closing. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.on('data', (d) => (out += d.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    socket.setTimeout(5000, () => {
      socket.destroy();
      resolve(out);
    });
  });
}

t.test('nosniff on every kind of answer, no-store on token answers', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT } });
  t.teardown(() => srv.stop());
  const admin = client(srv.url, { authorization: ADMIN });
  const sdk = client(srv.url, { authorization: CLIENT });
  t.equal((await admin('POST', P, { name: 'f1' })).status, 201);

  const created = await admin('POST', P, { name: 'f2' });
  const poll = await sdk('GET', '/api/client/features');
  const answers: [string, { status: number; headers: Headers }][] = [
    ['an admin 201', created],
    ['an admin 200', await admin('GET', `${P}/f1`)],
    ['a 400', await admin('POST', P, { name: 'a b' })],
    ['a 401', await client(srv.url)('GET', `${P}/f1`)],
    ['a 403', await sdk('GET', `${P}/f1`)],
    ['a 404', await admin('GET', '/no/such/path')],
    ['a 415', await admin('POST', P, 'name=x', { 'content-type': 'text/plain' })],
    ['/health', await client(srv.url)('GET', '/health')],
    ['the poll, 200', poll],
    ['the poll, 304', await sdk('GET', '/api/client/features', undefined, { 'if-none-match': poll.headers.get('etag')! })],
    ['the poll, gzip', await sdk('GET', '/api/client/features', undefined, { 'accept-encoding': 'gzip' })],
    ['the poll, filtered', await sdk('GET', '/api/client/features?namePrefix=f')],
    ['one flag on the client API', await sdk('GET', '/api/client/features/f1')],
    ['a client 404', await sdk('GET', '/api/client/features/none')],
  ];
  for (const [what, res] of answers) t.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what} (${res.status})`);
  t.equal(answers.find(([w]) => w === 'the poll, 304')![1].status, 304, 'the 304 was a 304');

  // Node's parser refuses these before any handler runs: the hand-written answer has it too.
  const tooBig = await raw(srv.port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  t.match(tooBig, /^HTTP\/1\.1 431 /);
  t.match(tooBig, /\r\nX-Content-Type-Options: nosniff\r\n/i, '431 from the parser');
  const garbage = await raw(srv.port, 'NOT HTTP AT ALL\r\n\r\n');
  t.match(garbage, /^HTTP\/1\.1 400 [\s\S]*X-Content-Type-Options: nosniff/i, '400 from the parser');

  // Token answers: creation carries the secret; the rest are asked for by secret or list tokens.
  const token = await admin('POST', '/api/admin/api-tokens', { tokenName: 'app', type: 'client', environment: 'development', projects: ['*'] });
  t.equal(token.status, 201);
  t.type(token.json.secret, 'string');
  const tokenAnswers: [string, { status: number; headers: Headers }][] = [
    ['creation', token],
    ['the list', await admin('GET', '/api/admin/api-tokens')],
    ['by name', await admin('GET', '/api/admin/api-tokens/app')],
    ['expiry change', await admin('PUT', `/api/admin/api-tokens/${encodeURIComponent(token.json.secret)}`, { expiresAt: '2099-01-01T00:00:00.000Z' })],
    ['deletion', await admin('DELETE', `/api/admin/api-tokens/${encodeURIComponent(token.json.secret)}`)],
  ];
  for (const [what, res] of tokenAnswers) {
    t.ok(res.status < 300, `${what} succeeded (${res.status})`);
    t.equal(res.headers.get('cache-control'), 'no-store', `${what}: no-store`);
  }
});

t.test('a strategy parameter named "__proto__" is refused with a message, through both doors', async (t) => {
  const srv = await spawnServer();
  t.teardown(() => srv.stop());
  const api = client(srv.url);
  t.equal((await api('POST', P, { name: 'x' })).status, 201);
  // Sent as text: JSON.stringify would not put "__proto__" in as a key.
  const admin = await api('POST', `${P}/x/environments/development/strategies`, '{"name":"default","parameters":{"__proto__":"evil","a":"1"}}');
  t.equal(admin.status, 400);
  t.match(admin.json.message, /"parameters" has the key "__proto__"/);
  const imported = await api('POST', '/api/admin/state/import', '{"version":1,"features":[{"name":"y"}],"featureStrategies":[{"featureName":"y","environment":"development","strategyName":"default","parameters":{"__proto__":"x"}}]}');
  t.equal(imported.status, 400);
  t.match(imported.json.message, /featureStrategies\[0\]\.parameters" has the key "__proto__"/);
  t.equal((await api('GET', `${P}/y`)).status, 404, 'nothing of that import was applied');
  const many = await api('POST', `${P}/x/environments/development/strategies`, { name: 'default', parameters: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v'])) });
  t.equal(many.status, 400, 'at most 100 parameters');
  const ordinary = await api('POST', `${P}/x/environments/development/strategies`, { name: 'default', parameters: { constructor: 'c', toString: 't' } });
  t.equal(ordinary.status, 200, 'other Object.prototype names are ordinary parameters');
  t.same(ordinary.json.parameters, { constructor: 'c', toString: 't' });
});
