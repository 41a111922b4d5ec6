// The engine over a WAL whose disk fails (FaultyFiles): a failed append answers 503
// (ServiceUnavailableError), leaves the state exactly as before, takes every change queued
// behind it down too, and once the fault is healed LSNs and event ids go on without gaps;
// the log on disk then replays to the same state. What the engine does whichever log it has (a
// non-durable change, a command bug, publication order) is in engine.unit.test.ts, on the in-memory log.
import fs from 'node:fs';
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { Engine } from '../../../src/core/engine/engine.js';
import { ServiceUnavailableError } from '../../../src/core/errors.js';
import { createFeature, setEnvironmentEnabled } from '../../../src/concepts/features/logic.js';
import { dumpState } from '../../../src/core/state/dump.js';
import type { Storage } from '../../../src/core/storage/storage.js';
import { openTestFanion } from '../../helpers/fanion.js';
import { addStrategy } from '../../../src/concepts/strategies/logic.js';
import { FaultyFiles, realFiles, type FileLayer } from '../../../src/core/log/wal/file-layer.js';
import { tempDataDir } from '../../helpers/server.js';

const log = pino({ level: 'silent' });
const actor = { name: 'tester', userId: null };

/**
 * FaultyFiles plus a gate on fdatasync: while the gate is closed, the first batch stays in
 * flight, so later appends queue behind it and the test decides what happens to each batch.
 */
class GatedFiles extends FaultyFiles {
  private gate: Promise<void> | null = null;
  private open_: (() => void) | null = null;
  syncs = 0;
  constructor(inner: FileLayer = realFiles) {
    super(inner);
  }
  closeGate(): void {
    this.gate = new Promise((r) => (this.open_ = r));
  }
  openGate(): void {
    this.open_?.();
    this.gate = null;
  }
  override async fdatasync(fd: number): Promise<void> {
    this.syncs++;
    if (this.gate) await this.gate;
    return super.fdatasync(fd);
  }
}

/** Through the composition root, with fsync on, over `files`, with a clock and ids of its own. */
async function open(dataDir: string, files: FileLayer): Promise<{ storage: Storage; engine: Engine }> {
  let n = 0;
  let ms = Date.parse('2026-01-01T00:00:00Z');
  const { storage, engine } = await openTestFanion(dataDir, { WAL_SYNC: 'always' }, {
    log, files, clock: () => new Date((ms += 1000)), newId: () => `id-${dataDir.length}-${++n}`,
  });
  return { storage, engine };
}

async function close(storage: Storage): Promise<void> {
  await storage.wal.close();
  storage.release();
}

