// Where webhooks may go, against real servers: by default every spelling of an internal address is
// refused on save, a name that resolves to loopback is refused when sent (so an addon cannot call
// Fanion's own admin API in a loop), the answer reads the same for an open and a closed port,
// credentials stay out of URLs, an allowed host is reached, and a redirect is never followed.
import t from 'tap';
import { RECEIVERS_ALLOWED, receiverFor, sleep, until, webhook } from '../../helpers/receiver.js';
import { client, serve } from '../../helpers/server.js';

const BASE = '/api/admin/addons';
const FLAGS = '/api/admin/projects/default/features';
const FAST = { WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_MAX_DELAY_MS: '200', WEBHOOK_TIMEOUT_MS: '300' };

/** A port nothing listens on (one a receiver had a moment ago). */
async function closedPort(t: { teardown(fn: () => unknown): void }): Promise<number> {
  const r = await receiverFor(t);
  await r.down();
  return r.port;
}

/** Polls the addons until each has failed at least once; their lastErrors, in order. */
async function lastErrors(api: ReturnType<typeof client>, ids: number[]): Promise<string[]> {
  const errors = async () => Promise.all(ids.map(async (id) => (await api('GET', `${BASE}/${id}`)).json.delivery));
  await until('every addon to fail once', async () => (await errors()).every((d) => d.failed > 0));
  return (await errors()).map((d) => d.lastError);
}

t.test('by default every spelling of an internal address is refused on save, and so are credentials in the URL', async (t) => {
  const { srv, api, ok } = await serve(t);
  const cases: [string, RegExp][] = [
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address, which webhooks may not reach \(see WEBHOOK_ALLOW_HOSTS, WEBHOOK_ALLOW_RANGES, WEBHOOK_ALLOW_PRIVATE\)/],
    ['http://10.0.0.1/hook', /10\.0\.0\.1 is a private address/],
    ['http://192.168.1.10/hook', /192\.168\.1\.10 is a private address/],
    ['http://127.0.0.1/hook', /127\.0\.0\.1 is a loopback address/],
    [`http://127.0.0.1:${srv.port}${FLAGS}`, /127\.0\.0\.1 is a loopback address/],
    ['http://2130706433/', /127\.0\.0\.1 is a loopback address/],
    ['http://0x7f.1/', /127\.0\.0\.1 is a loopback address/],
    ['http://[::1]:8080/', /::1 is a loopback address/],
    ['http://[::ffff:127.0.0.1]/', /is a loopback address/],
    ['http://0.0.0.0:4242/', /0\.0\.0\.0 is the unspecified address/],
    ['https://user:secret@hooks.example.com/', /parameters\.url: must not carry credentials \(user:password@\); send them with the authorization parameter/],
  ];
  for (const [url, message] of cases) {
    const res = await api('POST', BASE, webhook(url));
    t.equal(res.status, 400, url);
    t.match(res.json?.message, message, `${url}: ${res.json?.message}`);
  }
  t.same((await ok('GET', BASE)).addons, [], 'nothing was created');
});

t.test("by default a name that resolves to loopback is refused when sent: Fanion's own admin API is out of reach, and an open port reads as a closed one", async (t) => {
  const r = await receiverFor(t);
  const closed = await closedPort(t);
  const { srv, api, ok } = await serve(t, { env: FAST });
  // The attack: each new flag's event POSTs a new flag to Fanion itself (AUTH_TYPE=none here).
  const loop = await ok('POST', BASE, webhook(`http://localhost:${srv.port}${FLAGS}`, { events: ['feature-created'] }, { bodyTemplate: '{"name": "loop-{{event.id}}"}' }));
  const open = await ok('POST', BASE, webhook(`http://localhost:${r.port}/hook`, { events: ['feature-created'] }));
  const shut = await ok('POST', BASE, webhook(`http://localhost:${closed}/hook`, { events: ['feature-created'] }));
  await ok('POST', FLAGS, { name: 'first' });
  const [toSelf, toOpen, toClosed] = await lastErrors(api, [loop.id, open.id, shut.id]);
  t.equal(toOpen, 'refused by policy: localhost is not a public address (see WEBHOOK_ALLOW_HOSTS, WEBHOOK_ALLOW_RANGES, WEBHOOK_ALLOW_PRIVATE)');
  t.equal(toClosed, toOpen, 'a closed port reads the same as an open one');
  t.equal(toSelf, toOpen);
  await sleep(300);
  t.equal(r.received.length, 0, 'the receiver on loopback got nothing');
  const flags = (await ok('GET', FLAGS)).features.map((f: { name: string }) => f.name);
  t.same(flags, ['first'], 'no flag was made by a webhook');
  t.match(srv.output(), /"detail":"localhost resolves to (127\.0\.0\.1|::1), a loopback address"/, 'the operator reads the address in the log');
});

