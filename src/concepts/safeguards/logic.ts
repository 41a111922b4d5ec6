// Safeguards, the pure part: a threshold on an impact metric aggregated over a window, on a flag's
// environment (it switches the environment off) or on the release plan there (it pauses the plan's
// progressions). The decision, `triggeredSafeguards`, is a function of the state (the stored
// series) and the clock; one node acts on it (scheduler.ts), each firing written by `fireSafeguard`
// as one ordinary change that checks the decision again against the state it lands on.
//
// The rule: a safeguard fires when its metric's value over the window crosses the threshold AND
// its action would change something (the environment is on; the plan's active milestone is not
// paused). Having fired, it is quiet because its action holds; undoing the action (switching the
// environment on, resuming the plan) re-arms it, and if the window still crosses the threshold it
// fires again at the next evaluation. `triggeredAt` records the last firing.
import type { Change, CommandEnv, EventDraft } from '../../core/engine/command.js';
import { invalid, NotFoundError } from '../../core/errors.js';
import { requireFeature, requireFeatureEnv } from '../../core/state/lookup.js';
import type { Op } from '../../core/state/ops.js';
import { featureEnvKey, type State } from '../../core/state/state.js';
import type { ReleasePlan, Safeguard, SafeguardAction } from '../../core/state/types.js';
import { setEnvironmentEnabled } from '../features/logic.js';
import { windowValue } from '../impact-metrics/logic.js';
import { requirePlan, type PlanWhere } from '../release-plans/logic.js';
import { pauseProgressions } from '../release-plans/progressions.js';

/** Safeguards on one flag's environment, and on one release plan. */
export const MAX_SAFEGUARDS_PER_TARGET = 10;

export interface SafeguardInput {
  /** An existing safeguard of the same target to replace; a new one without. */
  id?: string;
  impactMetric: { metricName: string; timeRange: Safeguard['impactMetric']['timeRange']; aggregationMode: Safeguard['impactMetric']['aggregationMode']; labelSelectors?: Record<string, string[]> };
  triggerCondition: { operator: '>' | '<'; threshold: number };
}

/** A safeguard that fires: which one, the metric's value and what it crossed. */
export interface Firing {
  safeguardId: string;
  metricName: string;
  value: number;
  operator: '>' | '<';
  threshold: number;
}

export function safeguardView(sg: Safeguard) {
  return { id: sg.id, action: sg.action, triggerCondition: sg.triggerCondition, impactMetric: sg.impactMetric, createdAt: sg.createdAt, triggeredAt: sg.triggeredAt };
}

/** The safeguards of the release plan `plan`, as a plan view lists them. */
export function planSafeguards(state: State, plan: ReleasePlan): ReturnType<typeof safeguardView>[] {
  if (state.safeguards.size === 0) return [];
  return [...state.safeguards.values()].filter((sg) => sg.action.type === 'pauseReleasePlanProgressions' && sg.action.id === plan.id).map(safeguardView);
}

/** The safeguards that switch the flag's environment off. */
export function environmentSafeguards(state: State, where: PlanWhere): ReturnType<typeof safeguardView>[] {
  if (state.safeguards.size === 0) return [];
  return [...state.safeguards.values()]
    .filter((sg) => sg.action.type === 'disableFeatureEnvironment' && sg.featureName === where.feature && sg.environment === where.environment)
    .map(safeguardView);
}

const sameTarget = (a: SafeguardAction, b: SafeguardAction) =>
  a.type === 'pauseReleasePlanProgressions' ? b.type === a.type && b.id === a.id : b.type === a.type && b.featureName === a.featureName && b.environment === a.environment;

function guardEvent(type: string, where: PlanWhere, data: unknown, preData: unknown = null): EventDraft {
  return { type, project: where.project, featureName: where.feature, environment: where.environment, data, preData };
}

function checkInput(input: SafeguardInput): void {
  if (!Number.isFinite(input.triggerCondition.threshold)) throw invalid('triggerCondition.threshold', 'the threshold must be a finite number');
  for (const [label, values] of Object.entries(input.impactMetric.labelSelectors ?? {})) {
    if (values.length === 0) throw invalid(`impactMetric.labelSelectors.${label}`, 'a label selector needs at least one value');
  }
}

/** Adds a safeguard to `action`'s target (or replaces the one `input.id` names there). */
function putSafeguard(state: State, env: CommandEnv, where: PlanWhere, action: SafeguardAction, input: SafeguardInput): Change<ReturnType<typeof safeguardView>> {
  checkInput(input);
  const same = [...state.safeguards.values()].filter((sg) => sameTarget(sg.action, action));
  const before = input.id === undefined ? undefined : same.find((sg) => sg.id === input.id);
  if (input.id !== undefined && !before) throw new NotFoundError(`Could not find safeguard "${input.id}" here.`);
  if (!before && same.length >= MAX_SAFEGUARDS_PER_TARGET) {
    throw invalid('impactMetric', `at most ${MAX_SAFEGUARDS_PER_TARGET} safeguards can watch one ${action.type === 'pauseReleasePlanProgressions' ? 'release plan' : "flag's environment"}`);
  }
  const sg: Safeguard = {
    id: before?.id ?? env.newId(),
    featureName: where.feature,
    environment: where.environment,
    action,
    impactMetric: {
      id: before?.impactMetric.id ?? env.newId(),
      metricName: input.impactMetric.metricName,
      timeRange: input.impactMetric.timeRange,
      aggregationMode: input.impactMetric.aggregationMode,
      labelSelectors: input.impactMetric.labelSelectors ?? {},
    },
    triggerCondition: { operator: input.triggerCondition.operator, threshold: input.triggerCondition.threshold },
    createdAt: before?.createdAt ?? env.now,
    triggeredAt: null,
  };
  const view = safeguardView(sg);
  return { ops: [{ o: 'safeguard.put', safeguard: sg }], events: [guardEvent('safeguard-changed', where, view, before ? safeguardView(before) : null)], result: view };
}

