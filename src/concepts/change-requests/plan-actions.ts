// The release-plan actions a change request can hold (Unleash's names and payloads): applying a
// template to the flag's environment, removing the plan, starting a milestone, setting or removing
// a milestone's progression, resuming a paused plan, and the plan's safeguards. Each runs the
// command its direct route runs; each that acts on a plan already there keeps a fingerprint of
// what it was made against, so a request applied after the plan was removed, or after its active
// milestone or the progression moved, is a conflict rather than a surprise.
import type { State } from '../../core/state/state.js';
import type { ReleasePlan } from '../../core/state/types.js';
import { addPlan, deletePlan, planAt, startMilestone, type PlanWhere } from '../release-plans/logic.js';
import { deleteProgression, resumeProgressions, setProgression } from '../release-plans/progressions.js';
import { releasePlanSchemas } from '../release-plans/schema.js';
import { deleteSafeguard, putPlanSafeguard, type SafeguardInput } from '../safeguards/logic.js';
import { safeguardSchemas } from '../safeguards/schema.js';
import type { ActionDef, RequestWhere } from './actions.js';

const id = { type: 'string', minLength: 1, maxLength: 100 };
const obj = (required: string[], properties: Record<string, unknown>) => ({ type: 'object', required, properties });
const planWhere = (where: RequestWhere, feature: string): PlanWhere => ({ project: where.project, feature, environment: where.environment });

/** The flag's plan in the request's environment if it is `planId` (a plan removed and applied again is another plan). */
function planOf(state: State, where: RequestWhere, feature: string, planId: string): ReleasePlan | null {
  const plan = planAt(state, planWhere(where, feature));
  return plan && plan.id === planId ? plan : null;
}

/** What a progression change is made against: the source milestone's progression, in the plan there now. */
function progressionOf(state: State, where: RequestWhere, feature: string, source: string) {
  const plan = planAt(state, planWhere(where, feature));
  const m = plan?.milestones.find((x) => x.id === source);
  return plan && m ? { plan: plan.id, target: m.progressionTarget, condition: m.transitionCondition } : null;
}

/** A safeguard's settings (not when it last fired: firing does not change what was reviewed). */
function safeguardOf(state: State, planId: string, safeguardId: string) {
  const sg = state.safeguards.get(safeguardId);
  if (!sg || sg.action.type !== 'pauseReleasePlanProgressions' || sg.action.id !== planId) return null;
  return { id: sg.id, impactMetric: { ...sg.impactMetric, id: undefined }, triggerCondition: sg.triggerCondition };
}

/** Made against the progression out of one milestone: setting and removing it replace each other in a draft. */
const ONE_PROGRESSION: Pick<ActionDef, 'base' | 'slot'> = {
  base: { of: (s, w, f, p) => progressionOf(s, w, f, p.sourceMilestone), what: "milestone's progression" },
  slot: (p) => `progression:${p.sourceMilestone}`,
};

/** Made against the plan being there. */
const PLAN_THERE: ActionDef['base'] = { of: (s, w, f, p) => planOf(s, w, f, p.planId)?.id ?? null, what: 'release plan' };

export const PLAN_ACTIONS: Record<string, ActionDef> = {
  addReleasePlan: {
    payload: releasePlanSchemas.createReleasePlanSchema,
    command: (w, f, p: { templateId: string }) => addPlan(planWhere(w, f), p.templateId),
    // Nothing to be made against: a plan applied there meanwhile makes the apply fail (one plan per flag's environment).
    slot: () => 'releasePlan:add',
  },
  deleteReleasePlan: {
    payload: obj(['planId'], { planId: id }),
    command: (w, f, p: { planId: string }) => deletePlan(planWhere(w, f), p.planId),
    base: PLAN_THERE,
    slot: (p) => `releasePlan:delete:${p.planId}`,
  },
  startMilestone: {
    payload: obj(['planId', 'milestoneId'], { planId: id, milestoneId: id }),
    command: (w, f, p: { planId: string; milestoneId: string }) => startMilestone(planWhere(w, f), p.planId, p.milestoneId),
    // Starting a milestone is a step from the one active: a plan that moved on since (by hand or by its progressions) is a conflict.
    base: {
      of: (s, w, f, p) => {
        const plan = planOf(s, w, f, p.planId);
        return plan ? { plan: plan.id, active: plan.activeMilestoneId } : null;
      },
      what: "release plan's active milestone",
    },
    slot: (p) => `releasePlan:start:${p.planId}`,
  },
  changeMilestoneProgression: {
    payload: {
      ...releasePlanSchemas.changeMilestoneProgressionSchema,
      required: ['sourceMilestone', ...releasePlanSchemas.changeMilestoneProgressionSchema.required],
      properties: { ...releasePlanSchemas.changeMilestoneProgressionSchema.properties, sourceMilestone: id },
    },
    command: (w, f, { sourceMilestone, ...p }: { sourceMilestone: string; targetMilestone: string; transitionCondition: { intervalMinutes: number } }) =>
      setProgression(planWhere(w, f), sourceMilestone, p),
    ...ONE_PROGRESSION,
  },
  deleteMilestoneProgression: {
    payload: obj(['sourceMilestone'], { sourceMilestone: id }),
    command: (w, f, p: { sourceMilestone: string }) => deleteProgression(planWhere(w, f), p.sourceMilestone),
    ...ONE_PROGRESSION,
  },
  resumeMilestoneProgression: {
    payload: obj(['planId'], { planId: id }),
    command: (w, f, p: { planId: string }) => resumeProgressions(planWhere(w, f), p.planId),
    base: PLAN_THERE,
    slot: (p) => `releasePlan:resume:${p.planId}`,
  },
  changeSafeguard: {
    payload: obj(['planId', 'safeguard'], { planId: id, safeguard: safeguardSchemas.safeguardSchema }),
    command: (w, f, p: { planId: string; safeguard: SafeguardInput }) => putPlanSafeguard(planWhere(w, f), p.planId, p.safeguard),
    base: {
      of: (s, w, f, p) => {
        if (!planOf(s, w, f, p.planId)) return null;
        return p.safeguard.id === undefined ? { plan: p.planId } : safeguardOf(s, p.planId, p.safeguard.id);
      },
      what: 'release plan safeguard',
    },
    // A new safeguard (no id) is one more; a replacement takes the place of any other change of the same safeguard.
    slot: (p) => (p.safeguard.id === undefined ? null : `safeguard:${p.planId}:${p.safeguard.id}`),
  },
  deleteSafeguard: {
    payload: obj(['planId', 'safeguardId'], { planId: id, safeguardId: id }),
    command: (w, f, p: { planId: string; safeguardId: string }) => deleteSafeguard(planWhere(w, f), p.planId, p.safeguardId),
    base: { of: (s, w, f, p) => (planOf(s, w, f, p.planId) ? safeguardOf(s, p.planId, p.safeguardId) : null), what: 'release plan safeguard' },
    slot: (p) => `safeguard:${p.planId}:${p.safeguardId}`,
  },
};
