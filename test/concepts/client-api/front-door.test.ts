// The SDK poll's front door (src/concepts/client-api/front-door.ts): which answer `decide` picks for
// a request and its connection's remembered poll; and, against a real server process, that a
// connection repeating its poll is never answered what the whole path would refuse or answer otherwise.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { decide, touchesPolls, type Knock, type Remembered } from '../../../src/concepts/client-api/front-door.js';
import { batchDocument } from '../../helpers/big-import.js';
import { oneConnection, request } from '../../helpers/connection.js';
import { serve } from '../../helpers/server.js';

const F = '/api/client/features';

t.test('decide: a repeat only for the exact poll, on the same state, before the token expires', async (t) => {
  const ETAG = '"abc"';
  const remembered: Remembered = {
    url: F, authorization: 'token-a', etag: ETAG, notModified: ['ETag', ETAG], environment: 'production', credential: { expiresAtMs: 5_000, usedAt: 0 }, generation: 7,
  };
  const poll: Knock = { method: 'GET', url: F, headers: { authorization: 'token-a', 'if-none-match': ETAG } };
  let reads = 0;
  const at = (ms: number) => () => {
    reads++;
    return ms;
  };
  t.equal(decide(poll, remembered, 7, at(1_000)), 'repeat', 'the exact poll, nothing changed: 304 from memory');
  t.equal(reads, 1, 'the clock is read for a token that expires');
  t.equal(decide(poll, { ...remembered, credential: undefined }, 7, at(9_999)), 'repeat', 'no credential (AUTH_TYPE=none): nothing expires');
  t.equal(decide(poll, remembered, 7, at(5_000)), 'poll', 'the token has expired: the whole path, which refuses it');
  t.equal(decide(poll, remembered, 8, at(1_000)), 'poll', 'the state changed since: the whole path');
  t.equal(decide(poll, undefined, 7, at(1_000)), 'poll', 'nothing remembered (another connection, or its first poll): the whole path');
  const differing: [string, Knock][] = [
    ['another Authorization header', { ...poll, headers: { ...poll.headers, authorization: 'token-b' } }],
    ['no Authorization header', { ...poll, headers: { 'if-none-match': ETAG } }],
    ['another URL (a query)', { ...poll, url: `${F}?project=default` }],
    ['another ETag', { ...poll, headers: { ...poll.headers, 'if-none-match': '"other"' } }],
    ['a weak form of the same ETag', { ...poll, headers: { ...poll.headers, 'if-none-match': `W/${ETAG}` } }],
    ['no If-None-Match', { ...poll, headers: { authorization: 'token-a' } }],
    ['HEAD', { ...poll, method: 'HEAD' }],
  ];
  for (const [what, knock] of differing) t.equal(decide(knock, remembered, 7, at(1_000)), 'poll', `${what}: the whole poll path`);
  t.equal(decide({ ...poll, url: `${F}/` }, remembered, 7, at(1_000)), 'router', 'a trailing slash: the router (whose poll route is the same handler)');
  t.equal(decide({ ...poll, url: `${F}/` }, { ...remembered, url: `${F}/` }, 7, at(1_000)), 'repeat', 'its exact repeat: 304 from memory too');
  t.equal(decide({ method: 'GET', url: '/api/frontend?appName=x', headers: {} }, undefined, 7, at(1_000)), 'frontend');
  t.equal(decide({ method: 'HEAD', url: '/api/frontend', headers: {} }, undefined, 7, at(1_000)), 'router');
  for (const [method, url] of [['POST', F], ['DELETE', F], ['GET', `${F}/alpha`], ['GET', `${F}x`], ['GET', '/api/client/featuresx?y'], ['GET', '/health'], ['POST', '/api/frontend']]) {
    t.equal(decide({ method, url, headers: poll.headers }, undefined, 7, at(1_000)), 'router', `${method} ${url}: the router`);
  }
  t.equal(decide({ method: 'POST', url: F, headers: poll.headers }, remembered, 7, at(1_000)), 'router', 'a POST repeating the URL: the router (its 405)');
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

t.test("every way to the poll is written by the door: GET, HEAD and the router's path with a trailing slash answer alike", async (t) => {
  const { srv, ok } = await serve(t);
  await ok('POST', '/api/admin/projects/default/features', { name: 'alpha' });
  const agent = oneConnection();
  t.teardown(() => agent.destroy());
  const url = srv.url + F;
  const get = await request(agent, url);
  t.equal(get.status, 200);
  const etag = get.headers.etag!;
  const shown = (h: Record<string, unknown>) => ({ etag: h.etag, type: h['content-type'], length: h['content-length'], vary: h.vary, nosniff: h['x-content-type-options'] });
  for (const [what, path, method] of [['HEAD', F, 'HEAD'], ['a trailing slash', `${F}/`, 'GET'], ['HEAD with a trailing slash', `${F}/`, 'HEAD']]) {
    const answer = await request(agent, srv.url + path, {}, method);
    t.equal(answer.status, 200, `${what}: 200`);
    t.same(shown(answer.headers), shown(get.headers), `${what}: the same headers`);
    t.equal(answer.body, method === 'HEAD' ? '' : get.body, `${what}: ${method === 'HEAD' ? 'no body' : 'the same body'}`);
    const again = await request(agent, srv.url + path, { 'if-none-match': etag }, method);
    t.equal(again.status, 304, `${what} with the ETag: 304`);
    t.same(shown(again.headers), { ...shown(get.headers), type: undefined, length: undefined }, `${what}: the 304's headers`);
  }
  t.equal((await request(agent, url, {}, 'POST')).status, 405, 'POST: 405, the router knows the path');
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

t.test('an impact metrics flush leaves remembered polls alone; any other change ends them', async (t) => {
  const flush = { lsn: 7, events: [], ops: [
    { o: 'impact.put', key: 'errors', head: { name: 'errors', help: '', type: 'counter', labels: [], le: [], total: [1] } },
    { o: 'impact.point', key: 'errors', tier: 0, point: { t: 60, v: [1] }, since: 0 },
  ] } as never;
  t.equal(touchesPolls(flush), false, 'impact series written: no poll reads them');
  const seen = { lsn: 8, events: [], ops: [{ o: 'lastSeen', feature: 'a', environment: 'development', at: '2026-01-01T00:00:00.000Z' }] } as never;
  t.equal(touchesPolls(seen), true, 'any other op may (the rule stays conservative)');
  const mixed = { lsn: 9, events: [], ops: [(flush as { ops: unknown[] }).ops[0], { o: 'featureEnv.del', feature: 'a', environment: 'development' }] } as never;
  t.equal(touchesPolls(mixed), true, 'a flush mixed with another op');
  const withEvent = { lsn: 10, events: [{ id: 1 }], ops: [] } as never;
  t.equal(touchesPolls(withEvent), true, 'a change with events (a safeguard firing writes one)');
});
