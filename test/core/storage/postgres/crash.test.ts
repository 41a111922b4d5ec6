// Three nodes on one database, 32 workers writing concurrently through all three (creates,
// strategies added, updated and removed, on/off, patches: test/durability/model.ts), and in each
// round one node SIGKILLed mid-load and started again; the last round kills all three at once and
// restarts the cluster. After every round: every acknowledged write is there (read from any
// node), the request a worker had in flight is there entirely or not at all, the three nodes'
// SDK answers are byte-identical with the same ETag, and the log itself holds records 1..N with
// event ids that have no gap and no repeat.
// Rounds: FANION_CLUSTER_ROUNDS (default 4).
import t, { type Test } from 'tap';
import { clusterFor, converged, type Cluster } from '../../../helpers/cluster.js';
import { testRandom } from '../../../helpers/random.js';
import { client, type Spawned } from '../../../helpers/server.js';
import { checkAllEventIds, newWorker, runWorker, verify, type Worker } from '../../../durability/model.js';

const random = testRandom('cluster-crash');
const ROUNDS = Number(process.env.FANION_CLUSTER_ROUNDS ?? 4);
const WORKERS = 32;
const NODES = 3;
const overtakenOn = async (n: Spawned) => {
  const m = await fetch(`${n.url}/internal-backstage/prometheus`).then((r) => r.text());
  return Number(/cluster_append_failures_total\{reason="overtaken"\} (\d+)/.exec(m)?.[1] ?? 0);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The log's own invariants: places 1..N, and event ids 1..M in order, each once. */
async function checkLog(t: Test, cluster: Cluster): Promise<{ records: number; events: number }> {
  const records = await cluster.records();
  const seqsOk = records.every((r, i) => r.seq === i + 1 && r.rec.lsn === r.seq);
  t.ok(seqsOk, `the log holds records 1..${records.length} without a gap, each at its own place`);
  const ids = records.flatMap((r) => r.rec.events.map((e) => e[0] as number));
  t.ok(ids.every((id, i) => id === i + 1), `event ids 1..${ids.length} in log order, none twice, none missing`);
  return { records: records.length, events: ids.length };
}

t.test(`${WORKERS} writers over ${NODES} nodes, a node SIGKILLed mid-load in each of ${ROUNDS} rounds, then the whole cluster`, async (t) => {
  const cluster = await clusterFor(t, { LOG_LEVEL: 'info' });
  if (!cluster) return;
  const nodes: Spawned[] = [];
  for (let i = 0; i < NODES; i++) nodes.push(await cluster.node());
  const workers: Worker[] = Array.from({ length: WORKERS }, newWorker);
  let applied = 0;
  let lost = 0;
  /** Appends each node process saw overtaken by another node's (and ran again), read before each kill. */
  const overtakenBy = new Map<Spawned, number>();
  for (let round = 1; round <= ROUNDS + 1; round++) {
    const whole = round === ROUNDS + 1;
    const stop = { dead: false };
    const running = workers.map((w, i) => runWorker(client(nodes[i % NODES].url), w, `w${i}`, stop, t, { tolerate503: true }));
    await sleep(400 + random() * 800);
    const victims = whole ? [0, 1, 2] : [Math.floor(random() * NODES)];
    for (const n of nodes) overtakenBy.set(n, await overtakenOn(n));
    await Promise.all(victims.map((v) => nodes[v].kill()));
    // The others keep writing a little while the victim is gone.
    if (!whole) await sleep(300);
    stop.dead = true;
    await Promise.all(running);
    for (const v of victims) nodes[v] = await cluster.node();
    await converged(nodes);
    const api = client(nodes[Math.floor(random() * NODES)].url);
    const r = await verify(t, api, workers, whole);
    applied += r.pendingApplied;
    lost += r.pendingLost;
    if (whole || round % 2 === 0) await checkAllEventIds(t, api);
    await checkLog(t, cluster);
  }
  const acked = workers.reduce((n, w) => n + w.acked, 0);
  const refused = workers.reduce((n, w) => n + w.refused, 0);
  const overtaken = [...overtakenBy.values()].reduce((a, b) => a + b, 0);
  t.comment(
    `${ROUNDS} node kills and 1 cluster kill; ${acked} acknowledged requests, ${refused} answered 503; ` +
      `in-flight requests found applied ${applied}, not applied ${lost}; appends overtaken by another node's and run again: ${overtaken}`,
  );
  t.ok(acked > ROUNDS * 50, 'the workers got real work done');
  t.ok(refused <= acked / 20, `few writes were refused (${refused})`);
});
