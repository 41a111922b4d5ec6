// What a node does with a database it cannot read: a table named like Fanion's but of another shape
// (made by something else), and a record in the log that is not a Fanion record (garbage bytes, or
// a record with an op this version does not know). At start-up: exit status 2 and a message naming
// the table, the seq and what is wrong. While running: the node stops applying, /ready answers 503
// and writes are refused, saying which record it cannot read (not that the database is unreachable).
import t from 'tap';
import { clusterFor, expectExit, type Cluster } from '../../../helpers/cluster.js';
import { client, spawnServer } from '../../../helpers/server.js';
import { encodeRecord, type WalRecord } from '../../../../src/core/log/record.js';

const P = '/api/admin/projects/default/features';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startExpectingExit(cluster: Cluster): Promise<{ code: number | null; output: string }> {
  const n = await spawnServer({ env: { DATABASE_URL: cluster.url }, expectExit: true });
  return { code: await n.stop(), output: n.output() };
}

async function head(cluster: Cluster): Promise<number> {
  return Number((await cluster.pg.query(cluster.database, 'SELECT max(seq) AS seq FROM fanion_log')).rows[0].seq);
}

const UNKNOWN_OP = (lsn: number) => Buffer.from(encodeRecord({ lsn, ops: [{ o: 'martian.put', id: 'x' }], events: [] } as unknown as WalRecord));
const GARBAGE = Buffer.from('this is not msgpack at all, just text someone wrote');

t.test('a foreign table named fanion_log stops start-up with status 2, naming the table and the columns expected', async (t) => {
  const cluster = await clusterFor(t);
  if (!cluster) return;
  await cluster.pg.query(cluster.database, 'CREATE TABLE fanion_log (id serial PRIMARY KEY, payload text)');
  const { code, output } = await startExpectingExit(cluster);
  t.equal(code, 2, 'exit status 2');
  t.match(output, /public\.fanion_log/, 'the message names the table');
  t.match(output, /seq bigint/, 'and the columns Fanion expects');
  t.match(output, /rec bytea/);
  t.notMatch(output, /Buffer|DataView/, 'no word about Buffers or DataViews');
});

t.test('a record that is not a Fanion record stops start-up with status 2, naming the table, its seq and what is wrong', async (t) => {
  const cluster = await clusterFor(t);
  if (!cluster) return;
  const a = await cluster.node();
  t.equal((await client(a.url)('POST', P, { name: 'before' })).status, 201);
  await a.stop();
  for (const [what, bytes] of [['garbage bytes', () => GARBAGE], ['an unknown op', UNKNOWN_OP]] as const) {
    const seq = (await head(cluster)) + 1;
    await cluster.pg.query(cluster.database, 'INSERT INTO fanion_log (seq, rec) VALUES ($1, $2)', [seq, bytes(seq)]);
    const { code, output } = await startExpectingExit(cluster);
    t.equal(code, 2, `${what}: exit status 2`);
    t.match(output, new RegExp(`record ${seq} in public\\.fanion_log is not a Fanion record`), `${what}: the message names the table and the seq`);
    t.notMatch(output, /Buffer|DataView/, `${what}: no word about Buffers or DataViews`);
    t.comment(output.split('\n').find((l) => l.includes(`record ${seq}`)));
    await cluster.pg.query(cluster.database, 'DELETE FROM fanion_log WHERE seq = $1', [seq]);
  }
});

t.test('a record a running node cannot read: it stops applying, is not ready, and refuses writes saying which record', async (t) => {
  for (const [what, bytes] of [['garbage bytes', () => GARBAGE], ['an unknown op', UNKNOWN_OP]] as const) {
    await t.test(what, async (t) => {
      const cluster = await clusterFor(t);
      if (!cluster) return;
      const [a, b] = [await cluster.node(), await cluster.node()];
      expectExit(a);
      expectExit(b);
      t.equal((await client(a.url)('POST', P, { name: 'before' })).status, 201);
      const seq = (await head(cluster)) + 1;
      await cluster.pg.query(cluster.database, 'INSERT INTO fanion_log (seq, rec) VALUES ($1, $2)', [seq, bytes(seq)]);
      // Node A learns of it by its next write (the append finds the place taken); node B by
      // following (within a second).
      const write = await client(a.url, {}, false)('POST', P, { name: 'after' });
      t.equal(write.status, 503, `a write on A is refused (${write.status})`);
      t.match(write.json?.message, new RegExp(`record ${seq}`), `saying which record: ${write.json?.message}`);
      t.notMatch(write.json?.message, /cannot be reached/, 'not that the database cannot be reached');
      for (const n of [a, b]) {
        let ready = await fetch(`${n.url}/ready`);
        for (let i = 0; i < 30 && ready.status === 200; i++) {
          await sleep(100);
          ready = await fetch(`${n.url}/ready`);
        }
        const text = await ready.text();
        t.equal(ready.status, 503, `${n === a ? 'A' : 'B'}: /ready answers 503`);
        t.match(text, new RegExp(`record ${seq}`), `naming the record: ${text}`);
        const again = await client(n.url, {}, false)('POST', P, { name: 'later' });
        t.equal(again.status, 503, 'writes are refused');
        t.match(again.json?.message, new RegExp(`record ${seq} in public\\.fanion_log`), `naming the table and the seq: ${again.json?.message}`);
        t.equal((await fetch(`${n.url}/api/client/features`)).status, 200, 'SDKs are still served from memory');
        t.match(n.output(), new RegExp(`record ${seq} in public\\.fanion_log is not a Fanion record`), 'the log says what is wrong and where');
      }
      t.equal(await head(cluster), seq, 'nothing was written after it');
    });
  }
});
