// Tokens on a relay: one the relay never saw is checked with the upstream while the request
// waits, then served; revoked upstream, it is refused by the relay within its revalidation
// interval (its stream ends too). Made-up tokens get 401s and cost the upstream a bounded number
// of requests (at most CHECKS_PER_SECOND, whatever the flood), and one refused token is not
// asked about again. A token sees what the upstream grants it and no more.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { CHECKS_PER_SECOND } from '../../../src/modes/relay/validator.js';
import { openStream } from '../../helpers/sse.js';
import { countingProxy, startRelay, startUpstream, UP_CLIENT, UP_FRONTEND, waitFor, waitReady } from '../../helpers/relay.js';

const P = '/api/admin/projects';

/**
 * Requests the relay made to check tokens: /edge/validate, or the SDK APIs it falls back on (it
 * follows this upstream by streaming, so it polls neither itself).
 */
const checks = (counts: Map<string, number>) => ['/edge/validate', '/api/client/features', '/api/frontend'].reduce((n, p) => n + (counts.get(p) ?? 0), 0);

t.test('a token checked on first use, then revoked upstream', async (t) => {
  const { srv: up, ok } = await startUpstream(t);
  await ok('POST', `${P}/default/features`, { name: 'everywhere' });
  const made = await ok('POST', '/api/admin/api-tokens', { tokenName: 'short-lived', type: 'client', environment: 'development', projects: ['default'] });
  const relay = await startRelay(t, up.url, { env: { TOKEN_REVALIDATION_INTERVAL_SECONDS: '1' } });
  await waitReady(relay.url);
  const poll = (token: string) => fetch(`${relay.url}/api/client/features`, { headers: { authorization: token } });
  const first = await poll(made.secret);
  t.equal(first.status, 200, 'a token the relay never saw: checked with the upstream, then served');
  t.same(((await first.json()) as { features: { name: string }[] }).features.map((f) => f.name), ['everywhere']);
  const stream = await openStream(relay.url, { authorization: made.secret });
  t.equal(stream.status, 200);
  await stream.next((f) => f.event === 'unleash-connected');

  await ok('DELETE', `/api/admin/api-tokens/${made.secret}`);
  const revoked = performance.now();
  await waitFor(async () => (await poll(made.secret)).status === 401, 'the relay to refuse the revoked token', 10_000, 20);
  const ms = Math.round(performance.now() - revoked);
  t.ok(ms < 1000 + 2000, `refused ${ms} ms after the upstream revoked it (TOKEN_REVALIDATION_INTERVAL_SECONDS=1)`);
  await Promise.race([stream.ended, new Promise((_, reject) => setTimeout(() => reject(new Error('the stream of a revoked token stayed open')), 5000))]);
  t.pass('its stream was ended');
  t.equal((await poll(UP_CLIENT)).status, 200, 'the configured token still works');
});

