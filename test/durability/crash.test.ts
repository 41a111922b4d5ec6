// kill -9 test: workers write concurrently (create, strategies add/update/delete, on/off, patch)
// to a real server with WAL_SYNC=always and a small CHECKPOINT_RECORDS, so checkpoints are taken
// all the time; the process is SIGKILLed at a random moment, restarted on the same folder and
// checked against a model: every acknowledged change is there, the request that was in flight
// per worker is there entirely or not at all (its state and its events agree), event ids are
// gapless and unique, and go on after the restart without reuse.
// Rounds: FANION_CRASH_ROUNDS (default 20, or 8 when CI is set, to keep CI time down).
import t, { type Test } from 'tap';
import { client, spawnServer, tempDataDir, type Spawned } from '../helpers/server.js';
import { nextStep, observe, viewOf, type Api, type FlagModel, type Step } from './model.js';
import { testRandom } from '../helpers/random.js';

const random = testRandom('crash');

const ROUNDS = Number(process.env.FANION_CRASH_ROUNDS ?? (process.env.CI ? 8 : 20));
const WORKERS = 8;
const SAMPLE_UNTOUCHED = 25;

interface Worker {
  flags: Map<string, FlagModel>;
  /** The request in flight when the server died, if any. */
  pending: Step | null;
  touched: Set<string>;
  acked: number;
}

async function runWorker(api: Api, w: Worker, prefix: string, stop: { dead: boolean }, t: Test): Promise<void> {
  while (!stop.dead) {
    const step = nextStep(prefix, w.flags);
    w.pending = step;
    w.touched.add(step.flag);
    let res;
    try {
      res = await step.send(api);
    } catch {
      return; // the connection died with the server: outcome unknown, stays pending
    }
    if (res.status < 200 || res.status >= 300) {
      t.fail(`${step.describe}: unexpected ${res.status} ${JSON.stringify(res.json)}`);
      w.pending = null;
      continue;
    }
    w.flags.set(step.flag, step.apply(w.flags.get(step.flag) ?? null, res));
    w.pending = null;
    w.acked++;
  }
}

/** Compares the restarted server with the model and settles each worker's pending request. */
async function verify(t: Test, api: Api, workers: Worker[], all: boolean): Promise<{ pendingApplied: number; pendingLost: number }> {
  let pendingApplied = 0;
  let pendingLost = 0;
  for (const w of workers) {
    const names = new Set(w.touched);
    const others = [...w.flags.keys()].filter((n) => !names.has(n));
    const sample = all ? others : others.sort(() => random() - 0.5).slice(0, SAMPLE_UNTOUCHED);
    for (const n of sample) names.add(n);
    for (const name of names) {
      const actual = await observe(api, name);
      const acked = w.flags.get(name) ?? null;
      if (viewOf(actual) === viewOf(acked)) {
        if (w.pending?.flag === name) pendingLost++;
        continue;
      }
      const p = w.pending;
      if (p && p.flag === name) {
        const res = p.lostResponse ? p.lostResponse(acked, actual) : { json: {} };
        const after = p.apply(acked, res);
        if (viewOf(actual) === viewOf(after)) {
          w.flags.set(name, after);
          pendingApplied++;
          continue;
        }
        t.fail(`${name}: neither the acknowledged state nor it plus the in-flight "${p.describe}"`, {
          actual: viewOf(actual), acknowledged: viewOf(acked), withInFlight: viewOf(after),
        });
        continue;
      }
      t.fail(`${name}: an acknowledged change is missing or something unacknowledged appeared`, { actual: viewOf(actual), acknowledged: viewOf(acked) });
    }
    w.pending = null;
    w.touched.clear();
  }
  return { pendingApplied, pendingLost };
}

/** Every event, newest first, through the search cursor: ids must be N, N-1, … 1. */
async function checkAllEventIds(t: Test, api: Api): Promise<number> {
  const ids: number[] = [];
  let offset = 0;
  let total = -1;
  for (;;) {
    const res = await api('POST', '/api/admin/events/search', { limit: 100, ...(offset ? { offset } : {}) });
    t.equal(res.status, 200);
    total = res.json.totalEvents;
    const page: number[] = res.json.events.map((e: any) => e.id);
    ids.push(...page);
    if (page.length < 100 || page[page.length - 1] === 1) break;
    offset = page[page.length - 1] - 1;
  }
  const expected = Array.from({ length: ids.length }, (_, i) => ids.length - i);
  t.ok(ids.length === total && JSON.stringify(ids) === JSON.stringify(expected), `event ids are ${ids.length}..1 without gaps or repeats`);
  return ids.length;
}

async function newestEventId(api: Api): Promise<{ newest: number; total: number }> {
  const res = await api('POST', '/api/admin/events/search', { limit: 1 });
  return { newest: res.json.events[0]?.id ?? 0, total: res.json.totalEvents };
}

t.test(`SIGKILL during concurrent writes and checkpoints, ${ROUNDS} rounds: nothing acknowledged is lost, nothing is half-applied`, async (t) => {
  const dataDir = tempDataDir('fanion-crash-');
  const env = { WAL_SYNC: 'always', CHECKPOINT_RECORDS: '40' };
  const workers: Worker[] = Array.from({ length: WORKERS }, () => ({ flags: new Map(), pending: null, touched: new Set(), acked: 0 }));
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
