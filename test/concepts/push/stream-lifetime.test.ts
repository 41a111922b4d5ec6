// A stream lives as long as its token's access does: the metrics flush writing when a token was
// last seen is not a change to what it sees, so it ends no stream (it ended every stream of a
// used token every METRICS_FLUSH_MS: issue #26, item 4), while a revocation or a real scope
// change still ends them at once. The official SDK in streaming mode sees every change at once.
import t from 'tap';
import { serve } from '../../helpers/server.js';
import { openStream } from '../../helpers/sse.js';
import { syncedSdk } from '../../helpers/unleash-sdk.js';

const ADMIN = '*:*.lifetime-admin';
const CLIENT = '*:development.lifetime-client';
const P = '/api/admin/projects/default/features';
const FLUSH_MS = 100;
const env = {
  AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT,
  METRICS_FLUSH_MS: String(FLUSH_MS), STREAMING_KEEPALIVE_MS: String(FLUSH_MS),
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('a used token\'s streams stay open across metrics flushes; revocation and a narrower scope still end them', async (t) => {
  const { srv, api, ok } = await serve(t, { env, authorization: ADMIN });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  const doomed = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'doomed', type: 'client', environment: 'development', projects: ['*'] })).secret;
  const narrowed = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'two-projects', type: 'client', environment: 'development', projects: ['default', 'shop'] })).secret;

  const streams = await Promise.all([CLIENT, CLIENT, CLIENT, doomed, narrowed].map((token) => openStream(srv.url, { authorization: token })));
  for (const s of streams) await s.next();
  let ended = 0;
  for (const s of streams) void s.ended.then(() => ended++);
  const seenAt = async () => (await ok('GET', '/api/admin/api-tokens')).tokens.find((x: any) => x.tokenName === 'doomed').seenAt as string | null;

  // Every token polls as well, so each flush has its last use to write.
  const seen = new Set<string | null>();
  const started = Date.now();
  while (Date.now() - started < 15 * FLUSH_MS) {
    for (const token of [CLIENT, doomed, narrowed]) await api('GET', '/api/client/features', undefined, { authorization: token });
    seen.add(await seenAt());
    await sleep(FLUSH_MS / 4);
  }
  seen.delete(null);
  t.ok(seen.size >= 3, `the flush wrote the token's last use again and again (${seen.size} different seenAt values)`);
  t.equal(ended, 0, `no stream ended across ~${Math.round((Date.now() - started) / FLUSH_MS)} flushes`);

  // A change that really narrows what a token sees still ends its stream at once (a token.put).
  const narrowing = Date.now();
  await ok('DELETE', '/api/admin/projects/shop');
  await streams[4].ended;
  t.ok(Date.now() - narrowing < 2000, `the stream of a token that lost a project ended (${Date.now() - narrowing} ms)`);
  // A revocation too (token.del).
  const revoking = Date.now();
  t.equal((await api('DELETE', `/api/admin/api-tokens/${encodeURIComponent(doomed)}`)).status, 200);
  await streams[3].ended;
  t.ok(Date.now() - revoking < 2000, `the revoked token's stream ended (${Date.now() - revoking} ms)`);
  t.equal((await openStream(srv.url, { authorization: doomed })).status, 401, 'and cannot come back');
  await sleep(3 * FLUSH_MS);
  t.equal(ended, 2, 'the streams of the untouched token go on');
  for (const s of streams) s.close();
});

t.test('the official SDK in streaming mode sees each of 20 changes at once, flushes or not', async (t) => {
  const { srv, ok } = await serve(t, { env, authorization: ADMIN });
  await ok('POST', P, { name: 'flip' });
  // Polling (its fallback) once a minute: only the stream can bring a change within the test.
  const u = await syncedSdk(t, srv.url, { token: CLIENT, mode: { type: 'streaming' }, refreshInterval: 60_000, metricsInterval: FLUSH_MS, appName: 'lifetime' });
  const latencies: number[] = [];
  for (let i = 0; i < 20; i++) {
    const on = i % 2 === 0;
    await ok('POST', `${P}/flip/environments/development/${on ? 'on' : 'off'}`);
    const answered = performance.now();
    while (u.isEnabled('flip') !== on && performance.now() - answered < 3000) await new Promise((r) => setImmediate(r));
    latencies.push(performance.now() - answered);
    // Let flushes happen between changes, as they would in a real deployment.
    await sleep(FLUSH_MS * 1.5);
  }
  const worst = Math.max(...latencies);
  t.comment(`change → SDK: median ${latencies.sort((a, b) => a - b)[10].toFixed(1)} ms, worst ${worst.toFixed(1)} ms`);
  // Before the fix a flush ended the stream and the SDK took ~2 s to reconnect; 500 ms leaves room for a loaded machine.
  t.ok(worst < 500, `every change reached the SDK within 500 ms (worst ${worst.toFixed(1)} ms)`);
});
