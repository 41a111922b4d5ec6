// A cluster's database written by a newer Fanion: tables marked with a newer format, or a log record
// of a newer format, stop a node's start-up with status 2 and a message naming what and which
// version. Tables without a mark (made by Fanion 0.1.0) are format 1: they start, and get the mark.
import { Encoder } from '@msgpack/msgpack';
import t from 'tap';
import { clusterFor, type Cluster } from '../../helpers/cluster.js';
import { client, spawnServer } from '../../helpers/server.js';

const P = '/api/admin/projects/default/features';

async function startExpectingExit(cluster: Cluster): Promise<{ code: number | null; output: string }> {
  const n = await spawnServer({ env: { DATABASE_URL: cluster.url }, expectExit: true });
  // Bounded: a build that starts anyway (passing the data over) is killed and fails the test.
  const timer = setTimeout(() => n.proc.kill('SIGKILL'), 20_000);
  const code = await n.stop();
  clearTimeout(timer);
  return { code, output: n.output() };
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
