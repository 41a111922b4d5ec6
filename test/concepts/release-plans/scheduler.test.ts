// The progression scheduler over a real engine and data folder, with an injected clock: a node
// that does not lead writes nothing; two that both believe they lead (a deposed leader that has
// not noticed yet) and decide the same start write it once; a checkpoint keeps the plan.
import path from 'node:path';
import t from 'tap';
import { addPlan } from '../../../src/concepts/release-plans/logic.js';
import { dueProgressions, runProgression, setProgression } from '../../../src/concepts/release-plans/progressions.js';
import { ProgressionScheduler } from '../../../src/concepts/release-plans/scheduler.js';
import { createFeature, setEnvironmentEnabled } from '../../../src/concepts/features/logic.js';
import { builtinReleaseTemplate } from '../../../src/core/state/defaults.js';
import { createLogger } from '../../../src/core/logger.js';
import { dumpState } from '../../../src/core/state/dump.js';
import { checkpointName, readCheckpoint } from '../../../src/core/log/wal/checkpoint.js';
import { openTestFanion } from '../../helpers/fanion.js';
import { tempDataDir } from '../../helpers/server.js';

t.test('only a leading node writes a due start, and a start decided by two nodes is written once', async (t) => {
  let now = Date.parse('2026-06-01T08:00:00.000Z');
  const clock = () => new Date(now);
  // Its own scheduler looks only once an hour: the ones below are driven by hand.
  const dataDir = tempDataDir('fanion-progressions-');
  const fanion = await openTestFanion(dataDir, {}, { clock, progressionCheckMs: 3_600_000 });
  t.teardown(() => fanion.close());
  const { engine } = fanion;
  const actor = { name: 'test', userId: null };
  const where = { project: 'default', feature: 'f', environment: 'development' };
  await engine.run(actor, createFeature('default', { name: 'f' }));
  await engine.run(actor, setEnvironmentEnabled('default', 'f', 'development', true));
  const plan = await engine.run(actor, addPlan(where, builtinReleaseTemplate('').id));
  const [m1, m2] = plan.milestones.map((m) => m.id);
  await engine.run(actor, setProgression(where, m1, { targetMilestone: m2, transitionCondition: { intervalMinutes: 2 } }));
  const starts = () => [...engine.state.events.oldestFirst()].filter((e) => e.type === 'release-plan-milestone-started').length;
  const active = () => engine.state.releasePlans.get('f\u0000development')!.activeMilestoneId;
  const log = createLogger('silent');
  const scheduler = (leads: boolean) => new ProgressionScheduler(engine, { clock, checkMs: 1_000, leads: () => leads }, log);

  now += 2 * 60_000;
  await scheduler(false).check();
  t.equal(active(), m1, 'a node that does not lead writes nothing');
  t.equal(starts(), 1, 'only the first start is in the log');

  // Another node (a deposed leader that has not noticed yet) decided the same start meanwhile.
  const decidedElsewhere = dueProgressions(engine.state, clock());
  t.equal(decidedElsewhere.length, 1, 'the start is due');
  await scheduler(true).check();
  t.equal(active(), m2, 'a leading node starts milestone 2');
  t.equal(await engine.run(actor, runProgression(decidedElsewhere[0])), false, 'the other node\'s write of the same start changes nothing');
  t.equal(starts(), 2, 'milestone 2 started once');

  // A checkpoint carries the plan and the templates whole.
  const report = await fanion.checkpointer.checkpoint();
  const loaded = readCheckpoint(path.join(dataDir, checkpointName(report!.lsn))).state;
  t.strictSame(structuredClone(dumpState(loaded, { events: false })), structuredClone(dumpState(engine.state, { events: false })), 'a checkpoint reads back the same state');
  t.equal(loaded.releasePlans.get('f\u0000development')!.activeMilestoneId, m2, 'the plan at its milestone');
});
