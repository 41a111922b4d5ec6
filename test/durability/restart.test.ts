// A killed server always restarts, and one data folder never has two servers.
// - `npm start` in its own process group, SIGKILLed as a group while writes are in flight (what a
//   supervisor or container runtime does after its stop timeout), then started again within
//   100 ms: the killed node process is typically still a zombie then (its parent died with it and
//   PID 1 reaps late), and the restart must not mistake it for a live owner.
//   Rounds: FANION_RESTART_ROUNDS (default 20).
// - Two starts racing on one fresh folder: exactly one serves.
// - Across pid namespaces (what two containers sharing a volume are): the lock still holds,
//   in both orders, and is taken over once its holder is dead.
import { spawnSync } from 'node:child_process';
import t from 'tap';
import { client, MAIN, spawnServer, tempDataDir, type Spawned } from '../helpers/server.js';
import { testRandom } from '../helpers/random.js';

const random = testRandom('restart');

const ROUNDS = Number(process.env.FANION_RESTART_ROUNDS ?? 20);
const WRITERS = 4;
const NPM_START = ['npm', 'start', '--silent'];
// npm needs a home; the rest of the environment is the test's own.
const NPM_ENV = { HOME: process.env.HOME ?? '/root', WAL_SYNC: 'always' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test(`kill -9 of the npm start process group during writes, restart within 100 ms, ${ROUNDS} rounds`, async (t) => {
  const dataDir = tempDataDir('fanion-restart-');
  const acked: string[] = [];
  let inFlightAtKill = 0;
  let srv: Spawned = await spawnServer({ dataDir, command: NPM_START, detached: true, env: NPM_ENV });
  t.teardown(() => srv.killGroup());
  for (let round = 1; round <= ROUNDS; round++) {
    const api = client(srv.url);
    const stop = { now: false };
    let inFlight = 0;
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; !stop.now; i++) {
        const name = `r${round}-w${w}-${i}`;
        inFlight++;
        try {
          const res = await api('POST', '/api/admin/projects/default/features', { name });
          if (res.status === 201) acked.push(name);
          else if (!stop.now) t.fail(`create ${name}: ${res.status} ${res.text}`);
        } catch {
          return; // the server died under this request: its outcome is unknown
        } finally {
          inFlight--;
        }
      }
    });
    await sleep(100 + random() * 300);
    inFlightAtKill += inFlight;
    srv.killGroup();
    stop.now = true;
    await Promise.all(writers);
    await sleep(random() * 100);
    srv = await spawnServer({ dataDir, command: NPM_START, detached: true, env: NPM_ENV });
    const health = await client(srv.url)('GET', '/health');
    t.equal(health.status, 200, `round ${round}: the restart serves /health`);
  }
  const list = await client(srv.url)('GET', '/api/admin/projects/default/features');
  const present = new Set<string>(list.json.features.map((f: { name: string }) => f.name));
  const missing = acked.filter((n) => !present.has(n));
  t.same(missing, [], `all ${acked.length} acknowledged creations survived ${ROUNDS} kills`);
  t.ok(acked.length > ROUNDS * WRITERS, 'the writers got real work done');
  t.ok(inFlightAtKill > 0, 'writes were in flight when the group was killed');
  t.comment(`${ROUNDS} group kills and restarts; ${acked.length} acknowledged writes; ${inFlightAtKill} requests in flight at the kills`);
});

t.test('two servers started at once on one new folder: exactly one serves', async (t) => {
  for (let i = 0; i < 5; i++) {
    const dataDir = `${tempDataDir('fanion-race-')}/data`;
    const results = await Promise.allSettled([spawnServer({ dataDir }), spawnServer({ dataDir })]);
    const served = results.filter((r): r is PromiseFulfilledResult<Spawned> => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    t.equal(served.length, 1, `race ${i + 1}: one server listens`);
    t.equal(refused.length, 1, `race ${i + 1}: the other exits`);
    t.match(String(refused[0]?.reason), /in use by another Fanion process \(pid \d+\)/, 'with the message naming the holder');
    for (const s of served) await s.value.stop();
  }
});

const unshareWorks = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', 'true']).status === 0;
const IN_NEW_PID_NS = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child', process.execPath, MAIN];

t.test('the lock holds across pid namespaces, in both orders', { skip: unshareWorks ? false : 'unshare --pid --fork --mount-proc does not work here (needs root or user namespaces)' }, async (t) => {
  t.test('a plain server holds the folder: one in a new pid namespace is refused', async (t) => {
    const dataDir = tempDataDir('fanion-ns-');
    const plain = await spawnServer({ dataDir });
    t.teardown(() => plain.kill());
    const other = await spawnServer({ dataDir, command: IN_NEW_PID_NS, expectExit: true });
    t.not(other.proc.exitCode, 0);
    t.match(other.output(), /in use by another Fanion process/);
    t.equal((await client(plain.url)('GET', '/health')).status, 200, 'the first one still serves');
  });
  t.test('a server in a new pid namespace holds the folder: a plain one is refused, then takes over once it is dead', async (t) => {
    const dataDir = tempDataDir('fanion-ns-');
    const namespaced = await spawnServer({ dataDir, command: IN_NEW_PID_NS, detached: true });
    t.teardown(() => namespaced.killGroup());
    const plain = await spawnServer({ dataDir, expectExit: true });
    t.equal(plain.proc.exitCode, 1);
    t.match(plain.output(), /in use by another Fanion process \(pid 1\)/, 'the message names the pid as its holder sees it');
    namespaced.killGroup();
    await namespaced.kill();
    const after = await spawnServer({ dataDir });
    t.equal((await client(after.url)('GET', '/health')).status, 200, 'the folder is taken over at once');
    await after.stop();
  });
});
