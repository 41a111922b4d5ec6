// Disk faults end to end, over HTTP on an in-process server whose file layer fails on demand
// (FaultyFiles): a failed WAL write or fdatasync answers 503 with Unleash's error body, changes
// nothing that can be read, and the server recovers by itself when the disk does; a failed
// checkpoint does not disturb requests at all and is retried; a restart agrees with what was
// answered.
import fs from 'node:fs';
import t from 'tap';
import { loadConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { startServer } from '../../src/entry/embedded.js';
import type { RunningServer } from '../../src/entry/server.js';
import type { Checkpointer } from '../../src/core/storage/checkpointer.js';
import { listCheckpoints } from '../../src/core/log/wal/checkpoint.js';
import { FaultyFiles, type FaultStep } from '../../src/core/log/wal/file-layer.js';
import { client, tempDataDir } from '../helpers/server.js';

const P = '/api/admin/projects/default/features';

async function start(dataDir: string, files?: FaultyFiles, env: Record<string, string> = {}): Promise<{ running: RunningServer; api: ReturnType<typeof client> }> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WAL_SYNC: 'always', AUTH_TYPE: 'none', ...env });
  const running = await startServer({ config, log: createLogger('silent'), files });
  return { running, api: client(`http://127.0.0.1:${running.port}`) };
}

async function snapshotOf(api: ReturnType<typeof client>) {
  const flags = await api('GET', P);
  const x = await api('GET', `${P}/x`);
  const events = await api('POST', '/api/admin/events/search', { limit: 100 });
  return { flags: flags.json, x: x.json, events: events.json };
}

const faults: [FaultStep, 'ENOSPC' | 'EIO'][] = [['write', 'ENOSPC'], ['write', 'EIO'], ['fdatasync', 'EIO'], ['fdatasync', 'ENOSPC']];
for (const [step, code] of faults) {
  t.test(`${code} in ${step}: 503, nothing changed, reads go on, writes work again once the disk heals`, async (t) => {
    const dataDir = tempDataDir('fanion-fault-');
    const files = new FaultyFiles();
    const { running, api } = await start(dataDir, files);
    t.teardown(() => running.close());
    t.equal((await api('POST', P, { name: 'x' })).status, 201);
    t.equal((await api('POST', `${P}/x/environments/development/strategies`, { name: 'default' })).status, 200);
    const before = await snapshotOf(api);

    files.fail(step, code);
    const attempts = await Promise.all([
      api('POST', P, { name: 'y' }),
      api('POST', `${P}/x/environments/development/on`),
      api('PATCH', `${P}/x`, [{ op: 'replace', path: '/description', value: 'changed' }]),
      api('POST', `${P}/x/environments/production/strategies`, { name: 'default' }),
    ]);
    for (const res of attempts) {
      t.equal(res.status, 503);
      t.equal(res.json.name, 'ServiceUnavailableError');
      t.type(res.json.id, 'string');
      t.match(res.json.message, code);
    }
    t.strictSame(await snapshotOf(api), before, 'reads answer, and show nothing of the failed changes');

    files.heal();
    t.equal((await api('POST', P, { name: 'y' })).status, 201, 'the same request works once the disk is back');
    t.equal((await api('POST', `${P}/x/environments/development/on`)).status, 200);
    const after = await snapshotOf(api);
    t.same(after.events.events.map((e: any) => e.id), Array.from({ length: after.events.totalEvents }, (_, i) => after.events.totalEvents - i), 'event ids go on without a gap');
    await running.close();

    const again = await start(dataDir);
    t.strictSame(await snapshotOf(again.api), after, 'a restart shows exactly what was answered');
    await again.running.close();
  });
}

for (const step of ['fsync', 'rename', 'syncDir', 'open'] as FaultStep[]) {
  t.test(`a checkpoint failing in ${step} fails no request, leaves no file behind, and is retried once the disk heals`, async (t) => {
    const dataDir = tempDataDir('fanion-fault-');
    const files = new FaultyFiles();
    const { running, api } = await start(dataDir, files, { CHECKPOINT_RECORDS: '5' });
    t.teardown(() => running.close());
    // Only the checkpoint uses fsync and rename; syncDir and open are also used when the WAL
    // rolls, which is part of the checkpoint, never of a request.
    (running.checkpointer as Checkpointer).retryMs = 0; // retry at the next durable record instead of 5 s later
    files.fail(step, 'EIO');
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await api('POST', P, { name: `f${i}` })).status);
    t.ok(statuses.every((s) => s === 201), 'every request succeeded');
    await running.checkpointer.idle();
    t.same(listCheckpoints(dataDir), [], 'no checkpoint was written');
    t.ok(running.checkpointer.failed >= 2, `it was tried and retried (${running.checkpointer.failed} failures)`);
    t.notOk(fs.readdirSync(dataDir).some((n) => n.endsWith('.tmp')), 'and no temporary file is left');
    files.heal();
    // A checkpoint is due once the live WAL segment holds CHECKPOINT_RECORDS records, and every
    // attempt, failed or not, starts by rolling the segment: how many of the 12 records are in
    // the live segment now depends on when the last attempt rolled it (two more, as before, were
    // not always enough: it failed once in CI). Five more make one due whatever that number is,
    // and cannot make two (the one taken rolls the segment again).
    for (let i = 12; i < 17; i++) t.equal((await api('POST', P, { name: `f${i}` })).status, 201);
    await running.checkpointer.idle();
    t.equal(listCheckpoints(dataDir).length, 1, 'the retry wrote one');
    const flags = (await api('GET', P)).json;
    await running.close();
    const again = await start(dataDir);
    t.strictSame((await again.api('GET', P)).json, flags);
    await again.running.close();
  });
}

t.test('a roll that fails after creating its new segment file (and cannot remove it) does not stop a restart', async (t) => {
  const dataDir = tempDataDir('fanion-fault-');
  const files = new FaultyFiles();
  const { running, api } = await start(dataDir, files, { CHECKPOINT_RECORDS: '5' });
  t.teardown(() => running.close());
  files.fail('syncDir', 'EIO');
  files.fail('unlink', 'EIO');
  for (let i = 0; i < 12; i++) t.equal((await api('POST', P, { name: `f${i}` })).status, 201);
  await running.checkpointer.idle();
  t.ok(fs.readdirSync(dataDir).filter((n) => n.startsWith('wal-')).length > 1, 'an empty segment file was left behind');
  const flags = (await api('GET', P)).json;
  files.heal();
  await running.close();
  const again = await start(dataDir);
  t.strictSame((await again.api('GET', P)).json, flags, 'the restart has every flag');
  t.equal((await again.api('POST', P, { name: 'after' })).status, 201);
  await again.running.close();
  const third = await start(dataDir);
  t.equal((await third.api('GET', `${P}/after`)).status, 200, 'and writes after it survive the next restart');
  await third.running.close();
});
