// Scheduled change requests over HTTP against real server processes whose clock the test moves
// (clocked-main.ts): the official Node SDK sees nothing before the time and everything at once
// after it, applied once; suspension when a flag is archived, a strategy changed or deleted, or the
// scheduler deleted; a failure when a change cannot apply; reschedule, apply now, reject; and a
// schedule that fell due while the server was down (killed -9) applied once on its start.
import t, { type Test } from 'tap';
import { sharedClock, type SharedClock } from '../../helpers/clock.js';
import { signInAs, STRONG, withSession } from '../../helpers/people.js';
import { sleep, until } from '../../helpers/receiver.js';
import { client, serve, spawnServer, succeeding, tempDataDir, type Res } from '../../helpers/server.js';
import { syncedSdk } from '../../helpers/unleash-sdk.js';

const ADMIN = '*:*.scheduled-changes-admin-token';
const CLIENT = '*:production.scheduled-changes-client-token';
const CR = '/api/admin/projects/shop/change-requests';
const DRAFT = '/api/admin/projects/shop/environments/production/change-requests';
const FLAGS = '/api/admin/projects/shop/features';
const ENV = {
  AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG,
  CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS: 'production', SIGN_IN_LIMIT_PER_ADDRESS: '1000',
};
const MINUTE = 60_000;

type Caller = ReturnType<typeof withSession>;

const json = (res: Res, status: number, what: string) => {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res.json;
};

