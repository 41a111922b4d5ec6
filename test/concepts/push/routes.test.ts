// GET /api/client/streaming and /api/client/delta over HTTP, frame by frame: scope and filters,
// resuming with Last-Event-ID (before and after a restart), delta revisions and 304s, token
// revocation, the stream cap, keep-alives, graceful shutdown, a stalled reader let go without
// holding up the others, and a disk failure that publishes nothing.
import net from 'node:net';
import t from 'tap';
import { loadConfig } from '../../../src/core/config.js';
import { createLogger } from '../../../src/core/logger.js';
import { startServer } from '../../../src/entry/embedded.js';
import { FaultyFiles } from '../../../src/core/log/wal/file-layer.js';
import { client, serve, spawnServer, tempDataDir } from '../../helpers/server.js';
import { openStream, type SseFrame } from '../../helpers/sse.js';

const ADMIN = '*:*.push-routes-admin';
const ALL = '*:development.push-all';
const P = (project: string) => `/api/admin/projects/${project}/features`;
const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: ALL };

/** Creates project "shop" and a client token limited to it; returns the token. */
async function shopToken(ok: (m: string, p: string, b?: unknown) => Promise<any>): Promise<string> {
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  return (await ok('POST', '/api/admin/api-tokens', { tokenName: 'shop-sdk', type: 'client', environment: 'development', projects: ['shop'] })).secret;
}

const namesIn = (f: SseFrame) => f.data.events.flatMap((e: any) => (e.type === 'hydration' ? e.features.map((x: any) => x.name) : [e.feature?.name ?? `-${e.featureName}`])).sort();

t.test('streams: hydration, live frames per scope and filter, resume with Last-Event-ID, keep-alives', async (t) => {
  const { srv, ok } = await serve(t, { env: { ...env, STREAMING_KEEPALIVE_MS: '300' }, authorization: ADMIN });
  const SHOP = await shopToken(ok);
  await ok('POST', P('default'), { name: 'd-one' });
  await ok('POST', P('shop'), { name: 's-one' });

  const all = await openStream(srv.url, { authorization: ALL });
  const shop = await openStream(srv.url, { authorization: SHOP });
  const prefixed = await openStream(srv.url, { authorization: ALL }, '/api/client/streaming?namePrefix=s-');
  t.equal(all.status, 200);
  t.match(all.headers['content-type'], /^text\/event-stream/);
  t.equal(all.headers['cache-control'], 'no-cache');
  const first = await all.next();
  t.equal(first.event, 'unleash-connected');
  t.equal(first.data.events[0].type, 'hydration');
  t.same(namesIn(first), ['d-one', 's-one']);
  t.same(namesIn(await shop.next()), ['s-one'], 'a token of one project hydrates with its flags only');
  t.same(namesIn(await prefixed.next()), ['s-one'], 'namePrefix holds');

  await ok('POST', `${P('default')}/d-one/environments/development/on`);
  const update = await all.next();
  t.equal(update.event, 'unleash-updated');
  t.same(update.data.events.map((e: any) => [e.type, e.feature.name, e.feature.enabled]), [['feature-updated', 'd-one', true]]);
  t.ok(update.id! > first.id!, 'ids grow');
  t.equal(update.data.events[0].eventId, update.id, 'the frame id is its last event id');
  await ok('POST', `${P('shop')}/s-one/environments/development/on`);
  t.same(namesIn(await shop.next()), ['s-one'], 'the shop token sees its change, and never saw d-one');
  t.same(namesIn(await prefixed.next()), ['s-one']);
  const shopOn = await all.next();
  t.same(namesIn(shopOn), ['s-one']);

  // A segment: it travels apart, and the strategy names it by id.
  const seg = await ok('POST', '/api/admin/segments', { name: 'beta', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] });
  const segFrame = await all.next();
  t.same(segFrame.data.events, [{ type: 'segment-updated', eventId: segFrame.id, segment: { id: seg.id, name: 'beta', constraints: seg.constraints } }]);
  await ok('POST', `${P('default')}/d-one/environments/development/strategies`, { name: 'default', segments: [seg.id] });
  const withSegment = await all.next();
  t.same(withSegment.data.events[0].feature.strategies.find((s: any) => s.name === 'default').segments, [seg.id], 'the strategy names its segment by id');

  // Archive: removed, with its project; the shop stream hears nothing of it.
  await ok('DELETE', `${P('default')}/d-one`);
  const removed = await all.next();
  t.same(removed.data.events, [{ type: 'feature-removed', eventId: removed.id, featureName: 'd-one', project: 'default' }]);
  const keepAlive = await shop.next((f) => f.comment !== null, 2000);
  t.equal(keepAlive.comment, 'keep-alive', 'a keep-alive comment while nothing changes');
  t.notOk(shop.frames.some((f) => JSON.stringify(f.data ?? '').includes('d-one')), 'nothing of another project reached the shop stream');
  t.notOk(prefixed.frames.some((f) => JSON.stringify(f.data ?? '').includes('d-one')), 'nor the stream filtered by name');

  // Resume: changes made while a stream was away come back, and only those.
  const lastSeen = removed.id!;
  all.close();
  await ok('POST', '/api/admin/archive/revive/d-one');
  await ok('POST', P('default'), { name: 'd-two' });
  const resumed = await openStream(srv.url, { authorization: ALL, 'last-event-id': String(lastSeen) });
  const catchUp = await resumed.next();
  t.equal(catchUp.event, 'unleash-connected');
  t.same(catchUp.data.events.map((e: any) => e.type), ['feature-updated', 'feature-updated'], 'not a hydration');
  t.same(namesIn(catchUp), ['d-one', 'd-two']);
  const unknown = await openStream(srv.url, { authorization: ALL, 'last-event-id': '999999' });
  t.equal((await unknown.next()).data.events[0].type, 'hydration', 'an id this server never gave: a hydration');
  const garbage = await openStream(srv.url, { authorization: ALL, 'last-event-id': 'yesterday' });
  t.equal((await garbage.next()).data.events[0].type, 'hydration', 'not an id: a hydration');
  for (const s of [resumed, unknown, garbage, shop, prefixed]) s.close();
});

