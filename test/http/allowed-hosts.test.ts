// DNS rebinding: a page on evil.example whose name is made to resolve to 127.0.0.1 is, to the
// browser, same-origin with itself, so it sends `Host: evil.example` and `Origin:
// http://evil.example` together and the cross-origin check sees nothing foreign. Without
// authentication such a page would be an admin. Against a real server with AUTH_TYPE=none: a
// request naming another host is refused (flag and admin token creation, reads, the SDK poll)
// and nothing is created; loopback names and addresses, an IP address, and a host listed in
// ALLOWED_HOSTS work.
import http from 'node:http';
import t from 'tap';
import { loadConfig } from '../../src/core/config.js';
import { hostNameOf, needsNoListing } from '../../src/http/hosts.js';
import { client, spawnServer } from '../helpers/server.js';

interface Answer {
  status: number;
  body: any;
}

/** One request with the given Host header (fetch does not let a caller set it). */
function request(port: number, method: string, path: string, host: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({
      host: '127.0.0.1', port, method, path, timeout: 10_000,
      headers: { host, ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode!, body: parsed });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

const FLAGS = '/api/admin/projects/default/features';
const TOKENS = '/api/admin/api-tokens';

t.test('AUTH_TYPE=none: requests naming another host are refused, loopback and listed hosts served', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'none', ALLOWED_HOSTS: 'flags.internal' } });
  t.teardown(() => srv.stop());
  const evil = { origin: 'http://evil.example', 'sec-fetch-site': 'same-origin' };

  const attacks: [string, string, unknown?][] = [
    ['POST', FLAGS, { name: 'rebound' }],
    ['POST', TOKENS, { tokenName: 'rebound', type: 'admin', projects: ['*'], environment: '*' }],
    ['GET', TOKENS],
    ['GET', '/api/admin/projects'],
    ['GET', '/api/client/features'],
    ['GET', '/'],
  ];
  const through: string[] = [];
  for (const host of ['evil.example', 'evil.example:80', `evil.example:${srv.port}`, 'EVIL.example.', 'localhost.evil.example', '127.0.0.1.evil.example']) {
    for (const [method, path, body] of attacks) {
      const res = await request(srv.port, method, path, host, body, evil);
      if (res.status !== 403 || res.body?.name !== 'NoAccessError' || !/ALLOWED_HOSTS/.test(res.body?.message ?? '')) through.push(`Host ${host}: ${method} ${path} → ${res.status}`);
    }
  }
  t.same(through, [], 'every request naming another host is refused with 403 NoAccessError pointing at ALLOWED_HOSTS');
  const refused = await request(srv.port, 'POST', FLAGS, 'evil.example', { name: 'rebound' }, evil);
  t.match(refused.body, { id: String, name: 'NoAccessError', message: /Host "evil\.example"/ }, 'the error names the host');

  const api = client(srv.url);
  t.same((await api('GET', FLAGS)).json.features.map((f: any) => f.name), [], 'no flag was created');
  t.same((await api('GET', TOKENS)).json.tokens.filter((k: any) => k.tokenName === 'rebound'), [], 'no token was created');

  const served: string[] = [];
  for (const host of ['localhost', `localhost:${srv.port}`, 'console.localhost', `127.0.0.1:${srv.port}`, '127.8.9.10', '[::1]', `[::1]:${srv.port}`, '10.1.2.3', 'flags.internal', `FLAGS.internal:${srv.port}`]) {
    const res = await request(srv.port, 'GET', '/api/admin/projects', host);
    if (res.status !== 200) served.push(`Host ${host} → ${res.status}`);
  }
  t.same(served, [], 'loopback names and addresses, IP addresses and ALLOWED_HOSTS are served');
  t.equal((await request(srv.port, 'POST', FLAGS, 'flags.internal', { name: 'from-a-listed-host' })).status, 201, 'a listed host creates a flag');
  t.equal((await request(srv.port, 'GET', '/health', 'evil.example')).status, 200, 'health answers whatever the host (it says nothing)');
});

t.test('with tokens and no ALLOWED_HOSTS, the Host is not checked; with ALLOWED_HOSTS it is', async (t) => {
  const ADMIN = '*:*.allowed-hosts-admin-secret';
  const open = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN } });
  t.teardown(() => open.stop());
  t.equal((await request(open.port, 'GET', '/api/admin/projects', 'flags.example.com', undefined, { authorization: ADMIN })).status, 200, 'any host, with a token');
  const strict = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, ALLOWED_HOSTS: 'flags.example.com' } });
  t.teardown(() => strict.stop());
  t.equal((await request(strict.port, 'GET', '/api/admin/projects', 'flags.example.com', undefined, { authorization: ADMIN })).status, 200, 'a listed host');
  t.equal((await request(strict.port, 'GET', '/api/admin/projects', 'other.example.com', undefined, { authorization: ADMIN })).status, 403, 'another host');
});

t.test('Host parsing, and ALLOWED_HOSTS read strictly', async (t) => {
  t.equal(hostNameOf('Flags.Internal:4242'), 'flags.internal');
  t.equal(hostNameOf('evil.example.'), 'evil.example');
  t.equal(hostNameOf('[::1]:4242'), '::1');
  for (const name of ['localhost', 'a.localhost', '127.0.0.1', '10.1.2.3', '::1', 'fe80::1']) t.ok(needsNoListing(name), `${name} needs no listing`);
  for (const name of ['evil.example', 'localhost.evil.example', '127.0.0.1.evil.example', '2130706433x', '']) t.notOk(needsNoListing(name), `${name} must be listed`);
  t.same(loadConfig({ ALLOWED_HOSTS: 'Flags.Internal, console.example.com.' }).http.allowedHosts, ['flags.internal', 'console.example.com']);
  t.throws(() => loadConfig({ ALLOWED_HOSTS: 'https://flags.internal' }), /ALLOWED_HOSTS must list host names such as flags\.example\.com \(no scheme, port or wildcard\), got "https:\/\/flags\.internal"/);
  t.throws(() => loadConfig({ ALLOWED_HOSTS: '*.example.com' }), /ALLOWED_HOSTS/);
});
