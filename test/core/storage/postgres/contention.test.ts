// Normal write contention on a cluster is quiet on both sides: nodes writing at once overtake one
// another in the log (the commands run again on the newer state), which is routine, so neither
// PostgreSQL's log gets an ERROR line (a unique violation) nor Fanion's a WARN line for it; the
// count stays in cluster_append_failures_total{reason="overtaken"}. A real 3-node cluster with 600
// concurrent writes.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { clusterFor, converged } from '../../../helpers/cluster.js';
import { client } from '../../../helpers/server.js';

const NODES = 3;
const WORKERS = 4;
const WRITES = 600;
const P = '/api/admin/projects/default/features';

t.test(`${WRITES} concurrent writes over ${NODES} nodes: no ERROR in PostgreSQL's log, no WARN in Fanion's`, async (t) => {
  const cluster = await clusterFor(t);
  if (!cluster) return;
  const nodes = await Promise.all(Array.from({ length: NODES }, () => cluster.node()));
  const pgLog = path.join(cluster.pg.dir, 'postgres.log');
  const from = fs.statSync(pgLog).size;
  const outFrom = nodes.map((n) => n.output().length);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(nodes.flatMap((n) => Array.from({ length: WORKERS }, async () => {
    const api = client(n.url);
    while (next < WRITES) {
      const i = next++;
      const res = await api('POST', P, { name: `contended-${i}` });
      if (res.status !== 201) throw new Error(`write ${i} → ${res.status} ${res.text}`);
    }
  })));
  const ms = performance.now() - t0;
  await converged(nodes);
  let overtaken = 0;
  for (const n of nodes) {
    const text = await (await fetch(`${n.url}/internal-backstage/prometheus`)).text();
    overtaken += Number(/cluster_append_failures_total\{reason="overtaken"\} (\d+)/.exec(text)?.[1] ?? 0);
  }
  t.ok(overtaken > 0, `the nodes did overtake one another (${overtaken} times in ${Math.round(ms)} ms): the test saw contention`);
  const fd = fs.openSync(pgLog, 'r');
  const buf = Buffer.alloc(fs.statSync(pgLog).size - from);
  fs.readSync(fd, buf, 0, buf.length, from);
  fs.closeSync(fd);
  const errors = buf.toString().split('\n').filter((l) => /\bERROR:/.test(l));
  t.equal(errors.length, 0, `no ERROR line in PostgreSQL's log (${errors.length}):\n${errors.slice(0, 4).join('\n')}`);
  const warns = nodes.flatMap((n, i) => n.output().slice(outFrom[i]).split('\n').filter((l) => l.includes('"level":40')));
  t.equal(warns.length, 0, `no WARN line in Fanion's logs (${warns.length}):\n${warns.slice(0, 4).join('\n')}`);
  t.equal((await cluster.records()).length >= WRITES, true, 'every write is in the log');
});
