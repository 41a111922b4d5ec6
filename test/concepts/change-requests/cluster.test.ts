// Four eyes on a cluster (three real node processes on one throwaway PostgreSQL): ann drafts a
// change request on node A (a release plan applied to a flag, and the flag switched on in
// production), bob approves it on node B and applies it on node C, which is SIGKILLed right after
// its 200. The official Node SDK polling node A sees nothing of it before Applied and all of it
// after; the apply is one record in the cluster's log (the plan, the switch and
// change-request-applied together), so the survivors read the request as Applied.
import t from 'tap';
import { clusterFor } from '../../helpers/cluster.js';
import { signInAs, STRONG, withSession } from '../../helpers/people.js';
import { sleep, until } from '../../helpers/receiver.js';
import { client, type Spawned } from '../../helpers/server.js';
import { syncedSdk } from '../../helpers/unleash-sdk.js';

const ADMIN = '*:*.cr-cluster-admin';
const CLIENT = '*:production.cr-cluster-client';
const CR = '/api/admin/projects/shop/change-requests';
const DRAFT = '/api/admin/projects/shop/environments/production/change-requests';
const FLAGS = '/api/admin/projects/shop/features';

// Three nodes start at once; on a loaded 2-core machine that and PostgreSQL's start take most of it.
t.setTimeout(120_000);

t.test('drafted on A, approved on B, applied on C (killed after its 200): the SDK on A sees it at Applied, and the log has it whole', async (t) => {
  const started = Date.now();
  const cluster = await clusterFor(t, {
    AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG,
    CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS: 'production', SIGN_IN_LIMIT_PER_ADDRESS: '1000',
  });
  if (!cluster) return;
  const pgReady = Date.now() - started;
  const [a, b, c]: Spawned[] = await Promise.all([0, 1, 2].map(() => cluster.node()));
  const nodesUp = Date.now() - started;
  const adminA = client(a.url, { authorization: ADMIN });
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await adminA(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
    return res.json;
  };
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  for (const name of ['ann', 'bob']) await ok('POST', '/api/admin/user-admin', { username: name, password: STRONG, rootRole: 'Editor' });
  await ok('POST', FLAGS, { name: 'launch' });
  const templateId = (await ok('GET', '/api/admin/release-plan-templates'))[0].id;
  const sdk = await syncedSdk(t, a.url, { token: CLIENT, refreshInterval: 100 });
  const seen = () => {
    const def = sdk.getFeatureToggleDefinition('launch');
    return { enabled: def?.enabled, rollouts: (def?.strategies ?? []).map((s) => s.parameters?.rollout ?? s.name) };
  };
  await until('the SDK on A has the flag', () => seen().enabled === false, 10_000);

  // A: ann drafts and sends to review.
  const ann = withSession(a.url, await signInAs(a.url, 'ann', STRONG));
  const draft = (await ann('POST', DRAFT, [
    { feature: 'launch', action: 'addReleasePlan', payload: { templateId } },
    { feature: 'launch', action: 'updateEnabled', payload: { enabled: true } },
  ])).json;
  t.equal((await ann('PUT', `${CR}/${draft.id}/state`, { state: 'In review' })).status, 200, 'drafted and sent to review on A');

  // B: bob approves at once (an admin request waits until its node has read what other nodes wrote).
  const bobB = withSession(b.url, await signInAs(b.url, 'bob', STRONG));
  const approved = await bobB('PUT', `${CR}/${draft.id}/state`, { state: 'Approved' });
  t.equal(approved.status, 200, 'approved by bob on B');

  // C: bob applies; C is killed as soon as it answers.
  const bobC = withSession(c.url, await signInAs(c.url, 'bob', STRONG));
  t.equal((await ann('GET', `${CR}/${draft.id}`)).json.state, 'Approved', 'A reads it approved');
  await sleep(300);
  t.same(seen(), { enabled: false, rollouts: ['default'] }, 'approved, not applied: the SDK on A sees nothing of it');
  const applied = await bobC('PUT', `${CR}/${draft.id}/state`, { state: 'Applied' });
  await c.kill();
  t.equal(applied.status, 200, 'applied by bob on C, then C SIGKILLed');

  await until('the SDK on A sees the change', () => seen().enabled === true, 10_000);
  t.same(seen(), { enabled: true, rollouts: ['25'] }, "all of it at once: on, serving the plan's first milestone");
  t.equal((await ann('GET', `${CR}/${draft.id}`)).json.state, 'Applied', 'A reads it Applied');

  const records = (await cluster.records()).filter((r) => r.rec.events.some((e) => e[1] === 'change-request-applied'));
  t.equal(records.length, 1, 'one record holds change-request-applied');
  t.same(records[0].rec.events.map((e) => e[1]), ['release-plan-added', 'feature-environment-enabled', 'release-plan-milestone-started', 'change-request-applied'],
    "and every change's events with it: one change");
  t.ok(records[0].rec.ops.some((op) => op.o === 'releasePlan.put') && records[0].rec.ops.some((op) => op.o === 'featureEnv.put'), 'the plan and the switch in the same record');

  t.equal((await bobB('GET', `${CR}/${draft.id}`)).json.state, 'Applied', 'and so does B');
  t.match((await client(b.url, { authorization: ADMIN })('GET', `${FLAGS}/launch`)).json.environments.find((e: any) => e.name === 'production'), { enabled: true });
  t.comment(`PostgreSQL ready at ${pgReady} ms, three nodes up at ${nodesUp} ms, all done at ${Date.now() - started} ms`);
});