t.test('delta: hydration, 304 while nothing changed, just the changes after, scope and filters', async (t) => {
  const { srv, api, ok } = await serve(t, { env, authorization: ADMIN });
  const SHOP = await shopToken(ok);
  await ok('POST', P('default'), { name: 'a' });
  await ok('POST', P('shop'), { name: 'b' });
  const delta = (token: string, etag?: string, query = '') => api('GET', `/api/client/delta${query}`, undefined, { authorization: token, ...(etag ? { 'if-none-match': etag } : {}) });

  const first = await delta(ALL);
  t.equal(first.status, 200);
  t.same(first.json.events.map((e: any) => e.type), ['hydration']);
  t.same(first.json.events[0].features.map((f: any) => f.name), ['a', 'b']);
  const etag = first.headers.get('etag')!;
  t.match(etag, /^"\d+"$/);
  t.equal((await delta(ALL, etag)).status, 304, 'nothing changed');
  t.equal((await delta(SHOP)).json.events[0].features.map((f: any) => f.name).join(), 'b', 'a token of one project');
  t.same((await delta(ALL, undefined, '?namePrefix=b')).json.events[0].features.map((f: any) => f.name), ['b'], 'namePrefix');

  await ok('POST', `${P('default')}/a/environments/development/on`);
  await ok('POST', `${P('default')}/a/environments/production/on`);
  const after = await delta(ALL, etag);
  t.equal(after.status, 200);
  t.same(after.json.events.map((e: any) => [e.type, e.feature.name, e.feature.enabled]), [['feature-updated', 'a', true]], 'only what changed, once');
  t.not(after.headers.get('etag'), etag);
  t.equal((await delta(SHOP, etag)).status, 304, 'a change outside the token\'s projects is nothing to it');
  t.equal((await delta(ALL, after.headers.get('etag')!)).status, 304);
  t.equal((await delta(ALL, '"999999"')).json.events[0].type, 'hydration', 'an unknown revision: a hydration');
  t.equal((await delta(ADMIN)).status, 403, 'an admin token');
  t.equal((await client(srv.url)('GET', '/api/client/delta')).status, 401, 'no token');
  t.equal((await delta(ALL, undefined, '?tag=bad')).status, 400, 'a malformed tag filter');
});

