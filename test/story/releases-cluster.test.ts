// A release that watches itself, on a three-node cluster (real processes on a throwaway PostgreSQL,
// their clock shared with the test): the story of test/helpers/release-story.ts, with the node that
// leads (webhooks, progressions and safeguards) SIGKILLed after the plan is applied and before its
// progression is due. A surviving node takes over: milestone 2 starts once, the safeguard fires
// once, the SDK polling a survivor sees the flag off, and the webhook receiver gets each event
// once after deduplication by X-Fanion-Delivery (at most the old leader's last send repeated).
import t from 'tap';
import { sharedClock } from '../helpers/clock.js';
import { clusterFor, webhookLeader } from '../helpers/cluster.js';
import { receiverFor, RECEIVERS_ALLOWED, sleep, until } from '../helpers/receiver.js';
import { deliveries, STORY_ADMIN, STORY_ENV, tellReleaseStory } from '../helpers/release-story.js';
import type { Spawned } from '../helpers/server.js';

const ADMIN = { authorization: STORY_ADMIN };

// Three node processes and a PostgreSQL started on a loaded 2-core machine took up to 80 s.
t.setTimeout(240_000);

t.test('on a cluster whose leader is killed midway, the plan moves on once and the safeguard fires once', async (t) => {
  const clock = sharedClock();
  const cluster = await clusterFor(t, {
    ...STORY_ENV, ...RECEIVERS_ALLOWED, ...clock.env, WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_DELAY_MS: '500',
  });
  if (!cluster) return;
  const nodes: Spawned[] = await Promise.all([0, 1, 2].map(() => cluster.node({}, { command: clock.command })));
  const first = await webhookLeader(nodes, ADMIN);
  // The admin calls go to one follower, the SDK polls and posts to the other: both survive.
  const [adminNode, sdkNode] = [nodes[(first + 1) % 3], nodes[(first + 2) % 3]];
  const receiver = await receiverFor(t);
  let next = -1;

  const told = await tellReleaseStory(t, {
    adminUrl: () => adminNode.url, sdkUrl: sdkNode.url, clock, receiver,
    midway: async () => {
      t.equal(await webhookLeader(nodes, ADMIN), first, 'the node that led from the start still leads');
      await nodes[first].kill();
      const killedAt = Date.now();
      t.pass(`the leader (node ${first}) SIGKILLed after the plan started, before its progression is due`);
      const survivors = nodes.filter((_, i) => i !== first);
      const takeover = nodes.indexOf(survivors[await webhookLeader(survivors, ADMIN)]);
      t.comment(`node ${takeover} leads ${Date.now() - killedAt} ms after the kill`);
    },
  });
  const survivors = nodes.filter((_, i) => i !== first);
  next = nodes.indexOf(survivors[await webhookLeader(survivors, ADMIN)]);
  t.not(next, first, `node ${next} leads now`);

  // Written once in the cluster's log, whoever decided.
  const logged = (await cluster.records()).flatMap((r) => r.rec.events.map((e) => e[1] as string));
  t.same(['release-plan-milestone-started', 'safeguard-triggered'].map((type) => logged.filter((x) => x === type).length), [2, 1],
    'the log holds two milestone starts (one per milestone) and one firing');
  // The node that acted after the kill is the new leader, and it alone.
  const said = (what: RegExp) => nodes.map((n) => n.output().match(what)?.length ?? 0);
  const only = nodes.map((_, i) => (i === next ? 1 : 0));
  t.same(said(/"msg":"a release plan progression started a milestone"/g), only, 'only the new leader started milestone 2');
  t.same(said(/"msg":"a safeguard fired"/g), only, 'only the new leader fired the safeguard');

  // Webhooks are at least once: the old leader's last send (at most one per addon) may come again,
  // with the same X-Fanion-Delivery; deduplicated by it, each event arrives once, in order. (A send
  // that times out is retried too: WEBHOOK_TIMEOUT_MS is 5 s here so a loaded machine does not.)
  await until('every story event delivered', () => new Set(deliveries(receiver).map((d) => d.id)).size >= told.events.length, 20_000);
  await sleep(1_000);
  const got = deliveries(receiver);
  const seen = new Set<string>();
  const deduped = got.filter((d) => !seen.has(d.delivery) && seen.add(d.delivery));
  t.same(deduped.map((d) => [d.id, d.type]), told.events.map((e) => [e.id, e.type]), 'deduplicated by delivery id: each event once, in order');
  t.ok(got.length - deduped.length <= 1, `at most the old leader's last send repeated (${got.length - deduped.length})`);
  const byEvent = new Map<number, Set<string>>();
  for (const d of got) byEvent.set(d.id, (byEvent.get(d.id) ?? new Set()).add(d.delivery));
  t.ok([...byEvent.values()].every((s) => s.size === 1), 'a repeat carries the delivery id of the first send');
});
