// The engine on the in-memory log (no disk, no database): a command's change is applied, appended as
// one record and answered once durable; changes are published in LSN order; an append that fails
// rolls back its change and every change applied after it; whenDurable tells readers when what they
// saw can no longer be undone; on a log shared with other writers, an overtaken command runs again
// against the newer state. The faults only a disk has (a failed fdatasync, a cut being made) are in
// engine-faults.test.ts, on the write-ahead log.
import t, { type Test } from 'tap';
import { createFeature, setEnvironmentEnabled } from '../../../src/concepts/features/logic.js';
import { addStrategy } from '../../../src/concepts/strategies/logic.js';
import type { ChangeListener } from '../../../src/core/engine/engine.js';
import { ServiceUnavailableError } from '../../../src/core/errors.js';
import { decodeRecord } from '../../../src/core/log/record.js';
import { MemoryTable } from '../../../src/core/log/memory.js';
import { actor, onMemory, replay, snap } from './on-memory.js';

const where = (feature: string) => ({ project: 'default', feature, environment: 'development' });
const settled = (p: Promise<unknown>) => {
  let done = false;
  p.then(() => (done = true), () => (done = true));
  return () => done;
};
const turn = () => new Promise((r) => setImmediate(r));

async function rejects503(t: Test, p: Promise<unknown>, what: string): Promise<void> {
  const err = await p.then(() => null, (e: unknown) => e);
  t.type(err, ServiceUnavailableError, `${what}: 503`);
}

t.test('a command\'s change is applied, stored as one record at the next LSN, and answered once it is there', async (t) => {
  const { engine, log, table } = await onMemory();
  t.equal(log.nextLsn, 2, 'record 1 holds the defaults');
  const result = await engine.run(actor, createFeature('default', { name: 'alpha' }));
  t.match(result, { name: 'alpha' }, 'the command\'s result is answered');
  t.ok(engine.state.features.has('alpha'), 'applied to the state');
  t.equal(table.last, 2, 'one record');
  const rec = decodeRecord(table.read(1)[0].bytes);
  t.equal(rec.lsn, 2);
  t.ok(rec.ops.some((op) => op.o === 'feature.put'), 'holding the command\'s ops');
  t.equal(rec.events.length, 1, 'and its event');
  t.equal(log.nextLsn, 3);

  const unchanged = await engine.run(actor, () => ({ ops: [], events: [], result: 'nothing' }));
  t.equal(unchanged, 'nothing', 'a command that changes nothing is answered');
  t.equal(table.last, 2, 'without a record');
  t.equal(log.nextLsn, 3, 'or an LSN');
  t.strictSame(snap(replay(table)), snap(engine.state), 'the records replay to the live state');
});

t.test('changes are published in order: applied at once, durable once stored, in LSN order, and answered only then', async (t) => {
  const { engine, table } = await onMemory();
  const heard: string[] = [];
  const listener: ChangeListener = (change, kind) => heard.push(`${kind} ${change.lsn}`);
  engine.onChange(listener);
  const release = table.hold();
  const runs = [
    engine.run(actor, createFeature('default', { name: 'a' })).then(() => heard.push('answered 2')),
    engine.run(actor, addStrategy(where('a'), { name: 'default' })).then(() => heard.push('answered 3')),
    engine.run(actor, setEnvironmentEnabled('default', 'a', 'development', true)).then(() => heard.push('answered 4')),
  ];
  const done = runs.map(settled);
  const durable = engine.whenDurable();
  const durableDone = settled(durable);
  for (let i = 0; i < 5; i++) await turn();
  t.same(heard, ['applied 2', 'applied 3', 'applied 4'], 'listeners hear each change as it is applied');
  t.ok(engine.state.featureEnvs.get('a')?.get('development')?.enabled, 'readers see the state with all three');
  t.notOk(done.some((d) => d()) || durableDone(), 'no command is answered, and whenDurable waits, while the records are not stored');
  release();
  await Promise.all(runs);
  t.equal(await durable, true, 'whenDurable: every change it waited for is durable');
  t.same(heard.slice(3).filter((h) => h.startsWith('durable')), ['durable 2', 'durable 3', 'durable 4'], 'durable in LSN order');
  for (const lsn of [2, 3, 4]) {
    t.ok(heard.indexOf(`durable ${lsn}`) < heard.indexOf(`answered ${lsn}`), `change ${lsn} is published durable before it is answered`);
  }
  t.ok(table.writes < 4, `the three records went in fewer writes (${table.writes} with the defaults)`);
});