t.test('with loopback allowed, a closed port and one that never answers read the same', async (t) => {
  const r = await receiverFor(t);
  r.behave({ hang: true });
  const closed = await closedPort(t);
  const { api, ok } = await serve(t, { env: { ...FAST, ...RECEIVERS_ALLOWED } });
  const hanging = await ok('POST', BASE, webhook(r.url, { events: ['feature-created'] }));
  const shut = await ok('POST', BASE, webhook(`http://127.0.0.1:${closed}/hook`, { events: ['feature-created'] }));
  await ok('POST', FLAGS, { name: 'probe' });
  const [toHanging, toClosed] = await lastErrors(api, [hanging.id, shut.id]);
  t.equal(toHanging, 'connection failed or no answer within 300 ms');
  t.equal(toClosed, toHanging, 'not ECONNREFUSED for one and a timeout for the other');
  t.ok(r.received.length >= 1, 'the hanging receiver was reached');
});

t.test('a host in WEBHOOK_ALLOW_HOSTS is reached; a redirect it answers is not followed', async (t) => {
  const r = await receiverFor(t);
  const elsewhere = await receiverFor(t);
  const { api, ok } = await serve(t, { env: { ...FAST, WEBHOOK_ALLOW_HOSTS: 'localhost' } });
  const addon = await ok('POST', BASE, webhook(`http://localhost:${r.port}/hook`, { events: ['feature-created'] }));
  await ok('POST', FLAGS, { name: 'allowed' });
  const [got] = await r.waitFor(1);
  t.equal(JSON.parse(got.body).featureName, 'allowed', 'delivered to the allowed host');
  // The receiver has the request before the server has read the answer and counted it.
  await until('the delivery counted', async () => (await ok('GET', `${BASE}/${addon.id}`)).delivery.delivered === 1);
  t.equal((await ok('GET', `${BASE}/${addon.id}`)).delivery.delivered, 1);
  r.behave({ status: 302, headers: { location: elsewhere.url } });
  await ok('POST', FLAGS, { name: 'redirected' });
  const [error] = await lastErrors(api, [addon.id]);
  t.equal(error, 'HTTP 302 (redirects are not followed)');
  t.equal(elsewhere.received.length, 0, 'the address it pointed to got nothing');
  t.equal((await api('POST', BASE, webhook(`http://127.0.0.1:${r.port}/hook`))).status, 400, 'the host is allowed by name, not its address');
});

t.test("with localhost allowed, an addon aimed at Fanion's own admin API still makes nothing: deliveries may not change Fanion", async (t) => {
  const { srv, api, ok } = await serve(t, { env: { ...FAST, WEBHOOK_ALLOW_HOSTS: 'localhost' } });
  const loop = await ok('POST', BASE, webhook(`http://localhost:${srv.port}${FLAGS}`, { events: ['feature-created'] }, { bodyTemplate: '{"name": "loop-{{event.id}}"}' }));
  await ok('POST', FLAGS, { name: 'first' });
  const [error] = await lastErrors(api, [loop.id]);
  t.equal(error, 'HTTP 403', 'Fanion refused the delivery');
  await sleep(500);
  const flags = (await ok('GET', FLAGS)).features.map((f: { name: string }) => f.name);
  t.same(flags, ['first'], 'no flag was made by the webhook (3,007 in 5 s before either guard)');
});
