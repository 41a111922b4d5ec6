// The progression scheduler over a real engine and data folder, with an injected clock: a node
// that does not lead writes nothing; two that both believe they lead (a deposed leader that has
// not noticed yet) and decide the same start write it once.
import t from 'tap';
import { addPlan } from '../../../src/concepts/release-plans/logic.js';
import { dueProgressions, runProgression, setProgression } from '../../../src/concepts/release-plans/progressions.js';
import { ProgressionScheduler } from '../../../src/concepts/release-plans/scheduler.js';
import { createFeature, setEnvironmentEnabled } from '../../../src/concepts/features/logic.js';
import { builtinReleaseTemplate } from '../../../src/core/state/defaults.js';
import { createLogger } from '../../../src/core/logger.js';
import { openTestFanion } from '../../helpers/fanion.js';
import { tempDataDir } from '../../helpers/server.js';

t.test('only a leading node writes a due start, and a start decided by two nodes is written once', async (t) => {
  let now = Date.parse('2026-06-01T08:00:00.000Z');
  const clock = () => new Date(now);
  // Its own scheduler looks only once an hour: the ones below are driven by hand.
  const fanion = await openTestFanion(tempDataDir('fanion-progressions-'), {}, { clock, progressionCheckMs: 3_600_000 });
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
});