export function putEnvironmentSafeguard(where: PlanWhere, input: SafeguardInput) {
  return (state: State, env: CommandEnv) => {
    const feature = requireFeature(state, where.project, where.feature);
    requireFeatureEnv(state, feature, where.environment);
    return putSafeguard(state, env, where, { type: 'disableFeatureEnvironment', project: feature.project, featureName: feature.name, environment: where.environment }, input);
  };
}

export function putPlanSafeguard(where: PlanWhere, planId: string, input: SafeguardInput) {
  return (state: State, env: CommandEnv) => {
    const { plan } = requirePlan(state, where, planId);
    return putSafeguard(state, env, where, { type: 'pauseReleasePlanProgressions', id: plan.id }, input);
  };
}

/** Removes a safeguard of the flag's environment (`planId` null) or of its plan. */
export function deleteSafeguard(where: PlanWhere, planId: string | null, id: string) {
  return (state: State): Change<null> => {
    const feature = requireFeature(state, where.project, where.feature);
    requireFeatureEnv(state, feature, where.environment);
    if (planId !== null) requirePlan(state, where, planId);
    const sg = state.safeguards.get(id);
    const here = sg && sg.featureName === where.feature && sg.environment === where.environment
      && (planId === null ? sg.action.type === 'disableFeatureEnvironment' : sg.action.type === 'pauseReleasePlanProgressions' && sg.action.id === planId);
    if (!sg || !here) throw new NotFoundError(`Could not find safeguard "${id}" here.`);
    return { ops: [{ o: 'safeguard.del', id }], events: [guardEvent('safeguard-deleted', where, null, safeguardView(sg))], result: null };
  };
}

// ---- the decision ---------------------------------------------------------------------------------

/** Whether the safeguard's action would change anything in `state` (it is armed). */
export function armed(state: State, sg: Safeguard): boolean {
  const feature = state.features.get(sg.featureName);
  if (!feature || feature.archived) return false;
  const fe = state.featureEnvs.get(sg.featureName)?.get(sg.environment);
  if (!fe) return false;
  if (sg.action.type === 'disableFeatureEnvironment') return fe.enabled;
  const plan = state.releasePlans.get(featureEnvKey(sg.featureName, sg.environment));
  if (!plan || plan.id !== sg.action.id) return false;
  return plan.milestones.some((m) => m.id === plan.activeMilestoneId && m.pausedAt === null);
}

/** The safeguard's metric over its window at `nowMs` (null: nothing reported in it). */
export function safeguardValue(state: State, sg: Safeguard, nowMs: number): number | null {
  const m = sg.impactMetric;
  return windowValue(state.impactSeries.values(), { metricName: m.metricName, range: m.timeRange, aggregation: m.aggregationMode, labels: m.labelSelectors }, nowMs);
}

const crosses = (value: number, c: Safeguard['triggerCondition']) => (c.operator === '>' ? value > c.threshold : value < c.threshold);

/** The firing of `sg` at `nowMs`, or null when it does not fire. */
export function firingOf(state: State, sg: Safeguard, nowMs: number): Firing | null {
  if (!armed(state, sg)) return null;
  const value = safeguardValue(state, sg, nowMs);
  if (value === null || !crosses(value, sg.triggerCondition)) return null;
  return { safeguardId: sg.id, metricName: sg.impactMetric.metricName, value, operator: sg.triggerCondition.operator, threshold: sg.triggerCondition.threshold };
}

/** Every safeguard that fires at `nowMs`. Pure: the stored series and the clock. */
export function triggeredSafeguards(state: State, nowMs: number): Firing[] {
  const out: Firing[] = [];
  for (const sg of state.safeguards.values()) {
    const f = firingOf(state, sg, nowMs);
    if (f) out.push(f);
  }
  return out;
}

/**
 * Fires safeguard `id` if it fires in the state this lands on (at the command's clock): its action
 * and a `safeguard-triggered` event naming the metric, its value and the threshold, as one change.
 * Otherwise (already fired, removed, the metric back under) changes nothing. Result: the firing.
 */
export function fireSafeguard(id: string) {
  return (state: State, env: CommandEnv): Change<Firing | null> => {
    const sg = state.safeguards.get(id);
    const firing = sg ? firingOf(state, sg, Date.parse(env.now)) : null;
    if (!sg || !firing) return { ops: [], events: [], result: null };
    const feature = state.features.get(sg.featureName)!;
    const where: PlanWhere = { project: feature.project, feature: feature.name, environment: sg.environment };
    let ops: Op[];
    let events: EventDraft[] = [];
    if (sg.action.type === 'disableFeatureEnvironment') {
      const off = setEnvironmentEnabled(feature.project, feature.name, sg.environment, false)(state, env);
      ops = off.ops;
      events = off.events;
    } else {
      ops = pauseProgressions(state.releasePlans.get(featureEnvKey(sg.featureName, sg.environment))!, env.now) ?? [];
    }
    ops.push({ o: 'safeguard.put', safeguard: { ...sg, triggeredAt: env.now } });
    const data = {
      safeguardId: sg.id, action: sg.action, impactMetric: sg.impactMetric, metricName: firing.metricName, value: firing.value,
      operator: firing.operator, threshold: firing.threshold,
    };
    return { ops, events: [guardEvent('safeguard-triggered', where, data), ...events], result: firing };
  };
}
