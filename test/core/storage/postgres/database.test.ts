// The cluster's database over time: checkpoints written to it and the log pruned behind them, a new
// node starting from the newest checkpoint, and the whole database stopped under load and started
// again (and a node started while it is down).
import t from 'tap';
import { clusterFor, converged, expectExit } from '../../../helpers/cluster.js';
import { client, spawnServer, type Spawned } from '../../../helpers/server.js';

const P = '/api/admin/projects/default/features';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('checkpoints in the database, the log pruned behind them, and a node joining from the newest', async (t) => {
  const cluster = await clusterFor(t, { CHECKPOINT_RECORDS: '30' });
  if (!cluster) return;
  const a = await cluster.node();
  const b = await cluster.node();
  const names = Array.from({ length: 100 }, (_, i) => `flag-${i}`);
  for (let i = 0; i < names.length; i += 10) {
    const batch = names.slice(i, i + 10).map((name, j) => client((j % 2 ? a : b).url)('POST', P, { name }));
    for (const r of await Promise.all(batch)) t.equal(r.status, 201);
  }
  await converged([a, b]);
  // A checkpoint is written after the record that made it due: wait for the one covering the newest.
  let checkpoints: { seq: string; written_by: string }[] = [];
  for (let i = 0; i < 100; i++) {
    checkpoints = (await cluster.pg.query(cluster.database, 'SELECT seq, written_by FROM fanion_checkpoint ORDER BY seq')).rows;
    if (checkpoints.length >= 2) break;
    await sleep(100);
  }
  t.equal(checkpoints.length, 2, 'two checkpoints are kept: the newest and the previous one');
  const [previous, newest] = checkpoints.map((c) => Number(c.seq));
  const log = (await cluster.pg.query(cluster.database, 'SELECT min(seq) AS min, max(seq) AS max FROM fanion_log')).rows[0];
  t.equal(Number(log.min), previous + 1, `the log before the previous checkpoint (${previous}) is pruned`);
  t.ok(Number(log.max) >= newest, 'the log after it is kept');
  const parts = (await cluster.pg.query(cluster.database, 'SELECT DISTINCT seq FROM fanion_checkpoint_part ORDER BY seq')).rows.map((r) => Number(r.seq));
  t.same(parts, [previous, newest], 'the parts of older checkpoints are gone too');
  const c = await cluster.node();
  const started = /"checkpoint":\{"lsn":(\d+)/.exec(c.output());
  t.ok(started && Number(started[1]) >= newest, `the new node started from checkpoint ${started?.[1]} and the log after it`);
  await converged([a, b, c]);
  t.equal((await client(c.url)('GET', `${P}/flag-99`)).status, 200);
});

t.test('a node away while two checkpoints prune the records it needs exits, saying so, and starts from the newest checkpoint', async (t) => {
  const cluster = await clusterFor(t, { CHECKPOINT_RECORDS: '20' });
  if (!cluster) return;
  const a = await cluster.node();
  const away = await cluster.node();
  away.proc.kill('SIGSTOP');
  expectExit(away);
  const api = client(a.url);
  for (let i = 0; i < 70; i++) t.equal((await api('POST', P, { name: `while-away-${i}` })).status, 201);
  for (let i = 0; i < 100; i++) {
    const n = (await cluster.pg.query(cluster.database, 'SELECT count(*) AS n FROM fanion_checkpoint')).rows[0].n;
    if (Number(n) >= 2) break;
    await sleep(100);
  }
  const exited = new Promise<number | null>((resolve) => away.proc.once('exit', (code) => resolve(code)));
  away.proc.kill('SIGCONT');
  t.equal(await exited, 1, 'the node that was away exits with status 1');
  t.match(away.output(), /keeps it only from record \d+ on .*restart this node/, 'saying why and what to do');
  const again = await cluster.node();
  await converged([a, again]);
  t.equal((await client(again.url)('GET', `${P}/while-away-69`)).status, 200, 'restarted, it has everything');
});

t.test('the database stopped under load and started again; a node started while it is down', async (t) => {
  const cluster = await clusterFor(t, { DATABASE_TIMEOUT_MS: '2000' });
  if (!cluster) return;
  const nodes: Spawned[] = [await cluster.node(), await cluster.node()];
  const acked: string[] = [];
  const statuses = new Map<number, number>();
  const pollStatuses = new Map<number, number>();
  let stop = false;
  let n = 0;
  const writer = async (node: Spawned) => {
    const api = client(node.url);
    while (!stop) {
      const name = `w-${++n}`;
      const r = await api('POST', P, { name });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status === 201) acked.push(name);
      else if (r.status !== 503) t.fail(`a write answered ${r.status}: ${r.text}`);
      if (r.status === 503) await sleep(50);
    }
  };
  const poller = async (node: Spawned) => {
    let etag = '';
    while (!stop) {
      const r = await fetch(`${node.url}/api/client/features`, { headers: etag ? { 'if-none-match': etag } : {} });
      await r.arrayBuffer();
      pollStatuses.set(r.status, (pollStatuses.get(r.status) ?? 0) + 1);
      etag = r.headers.get('etag') ?? etag;
      await sleep(20);
    }
  };
  const load = [...nodes.flatMap((x) => [writer(x), writer(x), poller(x)])];
  await sleep(700);
  cluster.pg.stop();
  const downAt = acked.length;
  await sleep(2_500);
  const during = statuses.get(503) ?? 0;
  // SDKs' own posts are kept in memory meanwhile: no 5xx for them either.
  const sdk = client(nodes[0].url);
  const register = { appName: 'during-outage', instanceId: 'i-1', strategies: ['default'], started: new Date().toISOString(), interval: 10_000 };
  t.equal((await sdk('POST', '/api/client/register', register)).status, 202, 'an SDK registers while the database is down');
  const bucket = { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: { 'w-1': { yes: 1, no: 0, variants: {} } } };
  t.equal((await sdk('POST', '/api/client/metrics', { appName: 'during-outage', instanceId: 'i-1', bucket })).status, 202, 'and sends metrics');
  const starting = await fetch(`${nodes[1].url}/api/frontend`).then((r) => r.status);
  t.ok(starting < 500, `the Frontend API answers without a 5xx (${starting})`);
  // A node started now waits for the database: its port is open, /ready says 503.
  const late = await spawnServer({ env: { DATABASE_URL: cluster.url, DATABASE_TIMEOUT_MS: '2000' }, portOpen: true });
  t.teardown(() => late.kill());
  t.equal((await fetch(`${late.url}/ready`)).status, 503, 'a node started while the database is down is not ready');
  cluster.pg.start();
  await sleep(2_500);
  stop = true;
  await Promise.all(load);
  t.ok(during > 0, `writes answered 503 while the database was down (${during})`);
  t.ok(acked.length > downAt, `and 201 again once it was back (${acked.length - downAt} after it stopped)`);
  t.same([...pollStatuses.keys()].filter((s) => s !== 200 && s !== 304), [], `polls answered only 200 and 304 throughout (${JSON.stringify([...pollStatuses])})`);
  for (let i = 0; i < 100 && (await fetch(`${late.url}/ready`)).status !== 200; i++) await sleep(100);
  t.equal((await fetch(`${late.url}/ready`)).status, 200, 'the late node became ready once the database answered');
  const all = [...nodes, late];
  await converged(all);
  for (const x of all) {
    const api = client(x.url);
    const missing: string[] = [];
    for (const name of acked) if ((await api('GET', `${P}/${name}`)).status !== 200) missing.push(name);
    t.same(missing, [], `every acknowledged write (${acked.length}) is on ${x.url}`);
  }
});
