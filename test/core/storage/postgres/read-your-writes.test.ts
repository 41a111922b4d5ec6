// Read-your-writes across nodes, with no stickiness: a change one node acknowledged is seen by the
// very next admin request to another node (the node asks the database for the log's head and
// applies up to it before answering). 300 flags created on node A, each switched on at once
// through node B and read back through A; concurrent requests share lookups of the log's head
// (which of them may share one is test/core/single-flight.unit.test.ts's); the latency per admin request is
// measured.
import t from 'tap';
import { clusterFor } from '../../../helpers/cluster.js';
import { client } from '../../../helpers/server.js';

const P = '/api/admin/projects/default/features';
const PAIRS = Number(process.env.FANION_RYW_PAIRS ?? 300);

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

t.test('a flag created on node A is switched on through node B at once, and A reads that back', async (t) => {
  const cluster = await clusterFor(t);
  if (!cluster) return;
  const [a, b] = [await cluster.node(), await cluster.node()];
  const [apiA, apiB] = [client(a.url, {}, false), client(b.url, {}, false)];
  const failures: string[] = [];
  const switchMs: number[] = [];
  const readMs: number[] = [];
  const started = Date.now();
  for (let i = 0; i < PAIRS; i++) {
    const name = `ryw-${i}`;
    const made = await apiA('POST', P, { name });
    if (made.status !== 201) failures.push(`create ${name} on A: ${made.status}`);
    let t0 = performance.now();
    const on = await apiB('POST', `${P}/${name}/environments/development/on`);
    switchMs.push(performance.now() - t0);
    if (on.status !== 200) failures.push(`switch ${name} on via B: ${on.status} ${on.json?.message ?? ''}`);
    t0 = performance.now();
    const read = await apiA('GET', `${P}/${name}`);
    readMs.push(performance.now() - t0);
    const enabled = read.json?.environments?.find((e: { name: string }) => e.name === 'development')?.enabled;
    if (read.status !== 200 || enabled !== true) failures.push(`read ${name} on A after B switched it on: ${read.status} enabled=${enabled}`);
  }
  const kinds = (word: string) => failures.filter((f) => f.startsWith(word)).length;
  t.same(failures.slice(0, 10), [], `0 of ${PAIRS} create-on-A, switch-on-via-B, read-on-A triples failed (${failures.length} failed: ${kinds('create')} creates, ${kinds('switch')} switches, ${kinds('read')} reads; ${Date.now() - started} ms)`);
  t.comment(`right after the other node's write: switch on via B p50 ${percentile(switchMs, 50).toFixed(2)} ms, p99 ${percentile(switchMs, 99).toFixed(2)} ms; read on A p50 ${percentile(readMs, 50).toFixed(2)} ms, p99 ${percentile(readMs, 99).toFixed(2)} ms`);

  // What the wait costs an admin read on an idle cluster (nothing to apply: one query).
  const ms: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    const r = await apiB('GET', `${P}/ryw-${i % PAIRS}`);
    ms.push(performance.now() - t0);
    if (r.status !== 200) t.fail(`an admin read answered ${r.status}`);
  }
  const polls: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    await (await fetch(`${b.url}/api/client/features`)).arrayBuffer();
    polls.push(performance.now() - t0);
  }
  t.comment(`admin GET on B: p50 ${percentile(ms, 50).toFixed(2)} ms, p99 ${percentile(ms, 99).toFixed(2)} ms; SDK poll on B: p50 ${percentile(polls, 50).toFixed(2)} ms, p99 ${percentile(polls, 99).toFixed(2)} ms`);
  // 50 admin reads at once on B: they share a few lookups, and all see the newest flag.
  const counted = async () => {
    const metrics = await fetch(`${b.url}/internal-backstage/prometheus`).then((r) => r.text());
    return ['cluster_log_waits_total', 'cluster_log_head_lookups_total'].map((m) => Number(new RegExp(`^${m} (\\d+)$`, 'm').exec(metrics)?.[1]));
  };
  const [waits0, lookups0] = await counted();
  t.equal((await apiA('POST', P, { name: 'burst' })).status, 201);
  const burst = await Promise.all(Array.from({ length: 50 }, () => apiB('GET', `${P}/burst`)));
  t.same(burst.map((r) => r.status).filter((s) => s !== 200), [], 'the 50 reads on B all see the flag just created on A');
  const [waits1, lookups1] = await counted();
  t.ok(waits1 - waits0 === 50 && lookups1 - lookups0 < 50, `they shared lookups of the log's head: ${waits1 - waits0} requests waited, ${lookups1 - lookups0} lookups`);
  const position = (await apiB('GET', `${P}/ryw-0`)).headers.get('x-fanion-log-position');
  const head = Number((await cluster.pg.query(cluster.database, 'SELECT max(seq) AS seq FROM fanion_log')).rows[0].seq);
  t.equal(Number(position), head, `an admin answer says the log position it reflects (X-Fanion-Log-Position: ${position})`);
});
