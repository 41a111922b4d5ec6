// Webhook body templates that multiply, against a real server: the 433-character template
// (six nested sections over a 20-value list; it held the event loop for over a minute and took
// the heap past 2 GB) is refused on save; one that passes the save but goes over the budget on a
// real event fails its delivery with a clear lastError while /health keeps answering.
import t, { type Test } from 'tap';
import { timed, terminate } from '../../helpers/bounded.js';
import { RECEIVERS_ALLOWED, receiverFor, sleep, webhook } from '../../helpers/receiver.js';
import { client, spawnServer, type Spawned } from '../../helpers/server.js';

const BASE = '/api/admin/addons';
const nested = (depth: number, inner: string) => `${'{{#event.data.legalValues}}'.repeat(depth)}${inner}${'{{/event.data.legalValues}}'.repeat(depth)}`;
const EXPLODING = nested(6, '{{event.type}} by {{event.createdBy}} on {{event.data.name}}: {{value}} ({{description}}) #{{event.id}} end.\n');
/** A context field with `n` legal values: its creation event's data holds the list. */
const field = (name: string, n: number) => ({ name, legalValues: Array.from({ length: n }, (_, i) => ({ value: `value-${i}`, description: `d${i}` })) });

async function server(t: Test, env: Record<string, string> = {}): Promise<Spawned> {
  const srv = await spawnServer({ env: { ...RECEIVERS_ALLOWED, WEBHOOK_RETRY_BASE_MS: '200', ...env } });
  // A server frozen by a render ignores SIGTERM: killed rather than waited for.
  t.teardown(() => terminate(srv, 2_000));
  return srv;
}

t.test('the 433-character template is refused on save, at once, naming the setting', async (t) => {
  const r = await receiverFor(t);
  const srv = await server(t);
  t.equal(EXPLODING.length, 433);
  const created = await timed(srv.url, 'POST', BASE, webhook(r.url, { events: ['context-field-created'] }, { bodyTemplate: EXPLODING }));
  t.equal(created.status, 400, `refused in ${created.ms.toFixed(0)} ms`);
  t.match(created.json?.message, /parameters\.bodyTemplate: could take about \d+ steps to render, more than WEBHOOK_TEMPLATE_MAX_STEPS \(200000\) \(nested sections over lists multiply; each is counted as 20 items\)/);
  t.ok(created.ms < 2_000, 'at once');
  const plain = await timed(srv.url, 'POST', BASE, webhook(r.url, { events: ['context-field-created'] }));
  const replaced = await timed(srv.url, 'PUT', `${BASE}/${plain.json.id}`, webhook(r.url, { events: ['context-field-created'] }, { bodyTemplate: EXPLODING }));
  t.equal(replaced.status, 400, 'a replace is refused the same way');
  const kept = await timed(srv.url, 'GET', `${BASE}/${plain.json.id}`);
  t.equal(kept.json.parameters.bodyTemplate, undefined, 'and the addon is as it was');
  const health = await timed(srv.url, 'GET', '/health');
  t.equal(health.status, 200);
});

t.test('a template that passes the save but goes over the budget on a real event fails its delivery, and /health keeps answering', async (t) => {
  const r = await receiverFor(t);
  const srv = await server(t);
  const api = client(srv.url);
  // Three lists deep passes the save (8,000 renders at 20 values); over 1,000 values it is a billion.
  const addon = await timed(srv.url, 'POST', BASE, webhook(r.url, { events: ['context-field-created'] }, { bodyTemplate: nested(3, '{{value}} ') }));
  t.equal(addon.status, 200, 'saved');
  const started = performance.now();
  const made = await timed(srv.url, 'POST', '/api/admin/context', field('region', 1000));
  t.equal(made.status, 201, `the change that makes the event is answered (${made.ms.toFixed(0)} ms)`);
  let worst = 0;
  let delivery: any;
  while (performance.now() - started < 15_000) {
    const h = await timed(srv.url, 'GET', '/health');
    if (h.status !== 200) {
      t.fail(`/health → ${h.status} after ${h.ms.toFixed(0)} ms`);
      break;
    }
    worst = Math.max(worst, h.ms);
    delivery = (await timed(srv.url, 'GET', `${BASE}/${addon.json.id}`)).json?.delivery;
    if (delivery?.failed >= 2) break;
    await sleep(20);
  }
  t.ok(delivery?.failed >= 2, `the delivery failed, and failed again on its retry (${delivery?.failed} attempts, ${(performance.now() - started).toFixed(0)} ms after the change)`);
  t.match(delivery?.lastError, /^bodyTemplate: its rendering takes more than WEBHOOK_TEMPLATE_MAX_STEPS \(200000\) steps for this event \(sections over lists multiply\)$/);
  t.ok(worst < 1_000, `/health answered within ${worst.toFixed(0)} ms all along`);
  t.equal(r.received.length, 0, 'nothing was sent');
  if (!(delivery?.failed >= 2)) return;
  // A template that fits: the event goes at once (a change of settings retries now).
  const fixed = await api('PUT', `${BASE}/${addon.json.id}`, webhook(r.url, { events: ['context-field-created'] }, { bodyTemplate: nested(1, '{{value}} ') }));
  t.equal(fixed.status, 200);
  const [got] = await r.waitFor(1);
  t.equal(got.body.split(' ').length - 1, 1000, 'then the event is delivered, all 1,000 values');
});

t.test('WEBHOOK_TEMPLATE_MAX_BYTES bounds the body a template renders', async (t) => {
  const r = await receiverFor(t);
  const srv = await server(t, { WEBHOOK_TEMPLATE_MAX_BYTES: '2000' });
  const api = client(srv.url);
  const addon = (await api('POST', BASE, webhook(r.url, { events: ['context-field-created'] }, { bodyTemplate: '{{{eventJson}}}' }))).json;
  t.equal((await api('POST', '/api/admin/context', field('small', 2))).status, 201);
  await r.waitFor(1);
  t.equal((await api('POST', '/api/admin/context', field('large', 100))).status, 201);
  let delivery: any;
  for (let i = 0; i < 200 && !(delivery?.failed >= 1); i++) {
    await sleep(25);
    delivery = (await api('GET', `${BASE}/${addon.id}`)).json.delivery;
  }
  t.match(delivery, { delivered: 1, lastError: 'bodyTemplate: it renders more than WEBHOOK_TEMPLATE_MAX_BYTES (2000) bytes for this event' }, 'the small event went, the large one fails');
});
