// A node cut off from the database, for real: node C reaches PostgreSQL only through a TCP proxy
// (helpers/tcp-proxy.ts) that the test cuts (connections closed, new ones refused) or holds (a
// partition: nothing carried, nothing closed, then delivered late when it heals). Nodes A and B
// reach the database directly.
import t from 'tap';
import { clusterFor, converged } from '../../../helpers/cluster.js';
import { client, type Spawned } from '../../../helpers/server.js';
import { tcpProxy } from '../../../helpers/tcp-proxy.js';

const P = '/api/admin/projects/default/features';
const TIMEOUT_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a node cut off from the database', async (t) => {
  const cluster = await clusterFor(t);
  if (!cluster) return;
  const proxy = await tcpProxy({ host: '127.0.0.1', port: cluster.pg.port });
  t.teardown(() => proxy.close());
  const a: Spawned = await cluster.node();
  const b: Spawned = await cluster.node();
  const c: Spawned = await cluster.node({ DATABASE_URL: proxy.via(cluster.url), DATABASE_TIMEOUT_MS: String(TIMEOUT_MS) });
  const [apiA, apiC] = [client(a.url), client(c.url)];
  t.equal((await apiA('POST', P, { name: 'before' })).status, 201);
  await converged([a, b, c]);

  await t.test('answers its writes 503 and goes on serving reads; catches up once it reaches the database again', async (t) => {
    const poll = await fetch(`${c.url}/api/client/features`);
    const etag = poll.headers.get('etag')!;
    proxy.cut();
    const t0 = Date.now();
    const refused = await apiC('POST', P, { name: 'while-cut' });
    t.equal(refused.status, 503, 'the write is refused');
    t.match(refused.json.message, /database/i, `saying why: ${refused.json.message}`);
    t.ok(Date.now() - t0 < TIMEOUT_MS * 3, `within ${Date.now() - t0} ms`);
    for (let i = 0; i < 20; i++) {
      const r = await fetch(`${c.url}/api/client/features`, { headers: { 'if-none-match': etag } });
      await r.arrayBuffer();
      if (r.status !== 304) t.fail(`poll ${i} answered ${r.status}`);
    }
    t.pass('20 polls answered 304 from memory');
    for (let i = 0; i < 5; i++) t.equal((await apiA('POST', P, { name: `a-${i}` })).status, 201, 'the other nodes take writes');
    // An admin read on C cannot make sure C has what A acknowledged: 503 saying so, never a stale 404.
    const stale = await apiC('GET', `${P}/a-4`);
    t.equal(stale.status, 503, `an admin read of what A wrote answers 503 on C, not 404 (${stale.status})`);
    t.match(stale.json?.message, /database cannot be reached .*every change the other nodes acknowledged/, `saying why: ${stale.json?.message}`);
    // Wait for the follower to notice, then /ready still says 200, with the reason.
    let ready = await fetch(`${c.url}/ready`).then(async (r) => ({ status: r.status, json: (await r.json()) as { warnings?: string[] } }));
    for (let i = 0; i < 50 && !ready.json.warnings; i++) {
      await sleep(100);
      ready = await fetch(`${c.url}/ready`).then(async (r) => ({ status: r.status, json: (await r.json()) as { warnings?: string[] } }));
    }
    t.equal(ready.status, 200, '/ready stays 200: the node serves from memory');
    t.match(ready.json.warnings?.[0], /database cannot be reached/, `/ready says why: ${ready.json.warnings?.[0]}`);
    proxy.heal();
    await converged([a, b, c]);
    t.equal((await apiC('GET', `${P}/a-4`)).status, 200, 'C has what A wrote meanwhile');
    t.equal((await apiA('GET', `${P}/while-cut`)).status, 404, 'and the refused write is nowhere');
    t.equal((await apiC('POST', P, { name: 'after-heal' })).status, 201, 'C takes writes again');
    await converged([a, b, c]);
  });

  await t.test('never acknowledges a write that another node overtook during a partition', async (t) => {
    // The partition holds C's INSERT (after its wait for the log's head, which gets through): it
    // reaches the database after A's commit, so the fence is what refuses it.
    const partition = () => proxy.holdAfter('INSERT INTO fanion_log');
    for (let i = 0; i < 3; i++) {
      const name = `contested-${i}`;
      partition();
      const fromC = apiC('POST', P, { name, description: 'from C' });
      await sleep(300);
      t.equal((await apiA('POST', P, { name, description: 'from A' })).status, 201, `A creates ${name} while C is partitioned`);
      await sleep(500);
      proxy.heal();
      const r = await fromC;
      t.ok(r.status === 409 || r.status === 503, `C, whose insert arrives after A's commit, answers ${r.status} (${r.json?.name}), not 201`);
      await converged([a, b, c]);
      const got = await apiC('GET', `${P}/${name}`);
      t.equal(got.json.description, 'from A', 'every node holds what A committed');
      const events = await apiC('POST', '/api/admin/events/search', { feature: name, type: 'feature-created' });
      t.equal(events.json.totalEvents, 1, 'created once');
    }
    // The same during a partition for a change that does not clash: run again, then acknowledged.
    partition();
    const fromC = apiC('PATCH', `${P}/before`, [{ op: 'replace', path: '/description', value: 'patched by C' }]);
    await sleep(300);
    t.equal((await apiA('POST', P, { name: 'unrelated' })).status, 201);
    await sleep(500);
    proxy.heal();
    const r = await fromC;
    t.equal(r.status, 200, 'a write overtaken by an unrelated one is run again on the newer state and acknowledged');
    await converged([a, b, c]);
    t.equal((await apiA('GET', `${P}/before`)).json.description, 'patched by C', 'and it is there, on every node');
  });

  await t.test('a commit whose answer was lost is acknowledged once the node can tell, not run twice', async (t) => {
    // Only the INSERT's answer is lost: the lookup of the log's head before the request goes through.
    proxy.holdRepliesAfter('INSERT INTO fanion_log');
    const fromC = apiC('POST', P, { name: 'answer-lost', description: 'once' });
    // Past the append's deadline (its outcome is then unknown), within recovery's.
    await sleep(TIMEOUT_MS + 1_000);
    proxy.heal();
    const r = await fromC;
    t.equal(r.status, 201, `C answers 201: it found its own record in the log (${r.json?.message ?? ''})`);
    await converged([a, b, c]);
    const events = await apiA('POST', '/api/admin/events/search', { feature: 'answer-lost' });
    t.equal(events.json.totalEvents, 1, 'one event: the command was not run a second time');
    const metrics = await fetch(`${c.url}/internal-backstage/prometheus`).then((x) => x.text());
    t.match(metrics, /cluster_append_failures_total\{reason="unknown"\} [1-9]/, 'the append was counted as of unknown outcome');
  });
});
