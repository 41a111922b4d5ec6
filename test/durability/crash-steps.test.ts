// A crash at every step of a checkpoint (and in the middle of a WAL write) leaves a data folder
// that starts with every acknowledged change. FANION_CRASH_AT=<step>[:n] makes the server
// SIGKILL itself the n-th time it reaches <step> (src/core/log/wal/crash-points.ts); the test writes
// until the process is gone, restarts without the hook and checks.
import fs from 'node:fs';
import t from 'tap';
import { CRASH_POINTS } from '../../src/core/log/wal/crash-points.js';
import { client, spawnServer, tempDataDir } from '../helpers/server.js';
import { fanion } from './cli.js';

const P = '/api/admin/projects/default/features';

/** Which occurrence to crash at: the deletions only happen once there are older checkpoints. */
const NTH: Record<string, number> = { 'wal-torn-write': 10, 'checkpoint-before-delete': 2, 'checkpoint-mid-delete': 2 };

for (const point of CRASH_POINTS) {
  t.test(`a crash at ${point} leaves a folder that starts with every acknowledged change`, async (t) => {
    const dataDir = tempDataDir('fanion-step-');
    const at = NTH[point] ? `${point}:${NTH[point]}` : point;
    const srv = await spawnServer({ dataDir, env: { WAL_SYNC: 'always', CHECKPOINT_RECORDS: '8', FANION_CRASH_AT: at } });
    t.teardown(() => srv.kill());
    const api = client(srv.url);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => srv.proc.once('exit', (_code, signal) => resolve(signal)));
    const acked: string[] = [];
    const unexpected: number[] = [];
    for (let i = 0; i < 500; i++) {
      const name = `flag-${i}`;
      try {
        const res = await api('POST', P, { name });
        if (res.status === 201) acked.push(name);
        else unexpected.push(res.status);
      } catch {
        break; // the process is gone
      }
    }
    t.same(unexpected, [], 'every create before the crash answered 201');
    t.equal(await exited, 'SIGKILL', 'the process died by SIGKILL');
    t.match(srv.output(), `FANION_CRASH_AT: crashing at ${point}`, 'at the chosen step');
    t.ok(acked.length > 0);
    const v = await fanion('verify', dataDir);
    t.equal(v.code, 0, 'fanion verify: the folder starts');
    const again = await spawnServer({ dataDir, env: { WAL_SYNC: 'always', CHECKPOINT_RECORDS: '8' } });
    t.teardown(() => again.kill());
    const api2 = client(again.url);
    if (point === 'wal-torn-write') t.match(again.output(), /cut off a torn or damaged last record/, 'the half-written record is cut off');
    const list = await api2('GET', P);
    const present = new Set(list.json.features.map((f: any) => f.name));
    t.same(acked.filter((n) => !present.has(n)), [], `all ${acked.length} acknowledged flags are there`);
    t.ok(present.size <= acked.length + 1, 'at most the one in-flight flag more');
    const ev = await api2('POST', '/api/admin/events/search', { limit: 1 });
    t.equal(ev.json.events[0].id, ev.json.totalEvents, 'event ids are gapless');
    t.equal(ev.json.totalEvents, present.size, 'one event per flag present, none for a flag not present');
    t.notOk(fs.readdirSync(dataDir).some((n) => n.endsWith('.tmp')), 'no temporary checkpoint is left behind');
    const after = [];
    for (let i = 0; i < 20; i++) after.push((await api2('POST', P, { name: `after-${i}` })).status);
    t.ok(after.every((s) => s === 201), 'new writes succeed');
    t.equal(await again.stop(), 0);
    const third = await spawnServer({ dataDir });
    t.teardown(() => third.kill());
    const final = await client(third.url)('GET', P);
    t.equal(final.json.features.length, present.size + 20, 'and the folder keeps working through more checkpoints and restarts');
    await third.stop();
  });
}