/** A server on `clock` with project shop (one approval in production) and four Editors. */
async function fourEyes(t: Test, clock: SharedClock) {
  const { srv, api, ok } = await serve(t, { command: clock.command, env: { ...ENV, ...clock.env }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  const ids: Record<string, number> = {};
  for (const name of ['ann', 'bob', 'carol', 'dave']) ids[name] = (await ok('POST', '/api/admin/user-admin', { username: name, password: STRONG, rootRole: 'Editor' })).id;
  const as = async (name: string) => withSession(srv.url, await signInAs(srv.url, name, STRONG));
  return { srv, api, ok, ids, ann: await as('ann'), bob: await as('bob'), carol: await as('carol'), dave: await as('dave') };
}

/** ann drafts `changes` (titled), sends them to review and bob approves: the request's id. */
async function approvedRequest(ann: Caller, bob: Caller, changes: unknown[], title: string): Promise<number> {
  const cr = json(await ann('POST', DRAFT, changes), 200, `draft ${title}`);
  json(await ann('PUT', `${CR}/${cr.id}/title`, { title }), 200, 'title');
  json(await ann('PUT', `${CR}/${cr.id}/state`, { state: 'In review' }), 200, 'review');
  json(await bob('PUT', `${CR}/${cr.id}/state`, { state: 'Approved' }), 200, 'approve');
  return cr.id;
}

const iso = (ms: number) => new Date(ms).toISOString();
const switchOn = (flag: string) => ({ feature: flag, action: 'updateEnabled', payload: { enabled: true } });

t.test('scheduled: the SDK sees nothing before the time and everything at once after it, applied once', async (t) => {
  const clock = sharedClock();
  const { srv, api, ok, ann, bob } = await fourEyes(t, clock);
  const serverNow = () => Date.now() + clock.offsetMs;
  await ok('POST', FLAGS, { name: 'checkout' });
  const sdk = await syncedSdk(t, srv.url, { token: CLIENT, refreshInterval: 100 });
  const id = await approvedRequest(ann, bob, [
    { feature: 'checkout', action: 'addStrategy', payload: { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'checkout' } } },
    switchOn('checkout'),
  ], 'Open checkout at the launch');

  // What scheduling refuses, each a 400 naming scheduledAt, with nothing changed.
  for (const [body, why] of [
    [{ state: 'Scheduled' }, /needs "scheduledAt"/],
    [{ state: 'Scheduled', scheduledAt: iso(serverNow() - 1_000) }, /not in the future/],
    [{ state: 'Scheduled', scheduledAt: '3026-01-01T00:00:00Z' }, /more than 366 days ahead/],
    [{ state: 'Scheduled', scheduledAt: 'tomorrow at nine' }, /scheduledAt|date-time/],
  ] as const) {
    const res = await bob('PUT', `${CR}/${id}/state`, body);
    t.equal(res.status, 400, `${JSON.stringify(body)}: 400`);
    t.match(res.json, { name: 'ValidationError', message: why, details: [{ path: /scheduledAt/ }] });
  }
  t.equal(json(await bob('GET', `${CR}/${id}`), 200, 'view').state, 'Approved', 'still approved');

  const at = serverNow() + MINUTE;
  const scheduled = json(await bob('PUT', `${CR}/${id}/state`, { state: 'Scheduled', scheduledAt: iso(at), comment: 'at the launch' }), 200, 'schedule');
  t.match(scheduled, { state: 'Scheduled', schedule: { scheduledAt: iso(at), status: 'pending' }, comments: [{ text: 'at the launch' }] });
  t.match(json(await ann('GET', `${CR}/count`), 200, 'count'), { total: 1, scheduled: 1, approved: 0 }, 'counted as scheduled');
  t.same(json(await ann('GET', `${CR}/scheduled?feature=checkout`), 200, 'scheduled'), [{ id, environment: 'production', title: 'Open checkout at the launch' }], 'found by its flag');
  t.same(json(await ann('GET', `${CR}/scheduled?feature=other&feature=checkout`), 200, 'scheduled').map((x: any) => x.id), [id], 'by any of several flags');
  t.same(json(await ann('GET', `${CR}/scheduled?feature=other`), 200, 'scheduled'), [], 'not by another flag');

  await sleep(400);
  t.notOk(sdk.isEnabled('checkout'), 'scheduled is not applied: the SDK sees it off');
  await clock.advance(at - serverNow() - 4_000);
  await sleep(1_500);
  t.equal(json(await bob('GET', `${CR}/${id}`), 200, 'view').state, 'Scheduled', 'seconds before its time: still scheduled');
  t.notOk(sdk.isEnabled('checkout'), 'and off for the SDK');
  const raw = (await client(srv.url, { authorization: CLIENT })('GET', '/api/client/features')).json.features.find((f: any) => f.name === 'checkout');
  t.match(raw, { enabled: false, strategies: [] }, 'no part of it served');

  await clock.advance(at - serverNow() + 50);
  await until('checkout on for the SDK', () => sdk.isEnabled('checkout'), 5_000);
  const done = json(await bob('GET', `${CR}/${id}`), 200, 'view');
  t.equal(done.state, 'Applied');
  t.notOk('schedule' in done, 'no schedule left on an applied request');
  const env = (await ok('GET', `${FLAGS}/checkout`)).environments.find((e: any) => e.name === 'production');
  t.match(env, { enabled: true, strategies: [{ name: 'flexibleRollout' }] });
  t.equal(env.strategies.length, 1, 'the strategy and the switch, as asked');

  await sleep(1_500);
  const events = (await api('GET', '/api/admin/events')).json.events.filter((e: any) => e.featureName === 'checkout' || e.data?.changeRequestId === id).reverse();
  const applied = events.filter((e: any) => e.type === 'change-request-applied');
  t.equal(applied.length, 1, 'applied once');
  const tail = events.slice(-4);
  t.same(tail.map((e: any) => [e.type, e.createdBy]), [
    ['feature-strategy-add', 'bob'], ['feature-environment-enabled', 'bob'], ['change-request-applied', 'bob'], ['change-request-scheduled-application-success', 'fanion'],
  ], 'each change in the name of who scheduled it, then applied and success');
  t.same(tail.map((e: any) => e.id), [0, 1, 2, 3].map((i) => tail[0].id + i), 'consecutive: one record');
  t.ok(tail.every((e: any) => e.createdAt === tail[0].createdAt), 'written at one moment');
  const lateMs = Date.parse(tail[0].createdAt) - at;
  t.ok(lateMs >= 0 && lateMs < 5_000, `applied ${lateMs} ms after its time (server clock)`);
});

t.test('suspended when a flag is archived, a strategy changed or deleted, or the scheduler deleted; failed when a change cannot apply; reschedule, apply now, reject', async (t) => {
  const clock = sharedClock();
  const { api, ok, ids, ann, bob, carol, dave } = await fourEyes(t, clock);
  const serverNow = () => Date.now() + clock.offsetMs;
  for (const name of ['arch', 'changed', 'gone', 'dave-flag', 'now', 'later', 'variants']) await ok('POST', FLAGS, { name });
  const strategy = async (flag: string) => (await ok('POST', `${FLAGS}/${flag}/environments/production/strategies`, { name: 'default' })).id;
  const [changedId, goneId] = [await strategy('changed'), await strategy('gone')];
  const update = (flag: string, sid: string) => ({ feature: flag, action: 'updateStrategy', payload: { id: sid, name: 'flexibleRollout', parameters: { rollout: '50' } } });
  const blue = [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }];
  const cr = {
    arch: await approvedRequest(ann, bob, [switchOn('arch')], 'arch'),
    changed: await approvedRequest(ann, bob, [update('changed', changedId)], 'changed'),
    gone: await approvedRequest(ann, bob, [update('gone', goneId)], 'gone'),
    dave: await approvedRequest(ann, bob, [switchOn('dave-flag')], 'dave'),
    now: await approvedRequest(ann, bob, [switchOn('now')], 'now'),
    later: await approvedRequest(ann, bob, [switchOn('later')], 'later'),
    variants: await approvedRequest(ann, bob, [{ feature: 'variants', action: 'patchVariant', payload: { variants: blue } }], 'variants'),
  };
  const at = serverNow() + MINUTE;
  for (const [name, id] of Object.entries(cr)) {
    json(await (name === 'dave' ? dave : bob)('PUT', `${CR}/${id}/state`, { state: 'Scheduled', scheduledAt: iso(at) }), 200, `schedule ${name}`);
  }
  t.same(json(await ann('GET', `${CR}/scheduled?strategyId=${changedId}`), 200, 'by strategy').map((x: any) => x.id), [cr.changed], 'found by the strategy it edits');
  t.equal(json(await ann('GET', `${CR}/count`), 200, 'count').scheduled, 7);

  // What moves under them meanwhile (the admin token may skip change requests).
  await ok('DELETE', `${FLAGS}/arch`);
  await ok('PUT', `${FLAGS}/changed/environments/production/strategies/${changedId}`, { name: 'default', title: 'edited meanwhile' });
  await ok('DELETE', `${FLAGS}/gone/environments/production/strategies/${goneId}`);
  await ok('DELETE', `/api/admin/user-admin/${ids.dave}`);
  await ok('PUT', `${FLAGS}/variants/environments/production/variants`, [{ name: 'red', weight: 1000, weightType: 'variable', stickiness: 'default' }]);
  const view = async (id: number) => json(await bob('GET', `${CR}/${id}`), 200, 'view');
  const reasons: [keyof typeof cr, RegExp][] = [
    ['arch', /Flag "arch" has been archived/], ['changed', /strategy this change was made against has been changed/],
    ['gone', /strategy this change was made against has been deleted/], ['dave', /dave, who scheduled it, has been deleted/],
  ];
  for (const [name, reason] of reasons) {
    await until(`${name} suspended`, async () => (await view(cr[name])).schedule?.status === 'suspended', 5_000);
    t.match(await view(cr[name]), { state: 'Scheduled', schedule: { status: 'suspended', reason } }, `${name}: suspended before its time, with the reason`);
  }
  t.equal((await view(cr.variants)).schedule.status, 'pending', 'variants moving meanwhile is a conflict, not a suspension');

  // Apply now, reschedule, reject; a reason that still holds refuses a reschedule.
  t.equal(json(await bob('PUT', `${CR}/${cr.now}/state`, { state: 'Applied' }), 200, 'apply now').state, 'Applied', 'applied now');
  t.match(json(await bob('PUT', `${CR}/${cr.later}/state`, { state: 'Scheduled', scheduledAt: iso(at + MINUTE) }), 200, 'reschedule'), { schedule: { scheduledAt: iso(at + MINUTE), status: 'pending' } });
  const again = await bob('PUT', `${CR}/${cr.arch}/state`, { state: 'Scheduled', scheduledAt: iso(at) });
  t.equal(again.status, 409, 'an archived flag\'s request cannot be scheduled again');
  t.match(again.json, { name: 'ConflictError', message: /cannot be scheduled: Flag "arch" has been archived/ });
  t.equal(json(await carol('PUT', `${CR}/${cr.arch}/state`, { state: 'Rejected' }), 200, 'reject').state, 'Rejected', 'a suspended request is rejected');
  t.equal((await bob('PUT', `${CR}/${cr.changed}/state`, { state: 'Applied' })).status, 409, 'nor applied over the changed strategy');

  await clock.advance(MINUTE + 1_000);
  await until('the variants request failed', async () => (await view(cr.variants)).schedule?.status === 'failed', 5_000);
  t.match((await view(cr.variants)).schedule, { status: 'failed', reason: /variants this change was made against has been changed/ }, 'failed, with the reason');
  await sleep(1_500);
  for (const name of ['changed', 'gone', 'dave'] as const) t.equal((await view(cr[name])).schedule.status, 'suspended', `${name}: still suspended at its time`);
  t.equal((await view(cr.later)).state, 'Scheduled', 'the rescheduled one waits for its new time');
  const prod = async (flag: string) => (await ok('GET', `${FLAGS}/${flag}`)).environments.find((e: any) => e.name === 'production');
  t.match(await prod('changed'), { strategies: [{ name: 'default', title: 'edited meanwhile' }] }, 'the changed strategy kept');
  t.same((await prod('variants')).variants.map((v: any) => v.name), ['red'], 'the variants kept');
  t.equal((await prod('dave-flag')).enabled, false, 'dave\'s not applied');

  // carol schedules dave's again, a few seconds ahead: it applies in her name.
  json(await carol('PUT', `${CR}/${cr.dave}/state`, { state: 'Scheduled', scheduledAt: iso(serverNow() + 4_000) }), 200, 'carol reschedules');
  await until('dave\'s request applied', async () => (await view(cr.dave)).state === 'Applied', 10_000);
  t.equal((await prod('dave-flag')).enabled, true);
  await clock.advance(MINUTE);
  await until('the rescheduled one applied', async () => (await view(cr.later)).state === 'Applied', 5_000);

  const events = (await api('GET', '/api/admin/events')).json.events;
  const of = (type: string) => events.filter((e: any) => e.type === type).map((e: any) => e.data.changeRequestId).sort();
  t.same(of('change-request-schedule-suspended'), [cr.arch, cr.changed, cr.gone, cr.dave].sort(), 'one suspension event each');
  t.same(of('change-request-scheduled-application-failure'), [cr.variants]);
  t.same(of('change-request-applied'), [cr.dave, cr.now, cr.later].sort(), 'applied: dave\'s, the one applied now, the rescheduled one; each once');
  t.match(events.find((e: any) => e.type === 'feature-environment-enabled' && e.featureName === 'dave-flag'), { createdBy: 'carol' }, 'in the name of who scheduled it last');
});

