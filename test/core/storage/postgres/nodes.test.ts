// The same answers from every node: API tokens made or deleted on one node hold on the others
// within the follow delay (on a kept-alive connection too), SDK metrics sent to different nodes
// add up to one applications view on each, token use is recorded cluster-wide, and idle nodes give
// byte-identical SDK answers with the same ETag.
import t from 'tap';
import { clusterFor, converged } from '../../../helpers/cluster.js';
import { signInAs, STRONG, withSession } from '../../../helpers/people.js';
import { client, type Spawned } from '../../../helpers/server.js';

const ADMIN = '*:*.cluster-admin-secret-0123456789';
const P = '/api/admin/projects/default/features';
const TOKENS = '/api/admin/api-tokens';
const START = '2026-01-01T10:00:00.000Z';
const STOP = '2026-01-01T10:01:00.000Z';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long until `check` holds (polling every 20 ms); fails after `ms`. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await sleep(20);
  }
  return Date.now() - t0;
}

t.test('nodes started together on a new database seed their tokens once, and print one generated admin token and one first Admin', async (t) => {
  const cluster = await clusterFor(t, { AUTH_TYPE: 'api-token', INIT_CLIENT_API_TOKENS: 'default:development.seeded-client-secret-0123' });
  if (!cluster) return;
  const nodes = await Promise.all([cluster.node(), cluster.node(), cluster.node()]);
  await sleep(300);
  const printed = nodes.map((n) => (n.output().match(/FANION FIRST ADMIN TOKEN[^:]*: (\S+)/) ?? [])[1]).filter(Boolean);
  t.equal(printed.length, 1, 'one node made and printed the first admin token');
  const people = nodes.filter((n) => /FANION FIRST ADMIN \(shown only this once/.test(n.output()));
  t.equal(people.length, 1, 'and one made the first Admin person and printed its password (none failed to start on it)');
  for (const n of nodes) {
    t.equal((await fetch(`${n.url}/api/client/features`, { headers: { authorization: 'default:development.seeded-client-secret-0123' } })).status, 200, 'the seeded token works');
    t.equal((await fetch(`${n.url}${TOKENS}`, { headers: { authorization: printed[0]! } })).status, 200, 'and the printed admin token, on every node');
  }
  const created = (await cluster.records()).flatMap((r) => r.rec.events.filter((e) => e[1] === 'api-token-created'));
  t.equal(created.length, 2, 'two tokens were created in all: the seeded one and the generated one');
});

t.test('every node answers the same', async (t) => {
  const cluster = await clusterFor(t, { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, METRICS_FLUSH_MS: '300', UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG });
  if (!cluster) return;
  const nodes: Spawned[] = [await cluster.node(), await cluster.node(), await cluster.node()];
  const admin = nodes.map((n) => client(n.url, { authorization: ADMIN }));
  t.equal((await admin[0]('POST', P, { name: 'shared' })).status, 201);

  await t.test('a token made on one node works on the others; deleted on another, refused everywhere', async (t) => {
    const made = await admin[0]('POST', TOKENS, { tokenName: 'sdk', type: 'client', environment: 'development', projects: ['*'] });
    t.equal(made.status, 201);
    const secret: string = made.json.secret;
    const poll = (n: Spawned) => fetch(`${n.url}/api/client/features`, { headers: { authorization: secret } });
    const took = await within(2_000, async () => (await poll(nodes[2])).status === 200);
    t.ok(took < 2_000, `usable on node C ${took} ms after node A answered`);
    // Keep a connection to C alive with the proven token, then delete it on B.
    t.equal((await poll(nodes[2])).status, 200);
    t.equal((await admin[1]('DELETE', `${TOKENS}/${encodeURIComponent(secret)}`)).status, 200);
    const refused = await within(2_000, async () => (await poll(nodes[2])).status === 401);
    t.ok(refused < 2_000, `refused on node C (same kept-alive connection) ${refused} ms after node B deleted it`);
    const onA = await within(2_000, async () => (await poll(nodes[0])).status === 401);
    t.ok(onA < 2_000, `and on node A (${onA} ms later)`);
  });

  await t.test('SDK metrics sent to different nodes add up on every node, and token use is recorded cluster-wide', async (t) => {
    const made = await admin[0]('POST', TOKENS, { tokenName: 'metrics', type: 'client', environment: 'development', projects: ['*'] });
    const sdk = nodes.map((n) => client(n.url, { authorization: made.json.secret }));
    await within(2_000, async () => (await sdk[1]('GET', '/api/client/features')).status === 200);
    const register = (instanceId: string) => ({ appName: 'shop', instanceId, strategies: ['default'], started: START, interval: 10_000 });
    const bucket = (yes: number) => ({ appName: 'shop', instanceId: 'x', bucket: { start: START, stop: STOP, toggles: { shared: { yes, no: 1, variants: {} } } } });
    t.equal((await sdk[0]('POST', '/api/client/register', register('on-a'))).status, 202);
    t.equal((await sdk[1]('POST', '/api/client/register', register('on-b'))).status, 202);
    t.equal((await sdk[0]('POST', '/api/client/metrics', bucket(3))).status, 202);
    t.equal((await sdk[1]('POST', '/api/client/metrics', bucket(4))).status, 202);
    const viewOn = async (n: number) => (await admin[n]('GET', '/api/admin/metrics/applications/shop')).json;
    for (const n of [0, 1, 2]) {
      await within(5_000, async () => {
        const v = await viewOn(n);
        const c = v?.toggles?.find((x: { featureName: string }) => x.featureName === 'shared');
        return v?.instanceCount === 3 && c?.yes === 7 && c?.no === 2;
      });
    }
    t.pass('each node lists the three instances and counts 7 yes, 2 no');
    await within(5_000, async () => {
      const list = (await admin[2]('GET', TOKENS)).json.tokens as { tokenName: string; seenAt: string | null }[];
      return list.find((x) => x.tokenName === 'metrics')?.seenAt != null;
    });
    t.pass('node C shows the token as seen (it was used on A and B)');
  });

  await t.test('the console works against any node: signed in on one, a person is signed in on the others', async (t) => {
    for (const n of nodes) t.equal((await fetch(`${n.url}/`)).status, 200, `the console is served by ${n.url}`);
    const session = await signInAs(nodes[0].url, 'admin', STRONG);
    const seen = await within(2_000, async () => (await withSession(nodes[2].url, session)('GET', '/api/admin/user')).status === 200);
    t.ok(seen < 2_000, `the session made on node A works on node C (${seen} ms later)`);
    t.equal((await withSession(nodes[1].url, session)('POST', P, { name: 'by-a-person' })).status, 201, 'and writes through node B');
  });

  await t.test('idle nodes give the same SDK answer and ETag', async (t) => {
    const made = await admin[2]('POST', TOKENS, { tokenName: 'compare', type: 'client', environment: 'development', projects: ['*'] });
    const print = JSON.parse(await converged(nodes, 20_000, { client: made.json.secret, admin: ADMIN }));
    t.ok(print.etag, `ETag ${print.etag} on all three`);
  });
});
