// Progressions: a milestone moves the plan on to another by itself, `intervalMinutes` after it
// started. Time is a change source here: `dueProgressions` (pure: the state and the clock) says
// which starts are due, one node acts on them (scheduler.ts), and each is written as an ordinary
// change by `runProgression`, which checks again against the state it applies to, so a start
// decided twice (two ticks, or a node that took over) applies once.
import type { Change, CommandEnv, EventDraft } from '../../core/engine/command.js';
import { invalid, NotFoundError } from '../../core/errors.js';
import type { Op } from '../../core/state/ops.js';
import type { State } from '../../core/state/state.js';
import type { PlanMilestone, ReleasePlan, TransitionCondition } from '../../core/state/types.js';
import { planAt, requirePlan, withStarted, type PlanWhere } from './logic.js';

const MINUTE_MS = 60_000;

/** One milestone start that is due: the plan's active milestone `from`, started at `startedAt`, hands over to `to`. */
export interface DueProgression {
  where: PlanWhere;
  planId: string;
  from: string;
  to: string;
  startedAt: string;
}

/** When the active milestone's progression is due, or null when it has none, ran, or is paused. */
export function dueAt(state: State, plan: ReleasePlan): number | null {
  const m = plan.milestones.find((x) => x.id === plan.activeMilestoneId);
  if (!m || !m.transitionCondition || !m.progressionTarget || m.startedAt === null) return null;
  if (m.progressionExecutedAt !== null || m.pausedAt !== null) return null;
  if (!plan.milestones.some((x) => x.id === m.progressionTarget)) return null;
  // An environment that is off pauses the plan: nothing is served from it meanwhile.
  if (state.featureEnvs.get(plan.featureName)?.get(plan.environment)?.enabled !== true) return null;
  const flag = state.features.get(plan.featureName);
  if (!flag || flag.archived) return null;
  return Date.parse(m.startedAt) + m.transitionCondition.intervalMinutes * MINUTE_MS;
}

/** Every progression due at `now`. Pure. */
export function dueProgressions(state: State, now: Date): DueProgression[] {
  const out: DueProgression[] = [];
  for (const plan of state.releasePlans.values()) {
    const at = dueAt(state, plan);
    if (at === null || at > now.getTime()) continue;
    const m = plan.milestones.find((x) => x.id === plan.activeMilestoneId)!;
    const project = state.features.get(plan.featureName)!.project;
    out.push({ where: { project, feature: plan.featureName, environment: plan.environment }, planId: plan.id, from: m.id, to: m.progressionTarget!, startedAt: m.startedAt! });
  }
  return out;
}

/** Runs a due progression, if it is still due in the state it applies to; otherwise changes nothing. */
export function runProgression(due: DueProgression) {
  return (state: State, env: CommandEnv): Change<boolean> => {
    const plan = planAt(state, due.where);
    const m = plan?.milestones.find((x) => x.id === due.from);
    const at = plan ? dueAt(state, plan) : null;
    if (!plan || plan.id !== due.planId || plan.activeMilestoneId !== due.from || m?.startedAt !== due.startedAt || at === null || at > Date.parse(env.now)) {
      return { ops: [], events: [], result: false };
    }
    const executed: ReleasePlan = { ...plan, milestones: plan.milestones.map((x) => (x.id === due.from ? { ...x, progressionExecutedAt: env.now } : x)) };
    const after = withStarted(executed, due.to, env.now);
    const target = after.milestones.find((x) => x.id === due.to)!;
    const event: EventDraft = {
      type: 'release-plan-milestone-started', project: due.where.project, featureName: due.where.feature, environment: due.where.environment,
      data: { releasePlanId: plan.id, milestoneId: target.id, milestoneName: target.name, progression: true }, preData: { milestoneId: due.from },
    };
    return { ops: [{ o: 'releasePlan.put', plan: after }], events: [event], result: true };
  };
}

function progressionView(m: PlanMilestone) {
  return { sourceMilestone: m.id, targetMilestone: m.progressionTarget!, transitionCondition: m.transitionCondition! };
}

