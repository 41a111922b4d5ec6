// Engine.runInSlices (issue #26 item 7): a large command pauses between slices, yet it is as atomic
// as `run`: no other write lands between the state it read and its apply, readers are told to wait
// while it is half-applied (`applying`), it is one WAL record, and a refusal changes nothing.
import t from 'tap';
import { createFeature } from '../../../src/concepts/features/logic.js';
import { ValidationError } from '../../../src/core/errors.js';
import type { Op } from '../../../src/core/state/ops.js';
import { actor, onMemory } from './on-memory.js';

t.test('a sliced command: writes wait for it, readers wait for its apply, one record', async (t) => {
  const { engine } = await onMemory();
  const recordsBefore = engine.log.stats.records;
  let sawOther: boolean | null = null;
  let appliedSeen = 0;
  let pauses = 0;
  // 60,000 flags, pausing every 500: long enough for other requests to come in between, and an
  // apply of several slices (each takes 8 ms at most).
  const big = engine.runInSlices(actor, async (state, env, slicer) => {
    const ops: Op[] = [];
    for (let i = 0; i < 60_000; i++) {
      ops.push({ o: 'feature.put', feature: { name: `bulk-${i}`, project: 'default', type: 'release', description: null, impressionData: false, stale: false, archived: false, archivedAt: null, createdAt: env.now, lastSeenAt: null, dependencies: [] } });
      if (i % 500 === 0) {
        pauses++;
        await slicer.pause();
      }
    }
    sawOther = state.features.has('meanwhile');
    return { ops, events: [{ type: 'bulk' }], result: ops.length };
  });
  // A write sent while the command runs: it must land after it, not under it.
  await new Promise((resolve) => setImmediate(resolve));
  const other = engine.run(actor, createFeature('default', { name: 'meanwhile' })).then(() => {
    t.ok(engine.state.features.has('bulk-59999'), 'the other write landed after the whole import');
  });
  // Readers: while the change is half-applied, `applying` is set; every time it is, the state holds all or nothing of it once it resolves.
  const probe = (async () => {
    while (engine.state.features.size === 0 || !engine.state.features.has('bulk-59999')) {
      const applying = engine.applying;
      if (applying) {
        appliedSeen++;
        await applying;
        t.ok(engine.state.features.has('bulk-0') && engine.state.features.has('bulk-59999'), 'once applying resolves, all of it is there');
        return;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  t.equal(await big, 60_000);
  await other;
  await probe;
  t.ok(pauses > 100, 'the command paused between slices');
  t.equal(sawOther, false, 'the command never saw the write sent while it ran');
  t.ok(appliedSeen > 0, 'readers were told to wait while it was half-applied');
  t.equal(engine.applying, null, 'and no longer');
  t.equal(engine.log.stats.records - recordsBefore, 2, 'one record for the import, one for the other write');
});

t.test('a sliced command that refuses changes nothing, and writes go on after it', async (t) => {
  const { engine } = await onMemory();
  const flags = engine.state.features.size;
  const lsn = engine.log.nextLsn;
  await t.rejects(engine.runInSlices(actor, async (_state, _env, slicer) => {
    await slicer.pause();
    throw new ValidationError('refused');
  }), ValidationError);
  t.equal(engine.state.features.size, flags);
  t.equal(engine.log.nextLsn, lsn, 'no LSN taken');
  await engine.run(actor, createFeature('default', { name: 'after' }));
  t.ok(engine.state.features.has('after'), 'the next write goes through');
});
