// Release plan commands and the progression decision as pure functions: the state is deep-frozen
// (a command that mutates it throws), failures throw before anything is built, and what SDKs are
// served follows the plan's active milestone.
import t from 'tap';
import {
  addPlan, createMilestoneStrategy, createTemplateMilestone, deleteMilestoneStrategy, deleteTemplateMilestone, onEnvironmentSwitch, startMilestone, updateMilestoneStrategy,
  updateTemplateMilestone,
} from '../../../src/concepts/release-plans/logic.js';
import { dueProgressions, runProgression, setProgression } from '../../../src/concepts/release-plans/progressions.js';
import { setEnvironmentEnabled } from '../../../src/concepts/features/logic.js';
import { deleteStrategy } from '../../../src/concepts/strategies/logic.js';
import { builtinReleaseTemplate } from '../../../src/core/state/defaults.js';
import { servedStrategiesOf, strategiesOf } from '../../../src/core/state/state.js';
import { copiesOf } from '../../core/state/fixture.js';
import { runFailing, runPure } from '../../core/engine/pure.js';

const BUILTIN = builtinReleaseTemplate('x').id;
const alphaDev = { project: 'default', feature: 'alpha', environment: 'development' };

t.test('applying a plan on an environment that is on starts its first milestone, served before the flag\'s own strategies', async (t) => {
  const { change, after } = runPure(t, addPlan(alphaDev, BUILTIN));
  const result = change.result;
  t.same(change.events.map((e) => e.type), ['release-plan-added', 'release-plan-milestone-started']);
  t.equal(result.activeMilestoneId, result.milestones[0].id);
  const served = servedStrategiesOf(after, 'alpha', 'development');
  t.same(served.map((s) => s.parameters.rollout ?? s.id), ['25', 's1', 's2', 's3'], 'the milestone first, then the flag\'s own');
  t.same(served[0].parameters.groupId, 'alpha', '{{featureName}} replaced');
  t.same(strategiesOf(after, 'alpha', 'development').map((s) => s.id), ['s1', 's2', 's3'], 'the flag\'s own list is unchanged');
  runFailing(t, addPlan(alphaDev, BUILTIN), 'ValidationError', copiesOf(after));
  runFailing(t, addPlan(alphaDev, 'nope'), 'ValidationError');
  runFailing(t, addPlan({ ...alphaDev, feature: 'gone' }, BUILTIN), 'NotFoundError');
});

t.test('on an environment that is off, a plan waits; switching it on starts it and adds no 100 % default beside it', async (t) => {
  const beta = { project: 'default', feature: 'beta', environment: 'development' };
  const applied = runPure(t, addPlan(beta, BUILTIN));
  t.equal(applied.change.result.activeMilestoneId, null, 'nothing started');
  t.same(servedStrategiesOf(applied.after, 'beta', 'development'), [], 'nothing served from it');
  const on = runPure(t, setEnvironmentEnabled('default', 'beta', 'development', true), copiesOf(applied.after));
  t.same(on.change.events.map((e) => e.type), ['feature-environment-enabled', 'release-plan-milestone-started'], 'no feature-strategy-add');
  t.same(servedStrategiesOf(on.after, 'beta', 'development').map((s) => s.parameters.rollout), ['25']);
});

t.test('starting a milestone, forward or back; again is a no-op; an unknown one is a 404', async (t) => {
  const { change, after } = runPure(t, addPlan(alphaDev, BUILTIN));
  const result = change.result;
  const third = runPure(t, startMilestone(alphaDev, result.id, result.milestones[2].id), copiesOf(after));
  t.equal(servedStrategiesOf(third.after, 'alpha', 'development')[0].parameters.rollout, '75');
  const back = runPure(t, startMilestone(alphaDev, result.id, result.milestones[0].id), copiesOf(third.after));
  t.equal(servedStrategiesOf(back.after, 'alpha', 'development')[0].parameters.rollout, '25');
  t.same(runPure(t, startMilestone(alphaDev, result.id, result.milestones[0].id), copiesOf(back.after)).change.ops, [], 'the active one again changes nothing');
  runFailing(t, startMilestone(alphaDev, result.id, 'nope'), 'NotFoundError', copiesOf(after));
  runFailing(t, startMilestone(alphaDev, 'nope', result.milestones[0].id), 'NotFoundError', copiesOf(after));
});

t.test('deleting the flag\'s last own strategy leaves the environment on while a milestone is served', async (t) => {
  const prod = { project: 'default', feature: 'alpha', environment: 'production' };
  const on = runPure(t, setEnvironmentEnabled('default', 'alpha', 'production', true));
  const planned = runPure(t, addPlan(prod, BUILTIN), copiesOf(on.after));
  const removed = runPure(t, deleteStrategy(prod, 's4'), copiesOf(planned.after));
  t.equal(removed.after.featureEnvs.get('alpha')!.get('production')!.enabled, true);
});

