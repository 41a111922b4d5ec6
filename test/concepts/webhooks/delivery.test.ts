// Webhook delivery against a local receiver and a real server process: the body and its
// signature, filters, templates, order, retries after errors and timeouts, a receiver outage, a
// SIGKILL of Fanion, giving up after the retry window, and admin writes that never wait for it.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import t from 'tap';
import { RECEIVERS_ALLOWED, receiverFor as receiver, sleep, until, webhook, type Receiver } from '../../helpers/receiver.js';
import { client, ROOT, serve, spawnServer, succeeding, type Spawned } from '../../helpers/server.js';

const F = (project = 'default') => `/api/admin/projects/${project}/features`;
const FAST = { WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_MAX_DELAY_MS: '400', WEBHOOK_TIMEOUT_MS: '500', ...RECEIVERS_ALLOWED };
const bodies = (r: Receiver) => r.received.map((x) => JSON.parse(x.body));

t.test('each event is POSTed as Unleash event JSON, signed with HMAC-SHA256, with the configured headers', async (t) => {
  const r = await receiver(t);
  const { api, ok } = await serve(t, { env: FAST });
  const addon = await ok('POST', '/api/admin/addons', webhook(r.url, { events: ['feature-created', 'feature-environment-enabled'] }, {
    authorization: 'Bearer receiver-secret', customHeaders: '{"X-Team":"core"}',
  }));
  await ok('POST', F(), { name: 'hooked', description: 'sent out' });
  await ok('POST', `${F()}/hooked/environments/development/on`);
  await ok('POST', `${F()}/hooked/environments/development/off`);
  const got = await r.waitFor(2);
  await sleep(200);
  t.equal(r.received.length, 2, 'only the chosen event types (not the disable)');
  const [created, enabled] = bodies(r);
  t.match(created, { type: 'feature-created', featureName: 'hooked', project: 'default', createdBy: 'admin', data: { name: 'hooked', description: 'sent out' } });
  t.ok(Number.isInteger(created.id) && typeof created.createdAt === 'string' && 'preData' in created && Array.isArray(created.tags), 'id, createdAt, preData, tags');
  t.match(enabled, { type: 'feature-environment-enabled', environment: 'development', featureName: 'hooked' });
  t.ok(enabled.id > created.id, 'in event order');
  const h = got[0].headers;
  t.equal(h['content-type'], 'application/json');
  t.equal(h.authorization, 'Bearer receiver-secret');
  t.equal(h['x-team'], 'core');
  t.equal(h['x-fanion-event-id'], String(created.id));
  t.equal(h['x-fanion-event-type'], 'feature-created');
  t.equal(h['x-fanion-delivery'], `${addon.id}-${created.id}`);
  const expected = `sha256=${createHmac('sha256', addon.parameters.signingSecret).update(got[0].body).digest('hex')}`;
  t.equal(h['x-fanion-signature'], expected, 'the signature is the HMAC-SHA256 of the body with the addon secret');
  const forged = `sha256=${createHmac('sha256', 'another-secret-of-16').update(got[0].body).digest('hex')}`;
  t.not(h['x-fanion-signature'], forged, 'and another secret gives another signature');
  const status = await ok('GET', `/api/admin/addons/${addon.id}`);
  t.match(status.delivery, { delivered: 2, attempts: 0, lastError: null, pendingEvents: 0 });
  t.ok(status.delivery.lastDeliveredAt);
  // Delivery progress is written to the WAL, but is nothing SDKs see: their ETag stays.
  const etag = (await api('GET', '/api/client/features')).headers.get('etag');
  await ok('POST', '/api/admin/tag-types', { name: 'webhooked' });
  await ok('POST', '/api/admin/addons', webhook(r.url, { events: ['tag-type-created'] }));
  await ok('POST', '/api/admin/tag-types', { name: 'webhooked-2' });
  await r.waitFor(3);
  await sleep(100);
  t.equal((await api('GET', '/api/client/features', undefined, { 'if-none-match': etag! })).status, 304, 'SDK polls still get 304');
});

