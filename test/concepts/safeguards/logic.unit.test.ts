// The safeguard decision as a pure function of the stored series and an injected clock, and the
// firing command: one change (the action, the record of the firing, the event), decided again
// against the state it lands on.
import t from 'tap';
import { fireSafeguard, putEnvironmentSafeguard, putPlanSafeguard, triggeredSafeguards } from '../../../src/concepts/safeguards/logic.js';
import { addPlan } from '../../../src/concepts/release-plans/logic.js';
import { dueProgressions, setProgression } from '../../../src/concepts/release-plans/progressions.js';
import { setEnvironmentEnabled } from '../../../src/concepts/features/logic.js';
import { applyOp, type Op } from '../../../src/core/state/ops.js';
import { builtinReleaseTemplate } from '../../../src/core/state/defaults.js';
import type { State } from '../../../src/core/state/state.js';
import { copiesOf, fixedEnv, fixtureState, safeguard } from '../../core/state/fixture.js';
import { runFailing, runPure } from '../../core/engine/pure.js';

/** The fixed clock of the pure runs (fixedEnv). */
const NOW_MS = Date.parse(fixedEnv().now);
const MINUTE_S = Math.floor(NOW_MS / 60_000) * 60;
const alphaDev = { project: 'default', feature: 'alpha', environment: 'development' };

/** A counter series `key` of `errors` with `labels`, `v` errors reported in the minute starting at `t` (Unix seconds). */
function errorsAt(key: string, t: number, v: number, labels: [string, string][] = [['appName', 'shop'], ['origin', 'sdk']]): Op[] {
  return [
    { o: 'impact.put', key, head: { name: 'errors', help: '', type: 'counter', labels, le: [], total: [v] } },
    { o: 'impact.point', key, tier: 0, point: { t, v: [v] }, since: 0 },
  ];
}

function stateWith(...ops: Op[][]): () => State {
  const s = fixtureState();
  for (const op of ops.flat()) applyOp(s, op, false);
  return copiesOf(s);
}

t.test('a safeguard fires when its metric over the window crosses the threshold, at the clock given', async (t) => {
  // sg1 (fixture): errors counted over the last hour above 5 switch alpha off in development (on).
  const base = stateWith(errorsAt('e1', MINUTE_S - 600, 4));
  t.same(triggeredSafeguards(base(), NOW_MS), [], '4 errors: under the threshold');
  const more = stateWith(errorsAt('e1', MINUTE_S - 600, 4), errorsAt('e2', MINUTE_S, 3, [['appName', 'other'], ['origin', 'sdk']]));
  t.same(triggeredSafeguards(more(), NOW_MS), [{ safeguardId: 'sg1', metricName: 'errors', value: 7, operator: '>', threshold: 5 }], '7 errors in the hour: fires');
  // Fifty minutes on, the first report (then an hour old) has left the window; the second is still in it.
  t.same(triggeredSafeguards(more(), NOW_MS + 3_000_000), [], 'the window moved on with the clock');
  t.same(triggeredSafeguards(more(), NOW_MS - 3_600_000), [], 'reports after the clock do not count');
});

t.test('label selectors pick the series; "<" fires under the threshold; nothing reported never fires', async (t) => {
  const s = stateWith(errorsAt('e1', MINUTE_S, 4), errorsAt('e2', MINUTE_S, 30, [['appName', 'other'], ['origin', 'sdk']]), [
    { o: 'safeguard.del', id: 'sg1' },
    { o: 'safeguard.put', safeguard: safeguard('shop', 'alpha', 'development', { impactMetric: { id: 'm', metricName: 'errors', timeRange: 'hour', aggregationMode: 'count', labelSelectors: { appName: ['shop'] } } }) },
    { o: 'safeguard.put', safeguard: safeguard('low', 'alpha', 'development', { triggerCondition: { operator: '<', threshold: 40 } }) },
    { o: 'safeguard.put', safeguard: safeguard('none', 'alpha', 'development', { impactMetric: { id: 'n', metricName: 'silent', timeRange: 'hour', aggregationMode: 'count', labelSelectors: {} }, triggerCondition: { operator: '<', threshold: 1 } }) },
  ]);
  t.same(triggeredSafeguards(s(), NOW_MS).map((f) => [f.safeguardId, f.value]), [['low', 34]], 'shop alone has 4 (not above 5); all apps 34 (under 40); silent has no value');
});

