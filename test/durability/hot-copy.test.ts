// Hot copies: a copy of DATA_DIR taken while the server writes and checkpoints (with `fanion
// backup`, and with plain `cp -r`) starts, and holds every change acknowledged before the copy
// began (a checkpoint plus a prefix of the WAL after it).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { client, spawnServer, tempDataDir } from '../helpers/server.js';
import { fanion } from './cli.js';
import { testRandom } from '../helpers/random.js';

const random = testRandom('hot-copy');

const P = '/api/admin/projects/default/features';
const sh = promisify(execFile);

t.test('copies taken during writes and checkpoints start and hold everything acknowledged before them', async (t) => {
  const dataDir = tempDataDir('fanion-hot-');
  const srv = await spawnServer({ dataDir, env: { WAL_SYNC: 'always', CHECKPOINT_RECORDS: '25' } });
  t.teardown(() => srv.kill());
  const api = client(srv.url);
  const acked: string[] = [];
  let stop = false;
  let n = 0;
  const writers = Array.from({ length: 4 }, async () => {
    while (!stop) {
      const name = `hot-${++n}`;
      const res = await api('POST', P, { name });
      if (res.status === 201) acked.push(name);
      else throw new Error(`create ${name}: ${res.status}`);
    }
  });
  const copies: { dir: string; before: string[]; how: string }[] = [];
  for (let i = 0; i < 6; i++) {
    await new Promise((r) => setTimeout(r, 100 + random() * 200));
    const dir = tempDataDir('fanion-hot-copy-');
    const before = [...acked];
    if (i % 2 === 0) {
      const res = await fanion('backup', dataDir, dir);
      t.equal(res.code, 0, `fanion backup #${i} reports a startable copy`);
      t.match(res.out, /result: OK/);
      copies.push({ dir, before, how: 'fanion backup' });
    } else {
      const into = path.join(dir, 'data');
      await sh('cp', ['-r', dataDir, into]).catch(() => {
        /* cp complains about files deleted while it ran; what it copied is checked below */
      });
      copies.push({ dir: into, before, how: 'cp -r' });
    }
  }
  stop = true;
  await Promise.all(writers);
  t.ok((srv.output().match(/"checkpoint written"/g) ?? []).length >= 3, 'checkpoints were taken while copying');

  for (const c of copies) {
    const s = await spawnServer({ dataDir: c.dir });
    t.teardown(() => s.kill());
    const present = new Set((await client(s.url)('GET', P)).json.features.map((f: any) => f.name));
    const missing = c.before.filter((name) => !present.has(name));
    t.same(missing, [], `${c.how}: starts, with all ${c.before.length} flags acknowledged before the copy (has ${present.size})`);
    const ev = await client(s.url)('POST', '/api/admin/events/search', { limit: 1 });
    t.equal(ev.json.events[0]?.id ?? 0, ev.json.totalEvents, `${c.how}: event ids are gapless`);
    await s.stop();
  }
});
