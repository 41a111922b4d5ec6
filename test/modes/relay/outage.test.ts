// A relay whose upstream goes away keeps serving what it has: SDK polls answer 200/304 with the
// last flags (never a 5xx), streams stay open, the Frontend API answers; an unknown token gets a
// 401 within the wait, not a hang. Restarted while the upstream is still down, the relay serves the
// flags saved in its data folder at once (same ETag), and /ready is 200. When the upstream is back,
// the relay follows it again.
import t from 'tap';
import { spawnServer } from '../../helpers/server.js';
import { openStream } from '../../helpers/sse.js';
import { startRelay, startUpstream, UP_CLIENT, UP_FRONTEND, waitFor, waitReady } from '../../helpers/relay.js';

const P = '/api/admin/projects/default/features';

t.test('the upstream killed, then the relay restarted while it is down', async (t) => {
  const { srv: up, ok } = await startUpstream(t, {}, {});
  await ok('POST', P, { name: 'kept' });
  await ok('POST', `${P}/kept/environments/development/strategies`, { name: 'default' });
  await ok('POST', `${P}/kept/environments/development/on`);
  const relay = await startRelay(t, up.url, { noTeardown: true });
  await waitReady(relay.url);
  const poll = (base: string, etag?: string) => fetch(`${base}/api/client/features`, { headers: { authorization: UP_CLIENT, ...(etag ? { 'if-none-match': etag } : {}) } });
  const first = await poll(relay.url);
  const etag = first.headers.get('etag')!;
  const body = await first.text();
  t.match(JSON.parse(body).features, [{ name: 'kept', enabled: true }], 'the relay serves the upstream\'s flag');
  const stream = await openStream(relay.url, { authorization: UP_CLIENT });
  await stream.next((f) => f.event === 'unleash-connected');

  await up.kill();
  // While the relay notices and retries: every SDK answer is a 200 or a 304, with the same flags.
  const statuses = new Map<number, number>();
  let otherFlags = 0;
  const until = Date.now() + 3000;
  while (Date.now() < until) {
    const [full, cond, frontend] = await Promise.all([
      poll(relay.url), poll(relay.url, etag),
      fetch(`${relay.url}/api/frontend?userId=1`, { headers: { authorization: UP_FRONTEND } }),
    ]);
    for (const r of [full, cond, frontend]) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    if ((await full.text()) !== body) otherFlags++;
    await Promise.all([cond.text(), frontend.text()]);
    await new Promise((r) => setTimeout(r, 100));
  }
  t.same([...statuses.keys()].sort(), [200, 304], `only 200s and 304s while the upstream is down (${JSON.stringify(Object.fromEntries(statuses))})`);
  t.equal(otherFlags, 0, 'every full answer holds the same flags');
  t.notOk(stream.frames.some((f) => f.event !== null && f.event !== 'unleash-connected'), 'the SDK\'s stream got nothing new');
  t.equal(stream.frames.length >= 1 && (await Promise.race([stream.ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('open'), 200))])), 'open', 'and it stays open');
  stream.close();
  const started = Date.now();
  const unknown = await fetch(`${relay.url}/api/client/features`, { headers: { authorization: '*:development.never-seen-before' } });
  t.equal(unknown.status, 401, 'a token the relay never saw: 401 (the upstream cannot vouch for it)');
  t.ok(Date.now() - started < 6000, `answered within the wait (${Date.now() - started} ms)`);

  // Restarted with the upstream still down: the data folder has everything.
  t.equal(await relay.stop(), 0, 'the relay stops cleanly while its upstream is down');
  const again = await startRelay(t, up.url, { dataDir: relay.dataDir });
  const t0 = Date.now();
  const served = await poll(again.url);
  t.equal(served.status, 200, 'the restarted relay serves at once');
  t.equal(await served.text(), body, 'the saved flags');
  t.equal(served.headers.get('etag'), etag, 'with the same ETag');
  t.equal((await poll(again.url, etag)).status, 304);
  const ready = await fetch(`${again.url}/ready`);
  t.equal(ready.status, 200, `/ready is 200 with the upstream down (${Date.now() - t0} ms after listening)`);
  t.same(await ready.json(), { health: 'GOOD' });
  t.same(await (await fetch(`${again.url}/internal-backstage/ready`)).json(), { status: 'READY' }, 'and so does Edge\'s readiness path');

  // The upstream back (same port, same data): the relay follows it again.
  const back = await spawnServer({ dataDir: up.dataDir, env: { AUTH_TYPE: 'api-token', PORT: String(up.port) } });
  t.teardown(() => back.stop());
  await fetch(`${back.url}${P}/kept/environments/development/off`, { method: 'POST', headers: { authorization: '*:*.relay-test-admin' } });
  const recovered = Date.now();
  await waitFor(async () => ((await (await poll(again.url)).json()) as { features: { enabled: boolean }[] }).features[0].enabled === false, 'the relay to follow the upstream again', 30_000, 100);
  t.pass(`the upstream's change reached the relay ${Date.now() - recovered} ms after the upstream was back`);
});
