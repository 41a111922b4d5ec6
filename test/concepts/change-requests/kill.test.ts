// kill -9 in the middle of the workflow never leaves a change request half applied. A real server
// (WAL_SYNC=always) is killed while it adds changes to a draft and while it applies an approved
// request of two changes (a strategy and the switch), at several moments; after each restart the
// request and the flag agree: either applied whole (both changes, the applied state, its events)
// or not at all, and whatever was acknowledged before the kill is there.
import t from 'tap';
import { signInAs, STRONG, withSession } from '../../helpers/people.js';
import { client, spawnServer, tempDataDir, type Spawned } from '../../helpers/server.js';

const ADMIN = '*:*.change-requests-kill-admin';
const CR = '/api/admin/projects/shop/change-requests';
const DRAFT = '/api/admin/projects/shop/environments/production/change-requests';
const FLAGS = '/api/admin/projects/shop/features';
const ENV = {
  AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, WAL_SYNC: 'always',
  CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS: 'production', SIGN_IN_LIMIT_PER_ADDRESS: '1000',
};
/** How long after sending the request the process is killed (ms): before it is read, while it is written, after. */
const APPLY_KILLS = [0, 4, 300];

const changes = (flag: string) => [
  { feature: flag, action: 'addStrategy', payload: { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: flag } } },
  { feature: flag, action: 'updateEnabled', payload: { enabled: true } },
];

/** Sends the request, kills the process `afterMs` later, and says whether a 2xx came back first. */
async function killDuring(srv: Spawned, call: Promise<{ status: number }>, afterMs: number): Promise<boolean> {
  const answered = call.then((r) => r.status < 300, () => false);
  await new Promise((r) => setTimeout(r, afterMs));
  await srv.kill();
  return answered;
}

t.test('kill -9 while a request is drafted or applied: after restart it is applied whole or not at all', async (t) => {
  // Five starts of a server with people: a few seconds on a quiet machine; bounded for a loaded one.
  t.setTimeout(240_000);
  const dataDir = tempDataDir('fanion-cr-kill-');
  let srv = await spawnServer({ dataDir, env: ENV });
  t.teardown(() => srv.kill());
  let admin = client(srv.url, { authorization: ADMIN });
  const ok = async (method: string, p: string, body?: unknown) => {
    const res = await admin(method, p, body);
    if (res.status >= 300) throw new Error(`${method} ${p} → ${res.status} ${res.text}`);
    return res.json;
  };
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  for (const name of ['ann', 'bob']) await ok('POST', '/api/admin/user-admin', { username: name, password: STRONG, rootRole: 'Editor' });
  const annId = await signInAs(srv.url, 'ann', STRONG);
  const bobId = await signInAs(srv.url, 'bob', STRONG);
  const restart = async () => {
    srv = await spawnServer({ dataDir, env: ENV });
    admin = client(srv.url, { authorization: ADMIN });
  };
  const ann = () => withSession(srv.url, annId);
  const bob = () => withSession(srv.url, bobId);

  // Killed while adding to a draft: the draft holds both changes or none of them.
  await ok('POST', FLAGS, { name: 'drafted' });
  const acked = await killDuring(srv, ann()('POST', DRAFT, changes('drafted')), 3);
  await restart();
  const drafts = (await ann()('GET', CR)).json;
  t.ok(drafts.length <= 1, 'at most one draft');
  const held = drafts.length === 0 ? [] : drafts[0].features.flatMap((f: any) => f.changes.map((c: any) => c.action));
  t.ok(held.length === 0 || held.length === 2, `both changes or none (${held.join(', ') || 'none'})`);
  if (acked) t.equal(held.length, 2, 'acknowledged: both there');
  if (drafts.length === 1) t.equal((await ann()('DELETE', `${CR}/${drafts[0].id}`)).status, 204);

  const outcomes: string[] = [];
  for (const [i, afterMs] of APPLY_KILLS.entries()) {
    const flag = `flag-${i}`;
    await ok('POST', FLAGS, { name: flag });
    const cr = (await ann()('POST', DRAFT, changes(flag))).json;
    t.equal((await ann()('PUT', `${CR}/${cr.id}/state`, { state: 'In review' })).status, 200);
    t.equal((await bob()('PUT', `${CR}/${cr.id}/state`, { state: 'Approved' })).status, 200);
    const applied = await killDuring(srv, bob()('PUT', `${CR}/${cr.id}/state`, { state: 'Applied' }), afterMs);
    await restart();
    const state = (await bob()('GET', `${CR}/${cr.id}`)).json.state;
    const env = (await ok('GET', `${FLAGS}/${flag}`)).environments.find((e: any) => e.name === 'production');
    const events = (await ok('GET', `/api/admin/events?feature=${flag}`)).events.map((e: any) => e.type);
    const all = (await ok('GET', '/api/admin/events')).events.filter((e: any) => e.type === 'change-request-applied' && e.data.changeRequestId === cr.id);
    outcomes.push(`${afterMs} ms: ${state}${applied ? ' (acknowledged)' : ''}`);
    if (applied) t.equal(state, 'Applied', `killed ${afterMs} ms in, after the 200: applied`);
    if (state === 'Applied') {
      t.match(env, { enabled: true, strategies: [{ name: 'flexibleRollout' }] }, `${flag}: on, with the strategy`);
      t.ok(events.includes('feature-strategy-add') && events.includes('feature-environment-enabled'), `${flag}: both changes' events`);
      t.equal(all.length, 1, `${flag}: one change-request-applied`);
    } else {
      t.equal(state, 'Approved', `${flag}: still approved`);
      t.match(env, { enabled: false, strategies: [] }, `${flag}: untouched`);
      t.notOk(events.includes('feature-strategy-add') || events.includes('feature-environment-enabled'), `${flag}: no change's event`);
      t.equal(all.length, 0, `${flag}: no change-request-applied`);
      // Not applied: it still can be, once.
      t.equal((await bob()('PUT', `${CR}/${cr.id}/state`, { state: 'Applied' })).status, 200, `${flag}: applied after the restart`);
    }
  }
  t.comment(`kills while applying: ${outcomes.join('; ')}`);
});