t.test('project and environment filters; a Mustache body template', async (t) => {
  const r = await receiver(t);
  const { ok } = await serve(t, { env: FAST });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await ok('POST', '/api/admin/addons', webhook(r.url, { events: ['feature-environment-enabled', 'feature-created'], projects: ['shop'], environments: ['production'] }, {
    contentType: 'text/plain',
    bodyTemplate: '{{event.createdBy}} did {{event.type}} on {{event.featureName}} in {{event.environment}} | {{{eventJson}}}',
  }));
  await ok('POST', F('default'), { name: 'elsewhere' });
  await ok('POST', `${F('default')}/elsewhere/environments/production/on`);
  await ok('POST', F('shop'), { name: 'cart' });
  await ok('POST', `${F('shop')}/cart/environments/development/on`);
  await ok('POST', `${F('shop')}/cart/environments/production/on`);
  await r.waitFor(1);
  await sleep(300);
  t.equal(r.received.length, 1, 'only shop/production: a creation has no environment, development is filtered out');
  const [only] = r.received;
  t.equal(only.headers['content-type'], 'text/plain');
  const [text, json] = only.body.split(' | ');
  t.equal(text, 'admin did feature-environment-enabled on cart in production');
  t.match(JSON.parse(json), { type: 'feature-environment-enabled', project: 'shop', environment: 'production' }, 'triple braces: the event JSON unescaped');
});

t.test('receiver errors and timeouts are retried with backoff and shown; delivery then goes on in order', async (t) => {
  const r = await receiver(t);
  const { ok } = await serve(t, { env: FAST });
  r.behave((_req, n) => (n <= 3 ? { status: 503 } : n === 4 ? { hang: true } : { status: 204 }));
  const addon = await ok('POST', '/api/admin/addons', webhook(r.url, { events: ['feature-created'] }));
  for (const name of ['one', 'two', 'three']) await ok('POST', F(), { name });
  await r.waitFor(2);
  const failing = await ok('GET', `/api/admin/addons/${addon.id}`);
  t.match(failing.delivery, { lastError: /HTTP 503|no answer/ }, `while failing: ${failing.delivery.lastError}`);
  t.ok(failing.delivery.attempts >= 1, 'attempts are counted');
  await r.waitFor(7);
  await sleep(300);
  const names = bodies(r).map((b) => b.featureName);
  t.same(names.slice(0, 5), ['one', 'one', 'one', 'one', 'one'], 'the first event is retried until it goes through');
  t.same(names.slice(5), ['two', 'three'], 'then the rest, in order, once each');
  const gaps = r.received.slice(1, 4).map((x, i) => x.at - r.received[i].at);
  // Doubling from the 50 ms base: each wait is at least 50, 100, 200 ms (a busy machine only adds
  // to them), and one of the first two under the third's 200 (no flat delay passes both; a load
  // spike once stretched the first to 229 ms, so one slow wait alone does not fail this).
  t.ok(gaps.every((g, i) => g >= 50 * 2 ** i - 2) && Math.min(gaps[0], gaps[1]) < 200, `the waits double: ${gaps.join(', ')} ms (at least 50, 100, 200)`);
  const done = await ok('GET', `/api/admin/addons/${addon.id}`);
  t.match(done.delivery, { delivered: 3, attempts: 0, pendingEvents: 0 });
  t.ok(done.delivery.failed >= 4, `${done.delivery.failed} failed attempts (3 errors and a timeout)`);
  t.match(done.delivery.lastError, /no answer within 500 ms/, 'the last error stays visible');
});