t.test('a refused append rolls back its change and every one applied after it: 503, the state and LSNs as before, listeners told; the log stays gapless', async (t) => {
  const { engine, log, table } = await onMemory();
  await engine.run(actor, createFeature('default', { name: 'base' }));
  const before = snap(engine.state);
  const lsnBefore = log.nextLsn;
  const lastEvent = engine.state.events.lastId;
  const rolledBack: number[] = [];
  engine.onChange((change, kind) => kind === 'rolled-back' && rolledBack.push(change.lsn));

  table.fail(new Error('ENOSPC'));
  const a = engine.run(actor, createFeature('default', { name: 'doomed' }));
  const b = engine.run(actor, addStrategy(where('doomed'), { name: 'default' }));
  const c = engine.run(actor, setEnvironmentEnabled('default', 'doomed', 'development', true));
  const durable = engine.whenDurable();
  t.ok(engine.state.features.has('doomed'), 'applied in memory while the append is on its way');
  await rejects503(t, a, 'the refused change');
  await rejects503(t, b, 'a change applied after it');
  await rejects503(t, c, 'another one');
  t.equal(await durable, false, 'whenDurable says what a reader saw was undone');
  t.strictSame(snap(engine.state), before, 'the state, events included, is exactly as before');
  t.equal(log.nextLsn, lsnBefore, 'the LSNs are given back');
  t.same(rolledBack, [lsnBefore], 'listeners are told once, of the oldest change undone');
  await rejects503(t, engine.run(actor, createFeature('default', { name: 'still' })), 'a change while the log refuses');
  t.strictSame(snap(engine.state), before);

  table.heal();
  await engine.run(actor, createFeature('default', { name: 'after' }));
  t.equal(log.nextLsn, lsnBefore + 1, 'the next change takes the next LSN');
  t.equal(engine.state.events.lastId, lastEvent + 1, 'and the next event id');
  t.same(table.read(0).map((r) => r.lsn), [1, 2, 3], 'nothing of the refused changes is stored');
  t.strictSame(snap(replay(table)), snap(engine.state), 'the records replay to the live state');
});

t.test('whenDurable waits for the changes applied before it, not for those after', async (t) => {
  const { engine, table } = await onMemory();
  t.equal(await engine.whenDurable(), true, 'nothing in flight: at once');
  let release = table.hold();
  const a = engine.run(actor, createFeature('default', { name: 'a' }));
  await turn();
  const forA = engine.whenDurable();
  const b = engine.run(actor, createFeature('default', { name: 'b' }));
  b.catch(() => {});
  release();
  await a;
  // b's write has not reached the table yet: held now, and then refused.
  release = table.hold();
  t.equal(await forA, true, 'the change seen before is durable: true, though b is still in flight');
  const forB = engine.whenDurable();
  const forBDone = settled(forB);
  await turn();
  t.notOk(forBDone(), 'a reader that saw b waits for it');
  table.fail(new Error('EIO'));
  release();
  await rejects503(t, b, 'b');
  t.equal(await forB, false, 'and is told it was undone');
  t.notOk(engine.state.features.has('b'));
});

