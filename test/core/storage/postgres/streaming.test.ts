// A streaming SDK moved to another node: the official Node SDK (unleash-client, streaming mode)
// reaches the cluster through a TCP proxy standing for a load balancer; its node is SIGKILLed, the
// balancer sends new connections to another node, changes are made meanwhile, and the SDK, which
// reconnects with the Last-Event-ID of the dead node (the same event ids on every node), ends up
// with every change.
import t from 'tap';
import { clusterFor } from '../../../helpers/cluster.js';
import { client } from '../../../helpers/server.js';
import { tcpProxy } from '../../../helpers/tcp-proxy.js';
import { syncedSdk } from '../../../helpers/unleash-sdk.js';

const P = '/api/admin/projects/default/features';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a streaming SDK whose node dies resumes on another and misses nothing', async (t) => {
  const cluster = await clusterFor(t);
  if (!cluster) return;
  const a = await cluster.node();
  const b = await cluster.node();
  const balancer = await tcpProxy({ host: '127.0.0.1', port: a.port });
  t.teardown(() => balancer.close());
  const [apiA, apiB] = [client(a.url), client(b.url)];
  t.equal((await apiA('POST', P, { name: 'before' })).status, 201);
  t.equal((await apiA('POST', `${P}/before/environments/development/on`)).status, 200);
  const sdk = await syncedSdk(t, `http://127.0.0.1:${balancer.port}`, { token: 'any', mode: { type: 'streaming' }, syncMs: 15_000 });
  t.ok(sdk.isEnabled('before'), 'the SDK streams from node A');
  const streamsOn = async (url: string) => Number(/^streaming_connections (\d+)/m.exec(await fetch(`${url}/internal-backstage/prometheus`).then((r) => r.text()))?.[1] ?? 0);
  t.equal(await streamsOn(a.url), 1, 'its stream is on node A');
  await a.kill();
  balancer.retarget(b.port);
  // Changes while the SDK reconnects (it waits about 2 s), made on node B.
  t.equal((await apiB('POST', P, { name: 'during' })).status, 201);
  t.equal((await apiB('POST', `${P}/during/environments/development/on`)).status, 200);
  t.equal((await apiB('POST', `${P}/before/environments/development/off`)).status, 200);
  const until = Date.now() + 20_000;
  while (Date.now() < until && !(sdk.isEnabled('during') && !sdk.isEnabled('before'))) await sleep(100);
  t.ok(sdk.isEnabled('during'), 'the flag created on node B while the SDK was away is on');
  t.notOk(sdk.isEnabled('before'), 'the flag switched off meanwhile is off');
  t.equal(await streamsOn(b.url), 1, 'the SDK streams from node B now (it did not fall back to polling)');
  t.equal((await apiB('POST', `${P}/after/environments/development/on`)).status, 404, 'a change after the move…');
  t.equal((await apiB('POST', P, { name: 'after' })).status, 201);
  t.equal((await apiB('POST', `${P}/after/environments/development/on`)).status, 200);
  const again = Date.now() + 10_000;
  while (Date.now() < again && !sdk.isEnabled('after')) await sleep(50);
  t.ok(sdk.isEnabled('after'), '…arrives through the new stream');
});
