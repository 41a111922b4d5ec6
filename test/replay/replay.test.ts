// Replay: everything changed through HTTP is in the log. Mutate a lot through every admin route
// family, stop, start again on the same DATA_DIR, and the full dump (events included) is identical.
import fs from 'node:fs';
import t, { type Test } from 'tap';
import { dumpState } from '../../src/core/state/dump.js';
import { startInProcess, type InProcess } from '../helpers/in-process-server.js';
import type { Res } from '../helpers/server.js';

const P = '/api/admin/projects';
const F = (project: string, flag: string) => `${P}/${project}/features/${flag}`;
const S = (project: string, flag: string, env: string) => `${F(project, flag)}/environments/${env}/strategies`;

/** Every mutation in the script must succeed, or the comparison proves less than it claims. */
function ok(t: Test, res: Res, what: string): Res {
  t.ok(res.status >= 200 && res.status < 300, `${what} → ${res.status}`, { body: res.text.slice(0, 500) });
  return res;
}

async function mutateEverything(t: Test, srv: InProcess): Promise<void> {
  const api = srv.api;
  const call = async (what: string, method: string, path: string, body?: unknown) => ok(t, await api(method, path, body), what);

  // Projects, environments, tag types, segments.
  await call('create project', 'POST', P, { id: 'shop', name: 'Shop', description: 'the shop', defaultStickiness: 'userId' });
  await call('update project', 'PUT', `${P}/shop`, { name: 'Shop!', description: null, mode: 'protected' });
  await call('create throwaway project', 'POST', P, { id: 'tmp', name: 'Temp' });
  await call('delete project', 'DELETE', `${P}/tmp`);
  await call('create environment', 'POST', '/api/admin/environments', { name: 'staging', type: 'test', sortOrder: 150 });
  await call('update environment', 'PUT', '/api/admin/environments/update/staging', { type: 'preproduction', sortOrder: 160 });
  await call('create throwaway environment', 'POST', '/api/admin/environments', { name: 'qa', type: 'test' });
  await call('create tag type', 'POST', '/api/admin/tag-types', { name: 'team', description: 'owning team' });
  await call('update tag type', 'PUT', '/api/admin/tag-types/team', { description: 'owner', icon: 'T' });
  await call('create tag', 'POST', '/api/admin/tags', { type: 'team', value: 'payments' });
  const seg = await call('create segment', 'POST', '/api/admin/segments', {
    name: 'beta-users', description: 'early adopters', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2', '3'] }],
  });
  const segId = seg.json?.id as number;
  await call('update segment', 'PUT', `/api/admin/segments/${segId}`, {
    name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2'] }, { contextName: 'appName', operator: 'STR_STARTS_WITH', values: ['web'] }],
  });
  const seg2 = await call('create second segment', 'POST', '/api/admin/segments', { name: 'gone-seg', constraints: [] });
  await call('delete segment', 'DELETE', `/api/admin/segments/${seg2.json?.id}`);

  // Flags.
  await call('create flag', 'POST', `${P}/default/features`, { name: 'checkout', description: 'new checkout', tags: [{ type: 'simple', value: 'web' }] });
  await call('create flag 2', 'POST', `${P}/default/features`, { name: 'search', type: 'experiment', impressionData: true });
  await call('create flag in project', 'POST', `${P}/shop/features`, { name: 'cart', type: 'kill-switch' });
  await call('create flag to delete', 'POST', `${P}/default/features`, { name: 'old-thing' });
  await call('patch flag', 'PATCH', F('default', 'checkout'), [{ op: 'replace', path: '/stale', value: true }, { op: 'replace', path: '/description', value: 'd2' }]);
  await call('patch flag back', 'PATCH', F('default', 'checkout'), [{ op: 'replace', path: '/stale', value: false }]);
  await call('tag flag', 'POST', '/api/admin/features/checkout/tags', { type: 'team', value: 'payments' });
  await call('tag flag again', 'POST', '/api/admin/features/search/tags', { type: 'simple', value: 'web' });
  await call('untag flag', 'DELETE', '/api/admin/features/checkout/tags/simple/web');

  // Strategies with constraints, variants, segments; update, patch, reorder, delete.
  const s1 = await call('add strategy', 'POST', S('default', 'checkout', 'production'), {
    name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'userId' },
    constraints: [
      { contextName: 'country', operator: 'IN', values: ['NO', 'SE'], caseInsensitive: true },
      { contextName: 'age', operator: 'NUM_GTE', value: '18' },
      { contextName: 'currentTime', operator: 'DATE_AFTER', value: '2026-01-01T00:00:00.000Z' },
      { contextName: 'version', operator: 'SEMVER_GT', value: '1.2.3' },
      { contextName: 'email', operator: 'REGEX', value: '@example\\.com$' },
    ],
    variants: [{ name: 'blue', weight: 200, weightType: 'fix', payload: { type: 'json', value: '{"c":1}' } }, { name: 'red' }, { name: 'green' }],
    segments: [segId],
  });
  const s2 = await call('add second strategy', 'POST', S('default', 'checkout', 'production'), { name: 'userWithId', parameters: { userIds: 'a,b' }, title: 'VIPs' });
  const s3 = await call('add third strategy', 'POST', S('default', 'checkout', 'production'), { name: 'default', disabled: true });
  await call('update strategy', 'PUT', `${S('default', 'checkout', 'production')}/${s2.json.id}`, { name: 'userWithId', parameters: { userIds: 'a,b,c' }, constraints: [] });
  await call('patch strategy', 'PATCH', `${S('default', 'checkout', 'production')}/${s1.json.id}`, [{ op: 'replace', path: '/title', value: 'Half of Norway' }]);
  await call('reorder strategies', 'POST', `${S('default', 'checkout', 'production')}/set-sort-order`, [
    { id: s2.json.id, sortOrder: 0 }, { id: s1.json.id, sortOrder: 1 }, { id: s3.json.id, sortOrder: 2 },
  ]);
  await call('delete strategy', 'DELETE', `${S('default', 'checkout', 'production')}/${s3.json.id}`);
  await call('strategy in staging', 'POST', S('default', 'checkout', 'staging'), { name: 'remoteAddress', parameters: { IPs: '10.0.0.1' } });

  // On/off, with and without an existing strategy (the second adds flexibleRollout 100%).
  await call('on with strategies', 'POST', `${F('default', 'checkout')}/environments/production/on`);
  await call('on without strategies', 'POST', `${F('default', 'search')}/environments/development/on`);
  await call('off', 'POST', `${F('default', 'search')}/environments/development/off`);
  await call('on in project', 'POST', `${F('shop', 'cart')}/environments/production/on`);

  // Variants.
  await call('variants batch', 'PUT', `${F('default', 'checkout')}/variants-batch`, {
    environments: ['development', 'production'],
    variants: [{ name: 'a', stickiness: 'userId' }, { name: 'b', weight: 100, weightType: 'fix', overrides: [{ contextName: 'userId', values: ['7'] }] }],
  });
  await call('env variants put', 'PUT', `${F('default', 'checkout')}/environments/production/variants`, [{ name: 'x' }, { name: 'y' }, { name: 'z' }]);
  await call('env variants patch', 'PATCH', `${F('default', 'checkout')}/environments/production/variants`, [{ op: 'remove', path: '/2' }]);

  // Dependencies.
  await call('add dependency', 'POST', `${F('default', 'search')}/dependencies`, { feature: 'checkout', enabled: true, variants: ['x'] });
  await call('remove dependency', 'DELETE', `${F('default', 'search')}/dependencies/checkout`);
  await call('add dependency again', 'POST', `${F('default', 'search')}/dependencies`, { feature: 'checkout', enabled: false });
  await call('remove all dependencies', 'DELETE', `${F('default', 'search')}/dependencies`);
  await call('add dependency to keep', 'POST', `${F('default', 'search')}/dependencies`, { feature: 'checkout' });

  // Archive, revive, delete.
  await call('archive', 'DELETE', F('default', 'search'));
  await call('revive', 'POST', '/api/admin/archive/revive/search');
  await call('archive for deletion', 'DELETE', F('default', 'old-thing'));
  await call('delete archived', 'DELETE', '/api/admin/archive/old-thing');
  await call('delete environment', 'DELETE', '/api/admin/environments/qa');

  // SDK traffic: metrics move lastSeenAt (batched by the server, flushed at the latest on close).
  await call('client register', 'POST', '/api/client/register', {
    appName: 'web', instanceId: 'i1', strategies: ['default', 'flexibleRollout'], started: '2026-01-01T00:00:00.000Z', interval: 15000,
  });
  const now = new Date();
  await call('client metrics', 'POST', '/api/client/metrics', {
    appName: 'web', instanceId: 'i1',
    bucket: { start: new Date(now.getTime() - 60_000).toISOString(), stop: now.toISOString(), toggles: { checkout: { yes: 5, no: 1, variants: { x: 2 } } } },
  });

  // An API token (stored by hash) and a tag type deletion.
  await call('create token', 'POST', '/api/admin/api-tokens', { tokenName: 'sdk', type: 'client', environment: 'production', projects: ['default'] });
  await call('create tag type to delete', 'POST', '/api/admin/tag-types', { name: 'area' });
  await call('delete tag type', 'DELETE', '/api/admin/tag-types/area');
}