t.test('an event still failing after WEBHOOK_RETRY_FOR_MS is dropped, logged and counted; the next ones go on', async (t) => {
  const r = await receiver(t);
  const { srv, ok } = await serve(t, { env: { ...FAST, WEBHOOK_RETRY_FOR_MS: '400' } });
  r.behave((req) => (JSON.parse(req.body).featureName === 'poison' ? { status: 500 } : { status: 200 }));
  const addon = await ok('POST', '/api/admin/addons', webhook(r.url, { events: ['feature-created'] }));
  await ok('POST', F(), { name: 'poison' });
  await ok('POST', F(), { name: 'after' });
  await until('the event after the dropped one', () => r.received.some((x) => JSON.parse(x.body).featureName === 'after'));
  // Received is not yet answered: wait for Fanion to count the answer.
  await until('the delivery to be counted', async () => (await ok('GET', `/api/admin/addons/${addon.id}`)).delivery.delivered === 1);
  const status = await ok('GET', `/api/admin/addons/${addon.id}`);
  t.match(status.delivery, { dropped: 1, delivered: 1 });
  // The log line travels through the child's stdout pipe: it may arrive after the answer above.
  await until('the drop to be logged', () => /webhook gave up on an event after retrying/.test(srv.output()));
  t.match(srv.output(), /webhook gave up on an event after retrying/);
  const metrics = (await client(srv.url)('GET', '/internal-backstage/prometheus')).text;
  t.match(metrics, /webhook_deliveries_total\{result="dropped"\} 1/);
  t.match(metrics, /webhook_deliveries_total\{result="delivered"\} 1/);
});

t.test('changes made while the receiver is down are delivered, in order, once it is back', async (t) => {
  const r = await receiver(t);
  const { ok } = await serve(t, { env: FAST });
  const addon = await ok('POST', '/api/admin/addons', webhook(r.url, { events: ['feature-created'] }));
  await ok('POST', F(), { name: 'before' });
  await r.waitFor(1);
  await r.down();
  const during = Array.from({ length: 10 }, (_, i) => `during-${i}`);
  for (const name of during) await ok('POST', F(), { name });
  await until('a failure to be shown', async () => (await ok('GET', `/api/admin/addons/${addon.id}`)).delivery.attempts > 0);
  t.equal((await ok('GET', `/api/admin/addons/${addon.id}`)).delivery.lastError, 'connection failed or no answer within 500 ms', 'the cause (ECONNREFUSED) is only logged');
  await r.up();
  await r.waitFor(11);
  await sleep(300);
  t.same(bodies(r).map((b) => b.featureName), ['before', ...during], 'every change, in order, none twice');
});

t.test('SIGKILL: changes acknowledged while Fanion dies are delivered after the restart; a clean stop sends nothing twice', async (t) => {
  const r = await receiver(t);
  let srv: Spawned = await spawnServer({ env: FAST });
  t.teardown(() => srv.stop());
  const ok = succeeding(() => client(srv.url));
  await ok('POST', '/api/admin/addons', webhook(r.url, { events: ['feature-created'] }));
  // The receiver is down: these are acknowledged, in the WAL, and not yet sent.
  await r.down();
  for (let i = 0; i < 5; i++) await ok('POST', F(), { name: `unsent-${i}` });
  await srv.kill();
  await r.up();
  srv = await spawnServer({ dataDir: srv.dataDir, env: FAST });
  await r.waitFor(5);
  // Now a stream of changes, and a SIGKILL while they are being delivered.
  r.behave({ status: 200, delayMs: 20 });
  for (let i = 0; i < 20; i++) await ok('POST', F(), { name: `busy-${i}` });
  await until('some of the busy changes', () => r.received.length >= 10);
  await srv.kill();
  srv = await spawnServer({ dataDir: srv.dataDir, env: FAST });
  await until('every busy change', () => new Set(bodies(r).map((b) => b.featureName)).size >= 25);
  await sleep(300);
  const names = bodies(r).map((b) => b.featureName);
  const expected = [...Array.from({ length: 5 }, (_, i) => `unsent-${i}`), ...Array.from({ length: 20 }, (_, i) => `busy-${i}`)];
  t.same([...new Set(names)], expected, 'every acknowledged change delivered, first sends in event order');
  const ids = bodies(r).map((b) => b.id as number);
  const repeats = ids.filter((id, i) => ids.indexOf(id) !== i);
  t.ok(repeats.length <= 3, `at least once: ${repeats.length} sent again after the SIGKILL (the progress not yet written)`);
  // A clean stop writes its progress: nothing is sent again.
  r.behave({ status: 200 });
  const before = r.received.length;
  await ok('POST', F(), { name: 'last' });
  await r.waitFor(before + 1);
  await sleep(100);
  await srv.stop();
  srv = await spawnServer({ dataDir: srv.dataDir, env: FAST });
  await sleep(600);
  t.equal(r.received.length, before + 1, 'after SIGTERM and a restart, nothing twice');
});