t.test('a non-durable change (metrics bookkeeping) is answered before it is stored, and undone if the append fails', async (t) => {
  const { engine, log, table } = await onMemory();
  await engine.run(actor, createFeature('default', { name: 'base' }));
  const before = snap(engine.state);
  const lsnBefore = log.nextLsn;
  table.fail(new Error('EIO'));
  await engine.run(actor, createFeature('default', { name: 'quick' }), { durable: false });
  t.ok(engine.state.features.has('quick'), 'applied and answered before the append finished');
  await rejects503(t, engine.run(actor, createFeature('default', { name: 'behind' })), 'a durable change queued behind it');
  await log.idle();
  t.strictSame(snap(engine.state), before, 'both are undone once the append fails');
  t.equal(log.nextLsn, lsnBefore, 'their LSNs are given back');
  table.heal();
  await engine.run(actor, createFeature('default', { name: 'after' }));
  t.strictSame(snap(replay(table)), snap(engine.state), 'the records replay to the live state');
});

t.test('a change whose op cannot apply (a command bug) leaves no trace: state, LSN and event ids as before', async (t) => {
  const { engine, log, table } = await onMemory();
  await engine.run(actor, createFeature('default', { name: 'a' }));
  await engine.run(actor, createFeature('default', { name: 'b' }));
  await engine.run(actor, addStrategy(where('a'), { name: 'default' }));
  const before = snap(engine.state);
  const lsnBefore = log.nextLsn;
  const [id] = engine.state.strategiesByFeatureEnv.get('a\u0000development')!;
  const moved = { ...engine.state.strategies.get(id)!, featureName: 'b' };
  // The first ops apply, the last throws (a strategy cannot move to another flag).
  const buggy = () => ({
    ops: [
      { o: 'project.put' as const, project: { ...engine.state.projects.get('default')!, description: 'changed' } },
      { o: 'featureEnv.put' as const, feature: 'a', env: { ...engine.state.featureEnvs.get('a')!.get('development')!, enabled: true } },
      { o: 'strategy.put' as const, strategy: moved },
    ],
    events: [{ type: 'feature-strategy-update', project: 'default', featureName: 'b', environment: 'development', data: null }],
    result: null,
  });
  await t.rejects(engine.run(actor, buggy), /cannot move/);
  t.strictSame(snap(engine.state), before, 'the ops that did apply were taken back');
  t.equal(log.nextLsn, lsnBefore, 'the LSN was given back');
  t.equal(table.last, lsnBefore - 1, 'nothing was stored');
  await engine.run(actor, createFeature('default', { name: 'after' }));
  t.strictSame(snap(replay(table)), snap(engine.state), 'the records replay to the live state');
});

t.test('on a log shared with another writer, an overtaken command catches up and runs again against the newer state', async (t) => {
  const table = new MemoryTable();
  const one = await onMemory({ table, follow: true, name: 'one' });
  const two = await onMemory({ table, follow: true, name: 'two' });
  await one.engine.run(actor, createFeature('default', { name: 'first' }));
  t.notOk(two.engine.state.features.has('first'), 'the second writer has not followed yet');

  const result = await two.engine.run(actor, createFeature('default', { name: 'second' }));
  t.match(result, { name: 'second' }, 'the overtaken command is answered');
  t.ok(two.engine.state.features.has('first') && two.engine.state.features.has('second'), 'after catching up with the other writer\'s record');
  t.same(table.read(0).map((r) => decodeRecord(r.bytes).ops.find((op) => op.o === 'feature.put')?.feature.name), [undefined, 'first', 'second'], 'one record per place');
  t.strictSame(snap(replay(table)), snap(two.engine.state), 'its state is the log\'s');

  // The same name on both, by two people (a record with the very same bytes at the same place would
  // be taken for this writer's own, committed after all): the second to store it must refuse.
  await one.engine.run(actor, createFeature('default', { name: 'both' }));
  const err = await two.engine.run({ name: 'someone else', userId: null }, createFeature('default', { name: 'both' })).then(() => null, (e: unknown) => e as Error);
  t.equal(err?.name, 'NameExistsError', 'run again on the newer state, the command refuses what the other writer made first');
  t.strictSame(snap(replay(table)), snap(two.engine.state), 'and nothing of it is stored or applied');
});