const dump = (srv: InProcess) => structuredClone(dumpState(srv.running.engine.state));

const variantsOfRun: { name: string; env: Record<string, string>; checkpoints: boolean }[] = [
  { name: 'WAL only', env: {}, checkpoints: false },
  // A checkpoint every few records: the restart then loads a checkpoint and replays the WAL tail.
  { name: 'with frequent checkpoints', env: { CHECKPOINT_RECORDS: '7' }, checkpoints: true },
];

for (const v of variantsOfRun) {
  t.test(`replay after a restart reproduces the full dump (${v.name})`, async (t) => {
    const first = await startInProcess({ env: v.env });
    let closed = false;
    t.teardown(async () => {
      if (!closed) await first.close();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
    });
    await mutateEverything(t, first);
    await first.close();
    closed = true;
    // Taken after close: closing may still flush buffered bookkeeping (metrics) into the log.
    const before = dump(first);
    t.ok(before.events.length > 40, `many events were recorded (${before.events.length})`);
    const checkout = before.features.find((f) => (f as { name: string }).name === 'checkout') as { lastSeenAt: string | null };
    t.ok(checkout.lastSeenAt, 'the metrics reached the state, so their replay is covered');
    const checkpoints = fs.readdirSync(first.dataDir).filter((f) => f.endsWith('.ckpt'));
    if (v.checkpoints) t.ok(checkpoints.length > 0, `the restart starts from a checkpoint (${checkpoints.join(', ')})`);

    const second = await startInProcess({ dataDir: first.dataDir, env: v.env });
    const after = dump(second);
    t.strictSame(after, before, 'the dump after restart is identical, events included');
    // The restarted server keeps going from where it was: ids continue, a third start agrees.
    ok(t, await second.api('POST', `${P}/default/features`, { name: 'after-restart' }), 'mutate after restart');
    const more = dump(second);
    t.equal(more.events[more.events.length - 1].id, before.events.length + 1, 'event ids continue without a gap');
    await second.close();
    const third = await startInProcess({ dataDir: first.dataDir, env: v.env });
    t.strictSame(dump(third), more, 'a second restart agrees too');
    await third.close();
  });
}

