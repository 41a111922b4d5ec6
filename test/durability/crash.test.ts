// kill -9 test: workers write concurrently (create, strategies add/update/delete, on/off, patch)
// to a real server with WAL_SYNC=always and a small CHECKPOINT_RECORDS, so checkpoints are taken
// all the time; the process is SIGKILLed at a random moment, restarted on the same folder and
// checked against a model: every acknowledged change is there, the request that was in flight
// per worker is there entirely or not at all (its state and its events agree), event ids are
// gapless and unique, and go on after the restart without reuse.
// Rounds: FANION_CRASH_ROUNDS (default 20, or 8 when CI is set, to keep CI time down).
import t from 'tap';
import { client, spawnServer, tempDataDir, type Spawned } from '../helpers/server.js';
import { checkAllEventIds, newWorker, runWorker, verify, type Api, type Worker } from './model.js';
import { testRandom } from '../helpers/random.js';

const random = testRandom('crash');

const ROUNDS = Number(process.env.FANION_CRASH_ROUNDS ?? (process.env.CI ? 8 : 20));
const WORKERS = 8;

async function newestEventId(api: Api): Promise<{ newest: number; total: number }> {
  const res = await api('POST', '/api/admin/events/search', { limit: 1 });
  return { newest: res.json.events[0]?.id ?? 0, total: res.json.totalEvents };
}

t.test(`SIGKILL during concurrent writes and checkpoints, ${ROUNDS} rounds: nothing acknowledged is lost, nothing is half-applied`, async (t) => {
  const dataDir = tempDataDir('fanion-crash-');
  const env = { WAL_SYNC: 'always', CHECKPOINT_RECORDS: '40' };
  const workers: Worker[] = Array.from({ length: WORKERS }, newWorker);
  let prevNewest = 0;
  let checkpoints = 0;
  let unfinishedCheckpoints = 0;
  let applied = 0;
  let lost = 0;
  for (let round = 1; round <= ROUNDS + 1; round++) {
    const srv: Spawned = await spawnServer({ dataDir, env });
    t.teardown(() => srv.kill());
    const api = client(srv.url);
    if (/checkpoint that a crash left unfinished/.test(srv.output())) unfinishedCheckpoints++;
    const last = round === ROUNDS + 1;
    const r = await verify(t, api, workers, last);
    applied += r.pendingApplied;
    lost += r.pendingLost;
    const { newest, total } = await newestEventId(api);
    t.ok(newest >= prevNewest && total === newest, `round ${round}: events 1..${newest} present after the restart (count ${total})`);
    if (last || round % 5 === 0) await checkAllEventIds(t, api);
    if (last) {
      await srv.stop();
      break;
    }
    prevNewest = newest;
    const stop = { dead: false };
    const running = workers.map((w, i) => runWorker(api, w, `w${i}`, stop, t));
    await new Promise((r) => setTimeout(r, 150 + random() * 750));
    await srv.kill();
    stop.dead = true;
    await Promise.all(running);
    checkpoints += (srv.output().match(/"checkpoint written"/g) ?? []).length;
  }
  const acked = workers.reduce((n, w) => n + w.acked, 0);
  t.comment(
    `${ROUNDS} kills; ${acked} acknowledged requests; ${checkpoints} checkpoints completed; ` +
      `${unfinishedCheckpoints} restarts found an unfinished checkpoint; in-flight requests found applied ${applied}, not applied ${lost}`,
  );
  t.ok(checkpoints > 0, 'checkpoints were taken during the load');
  t.ok(acked > ROUNDS * 20, 'the workers got real work done');
});
