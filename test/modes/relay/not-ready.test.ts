// A relay that has not had a TOKENS entry's flags yet (its upstream down since it started) answers
// that token 503 with Retry-After, which SDKs retry, not 401, which says the token is wrong; a
// token it was not given is still refused. /ready says 503, /health 200.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { freePort } from '../../helpers/ports.js';
import { startRelay, UP_CLIENT, UP_FRONTEND } from '../../helpers/relay.js';

t.test('a TOKENS entry on a relay that never synced, its upstream down: 503 with Retry-After (SDKs retry), not 401', async (t) => {
  // Nothing listens there: the relay starts, cannot check its tokens nor fetch their flags.
  const relay = await startRelay(t, `http://127.0.0.1:${await freePort()}`, { env: { UPSTREAM_REQUEST_TIMEOUT: '1' } });
  const ask = async (path: string, token: string) => {
    const res = await fetch(`${relay.url}${path}`, { headers: { authorization: token } });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { name?: string; message?: string } };
  };
  for (const [path, token] of [['/api/client/features', UP_CLIENT], ['/api/frontend', UP_FRONTEND], ['/api/client/features', UP_CLIENT]] as const) {
    const res = await ask(path, token);
    t.same([res.status, res.body.name], [503, 'ServiceUnavailableError'], `${path} with a TOKENS entry: 503 (${res.status} ${res.body.message})`);
    t.ok(Number(res.retryAfter) >= 1, `with Retry-After (${res.retryAfter})`);
    t.match(res.body.message, /not ready|upstream/i, 'saying the relay has no flags for it yet');
  }
  const made = await ask('/api/client/features', `*:development.${randomBytes(16).toString('hex')}`);
  t.equal(made.status, 401, 'a token the relay was not given is still refused');
  t.equal((await fetch(`${relay.url}/ready`)).status, 503, '/ready: 503');
  t.equal((await fetch(`${relay.url}/health`)).status, 200, '/health: 200, alive');
});