t.test('the progression decision: due at its interval, not before, not when paused or off; run once', async (t) => {
  const { change, after } = runPure(t, addPlan(alphaDev, BUILTIN));
  const result = change.result;
  const [m1, m2] = result.milestones.map((m) => m.id);
  const set = runPure(t, setProgression(alphaDev, m1, { targetMilestone: m2, transitionCondition: { intervalMinutes: 3 } }), copiesOf(after));
  const started = Date.parse(result.milestones[0].startedAt!);
  t.same(dueProgressions(set.after, new Date(started + 3 * 60_000 - 1)), [], 'a millisecond early: nothing due');
  const due = dueProgressions(set.after, new Date(started + 3 * 60_000));
  t.same(due.map((d) => [d.from, d.to]), [[m1, m2]], 'due at the interval');
  const off = onEnvironmentSwitch(set.after, set.after.features.get('alpha')!, 'development', false, '2026-02-02T02:03:00.000Z');
  t.equal(off.ops.length, 1, 'switching off pauses it');
  const offState = runPure(t, setEnvironmentEnabled('default', 'alpha', 'development', false), copiesOf(set.after)).after;
  t.same(dueProgressions(offState, new Date(started + 60 * 60_000)), [], 'nothing is due on an environment that is off');
  // runProgression checks again at its own clock (the fixture env's: 2026-02-02T02:02:02Z + nothing): too early, nothing.
  t.same(runPure(t, runProgression(due[0]), copiesOf(set.after)).change.ops, [], 'not due at the command\'s own clock: nothing');
  const late = () => ({ now: new Date(started + 3 * 60_000).toISOString(), newId: () => 'x', actor: { name: 't', userId: null } });
  const ran = runProgression(due[0])(copiesOf(set.after)(), late());
  t.equal(ran.result, true, 'due at its own clock: it runs');
  t.equal(ran.ops.length, 1);
  runFailing(t, setProgression(alphaDev, m1, { targetMilestone: m1, transitionCondition: { intervalMinutes: 1 } }), 'ValidationError', copiesOf(after));
  runFailing(t, setProgression(alphaDev, m1, { targetMilestone: 'nope', transitionCondition: { intervalMinutes: 1 } }), 'ValidationError', copiesOf(after));
});

t.test('one milestone or strategy of a template at a time: the rest untouched, one update event, bounds and names checked', async (t) => {
  const added = runPure(t, createTemplateMilestone(BUILTIN, { name: 'Done', strategies: [{ strategyName: 'default' }] }));
  const tpl = added.after.releaseTemplates.get(BUILTIN)!;
  t.same([tpl.milestones.length, tpl.milestones[4].name], [5, 'Done'], 'added last');
  t.equal(added.change.result.sortOrder, 4, 'after the highest sortOrder');
  t.same(added.change.events.map((e) => e.type), ['release-plan-template-updated']);
  const first = tpl.milestones[0];
  runFailing(t, createTemplateMilestone(BUILTIN, { name: first.name }), 'ValidationError', copiesOf(added.after));
  runFailing(t, updateTemplateMilestone(BUILTIN, 'nope', { name: 'x' }), 'NotFoundError');
  runFailing(t, createTemplateMilestone('nope', { name: 'x' }), 'NotFoundError');

  const moved = runPure(t, updateTemplateMilestone(BUILTIN, first.id, { name: 'Start', sortOrder: 99 }), copiesOf(added.after));
  const after = moved.after.releaseTemplates.get(BUILTIN)!;
  t.equal(after.milestones[after.milestones.length - 1].id, first.id, 'moved last by its sortOrder');
  t.same(after.milestones[after.milestones.length - 1].strategies, first.strategies, 'its strategies kept without strategies in the input');

  const s = runPure(t, createMilestoneStrategy(BUILTIN, first.id, { strategyName: 'default' }), copiesOf(added.after));
  const id = s.change.result.id;
  const replaced = runPure(t, updateMilestoneStrategy(BUILTIN, first.id, id, { strategyName: 'flexibleRollout', parameters: { rollout: 5 } }), copiesOf(s.after));
  t.match(replaced.change.result, { id, sortOrder: 1, parameters: { rollout: '5', groupId: '{{featureName}}' } }, 'same id and place');
  runFailing(t, updateMilestoneStrategy(BUILTIN, first.id, id, { strategyName: 'nope' }), 'ValidationError', copiesOf(s.after));
  const removed = runPure(t, deleteMilestoneStrategy(BUILTIN, first.id, id), copiesOf(s.after));
  t.same(removed.after.releaseTemplates.get(BUILTIN)!.milestones[0], first, 'removing it gives the milestone back as it was');
  const gone = runPure(t, deleteTemplateMilestone(BUILTIN, first.id), copiesOf(added.after));
  t.equal(gone.after.releaseTemplates.get(BUILTIN)!.milestones.length, 4);
});
