// Webhooks once per cluster: three nodes, one receiver, flags created through every node while the
// node delivering webhooks (the leader) is SIGKILLed mid-stream. Another node takes over after its
// takeover wait; the receiver gets every event at least once and never an older one after a newer.
import t from 'tap';
import { clusterFor, converged, webhookLeader as leader } from '../../../helpers/cluster.js';
import { receiverFor, RECEIVERS_ALLOWED, until, webhook } from '../../../helpers/receiver.js';
import { client, type Spawned } from '../../../helpers/server.js';

const P = '/api/admin/projects/default/features';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a webhook receiver gets every event, in order, across a kill of the node delivering them', async (t) => {
  const cluster = await clusterFor(t, { ...RECEIVERS_ALLOWED, WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_DELAY_MS: '500' });
  if (!cluster) return;
  const receiver = await receiverFor(t);
  const nodes: Spawned[] = [await cluster.node(), await cluster.node(), await cluster.node()];
  t.equal((await client(nodes[0].url)('POST', '/api/admin/addons', webhook(receiver.url, { events: ['feature-created'] }))).status, 200);
  const first = await leader(nodes);
  let stop = false;
  let n = 0;
  const created: string[] = [];
  const writer = async (k: number) => {
    while (!stop) {
      const name = `hook-${++n}`;
      const r = await client(nodes[(k + n) % nodes.length].url)('POST', P, { name }).catch(() => null);
      if (r?.status === 201) created.push(name);
      await sleep(20);
    }
  };
  const writers = [writer(0), writer(1)];
  // Deliveries start once the first leader's takeover wait is over.
  await until('the first deliveries', () => receiver.received.length >= 10, 20_000);
  await nodes[first].kill();
  const killedAfter = receiver.received.length;
  await sleep(1_500);
  nodes[first] = await cluster.node();
  await sleep(1_500);
  stop = true;
  await Promise.all(writers);
  await converged(nodes);
  const wanted = (await cluster.records()).flatMap((r) => r.rec.events.filter((e) => e[1] === 'feature-created').map((e) => e[0] as number));
  const ids = () => receiver.received.map((r) => JSON.parse(r.body).id as number);
  await until(`all ${wanted.length} events received`, () => new Set(ids()).size >= wanted.length, 30_000);
  const got = ids();
  const next = await leader(nodes);
  t.same([...new Set(got)].sort((a, b) => a - b), wanted, `every feature-created event (${wanted.length}) was received`);
  const backwards = got.filter((id, i) => i > 0 && id < got[i - 1]);
  t.same(backwards, [], 'never an older event after a newer one');
  const twice = got.length - new Set(got).size;
  t.ok(twice <= 1, `at most the old leader's last send arrived again (${twice} repeated)`);
  // A repeat is the same delivery (X-Fanion-Delivery): a receiver that keeps the ids it has seen,
  // as docs/reference/events-and-webhooks.md says to, gets each event exactly once, in order.
  const deliveries = new Map<number, Set<string>>();
  for (const r of receiver.received) {
    const id = JSON.parse(r.body).id as number;
    if (!deliveries.has(id)) deliveries.set(id, new Set());
    deliveries.get(id)!.add(String(r.headers['x-fanion-delivery']));
  }
  t.same([...deliveries.values()].filter((d) => d.size !== 1), [], 'every repeat carries the delivery id of the first send');
  const seen = new Set<string>();
  const deduped = receiver.received.filter((r) => {
    const d = String(r.headers['x-fanion-delivery']);
    if (seen.has(d)) return false;
    seen.add(d);
    return true;
  }).map((r) => JSON.parse(r.body).id as number);
  t.same(deduped, wanted, 'deduplicated by X-Fanion-Delivery: each event once, in event order');
  t.not(next, -1, 'a node leads delivery after the kill');
  t.comment(`${created.length} flags created; ${got.length} requests received, ${killedAfter} before the kill; ${twice} repeated; leader ${first} killed, ${next} leads now`);
});