t.test('after a restart: a current id resumes with nothing missed, an older one gets a hydration', async (t) => {
  const first = await spawnServer({ env });
  const api = client(first.url, { authorization: ADMIN });
  await api('POST', P('default'), { name: 'kept' });
  const older = (await client(first.url)('GET', '/api/client/delta', undefined, { authorization: ALL })).headers.get('etag')!;
  await api('POST', `${P('default')}/kept/environments/development/on`);
  const current = (await client(first.url)('GET', '/api/client/delta', undefined, { authorization: ALL })).headers.get('etag')!;
  await first.stop();
  const again = await spawnServer({ dataDir: first.dataDir, env });
  t.teardown(() => again.stop());
  const delta = (etag: string) => client(again.url)('GET', '/api/client/delta', undefined, { authorization: ALL, 'if-none-match': etag });
  t.equal((await delta(current)).status, 304, 'the revision from before the restart is still current');
  const hydrated = await delta(older);
  t.equal(hydrated.json.events[0].type, 'hydration', 'an older one cannot be answered with changes: a hydration, never a gap');
  t.equal(hydrated.json.events[0].features[0].enabled, true);
  const s = await openStream(again.url, { authorization: ALL, 'last-event-id': current.replace(/"/g, '') });
  t.same((await s.next()).data.events, [], 'a stream resuming at the current id gets no events');
  s.close();
});

t.test('a revoked token\'s stream ends at once; the cap answers 429; shutdown ends streams', async (t) => {
  const srv = await spawnServer({ env: { ...env, STREAMING_MAX_CONNECTIONS: '3', STREAMING_MAX_CONNECTIONS_PER_TOKEN: '3' } });
  const api = client(srv.url, { authorization: ADMIN });
  const made = await api('POST', '/api/admin/api-tokens', { tokenName: 'short-lived', type: 'client', environment: 'development', projects: ['*'] });
  const doomed = await openStream(srv.url, { authorization: made.json.secret });
  await doomed.next();
  const other = await openStream(srv.url, { authorization: ALL });
  await other.next();
  const third = await openStream(srv.url, { authorization: ALL });
  await third.next();
  const refused = await openStream(srv.url, { authorization: ALL });
  t.equal(refused.status, 429, 'past STREAMING_MAX_CONNECTIONS');
  t.equal(refused.body.name, 'TooManyStreamsError');

  const started = Date.now();
  t.equal((await api('DELETE', `/api/admin/api-tokens/${encodeURIComponent(made.json.secret)}`)).status, 200);
  await doomed.ended;
  t.ok(Date.now() - started < 2000, `the revoked token's stream ended (${Date.now() - started} ms)`);
  t.equal((await openStream(srv.url, { authorization: made.json.secret })).status, 401, 'and cannot come back');
  t.equal(other.frames.length, 1, 'the others go on');

  await srv.stop();
  await Promise.all([other.ended, third.ended]);
  t.pass('a graceful shutdown ended every stream');
});

t.test('a stalled reader is let go past its buffer; the other streams go on', async (t) => {
  const dataDir = tempDataDir('fanion-push-');
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WAL_SYNC: 'none', AUTH_TYPE: 'none', STREAMING_BUFFER_BYTES: '20000' });
  const running = await startServer({ config, log: createLogger('silent') });
  t.teardown(() => running.close());
  const url = `http://127.0.0.1:${running.port}`;
  const api = client(url);
  // A socket that asks for a stream and then reads nothing.
  const stalled = net.connect(running.port, '127.0.0.1');
  stalled.write('GET /api/client/streaming HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n');
  stalled.pause();
  const reader = await openStream(url);
  await reader.next();
  const description = 'x'.repeat(4000);
  let frames = 0;
  for (let i = 0; running.push.dropped === 0 && i < 3000; i++) {
    await api('POST', P('default'), { name: `big-${i}`, description });
    frames++;
  }
  t.equal(running.push.dropped, 1, `the stalled stream was dropped after ${frames} changes of ~4 kB`);
  t.equal(running.push.streams, 1, 'one stream left');
  await api('POST', `${P('default')}/big-0/environments/development/on`);
  await reader.next((f) => f.comment === null && f.data.events.some((e: any) => e.feature?.name === 'big-0' && e.feature.enabled), 5000);
  t.pass('the reading stream got every change, the last one included');
  reader.close();
  stalled.destroy();
});

t.test('a change the disk refuses is published nowhere', async (t) => {
  const dataDir = tempDataDir('fanion-push-fault-');
  const files = new FaultyFiles();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WAL_SYNC: 'always', AUTH_TYPE: 'none' });
  const running = await startServer({ config, log: createLogger('silent'), files });
  t.teardown(() => running.close());
  const url = `http://127.0.0.1:${running.port}`;
  const api = client(url);
  t.equal((await api('POST', P('default'), { name: 'x' })).status, 201);
  const s = await openStream(url);
  await s.next();
  const etag = (await api('GET', '/api/client/delta')).headers.get('etag')!;

  files.fail('fdatasync', 'EIO');
  t.equal((await api('POST', `${P('default')}/x/environments/development/on`)).status, 503);
  t.equal((await api('POST', P('default'), { name: 'never' })).status, 503);
  files.heal();
  t.equal((await api('GET', '/api/client/delta', undefined, { 'if-none-match': etag })).status, 304, 'the delta shows nothing of it');
  t.equal((await api('POST', P('default'), { name: 'after' })).status, 201);
  const next = await s.next();
  t.same(namesIn(next), ['after'], 'the next frame is the next durable change');
  t.notOk(s.frames.some((f) => f.data && JSON.stringify(f.data).includes('never')), 'the refused ones were never sent');
  const d = await api('GET', '/api/client/delta', undefined, { 'if-none-match': etag });
  t.same(d.json.events.map((e: any) => e.feature.name), ['after']);
  s.close();
});