/** The plan on the flag's environment that holds milestone `milestoneId`. */
function planWithMilestone(state: State, where: PlanWhere, milestoneId: string): ReleasePlan {
  const plan = planAt(state, where);
  // requirePlan gives the 404 for a missing flag or environment, and for a plan that is not there.
  const checked = requirePlan(state, where, plan?.id ?? '').plan;
  if (!checked.milestones.some((m) => m.id === milestoneId)) {
    throw new NotFoundError(`Could not find milestone "${milestoneId}" in the release plan of "${where.feature}" in "${where.environment}".`);
  }
  return checked;
}

function progressionEvent(type: string, where: PlanWhere, data: unknown, preData: unknown): EventDraft {
  return { type, project: where.project, featureName: where.feature, environment: where.environment, data, preData };
}

/** Sets the progression out of `source`: `target` starts `intervalMinutes` after `source` started. */
export function setProgression(where: PlanWhere, source: string, input: { targetMilestone: string; transitionCondition: TransitionCondition }) {
  return (state: State): Change<ReturnType<typeof progressionView>> => {
    const plan = planWithMilestone(state, where, source);
    if (!plan.milestones.some((m) => m.id === input.targetMilestone)) {
      throw invalid('targetMilestone', `milestone "${input.targetMilestone}" is not a milestone of this release plan`);
    }
    if (input.targetMilestone === source) throw invalid('targetMilestone', 'a milestone cannot progress to itself');
    const before = plan.milestones.find((m) => m.id === source)!;
    const after = { ...before, progressionTarget: input.targetMilestone, transitionCondition: { intervalMinutes: input.transitionCondition.intervalMinutes } };
    const view = progressionView(after);
    return {
      ops: [{ o: 'releasePlan.put', plan: { ...plan, milestones: plan.milestones.map((m) => (m.id === source ? after : m)) } }],
      events: [progressionEvent('milestone-progression-changed', where, view, before.transitionCondition ? progressionView(before) : null)],
      result: view,
    };
  };
}

export function deleteProgression(where: PlanWhere, source: string) {
  return (state: State): Change<null> => {
    const plan = planWithMilestone(state, where, source);
    const before = plan.milestones.find((m) => m.id === source)!;
    if (!before.transitionCondition) throw new NotFoundError(`Milestone "${source}" has no progression.`);
    const after = { ...before, progressionTarget: null, transitionCondition: null };
    return {
      ops: [{ o: 'releasePlan.put', plan: { ...plan, milestones: plan.milestones.map((m) => (m.id === source ? after : m)) } }],
      events: [progressionEvent('milestone-progression-deleted', where, null, progressionView(before))],
      result: null,
    };
  };
}

/**
 * Resumes a paused plan: its active milestone's progression counts again from now (the time it
 * was paused does not count towards it).
 */
export function resumeProgressions(where: PlanWhere, planId: string) {
  return (state: State, env: CommandEnv): Change<null> => {
    const { plan } = requirePlan(state, where, planId);
    const active = plan.milestones.find((m) => m.id === plan.activeMilestoneId);
    if (!active || active.pausedAt === null) return { ops: [], events: [], result: null };
    const after = { ...plan, milestones: plan.milestones.map((m) => (m === active ? { ...m, pausedAt: null, startedAt: env.now } : m)) };
    return { ops: [{ o: 'releasePlan.put', plan: after }], events: [], result: null };
  };
}

/**
 * Pauses a plan's progressions (what a safeguard does when it fires): its active milestone stops
 * counting towards its progression until the plan is resumed. Null when there is nothing to pause
 * (no active milestone, or already paused). Pure: the ops only.
 */
export function pauseProgressions(plan: ReleasePlan, now: string): Op[] | null {
  const active = plan.milestones.find((m) => m.id === plan.activeMilestoneId);
  if (!active || active.pausedAt !== null) return null;
  return [{ o: 'releasePlan.put', plan: { ...plan, milestones: plan.milestones.map((m) => (m === active ? { ...m, pausedAt: now } : m)) } }];
}
