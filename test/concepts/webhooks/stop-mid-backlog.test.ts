// Deleting or switching off webhook addons while they still have a backlog to send, against a
// real server: the answer comes at once, /health keeps answering, and SIGTERM still stops the
// process. Before, a worker whose addon was gone (or off) restarted itself in a microtask until
// the change that would stop it was durable, which it never became: the event loop never turned.
import t, { type Test } from 'tap';
import { RECEIVERS_ALLOWED, receiverFor, sleep, webhook, type Receiver } from '../../helpers/receiver.js';
import { timed, terminate } from '../../helpers/bounded.js';
import { client, spawnServer, type Spawned } from '../../helpers/server.js';

/** Several addons, so several chances for a send to end while a deletion is being written. */
const ADDONS = 8;
const BACKLOG = 2_000;

/** A server whose addons each have an import's 2,000 events to send, to a receiver that answers at once. */
async function backlogged(t: Test): Promise<{ srv: Spawned; r: Receiver; ids: number[] }> {
  const r = await receiverFor(t);
  const srv = await spawnServer({ env: { ...RECEIVERS_ALLOWED, WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '2000' } });
  t.teardown(() => terminate(srv, 2_000));
  const api = client(srv.url);
  const ids: number[] = [];
  for (let i = 0; i < ADDONS; i++) ids.push((await api('POST', '/api/admin/addons', webhook(r.url))).json.id);
  const features = Array.from({ length: BACKLOG }, (_, i) => ({ name: `backlog-${i}`, project: 'default', type: 'release', enabled: false, stale: false }));
  t.equal((await api('POST', '/api/admin/state/import', { version: 4, features })).status, 202, 'the import is in');
  await r.waitFor(ADDONS * 3);
  return { srv, r, ids };
}

async function stopEach(t: Test, how: 'DELETE' | 'PUT', request: (id: number, receiverUrl: string) => [string, unknown?]) {
  const { srv, r, ids } = await backlogged(t);
  const before = r.received.length;
  t.ok(before < ADDONS * BACKLOG / 2, `mid-backlog: ${before} of ${ADDONS * BACKLOG} sends made`);
  const answers: number[] = [];
  const health: number[] = [];
  for (const id of ids) {
    const [path, body] = request(id, r.url);
    const res = await timed(srv.url, how, path, body);
    const h = await timed(srv.url, 'GET', '/health');
    if (res.status !== 200 || h.status !== 200) {
      t.fail(`${how} ${path} → ${res.status} after ${res.ms.toFixed(0)} ms; /health → ${h.status} after ${h.ms.toFixed(0)} ms`);
      break;
    }
    answers.push(res.ms);
    health.push(h.ms);
  }
  const max = (xs: number[]) => Math.max(0, ...xs).toFixed(0);
  t.equal(answers.length, ADDONS, `every ${how} answered`);
  t.ok(answers.every((ms) => ms < 1_000), `each ${how} within a second: at most ${max(answers)} ms`);
  t.ok(health.every((ms) => ms < 1_000), `and /health right after: at most ${max(health)} ms`);
  // One send per addon may have been in flight; after that, nothing.
  await sleep(300);
  const settled = r.received.length;
  await sleep(500);
  t.equal(r.received.length, settled, `then nothing more is sent (${settled - before} sends after the first ${how}, by the addons still on and those in flight)`);
  const stop = await terminate(srv);
  t.equal(stop.code, 0, `SIGTERM stops it cleanly, in ${stop.ms.toFixed(0)} ms`);
}

t.test('deleting addons in the middle of a backlog answers at once; /health and SIGTERM keep working', async (t) => {
  await stopEach(t, 'DELETE', (id) => [`/api/admin/addons/${id}`]);
});

t.test('switching addons off in the middle of a backlog answers at once; /health and SIGTERM keep working', async (t) => {
  await stopEach(t, 'PUT', (id, url) => [`/api/admin/addons/${id}`, webhook(url, { enabled: false })]);
});