t.test('firing switches the environment off, records it and says why, in one change; it then holds until undone', async (t) => {
  const base = stateWith(errorsAt('e1', MINUTE_S, 9));
  const fired = runPure(t, fireSafeguard('sg1'), base);
  t.same(fired.change.result, { safeguardId: 'sg1', metricName: 'errors', value: 9, operator: '>', threshold: 5 });
  t.same(fired.change.events.map((e) => e.type), ['safeguard-triggered', 'feature-environment-disabled']);
  t.match(fired.change.events[0], { project: 'default', featureName: 'alpha', environment: 'development', data: { metricName: 'errors', value: 9, threshold: 5, operator: '>', action: { type: 'disableFeatureEnvironment' } } });
  t.equal(fired.after.featureEnvs.get('alpha')!.get('development')!.enabled, false, 'off');
  t.equal(fired.after.safeguards.get('sg1')!.triggeredAt, fixedEnv().now, 'the firing is recorded');
  t.same(triggeredSafeguards(fired.after, NOW_MS), [], 'quiet while the environment is off');
  // Decided twice (two looks, a new leader): the second lands on a state where it no longer fires.
  const again = runPure(t, fireSafeguard('sg1'), copiesOf(fired.after));
  t.same(again.change, { ops: [], events: [], result: null }, 'a second firing changes nothing');
  // Switched on again with the errors still in the window: armed again, it fires again.
  const on = runPure(t, setEnvironmentEnabled('default', 'alpha', 'development', true), copiesOf(fired.after));
  t.same(triggeredSafeguards(on.after, NOW_MS).map((f) => f.safeguardId), ['sg1'], 're-armed by switching the environment on');
  t.same(runPure(t, fireSafeguard('nope'), base).change.ops, [], 'an unknown safeguard changes nothing');
});

t.test('a plan safeguard pauses the plan\'s progressions, and resuming re-arms it', async (t) => {
  const withPlan = runPure(t, addPlan(alphaDev, builtinReleaseTemplate('x').id), stateWith(errorsAt('e1', MINUTE_S, 9), [{ o: 'safeguard.del', id: 'sg1' }]));
  const plan = withPlan.change.result;
  const prog = runPure(t, setProgression(alphaDev, plan.milestones[0].id, { targetMilestone: plan.milestones[1].id, transitionCondition: { intervalMinutes: 1 } }), copiesOf(withPlan.after));
  const guarded = runPure(t, putPlanSafeguard(alphaDev, plan.id, { impactMetric: { metricName: 'errors', timeRange: 'hour', aggregationMode: 'count' }, triggerCondition: { operator: '>', threshold: 5 } }), copiesOf(prog.after));
  t.same(dueProgressions(guarded.after, new Date(NOW_MS + 120_000)).length, 1, 'the progression is due two minutes on');
  const [firing] = triggeredSafeguards(guarded.after, NOW_MS);
  t.equal(firing.value, 9);
  const fired = runPure(t, fireSafeguard(firing.safeguardId), copiesOf(guarded.after));
  t.same(fired.change.events.map((e) => e.type), ['safeguard-triggered']);
  t.equal(fired.after.featureEnvs.get('alpha')!.get('development')!.enabled, true, 'the environment stays on');
  t.same(dueProgressions(fired.after, new Date(NOW_MS + 120_000)), [], 'paused: no progression is due');
  t.same(triggeredSafeguards(fired.after, NOW_MS), [], 'quiet while paused');
});

t.test('setting safeguards: bounds and bad input are refused before anything is built', async (t) => {
  const input = { impactMetric: { metricName: 'errors', timeRange: 'hour' as const, aggregationMode: 'count' as const }, triggerCondition: { operator: '>' as const, threshold: 1 } };
  const added = runPure(t, putEnvironmentSafeguard(alphaDev, input));
  t.same(added.change.events.map((e) => e.type), ['safeguard-changed']);
  t.match(added.change.result, { action: { type: 'disableFeatureEnvironment', project: 'default', featureName: 'alpha', environment: 'development' }, impactMetric: { metricName: 'errors', labelSelectors: {} } });
  const replaced = runPure(t, putEnvironmentSafeguard(alphaDev, { ...input, id: 'sg1', triggerCondition: { operator: '<', threshold: 2 } }));
  t.same(replaced.change.result.id, 'sg1', 'with its id, a safeguard is replaced');
  runFailing(t, putEnvironmentSafeguard(alphaDev, { ...input, id: 'nope' }), 'NotFoundError');
  runFailing(t, putEnvironmentSafeguard(alphaDev, { ...input, impactMetric: { ...input.impactMetric, labelSelectors: { appName: [] } } }), 'ValidationError');
  runFailing(t, putEnvironmentSafeguard({ ...alphaDev, environment: 'nope' }, input), 'NotFoundError');
  runFailing(t, putPlanSafeguard(alphaDev, 'nope', input), 'NotFoundError');
  // The fixture's sg1 and nine more: ten on alpha's development.
  const full = stateWith(Array.from({ length: 9 }, (_, i): Op => ({ o: 'safeguard.put', safeguard: safeguard(`more${i}`, 'alpha', 'development') })));
  runFailing(t, putEnvironmentSafeguard(alphaDev, input), 'ValidationError', full);
  t.ok(runPure(t, putEnvironmentSafeguard(alphaDev, { ...input, id: 'more0' }), full), 'replacing one is still allowed');
});