t.test('strings survive the WAL exactly: astral and combining characters replay; unpaired surrogates are refused', async (t) => {
  const first = await startInProcess();
  t.teardown(() => fs.rmSync(first.dataDir, { recursive: true, force: true }));
  // Long strings matter: msgpack switches UTF-8 encoders above a length, and the native one
  // silently turns an unpaired surrogate into U+FFFD, so such a string could not replay.
  const description = '😀 e\u0301 \u0000 ﷺ '.repeat(40);
  ok(t, await first.api('POST', `${P}/default/features`, { name: 'unicode', description }), 'astral, combining and NUL characters are accepted');
  for (const bad of ['\ud800', 'x\udc00y', '\ud83d'.repeat(2), 'a'.repeat(400) + '\ud800']) {
    const res = await first.api('POST', `${P}/default/features`, { name: 'lone', description: bad });
    t.equal(res.status, 400, `unpaired surrogate ${JSON.stringify(bad.slice(-2))} → 400`);
    t.equal(res.json?.name, 'ValidationError');
  }
  // A literal backslash followed by "ud800" is text, not an escape.
  ok(t, await first.api('POST', `${P}/default/features`, { name: 'backslash', description: '\\ud800 \\\\ud800' }), 'escaped backslashes are plain text');
  await first.close();
  const before = dump(first);
  t.equal((before.features.find((f) => (f as { name: string }).name === 'unicode') as { description: string }).description, description);
  const second = await startInProcess({ dataDir: first.dataDir });
  t.strictSame(dump(second), before, 'replayed byte for byte');
  await second.close();
});