/** A fresh data folder, removed when the test ends. */
function tempDir(t: Test): string {
  const dir = tempDataDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const snap = (e: Engine) => structuredClone(dumpState(e.state));
const where = (feature: string) => ({ project: 'default', feature, environment: 'development' });

async function rejects503(t: Test, p: Promise<unknown>, what: string): Promise<void> {
  try {
    await p;
    t.fail(`${what}: expected a 503`);
  } catch (err) {
    t.type(err, ServiceUnavailableError, `${what}: ServiceUnavailableError`);
    t.equal((err as ServiceUnavailableError).status, 503, `${what}: status 503`);
  }
}

for (const step of ['fdatasync', 'write'] as const) {
  t.test(`when ${step} fails: 503, state unchanged, queued changes rolled back, ids continue after healing, replay agrees`, async (t) => {
    const dataDir = tempDir(t);
    const files = new GatedFiles();
    const { storage, engine } = await open(dataDir, files);
    await engine.run(actor, createFeature('default', { name: 'base' }));
    await engine.run(actor, addStrategy(where('base'), { name: 'default' }));
    const before = snap(engine);
    const lsnBefore = storage.wal.nextLsn;
    const eventIdBefore = engine.state.events.lastId;

    files.fail(step, step === 'write' ? 'ENOSPC' : 'EIO');
    // Three concurrent changes, each built on the one before it (the strategy needs the flag).
    const a = engine.run(actor, createFeature('default', { name: 'doomed' }));
    const b = engine.run(actor, addStrategy(where('doomed'), { name: 'flexibleRollout' }));
    const c = engine.run(actor, setEnvironmentEnabled('default', 'doomed', 'development', true));
    t.ok(engine.state.features.has('doomed'), 'changes are applied in memory while the write is in flight');
    await rejects503(t, a, 'the failing change');
    await rejects503(t, b, 'a change queued behind it');
    await rejects503(t, c, 'another change queued behind it');
    t.strictSame(snap(engine), before, 'the state (events included) is exactly as before');
    t.equal(storage.wal.nextLsn, lsnBefore, 'the LSNs of the failed records are given back');

    // Reads keep working from the restored state while the disk is still broken.
    t.notOk(engine.state.features.has('doomed'));
    await rejects503(t, engine.run(actor, createFeature('default', { name: 'still-broken' })), 'a change while the fault lasts');
    t.strictSame(snap(engine), before);

    files.heal();
    await engine.run(actor, createFeature('default', { name: 'after' }));
    t.equal(storage.wal.nextLsn, lsnBefore + 1, 'the next record takes the next LSN');
    const ev = [...engine.state.events.oldestFirst()];
    t.same(ev.map((e) => e.id), ev.map((_, i) => i + 1), 'event ids are 1..n without gaps');
    t.equal(engine.state.events.lastId, eventIdBefore + 1, 'the new event takes the next id');
    t.equal(ev[ev.length - 1].featureName, 'after');

    const live = snap(engine);
    await close(storage);
    const again = await open(dataDir, realFiles);
    t.strictSame(snap(again.engine), live, 'the log replays to the same state, events included');
    await close(again.storage);
  });
}

t.test('a failure in a later group-commit batch keeps the acknowledged batch and rolls back only what followed', async (t) => {
  const dataDir = tempDir(t);
  const files = new GatedFiles();
  const { storage, engine } = await open(dataDir, files);
  await engine.run(actor, createFeature('default', { name: 'base' }));

  files.closeGate();
  const a = engine.run(actor, createFeature('default', { name: 'kept' }));
  // Let `a` reach its fdatasync, so b and c queue behind it as the next batch.
  while (files.syncs === 0) await new Promise((r) => setImmediate(r));
  const b = engine.run(actor, addStrategy(where('kept'), { name: 'default' }));
  const c = engine.run(actor, createFeature('default', { name: 'lost' }));
  files.fail('write', 'ENOSPC');
  files.openGate();
  await a;
  t.pass('the batch already written and synced is acknowledged');
  await rejects503(t, b, 'the first change of the failing batch');
  await rejects503(t, c, 'the second change of the failing batch');
  t.ok(engine.state.features.has('kept'));
  t.notOk(engine.state.features.has('lost'));
  t.equal(engine.state.strategies.size, 0, 'the strategy of the failed batch is rolled back');
  const events = [...engine.state.events.oldestFirst()];
  t.same(events.map((e) => e.featureName), ['base', 'kept']);

  files.heal();
  await Promise.all([
    engine.run(actor, createFeature('default', { name: 'x1' })),
    engine.run(actor, createFeature('default', { name: 'x2' })),
  ]);
  t.same([...engine.state.events.oldestFirst()].map((e) => e.id), [1, 2, 3, 4]);
  const live = snap(engine);
  await close(storage);
  const again = await open(dataDir, realFiles);
  t.strictSame(snap(again.engine), live, 'replay reaches the same state');
  await close(again.storage);
});

/** FaultyFiles whose ftruncate waits for the test: holds the WAL inside its failure handling. */
class SlowTruncate extends FaultyFiles {
  private release: (() => void) | null = null;
  private held: Promise<void> | null = null;
  entered = false;
  hold(): void {
    this.held = new Promise((r) => (this.release = r));
  }
  let(): void {
    this.release?.();
    this.held = null;
  }
  override async ftruncate(fd: number, len: number): Promise<void> {
    this.entered = true;
    if (this.held) await this.held;
    return super.ftruncate(fd, len);
  }
}

t.test('changes made while a failed write is still being cut off are refused or kept, never acknowledged and lost', async (t) => {
  const dataDir = tempDir(t);
  const files = new SlowTruncate();
  const { storage, engine } = await open(dataDir, files);
  await engine.run(actor, createFeature('default', { name: 'base' }));
  const before = snap(engine);

  files.fail('write', 'EIO');
  files.hold();
  const a = engine.run(actor, createFeature('default', { name: 'doomed' }));
  const aDone = a.then(() => 'ok', (e) => e);
  while (!files.entered) await new Promise((r) => setImmediate(r));
  // The WAL is now cutting the failed batch off. Two more changes arrive meanwhile.
  const e = engine.run(actor, createFeature('default', { name: 'early' })).then(() => 'ok', (err) => err);
  await new Promise((r) => setImmediate(r));
  files.heal();
  const f = engine.run(actor, createFeature('default', { name: 'late' })).then(() => 'ok', (err) => err);
  await new Promise((r) => setImmediate(r));
  files.let();
  const [ra, re, rf] = await Promise.all([aDone, e, f]);
  t.type(ra, ServiceUnavailableError, 'the failed change is a 503');
  t.type(re, ServiceUnavailableError, 'a change built on top of it is a 503');
  for (const [name, r] of [['early', re], ['late', rf]] as const) {
    if (r === 'ok') t.ok(engine.state.features.has(name), `${name}: acknowledged, so it is in the state`);
    else t.notOk(engine.state.features.has(name), `${name}: refused, so it is not in the state`);
  }
  t.notOk(engine.state.features.has('doomed'), 'the failed change is not in the state');
  const live = snap(engine);
  if (rf !== 'ok') t.strictSame(live, before, 'nothing changed');
  await engine.run(actor, createFeature('default', { name: 'next' }));
  const ids = [...engine.state.events.oldestFirst()].map((x) => x.id);
  t.same(ids, ids.map((_, i) => i + 1), 'event ids stay gapless');
  const final = snap(engine);
  await close(storage);
  const again = await open(dataDir, realFiles);
  t.strictSame(snap(again.engine), final, 'the log replays to the live state');
  await close(again.storage);
});