t.test('a schedule that fell due while the server was down (killed -9) is applied once when it starts', async (t) => {
  const clock = sharedClock();
  const dataDir = tempDataDir('fanion-cr-schedule-restart-');
  const start = () => spawnServer({ dataDir, command: clock.command, env: { ...ENV, ...clock.env, WAL_SYNC: 'always' } });
  let srv = await start();
  t.teardown(() => srv.kill());
  const admin = () => client(srv.url, { authorization: ADMIN });
  const ok = succeeding(admin);
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  for (const name of ['ann', 'bob']) await ok('POST', '/api/admin/user-admin', { username: name, password: STRONG, rootRole: 'Editor' });
  const ann = withSession(srv.url, await signInAs(srv.url, 'ann', STRONG));
  const bob = withSession(srv.url, await signInAs(srv.url, 'bob', STRONG));
  await ok('POST', FLAGS, { name: 'overnight' });
  const id = await approvedRequest(ann, bob, [switchOn('overnight')], 'overnight');
  const at = Date.now() + clock.offsetMs + 10 * MINUTE;
  json(await bob('PUT', `${CR}/${id}/state`, { state: 'Scheduled', scheduledAt: iso(at) }), 200, 'schedule');
  await srv.kill();
  await clock.advance(60 * MINUTE);
  srv = await start();
  await until('applied on start', async () => (await admin()('GET', `${CR}/${id}`)).json.state === 'Applied', 5_000);
  const flag = (await admin()('GET', `${FLAGS}/overnight`)).json.environments.find((e: any) => e.name === 'production');
  t.equal(flag.enabled, true, 'the flag on');
  await sleep(1_500);
  const applied = (await admin()('GET', '/api/admin/events')).json.events.filter((e: any) => e.type === 'change-request-applied' && e.data.changeRequestId === id);
  t.equal(applied.length, 1, 'applied once');
  t.comment(`applied ${Math.round((Date.parse(applied[0].createdAt) - at) / MINUTE)} min after its time: the time the server was down`);
});
