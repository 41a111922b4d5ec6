// A connection's repeated poll answered 304 before anything else (src/concepts/client-api/repeat-polls.ts):
// which requests it answers, in process over real sockets; and, against a real server process,
// that it never answers what the whole path would refuse or answer otherwise.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { ClientScope, CredentialUse } from '../../../src/core/access/access.js';
import { RepeatPolls } from '../../../src/concepts/client-api/repeat-polls.js';
import { HotCounters } from '../../../src/http/counters.js';
import { batchDocument } from '../../helpers/big-import.js';
import { oneConnection, request, type Answer } from '../../helpers/connection.js';
import { serve } from '../../helpers/server.js';

const F = '/api/client/features';

t.test('RepeatPolls answers only an exact repeat on the same connection, until forgotten or expired', async (t) => {
  const hot = new HotCounters();
  let clock = 1_000;
  const repeats = new RepeatPolls(hot, () => clock);
  const credential: CredentialUse = { expiresAtMs: 5_000, usedAt: 0 };
  const scope: ClientScope = { environment: 'production', projects: ['*'], key: 'k', actor: { name: 'sdk', userId: null }, credential };
  const ETAG = '"abc"';
  const NOT_MODIFIED = ['ETag', ETAG, 'Vary', 'Accept-Encoding'];
  // The whole path stands for Fanion's: it counts what reached it and remembers what it answered.
  let whole = 0;
  const server = http.createServer((req, res) => {
    if (repeats.answer(req, res)) return;
    whole++;
    repeats.remember(req, scope, ETAG, NOT_MODIFIED);
    if (req.headers['if-none-match'] === ETAG) {
      res.writeHead(304, NOT_MODIFIED);
      res.end();
    } else {
      res.writeHead(200, ['ETag', ETAG, 'Content-Type', 'application/json']);
      res.end('{"features":[]}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = oneConnection();
  t.teardown(() => agent.destroy());
  const poll = { authorization: 'token-a', 'if-none-match': ETAG };

  const first = await request(agent, `${base}${F}`, poll);
  t.equal(first.status, 304);
  t.equal(whole, 1, 'the first poll takes the whole path');
  clock = 2_000;
  const again = await request(agent, `${base}${F}`, poll);
  t.equal(again.status, 304);
  t.equal(again.headers.etag, ETAG);
  t.equal(again.headers.vary, 'Accept-Encoding', 'the remembered headers are sent');
  t.equal(whole, 1, 'the repeat is answered before the whole path');
  t.equal(credential.usedAt, 2_000, "the token's use is recorded");
  t.same(hot.polls.get('production'), [0, 1], 'and counted as a 304 poll of its environment');

  const differing: [string, () => Promise<Answer>][] = [
    ['another Authorization header', () => request(agent, `${base}${F}`, { ...poll, authorization: 'token-b' })],
    ['no Authorization header', () => request(agent, `${base}${F}`, { 'if-none-match': ETAG })],
    ['another URL (a query)', () => request(agent, `${base}${F}?project=default`, poll)],
    ['another ETag', () => request(agent, `${base}${F}`, { ...poll, 'if-none-match': '"other"' })],
    ['a weak form of the same ETag', () => request(agent, `${base}${F}`, { ...poll, 'if-none-match': `W/${ETAG}` })],
    ['HEAD', () => request(agent, `${base}${F}`, poll, 'HEAD')],
  ];
  for (const [what, send] of differing) {
    // Make the exact poll the remembered one again, then send the differing one.
    await request(agent, `${base}${F}`, poll);
    const before = whole;
    await send();
    t.equal(whole, before + 1, `${what}: the whole path`);
  }

  await request(agent, `${base}${F}`, poll);
  let before = whole;
  await request(agent, `${base}${F}`, poll);
  t.equal(whole, before, 'an exact repeat again: answered here');
  repeats.forget();
  await request(agent, `${base}${F}`, poll);
  t.equal(whole, before + 1, 'after a change of the state: the whole path');

  const other = oneConnection();
  t.teardown(() => other.destroy());
  before = whole;
  await request(other, `${base}${F}`, poll);
  t.equal(whole, before + 1, "another connection's first poll: the whole path (what one connection proved is its own)");

  await request(agent, `${base}${F}`, poll);
  before = whole;
  clock = 5_000;
  await request(agent, `${base}${F}`, poll);
  t.equal(whole, before + 1, 'once the token has expired: the whole path (which refuses it)');
});

t.test('against a real server, a connection repeating its poll is refused or answered anew exactly when the whole path would', async (t) => {
  const ADMIN = `*:*.${randomBytes(12).toString('hex')}`;
  // No metrics flush: nothing but the test's own requests changes the state.
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, METRICS_FLUSH_MS: '0' }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects/default/features', { name: 'alpha' });
  const token = async (extra: Record<string, unknown> = {}) =>
    (await ok('POST', '/api/admin/api-tokens', { tokenName: 'sdk', type: 'client', environment: 'development', projects: ['*'], ...extra })).secret as string;
  const url = srv.url + F;

  t.test('a change of a flag: the old ETag gets the new flags', async (t) => {
    const secret = await token();
    const agent = oneConnection();
    t.teardown(() => agent.destroy());
    const first = await request(agent, url, { authorization: secret });
    t.equal(first.status, 200);
    const etag = first.headers.etag!;
    for (let i = 0; i < 3; i++) t.equal((await request(agent, url, { authorization: secret, 'if-none-match': etag })).status, 304);
    await ok('POST', '/api/admin/projects/default/features', { name: 'beta' });
    const after = await request(agent, url, { authorization: secret, 'if-none-match': etag });
    t.equal(after.status, 200, 'not 304: the flags changed');
    t.not(after.headers.etag, etag);
    t.same((JSON.parse(after.body) as { features: { name: string }[] }).features.map((f) => f.name), ['alpha', 'beta']);
  });

  t.test('a deleted token: 401 on the connection that used it a moment ago', async (t) => {
    const secret = await token();
    const agent = oneConnection();
    t.teardown(() => agent.destroy());
    const etag = (await request(agent, url, { authorization: secret })).headers.etag!;
    for (let i = 0; i < 3; i++) t.equal((await request(agent, url, { authorization: secret, 'if-none-match': etag })).status, 304);
    await ok('DELETE', `/api/admin/api-tokens/${encodeURIComponent(secret)}`);
    t.equal((await request(agent, url, { authorization: secret, 'if-none-match': etag })).status, 401);
  });

  t.test('an expired token: 401 on the connection that used it before it expired, with no other change', async (t) => {
    const expiresAt = Date.now() + 2_500;
    const secret = await token({ expiresAt: new Date(expiresAt).toISOString() });
    const agent = oneConnection();
    t.teardown(() => agent.destroy());
    const etag = (await request(agent, url, { authorization: secret })).headers.etag!;
    for (let i = 0; i < 3; i++) t.equal((await request(agent, url, { authorization: secret, 'if-none-match': etag })).status, 304);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 100));
    const late = await request(agent, url, { authorization: secret, 'if-none-match': etag });
    t.equal(late.status, 401);
    t.match(JSON.parse(late.body), { name: 'AuthenticationRequired', message: /expired/ });
  });

  t.test("another token on the same connection gets its own environment's answer", async (t) => {
    // Enabled in one environment only: the two environments' answers (and ETags) differ.
    await ok('POST', '/api/admin/projects/default/features/alpha/environments/development/on');
    const dev = await token();
    const prod = await token({ environment: 'production' });
    const agent = oneConnection();
    t.teardown(() => agent.destroy());
    const etag = (await request(agent, url, { authorization: dev })).headers.etag!;
    t.equal((await request(agent, url, { authorization: dev, 'if-none-match': etag })).status, 304);
    t.equal((await request(agent, url, { authorization: dev, 'if-none-match': etag })).status, 304);
    const other = await request(agent, url, { authorization: prod, 'if-none-match': etag });
    t.equal(other.status, 200, "the development answer's ETag is not production's");
    t.equal((await request(agent, url, { authorization: 'default:development.unknown', 'if-none-match': etag })).status, 401, 'an unknown token: 401');
  });
});

t.test('a large import applied in slices: a connection polling throughout gets the new flags once it is applied', async (t) => {
  // Between the import's slices polls get the answer cached before it. That answer must not be
  // remembered: the change's own notice may already have come, and nothing else would make the
  // connection forget it.
  const FLAGS = 20_000;
  const { srv } = await serve(t);
  const url = srv.url + F;
  const agent = oneConnection();
  t.teardown(() => agent.destroy());
  const etag = (await request(agent, url)).headers.etag!;
  let done = false;
  const imported = fetch(`${srv.url}/api/admin/features-batch/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ project: 'default', environment: 'development', data: batchDocument(FLAGS) }),
  }).then((res) => {
    done = true;
    return res.status;
  });
  const statuses: number[] = [];
  while (!done) statuses.push((await request(agent, url, { 'if-none-match': etag })).status);
  t.equal(await imported, 200);
  const shown = statuses.join(' ').replace(/\b(\d+)( \1\b)+/g, (run, s: string) => `${s} ×${run.split(' ').length}`);
  t.ok(statuses.length > 3, `polled throughout the import (${shown})`);
  t.match(statuses.join(' '), /^(304 )*(304|200)( 200)*$/, 'not modified until the import is applied, then the new flags');
  const after = await request(agent, url, { 'if-none-match': etag });
  t.equal(after.status, 200, 'the ETag from before the import: the new flags');
  t.equal((JSON.parse(after.body) as { features: unknown[] }).features.length, FLAGS);
});