t.test('made-up tokens: 401s, and the upstream is barely asked', async (t) => {
  const { srv: up } = await startUpstream(t);
  const proxy = await countingProxy(t, up.url);
  const relay = await startRelay(t, proxy.url, { tokens: [UP_CLIENT] });
  await waitReady(relay.url);
  const before = checks(proxy.counts);
  const started = Date.now();
  const statuses = new Map<number, number>();
  const N = 1000;
  let next = 0;
  await Promise.all(Array.from({ length: 50 }, async () => {
    while (next < N) {
      next++;
      const res = await fetch(`${relay.url}/api/client/features`, { headers: { authorization: `*:development.${randomBytes(16).toString('hex')}` } });
      await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  }));
  const seconds = (Date.now() - started) / 1000;
  t.same([...statuses], [[401, N]], `${N} made-up tokens: all 401 (in ${seconds.toFixed(1)} s)`);
  t.ok(seconds < 15, 'answered without waiting for checks that cannot come in time');
  // The checks still queued when the flood ended go on for a moment: count once they are done.
  await new Promise((r) => setTimeout(r, 1500));
  const asked = checks(proxy.counts) - before;
  const bound = Math.ceil((seconds + 1.5 + 1) * CHECKS_PER_SECOND);
  t.ok(asked <= bound, `the upstream got ${asked} token-check requests for them (at most ${CHECKS_PER_SECOND} a second: ${bound})`);

  const one = `*:development.${randomBytes(16).toString('hex')}`;
  const r1 = await fetch(`${relay.url}/api/client/features`, { headers: { authorization: one } });
  t.equal(r1.status, 401);
  await new Promise((r) => setTimeout(r, 1200));
  const afterFirst = checks(proxy.counts);
  let refused = 0;
  for (let i = 0; i < 100; i++) if ((await fetch(`${relay.url}/api/client/features`, { headers: { authorization: one } })).status === 401) refused++;
  t.equal(refused, 100);
  t.equal(checks(proxy.counts), afterFirst, 'the same refused token 100 times more: not asked about again');
  const malformed = await fetch(`${relay.url}/api/client/features`, { headers: { authorization: 'not-a-token' } });
  t.equal(malformed.status, 401, 'a string that cannot be a token: 401 without asking');
});

t.test('a token sees what the upstream grants it, no more', async (t) => {
  const { srv: up, ok } = await startUpstream(t);
  await ok('POST', P, { id: 'shop', name: 'shop' });
  await ok('POST', `${P}/default/features`, { name: 'in-default' });
  await ok('POST', `${P}/shop/features`, { name: 'in-shop' });
  const shopOnly = await ok('POST', '/api/admin/api-tokens', { tokenName: 'shop', type: 'client', environment: 'development', projects: ['shop'] });
  const prod = await ok('POST', '/api/admin/api-tokens', { tokenName: 'prod', type: 'client', environment: 'production', projects: ['*'] });
  // The relay holds a wider token (every project, development) from the start.
  const relay = await startRelay(t, up.url, { tokens: [UP_CLIENT] });
  await waitReady(relay.url);
  const names = async (token: string) => ((await (await fetch(`${relay.url}/api/client/features`, { headers: { authorization: token } })).json()) as { features: { name: string }[] }).features.map((f) => f.name).sort();
  t.same(await names(UP_CLIENT), ['in-default', 'in-shop']);
  t.same(await names(shopOnly.secret), ['in-shop'], 'a token of one project: that project only, though the relay holds more');
  await ok('POST', `${P}/default/features/in-default/environments/production/on`);
  const prodFlags = await fetch(`${relay.url}/api/client/features`, { headers: { authorization: prod.secret } });
  const body = (await prodFlags.json()) as { features: { name: string; enabled: boolean }[] };
  t.same(body.features.filter((f) => f.enabled).map((f) => f.name), ['in-default'], 'a production token: production\'s flags, followed for it');
  const forged = shopOnly.secret.replace(/^shop:/, '*:');
  t.equal((await fetch(`${relay.url}/api/client/features`, { headers: { authorization: forged } })).status, 401, 'editing the scope written in a token gives an unknown token');
});

t.test('an upstream without /edge/validate: tokens are checked the way an SDK would use them', async (t) => {
  const { srv: up, ok } = await startUpstream(t);
  const made = await ok('POST', '/api/admin/api-tokens', { tokenName: 'later', type: 'client', environment: 'development', projects: ['*'] });
  const proxy = await countingProxy(t, up.url, { notFound: ['/edge/validate'] });
  const relay = await startRelay(t, proxy.url, { tokens: [UP_CLIENT, UP_FRONTEND] });
  await waitReady(relay.url);
  t.equal((await fetch(`${relay.url}/api/frontend`, { headers: { authorization: UP_FRONTEND } })).status, 200, 'a configured frontend token, told apart by the upstream\'s frontend API');
  t.equal((await fetch(`${relay.url}/api/client/features`, { headers: { authorization: made.secret } })).status, 200, 'a new client token, accepted by the upstream\'s client API');
  t.equal((await fetch(`${relay.url}/api/client/features`, { headers: { authorization: `*:development.${randomBytes(16).toString('hex')}` } })).status, 401, 'a made-up one');
  t.equal(proxy.counts.get('/edge/validate'), 1, '/edge/validate was tried once');
});

t.test('a token that expires upstream stops working on the relay at its expiry', async (t) => {
  const { srv: up, ok } = await startUpstream(t);
  await ok('POST', `${P}/default/features`, { name: 'everywhere' });
  // Revalidation at its default (a minute): within the test, only the expiry the upstream gave can stop the token.
  const relay = await startRelay(t, up.url, { tokens: [UP_CLIENT] });
  await waitReady(relay.url);
  const expiresAt = new Date(Date.now() + 2500).toISOString();
  const made = await ok('POST', '/api/admin/api-tokens', { tokenName: 'expiring', type: 'client', environment: 'development', projects: ['default'], expiresAt });
  const poll = (base: string) => fetch(`${base}/api/client/features`, { headers: { authorization: made.secret } }).then((r) => r.status);
  t.equal(await poll(relay.url), 200, 'served before its expiry');
  await waitFor(async () => (await poll(up.url)) === 401, 'the upstream to refuse the expired token', 10_000, 20);
  const refusedUpstream = performance.now();
  const late = await waitFor(async () => (await poll(relay.url)) === 401 && performance.now(), 'the relay to refuse it too', 10_000, 20).catch(() => null);
  t.ok(late !== null && late - refusedUpstream < 1000, `the relay refuses it ${late === null ? 'not within 10 s' : `${Math.round(late - refusedUpstream)} ms`} after the upstream does (under 1 s)`);
});
