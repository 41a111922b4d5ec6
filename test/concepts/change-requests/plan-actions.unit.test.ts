// What the release-plan actions of a change request are made against (pure): a plan that moved on
// or went away is a conflict, a safeguard that merely fired is not (firing is no edit), and the
// changes of one milestone's progression fill one slot of a draft.
import t from 'tap';
import { baseOf, conflictOf, slotOf } from '../../../src/concepts/change-requests/actions.js';
import { applyOp } from '../../../src/core/state/ops.js';
import { fixtureState, releasePlan, safeguard } from '../../core/state/fixture.js';

const where = { project: 'default', environment: 'development' };
const planned = () => {
  const s = fixtureState();
  applyOp(s, { o: 'releasePlan.put', plan: releasePlan('p1', 'alpha', 'development', { activeMilestoneId: 'p1-m1' }) });
  applyOp(s, { o: 'safeguard.put', safeguard: safeguard('g1', 'alpha', 'development', { action: { type: 'pauseReleasePlanProgressions', id: 'p1' } }) });
  return s;
};
const change = (s: ReturnType<typeof planned>, action: string, payload: unknown) => ({ action, payload, base: baseOf(s, where, 'alpha', action, payload) });

t.test('startMilestone conflicts once the active milestone moved, or the plan went', async (t) => {
  const s = planned();
  const start = change(s, 'startMilestone', { planId: 'p1', milestoneId: 'p1-m2' });
  t.equal(conflictOf(s, where, 'alpha', start), null, 'made against the state as it is');
  applyOp(s, { o: 'releasePlan.put', plan: releasePlan('p1', 'alpha', 'development', { activeMilestoneId: 'p1-m2' }) });
  t.match(conflictOf(s, where, 'alpha', start), /active milestone this change was made against has been changed since/);
  applyOp(s, { o: 'releasePlan.del', feature: 'alpha', environment: 'development' });
  t.match(conflictOf(s, where, 'alpha', start), /has been deleted since/);
  applyOp(s, { o: 'releasePlan.put', plan: releasePlan('p2', 'alpha', 'development', { activeMilestoneId: 'p2-m1' }) });
  t.match(conflictOf(s, where, 'alpha', start), /has been deleted since/, 'another plan applied in its place is not the plan it named');
});

t.test("a progression change conflicts once that milestone's progression changed", async (t) => {
  const s = planned();
  const set = change(s, 'changeMilestoneProgression', { sourceMilestone: 'p1-m1', targetMilestone: 'p1-m2', transitionCondition: { intervalMinutes: 5 } });
  applyOp(s, { o: 'releasePlan.put', plan: releasePlan('p1', 'alpha', 'development', { activeMilestoneId: 'p1-m2' }) });
  t.equal(conflictOf(s, where, 'alpha', set), null, 'the active milestone moving is not its business');
  const plan = releasePlan('p1', 'alpha', 'development');
  plan.milestones[0] = { ...plan.milestones[0], transitionCondition: { intervalMinutes: 9 }, progressionTarget: 'p1-m2' };
  applyOp(s, { o: 'releasePlan.put', plan });
  t.match(conflictOf(s, where, 'alpha', set), /milestone's progression this change was made against has been changed since/);
});

t.test('a safeguard change conflicts when the safeguard was edited or removed, not when it fired', async (t) => {
  const s = planned();
  const replace = change(s, 'changeSafeguard', { planId: 'p1', safeguard: { id: 'g1', impactMetric: { metricName: 'errors', timeRange: 'hour', aggregationMode: 'count' }, triggerCondition: { operator: '>', threshold: 9 } } });
  const remove = change(s, 'deleteSafeguard', { planId: 'p1', safeguardId: 'g1' });
  const fired = safeguard('g1', 'alpha', 'development', { action: { type: 'pauseReleasePlanProgressions', id: 'p1' }, triggeredAt: '2026-11-28T12:00:00.000Z' });
  applyOp(s, { o: 'safeguard.put', safeguard: fired });
  t.equal(conflictOf(s, where, 'alpha', replace), null, 'fired: no conflict');
  t.equal(conflictOf(s, where, 'alpha', remove), null);
  applyOp(s, { o: 'safeguard.put', safeguard: { ...fired, triggerCondition: { operator: '<', threshold: 1 } } });
  t.match(conflictOf(s, where, 'alpha', replace), /safeguard this change was made against has been changed since/, 'edited: a conflict');
  applyOp(s, { o: 'safeguard.del', id: 'g1' });
  t.match(conflictOf(s, where, 'alpha', remove), /has been deleted since/, 'removed: a conflict');
});

t.test("setting and removing one milestone's progression fill one slot; new safeguards add up", async (t) => {
  t.equal(slotOf('alpha', 'changeMilestoneProgression', { sourceMilestone: 'm1' }), slotOf('alpha', 'deleteMilestoneProgression', { sourceMilestone: 'm1' }));
  t.not(slotOf('alpha', 'deleteMilestoneProgression', { sourceMilestone: 'm1' }), slotOf('alpha', 'deleteMilestoneProgression', { sourceMilestone: 'm2' }));
  t.equal(slotOf('alpha', 'changeSafeguard', { planId: 'p1', safeguard: {} }), null);
  t.equal(slotOf('alpha', 'changeSafeguard', { planId: 'p1', safeguard: { id: 'g1' } }), slotOf('alpha', 'deleteSafeguard', { planId: 'p1', safeguardId: 'g1' }));
});