t.test('a slow receiver never slows admin writes', async (t) => {
  const r = await receiver(t);
  const { ok } = await serve(t, { env: { ...FAST, WEBHOOK_TIMEOUT_MS: '5000' } });
  const time = async (n: number, prefix: string) => {
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await ok('POST', F(), { name: `${prefix}-${i}` });
      ms.push(performance.now() - t0);
    }
    return ms.sort((a, b) => a - b);
  };
  const baseline = await time(40, 'plain');
  r.behave({ hang: true });
  await ok('POST', '/api/admin/addons', webhook(r.url, { events: ['*'] }));
  await ok('POST', '/api/admin/addons', webhook(r.url, { events: ['feature-created'] }));
  const slowed = await time(40, 'hooked');
  await r.waitFor(2);
  const p90 = (xs: number[]) => xs[Math.floor(xs.length * 0.9)];
  t.ok(p90(slowed) < Math.max(50, p90(baseline) * 3), `p90 of a write: ${p90(baseline).toFixed(1)} ms without, ${p90(slowed).toFixed(1)} ms with two hanging receivers`);
  t.equal(r.received.length, 2, 'one request in flight per addon, however many events wait');
});

t.test('a disabled addon sends nothing; switched on again, it starts from then', async (t) => {
  const r = await receiver(t);
  const { api, ok } = await serve(t, { env: FAST });
  const addon = await ok('POST', '/api/admin/addons', webhook(r.url, { enabled: false, events: ['feature-created'] }));
  await ok('POST', F(), { name: 'while-off' });
  await sleep(300);
  t.equal(r.received.length, 0);
  const got = await ok('GET', `/api/admin/addons/${addon.id}`);
  t.equal((await api('PUT', `/api/admin/addons/${addon.id}`, { ...got, enabled: true })).status, 200);
  await ok('POST', F(), { name: 'while-on' });
  await r.waitFor(1);
  await sleep(300);
  t.same(bodies(r).map((b) => b.featureName), ['while-on']);
  t.equal((await api('DELETE', `/api/admin/addons/${addon.id}`)).status, 200);
  await ok('POST', F(), { name: 'after-delete' });
  await sleep(300);
  t.equal(r.received.length, 1, 'a deleted addon sends nothing more');
});

t.test('the example receiver of the webhooks guide accepts Fanion\'s signed events and refuses a forged one', async (t) => {
  const secret = 'readme-example-signing-secret';
  const proc = spawn(process.execPath, [path.join(ROOT, 'examples/webhook-receiver.mjs')], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', FANION_WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => proc.kill('SIGKILL'));
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await until('the example receiver to listen', () => /listening on \d+/.test(out));
  const port = Number(/listening on (\d+)/.exec(out)![1]);
  const { ok } = await serve(t, { env: FAST });
  const addon = await ok('POST', '/api/admin/addons', webhook(`http://127.0.0.1:${port}/`, { events: ['feature-created'] }, { signingSecret: secret }));
  t.equal(addon.parameters.signingSecret, secret, 'a given secret is used');
  await ok('POST', F(), { name: 'from-the-readme' });
  await until('the receiver to print the event', () => /feature-created from-the-readme by admin/.test(out));
  const forged = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{"id":1}', headers: { 'x-fanion-signature': 'sha256=00' } });
  t.equal(forged.status, 401);
  const status = await ok('GET', `/api/admin/addons/${addon.id}`);
  t.match(status.delivery, { delivered: 1, lastError: null });
});