t.test('deleting an environment or a project ends the streams of its tokens', async (t) => {
  const { srv, ok } = await serve(t, { env, authorization: ADMIN });
  await ok('POST', '/api/admin/environments', { name: 'qa', type: 'test' });
  await ok('POST', P('default'), { name: 'q' });
  const qaToken = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'qa-sdk', type: 'client', environment: 'qa', projects: ['*'] })).secret;
  const qa = await openStream(srv.url, { authorization: qaToken });
  await qa.next();
  await ok('POST', `${P('default')}/q/environments/qa/on`);
  t.equal((await qa.next()).data.events[0].feature.enabled, true, 'the qa stream sees qa');
  await ok('DELETE', '/api/admin/environments/qa');
  await qa.ended;
  t.equal((await openStream(srv.url, { authorization: qaToken })).status, 401, 'the environment went, and its token with it');

  await ok('POST', '/api/admin/projects', { id: 'tmp', name: 'Temporary' });
  await ok('POST', P('tmp'), { name: 't1' });
  const tmpToken = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'tmp-sdk', type: 'client', environment: 'development', projects: ['tmp'] })).secret;
  const tmp = await openStream(srv.url, { authorization: tmpToken });
  t.same(namesIn(await tmp.next()), ['t1']);
  await ok('DELETE', `${P('tmp')}/t1`);
  t.same((await tmp.next()).data.events.map((e: any) => [e.type, e.featureName]), [['feature-removed', 't1']]);
  await ok('DELETE', '/api/admin/archive/t1');
  await ok('DELETE', '/api/admin/projects/tmp');
  await tmp.ended;
  t.equal((await openStream(srv.url, { authorization: tmpToken })).status, 401, 'the project went, and its token with it');
});

t.test('a change is serialized once per view, whatever the number of streams', async (t) => {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: tempDataDir('fanion-push-views-'), WAL_SYNC: 'none', AUTH_TYPE: 'none' });
  const running = await startServer({ config, log: createLogger('silent') });
  t.teardown(() => running.close());
  const url = `http://127.0.0.1:${running.port}`;
  const streams = await Promise.all([...Array(20)].map(() => openStream(url)));
  const filtered = await Promise.all([...Array(5)].map(() => openStream(url, {}, '/api/client/streaming?namePrefix=f')));
  await Promise.all([...streams, ...filtered].map((s) => s.next()));
  const built = running.push.framesBuilt;
  const written = running.push.framesWritten;
  t.equal((await client(url)('POST', P('default'), { name: 'flag' })).status, 201);
  await Promise.all([...streams, ...filtered].map((s) => s.next()));
  t.equal(running.push.framesBuilt - built, 2, 'two views, two frames built');
  t.equal(running.push.framesWritten - written, 25, 'written to each of the 25 streams');
  for (const s of [...streams, ...filtered]) s.close();
});
