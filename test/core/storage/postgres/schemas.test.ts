// Two clusters in one database, one schema each (search_path in DATABASE_URL): their locks and
// wake-ups are keyed by schema, so each has its own webhook leader and each delivers; neither sees
// the other's flags.
import t from 'tap';
import { clusterFor } from '../../../helpers/cluster.js';
import { receiverFor, RECEIVERS_ALLOWED, until, webhook } from '../../../helpers/receiver.js';
import { client } from '../../../helpers/server.js';

const P = '/api/admin/projects/default/features';

t.test('two clusters in one database, one schema each, both deliver their webhooks', async (t) => {
  const cluster = await clusterFor(t, { ...RECEIVERS_ALLOWED, WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_BASE_MS: '100' });
  if (!cluster) return;
  const schemas = ['team_a', 'team_b'];
  for (const s of schemas) await cluster.pg.query(cluster.database, `CREATE SCHEMA ${s}`);
  const teams = await Promise.all(schemas.map(async (s) => {
    const url = `${cluster.url}?options=${encodeURIComponent(`-c search_path=${s}`)}`;
    const nodes = [await cluster.node({ DATABASE_URL: url }), await cluster.node({ DATABASE_URL: url })];
    return { schema: s, nodes, receiver: await receiverFor(t) };
  }));
  for (const team of teams) {
    const api = client(team.nodes[0].url);
    t.equal((await api('POST', '/api/admin/addons', webhook(team.receiver.url, { events: ['feature-created'] }))).status, 200);
    t.equal((await api('POST', P, { name: `hello-${team.schema}` })).status, 201);
  }
  for (const team of teams) {
    await until(`${team.schema}'s receiver gets its event`, () => team.receiver.received.some((r) => r.body.includes(`"hello-${team.schema}"`)), 20_000);
    t.pass(`${team.schema}: the webhook was delivered`);
    const other = teams.find((x) => x !== team)!;
    t.equal((await client(team.nodes[1].url)('GET', `${P}/hello-${other.schema}`)).status, 404, `${team.schema} does not see ${other.schema}'s flag`);
    const tables = await cluster.pg.query(cluster.database, `SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'fanion_%'`, [team.schema]);
    t.equal(Number(tables.rows[0].n), 4, `${team.schema} holds its own four tables`);
  }
});
