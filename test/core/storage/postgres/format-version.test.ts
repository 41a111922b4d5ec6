// A cluster's database written by a newer Fanion: tables marked with a newer format, or a log record
// of a newer format, stop a node's start-up with status 2 and a message naming what and which
// version. Tables without a mark (made by Fanion 0.1.0) are format 1: they start, and get the mark.
import { Decoder, Encoder } from '@msgpack/msgpack';
import t from 'tap';
import { clusterFor, type Cluster } from '../../../helpers/cluster.js';
import { client, startRefused } from '../../../helpers/server.js';
import { frame, readFrame } from '../../../../src/core/log/wal/frame.js';

const P = '/api/admin/projects/default/features';

async function startExpectingExit(cluster: Cluster): Promise<{ code: number | null; output: string }> {
  return startRefused({ env: { DATABASE_URL: cluster.url } });
}

const formatMark = async (cluster: Cluster) =>
  (await cluster.pg.query(cluster.database, "SELECT value FROM fanion_setting WHERE name = 'tables-format'")).rows[0]?.value as string | undefined;

async function flagsOf(cluster: Cluster): Promise<string[]> {
  const n = await cluster.node();
  try {
    return ((await client(n.url)('GET', P)).json.features as { name: string }[]).map((f) => f.name).sort();
  } finally {
    await n.stop();
  }
}

t.test('the tables carry their format version; tables of a newer one stop start-up with status 2, unmarked ones start as version 1', async (t) => {
  const cluster = await clusterFor(t);
  if (!cluster) return;
  const a = await cluster.node();
  t.equal((await client(a.url)('POST', P, { name: 'kept' })).status, 201);
  await a.stop();
  t.equal(await formatMark(cluster), '1', 'the first node marks the tables with format 1');

  await cluster.pg.query(cluster.database, "UPDATE fanion_setting SET value = '2' WHERE name = 'tables-format'");
  const { code, output } = await startExpectingExit(cluster);
  t.equal(code, 2, 'exit status 2');
  t.match(output, /the tables in the schema public: format version 2, written by a newer Fanion; this Fanion reads versions up to 1/);

  // As Fanion 0.1.0 left them: no mark at all.
  await cluster.pg.query(cluster.database, "DELETE FROM fanion_setting WHERE name = 'tables-format'");
  t.strictSame(await flagsOf(cluster), ['kept'], 'unmarked tables start, with their data');
  t.equal(await formatMark(cluster), '1', 'and are marked format 1');
});

t.test('a log record of a newer format version stops start-up with status 2, naming the table, the seq and the versions', async (t) => {
  const cluster = await clusterFor(t);
  if (!cluster) return;
  const a = await cluster.node();
  t.equal((await client(a.url)('POST', P, { name: 'kept' })).status, 201);
  await a.stop();
  const seq = Number((await cluster.pg.query(cluster.database, 'SELECT max(seq) AS seq FROM fanion_log')).rows[0].seq) + 1;
  await cluster.pg.query(cluster.database, 'INSERT INTO fanion_log (seq, rec) VALUES ($1, $2)', [seq, Buffer.from(new Encoder().encode([3, seq, { something: 'new' }]))]);
  const { code, output } = await startExpectingExit(cluster);
  t.equal(code, 2, 'exit status 2');
  t.match(output, new RegExp(`record ${seq} in public\\.fanion_log: format version 3, written by a newer Fanion; this Fanion reads versions up to 2`));
  await cluster.pg.query(cluster.database, 'DELETE FROM fanion_log WHERE seq = $1', [seq]);
  t.strictSame(await flagsOf(cluster), ['kept'], 'without it, the cluster starts with its data');
});

t.test('a checkpoint of a newer format version in the database stops start-up with status 2 instead of being passed over', async (t) => {
  const cluster = await clusterFor(t, { CHECKPOINT_RECORDS: '2' });
  if (!cluster) return;
  const a = await cluster.node();
  for (const name of ['kept-0', 'kept-1', 'kept-2']) t.equal((await client(a.url)('POST', P, { name })).status, 201);
  const newest = async () => (await cluster.pg.query(cluster.database, 'SELECT seq, data FROM fanion_checkpoint_part WHERE part = 0 AND seq IN (SELECT seq FROM fanion_checkpoint) ORDER BY seq DESC LIMIT 1')).rows[0] as { seq: string; data: Buffer } | undefined;
  for (let i = 0; i < 100 && !(await newest()); i++) await new Promise((r) => setTimeout(r, 100));
  await a.stop();
  // The newest once the node is gone: the one a starting node loads.
  const row = await newest();
  if (!t.ok(row, 'a node wrote a checkpoint')) return;
  const first = readFrame(row!.data, 0);
  if (first.kind !== 'ok') throw new Error('no header frame');
  const header = new Decoder().decode(first.payload) as Record<string, unknown>;
  const newer = Buffer.concat([frame(new Encoder().encode({ ...header, version: 7 })), row!.data.subarray(first.next)]);
  await cluster.pg.query(cluster.database, 'UPDATE fanion_checkpoint_part SET data = $2 WHERE seq = $1 AND part = 0', [row!.seq, newer]);
  const { code, output } = await startExpectingExit(cluster);
  t.equal(code, 2, 'exit status 2');
  t.match(output, new RegExp(`checkpoint ${row!.seq} in the database: format version 7, written by a newer Fanion; this Fanion reads versions up to 2`));
  await cluster.pg.query(cluster.database, 'UPDATE fanion_checkpoint_part SET data = $2 WHERE seq = $1 AND part = 0', [row!.seq, row!.data]);
  t.strictSame(await flagsOf(cluster), ['kept-0', 'kept-1', 'kept-2'], 'with the checkpoint as written, the cluster starts');
});
