// Pure commands of release templates and plans. A template is a sequence of milestones, each a
// list of ordinary strategies; a plan is a template applied to one flag in one environment, and
// the strategies of its active milestone are served to SDKs before the flag's own
// (state.ts servedStrategiesOf). Starting a milestone is one put of the plan: SDK answers follow
// it like any strategy change (touch.ts).
import type { Change, CommandEnv, EventDraft } from '../../core/engine/command.js';
import { invalid, NotFoundError, ValidationError } from '../../core/errors.js';
import { requireFeature, requireFeatureEnv } from '../../core/state/lookup.js';
import type { Op } from '../../core/state/ops.js';
import { featureEnvKey, type State } from '../../core/state/state.js';
import type {
  Constraint, Feature, MilestoneStrategy, PlanMilestone, ReleasePlan, ReleaseTemplate, Strategy, TemplateMilestone,
} from '../../core/state/types.js';
import { normalizeConstraints, type ConstraintInput } from '../constraints/constraints.js';
import { checkLegalValues } from '../context-fields/logic.js';
import { checkParameters } from '../strategy-types/logic.js';
import { normalizeVariants, type VariantInput } from '../variants/weights.js';

/** Templates on a server (the built-in one included). */
export const MAX_TEMPLATES = 100;
/** Milestones in one template (and so in one plan). */
export const MAX_MILESTONES = 20;
/** Strategies in one milestone: as many as a flag may have in an environment. */
export const MAX_MILESTONE_STRATEGIES = 30;
/** Segments one milestone strategy may use, as for a flag's strategy. */
const MAX_SEGMENTS_PER_STRATEGY = 5;

/** Replaced by the flag's name in a template's parameters when it is applied. */
const FEATURE_NAME = '{{featureName}}';
const PERCENT = /^(100|[1-9]?\d)$/;

export interface MilestoneStrategyInput {
  id?: string;
  strategyName: string;
  title?: string | null;
  sortOrder?: number;
  parameters?: Record<string, string | number | boolean>;
  constraints?: ConstraintInput[];
  variants?: VariantInput[];
  segments?: number[];
}

export interface MilestoneInput {
  id?: string;
  name: string;
  sortOrder?: number;
  strategies?: MilestoneStrategyInput[];
}

export interface TemplateInput {
  name: string;
  description?: string | null;
  milestones?: MilestoneInput[];
}

export interface PlanWhere {
  project: string;
  feature: string;
  environment: string;
}

// Views, in Unleash's shapes.

function milestoneStrategyView(s: MilestoneStrategy, milestoneId: string) {
  return {
    id: s.id, milestoneId, sortOrder: s.sortOrder, title: s.title, strategyName: s.strategyName,
    parameters: s.parameters, constraints: s.constraints, variants: s.variants, segments: s.segments,
  };
}

export function templateView(t: ReleaseTemplate) {
  return {
    id: t.id,
    discriminator: 'template' as const,
    name: t.name,
    description: t.description,
    createdByUserId: t.createdByUserId,
    createdAt: t.createdAt,
    archivedAt: t.archivedAt,
    milestones: t.milestones.map((m) => templateMilestoneView(t, m)),
  };
}

export function templateMilestoneView(t: ReleaseTemplate, m: TemplateMilestone) {
  return { id: m.id, name: m.name, sortOrder: m.sortOrder, releasePlanDefinitionId: t.id, strategies: m.strategies.map((s) => milestoneStrategyView(s, m.id)) };
}

/** A plan's strategy in the shape of a template's. */
function asMilestoneStrategy(s: Strategy): MilestoneStrategy {
  return {
    id: s.id, sortOrder: s.sortOrder, title: s.title, strategyName: s.name, parameters: s.parameters, constraints: s.constraints, variants: s.variants, segments: s.segments,
  };
}

/** A plan in Unleash's shape; `safeguards` are its safeguards' views (safeguards/logic.ts planSafeguards). */
export function planView(p: ReleasePlan, safeguards: unknown[] = []) {
  return {
    id: p.id,
    discriminator: 'plan' as const,
    name: p.name,
    description: p.description,
    featureName: p.featureName,
    environment: p.environment,
    createdByUserId: p.createdByUserId,
    createdAt: p.createdAt,
    releasePlanTemplateId: p.releasePlanTemplateId,
    activeMilestoneId: p.activeMilestoneId,
    milestones: p.milestones.map((m) => ({
      id: m.id,
      name: m.name,
      sortOrder: m.sortOrder,
      releasePlanDefinitionId: p.id,
      startedAt: m.startedAt,
      transitionCondition: m.transitionCondition,
      progressionExecutedAt: m.progressionExecutedAt,
      pausedAt: m.pausedAt,
      strategies: m.strategies.map((s) => milestoneStrategyView(asMilestoneStrategy(s), m.id)),
    })),
    safeguards,
  };
}

// Templates.

export function requireTemplate(state: State, id: string): ReleaseTemplate {
  const t = state.releaseTemplates.get(id);
  if (!t) throw new NotFoundError(`Could not find release plan template with id "${id}".`);
  return t;
}

const bySortOrder = (a: { sortOrder: number }, b: { sortOrder: number }) => a.sortOrder - b.sortOrder;

/** A field's path under `at` (the body itself when `at` is empty). */
const under = (at: string, field: string) => (at === '' ? field : `${at}.${field}`);

function templateParameters(type: string, raw: MilestoneStrategyInput['parameters'], at: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw ?? {})) params[k] = String(v);
  if (type === 'flexibleRollout') {
    params.rollout ??= '100';
    params.stickiness ||= 'default';
    params.groupId ||= FEATURE_NAME;
    if (!PERCENT.test(params.rollout)) throw invalid(under(at, 'parameters.rollout'), `"rollout" must be a whole number from 0 to 100, got "${params.rollout}"`);
  }
  return params;
}

function checkSegmentsExist(state: State, ids: number[], at: string): number[] {
  if (ids.length > MAX_SEGMENTS_PER_STRATEGY) throw invalid(at, `a strategy can use at most ${MAX_SEGMENTS_PER_STRATEGY} segments`);
  for (const id of ids) if (!state.segments.has(id)) throw invalid(at, `segment ${id} does not exist`);
  return [...new Set(ids)].sort((a, b) => a - b);
}

function buildMilestoneStrategy(state: State, env: CommandEnv, input: MilestoneStrategyInput, at: string, keep: Set<string>, index: number): MilestoneStrategy {
  const type = state.strategyTypes.get(input.strategyName);
  if (!type) throw invalid(under(at, 'strategyName'), `strategy type "${input.strategyName}" does not exist`);
  const parameters = templateParameters(type.name, input.parameters, at);
  try {
    checkParameters(type, parameters);
  } catch (err) {
    if (err instanceof ValidationError && err.details) throw invalid(under(at, `${err.details[0].path}`), err.details[0].message);
    throw err;
  }
  const constraints: Constraint[] = normalizeConstraints(input.constraints ?? [], under(at, 'constraints'));
  checkLegalValues(state, constraints, under(at, 'constraints'));
  return {
    id: input.id && keep.has(input.id) ? input.id : env.newId(),
    sortOrder: input.sortOrder ?? index,
    title: input.title ?? null,
    strategyName: type.name,
    parameters,
    constraints,
    variants: normalizeVariants(input.variants ?? [], under(at, 'variants'), false, parameters.stickiness),
    segments: checkSegmentsExist(state, input.segments ?? [], under(at, 'segments')),
  };
}

/** One milestone from input (its name not yet checked against its siblings); ids in `keep` given back are kept. */
function buildMilestone(state: State, env: CommandEnv, m: MilestoneInput, at: string, keep: Set<string>, index: number): TemplateMilestone {
  const name = m.name.trim();
  if (name === '') throw invalid(under(at, 'name'), 'a milestone needs a name');
  const strategies = m.strategies ?? [];
  if (strategies.length > MAX_MILESTONE_STRATEGIES) throw invalid(under(at, 'strategies'), `a milestone can have at most ${MAX_MILESTONE_STRATEGIES} strategies`);
  return {
    id: m.id && keep.has(m.id) ? m.id : env.newId(),
    name,
    sortOrder: m.sortOrder ?? index,
    strategies: strategies.map((s, j) => buildMilestoneStrategy(state, env, s, under(at, `strategies[${j}]`), keep, j)).sort(bySortOrder),
  };
}

/** The ids of a template's milestones and their strategies (those a change may give back). */
function idsOf(milestones: TemplateMilestone[]): Set<string> {
  const keep = new Set<string>();
  for (const m of milestones) {
    keep.add(m.id);
    for (const s of m.strategies) keep.add(s.id);
  }
  return keep;
}

/** Milestones from input; ids of `before`'s milestones and strategies given back are kept. */
function buildMilestones(state: State, env: CommandEnv, input: MilestoneInput[], before: ReleaseTemplate | null): TemplateMilestone[] {
  if (input.length > MAX_MILESTONES) throw invalid('milestones', `a template can have at most ${MAX_MILESTONES} milestones`);
  const keep = idsOf(before?.milestones ?? []);
  const names = new Set<string>();
  const milestones = input.map((m, i): TemplateMilestone => {
    const at = `milestones[${i}]`;
    const built = buildMilestone(state, env, m, at, keep, i);
    if (names.has(built.name)) throw invalid(`${at}.name`, `milestone names must be unique in a template; "${built.name}" appears twice`);
    names.add(built.name);
    return built;
  });
  return milestones.sort(bySortOrder);
}

function checkTemplateName(state: State, name: string, self: string | null): string {
  const trimmed = name.trim();
  if (trimmed === '') throw invalid('name', 'a template needs a name');
  for (const t of state.releaseTemplates.values()) {
    if (t.id !== self && t.archivedAt === null && t.name === trimmed) throw invalid('name', `a release plan template named "${trimmed}" already exists`);
  }
  return trimmed;
}

function templateEvent(type: string, data: unknown, preData: unknown = null): EventDraft {
  return { type, data, preData };
}

export function createTemplate(input: TemplateInput) {
  return (state: State, env: CommandEnv): Change<ReturnType<typeof templateView>> => {
    const name = checkTemplateName(state, input.name, null);
    if (state.releaseTemplates.size >= MAX_TEMPLATES) {
      throw new ValidationError(`Failed to create release plan template. You can't create more than the established limit of ${MAX_TEMPLATES}.`);
    }
    const template: ReleaseTemplate = {
      id: env.newId(),
      name,
      description: input.description ?? null,
      createdByUserId: env.actor.userId,
      createdAt: env.now,
      milestones: buildMilestones(state, env, input.milestones ?? [], null),
      archivedAt: null,
    };
    const view = templateView(template);
    return { ops: [{ o: 'releaseTemplate.put', template }], events: [templateEvent('release-plan-template-created', view)], result: view };
  };
}

/** The template `id` as a change may edit it: it exists (else a 404) and is not archived (else a 400). */
function changeableTemplate(state: State, id: string): ReleaseTemplate {
  const t = requireTemplate(state, id);
  if (t.archivedAt !== null) throw invalid('id', `release plan template "${id}" is archived and cannot be changed`);
  return t;
}

/** A change of a template: one put and its `release-plan-template-updated` event (the template before and after). */
function templateChange<R>(before: ReleaseTemplate, after: ReleaseTemplate, result: R): Change<R> {
  return {
    ops: [{ o: 'releaseTemplate.put', template: after }],
    events: [templateEvent('release-plan-template-updated', templateView(after), templateView(before))],
    result,
  };
}

/** Replaces a template's name, description and milestones; plans already made from it keep theirs. */
export function updateTemplate(id: string, input: TemplateInput) {
  return (state: State, env: CommandEnv): Change<ReturnType<typeof templateView>> => {
    const before = changeableTemplate(state, id);
    const after: ReleaseTemplate = {
      ...before,
      name: checkTemplateName(state, input.name, id),
      description: input.description !== undefined ? input.description : before.description,
      milestones: input.milestones !== undefined ? buildMilestones(state, env, input.milestones, before) : before.milestones,
    };
    return templateChange(before, after, templateView(after));
  };
}

// One milestone, or one strategy of a milestone, at a time: the same checks and bounds as a whole
// template's, and the same event; the rest of the template is left exactly as it was.

export function requireTemplateMilestone(t: ReleaseTemplate, milestoneId: string): TemplateMilestone {
  const m = t.milestones.find((x) => x.id === milestoneId);
  if (!m) throw new NotFoundError(`Could not find milestone "${milestoneId}" in release plan template "${t.id}".`);
  return m;
}

function requireMilestoneStrategy(m: TemplateMilestone, strategyId: string): MilestoneStrategy {
  const s = m.strategies.find((x) => x.id === strategyId);
  if (!s) throw new NotFoundError(`Could not find strategy "${strategyId}" in milestone "${m.id}".`);
  return s;
}

/** After sorting: the next sortOrder puts a new item last. */
const nextSortOrder = (items: { sortOrder: number }[]) => (items.length === 0 ? 0 : Math.max(...items.map((x) => x.sortOrder)) + 1);

/** `milestones` with `m` in place of the one of its id (or added), name checked unique, sorted. */
function withMilestone(milestones: TemplateMilestone[], m: TemplateMilestone): TemplateMilestone[] {
  if (milestones.some((x) => x.id !== m.id && x.name === m.name)) throw invalid('name', `milestone names must be unique in a template; "${m.name}" is taken`);
  const rest = milestones.filter((x) => x.id !== m.id);
  return [...rest, m].sort(bySortOrder);
}

type MilestoneView = ReturnType<typeof templateMilestoneView>;
type StrategyView = ReturnType<typeof milestoneStrategyView>;

/** Adds a milestone (with its strategies, if given) to a template: last unless `sortOrder` says otherwise. */
export function createTemplateMilestone(templateId: string, input: MilestoneInput) {
  return (state: State, env: CommandEnv): Change<MilestoneView> => {
    const before = changeableTemplate(state, templateId);
    if (before.milestones.length >= MAX_MILESTONES) throw invalid('milestones', `a template can have at most ${MAX_MILESTONES} milestones`);
    const m = buildMilestone(state, env, { ...input, id: undefined, sortOrder: input.sortOrder ?? nextSortOrder(before.milestones) }, '', new Set(), 0);
    const after = { ...before, milestones: withMilestone(before.milestones, m) };
    return templateChange(before, after, templateMilestoneView(after, m));
  };
}

/** Renames or moves a milestone; `strategies`, when given, replace its strategies (those given back with their ids keep them). */
export function updateTemplateMilestone(templateId: string, milestoneId: string, input: MilestoneInput) {
  return (state: State, env: CommandEnv): Change<MilestoneView> => {
    const before = changeableTemplate(state, templateId);
    const old = requireTemplateMilestone(before, milestoneId);
    const built = buildMilestone(state, env, { ...input, id: old.id, sortOrder: input.sortOrder ?? old.sortOrder }, '', idsOf([old]), 0);
    const m = input.strategies === undefined ? { ...built, strategies: old.strategies } : built;
    const after = { ...before, milestones: withMilestone(before.milestones, m) };
    return templateChange(before, after, templateMilestoneView(after, m));
  };
}

export function deleteTemplateMilestone(templateId: string, milestoneId: string) {
  return (state: State): Change<null> => {
    const before = changeableTemplate(state, templateId);
    requireTemplateMilestone(before, milestoneId);
    return templateChange(before, { ...before, milestones: before.milestones.filter((m) => m.id !== milestoneId) }, null);
  };
}

/** The template with milestone `m`'s strategies replaced by `strategies` (sorted). */
function withStrategies(t: ReleaseTemplate, m: TemplateMilestone, strategies: MilestoneStrategy[]): ReleaseTemplate {
  return { ...t, milestones: t.milestones.map((x) => (x.id === m.id ? { ...m, strategies: [...strategies].sort(bySortOrder) } : x)) };
}

/** Adds a strategy to a milestone of a template: last unless `sortOrder` says otherwise. */
export function createMilestoneStrategy(templateId: string, milestoneId: string, input: MilestoneStrategyInput) {
  return (state: State, env: CommandEnv): Change<StrategyView> => {
    const before = changeableTemplate(state, templateId);
    const m = requireTemplateMilestone(before, milestoneId);
    if (m.strategies.length >= MAX_MILESTONE_STRATEGIES) throw invalid('strategies', `a milestone can have at most ${MAX_MILESTONE_STRATEGIES} strategies`);
    const s = buildMilestoneStrategy(state, env, { ...input, id: undefined, sortOrder: input.sortOrder ?? nextSortOrder(m.strategies) }, '', new Set(), 0);
    return templateChange(before, withStrategies(before, m, [...m.strategies, s]), milestoneStrategyView(s, m.id));
  };
}

/** Replaces a strategy of a milestone (it keeps its id, and its place unless `sortOrder` is given). */
export function updateMilestoneStrategy(templateId: string, milestoneId: string, strategyId: string, input: MilestoneStrategyInput) {
  return (state: State, env: CommandEnv): Change<StrategyView> => {
    const before = changeableTemplate(state, templateId);
    const m = requireTemplateMilestone(before, milestoneId);
    const old = requireMilestoneStrategy(m, strategyId);
    const s = buildMilestoneStrategy(state, env, { ...input, id: old.id, sortOrder: input.sortOrder ?? old.sortOrder }, '', new Set([old.id]), 0);
    return templateChange(before, withStrategies(before, m, m.strategies.map((x) => (x.id === old.id ? s : x))), milestoneStrategyView(s, m.id));
  };
}

export function deleteMilestoneStrategy(templateId: string, milestoneId: string, strategyId: string) {
  return (state: State): Change<null> => {
    const before = changeableTemplate(state, templateId);
    const m = requireTemplateMilestone(before, milestoneId);
    requireMilestoneStrategy(m, strategyId);
    return templateChange(before, withStrategies(before, m, m.strategies.filter((x) => x.id !== strategyId)), null);
  };
}

export function archiveTemplate(id: string) {
  return (state: State, env: CommandEnv): Change<null> => {
    const before = requireTemplate(state, id);
    if (before.archivedAt !== null) return { ops: [], events: [], result: null };
    const after = { ...before, archivedAt: env.now };
    return {
      ops: [{ o: 'releaseTemplate.put', template: after }],
      events: [templateEvent('release-plan-template-archived', templateView(after), templateView(before))],
      result: null,
    };
  };
}

export function deleteTemplate(id: string) {
  return (state: State): Change<null> => {
    const before = requireTemplate(state, id);
    return {
      ops: [{ o: 'releaseTemplate.del', id }],
      events: [templateEvent('release-plan-template-deleted', null, templateView(before))],
      result: null,
    };
  };
}

// Plans.

export function planAt(state: State, where: PlanWhere): ReleasePlan | undefined {
  return state.releasePlans.get(featureEnvKey(where.feature, where.environment));
}

/** The plan with id `planId` on the flag's environment (a 404 for any other). */
export function requirePlan(state: State, where: PlanWhere, planId: string): { feature: Feature; plan: ReleasePlan } {
  const feature = requireFeature(state, where.project, where.feature);
  requireFeatureEnv(state, feature, where.environment);
  const plan = planAt(state, where);
  if (!plan || plan.id !== planId) {
    throw new NotFoundError(`Could not find release plan "${planId}" for feature "${where.feature}" in environment "${where.environment}".`);
  }
  return { feature, plan };
}

function substitute(params: Record<string, string>, featureName: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) out[k] = v.split(FEATURE_NAME).join(featureName);
  return out;
}

/** A template milestone's strategies as the flag's strategies (its segments checked against the flag's project). */
function planStrategies(state: State, feature: Feature, environment: string, m: TemplateMilestone, env: CommandEnv, at: string): Strategy[] {
  return m.strategies.map((s, j) => {
    for (const id of s.segments) {
      const seg = state.segments.get(id);
      if (!seg) throw invalid(`${at}.strategies[${j}].segments`, `segment ${id} no longer exists`);
      if (seg.project && seg.project !== feature.project) throw invalid(`${at}.strategies[${j}].segments`, `segment ${id} belongs to project "${seg.project}"`);
    }
    return {
      id: env.newId(),
      featureName: feature.name,
      projectId: feature.project,
      environment,
      name: s.strategyName,
      title: s.title,
      disabled: false,
      sortOrder: s.sortOrder,
      constraints: s.constraints,
      parameters: substitute(s.parameters, feature.name),
      variants: s.variants,
      segments: s.segments,
      createdAt: env.now,
      seq: 0,
    };
  });
}

function planEvent(type: string, where: PlanWhere, data: unknown, preData: unknown = null): EventDraft {
  return { type, project: where.project, featureName: where.feature, environment: where.environment, data, preData };
}

/** The plan with `milestoneId` started at `now`: its progression (if any) counts from then. */
export function withStarted(plan: ReleasePlan, milestoneId: string, now: string): ReleasePlan {
  return {
    ...plan,
    activeMilestoneId: milestoneId,
    milestones: plan.milestones.map((m) => (m.id === milestoneId ? { ...m, startedAt: now, progressionExecutedAt: null, pausedAt: null } : m)),
  };
}

function startedEvent(where: PlanWhere, plan: ReleasePlan, milestoneId: string, from: string | null): EventDraft {
  const m = plan.milestones.find((x) => x.id === milestoneId)!;
  return planEvent('release-plan-milestone-started', where, { releasePlanId: plan.id, milestoneId, milestoneName: m.name }, from === null ? null : { milestoneId: from });
}

export function addPlan(where: PlanWhere, templateId: string) {
  return (state: State, env: CommandEnv): Change<ReturnType<typeof planView>> => {
    const feature = requireFeature(state, where.project, where.feature);
    const fe = requireFeatureEnv(state, feature, where.environment);
    const template = state.releaseTemplates.get(templateId);
    if (!template) throw invalid('templateId', `release plan template "${templateId}" does not exist`);
    if (template.archivedAt !== null) throw invalid('templateId', `release plan template "${template.name}" is archived`);
    if (planAt(state, where)) {
      throw invalid('templateId', `feature "${where.feature}" already has a release plan in environment "${where.environment}"; remove it first`);
    }
    const milestones = template.milestones.map((m, i): PlanMilestone => ({
      id: env.newId(),
      name: m.name,
      sortOrder: m.sortOrder,
      strategies: planStrategies(state, feature, where.environment, m, env, `milestones[${i}]`),
      startedAt: null,
      transitionCondition: null,
      progressionTarget: null,
      progressionExecutedAt: null,
      pausedAt: null,
    }));
    let plan: ReleasePlan = {
      id: env.newId(),
      name: template.name,
      description: template.description,
      createdByUserId: env.actor.userId,
      createdAt: env.now,
      featureName: feature.name,
      environment: where.environment,
      releasePlanTemplateId: template.id,
      activeMilestoneId: null,
      milestones,
    };
    // On an environment that is on, the plan starts at once with its first milestone.
    const first = milestones[0];
    if (fe.enabled && first) plan = withStarted(plan, first.id, env.now);
    const view = planView(plan);
    const events = [planEvent('release-plan-added', where, view)];
    if (plan.activeMilestoneId !== null) events.push(startedEvent(where, plan, plan.activeMilestoneId, null));
    return { ops: [{ o: 'releasePlan.put', plan }], events, result: view };
  };
}

export function deletePlan(where: PlanWhere, planId: string) {
  return (state: State): Change<null> => {
    const { plan } = requirePlan(state, where, planId);
    return {
      ops: [{ o: 'releasePlan.del', feature: where.feature, environment: where.environment }],
      events: [planEvent('release-plan-removed', where, null, planView(plan))],
      result: null,
    };
  };
}

/** Starts a milestone, forward or back. Starting the active one again is a no-op. */
export function startMilestone(where: PlanWhere, planId: string, milestoneId: string) {
  return (state: State, env: CommandEnv): Change<null> => {
    const { plan } = requirePlan(state, where, planId);
    if (!plan.milestones.some((m) => m.id === milestoneId)) {
      throw new NotFoundError(`Could not find milestone "${milestoneId}" in release plan "${planId}".`);
    }
    if (plan.activeMilestoneId === milestoneId) return { ops: [], events: [], result: null };
    const after = withStarted(plan, milestoneId, env.now);
    return { ops: [{ o: 'releasePlan.put', plan: after }], events: [startedEvent(where, after, milestoneId, plan.activeMilestoneId)], result: null };
  };
}

/**
 * What switching a flag's environment does to its release plan. On: a plan that never started
 * starts its first milestone; one paused by an earlier switch-off resumes, its progression
 * counting again from now. Off: the active milestone's progression is paused (nothing is served
 * from the plan meanwhile, so the time does not count). `strategies` are those the change starts
 * serving.
 */
export function onEnvironmentSwitch(
  state: State, feature: Feature, environment: string, enabled: boolean, now: string,
): { ops: Op[]; events: EventDraft[]; strategies: Strategy[] } {
  const none = { ops: [], events: [], strategies: [] };
  const plan = state.releasePlans.get(featureEnvKey(feature.name, environment));
  if (!plan || plan.milestones.length === 0) return none;
  const active = plan.milestones.find((m) => m.id === plan.activeMilestoneId);
  if (!active) {
    if (!enabled) return none;
    const first = plan.milestones[0];
    const after = withStarted(plan, first.id, now);
    const where = { project: feature.project, feature: feature.name, environment };
    return { ops: [{ o: 'releasePlan.put', plan: after }], events: [startedEvent(where, after, first.id, null)], strategies: first.strategies };
  }
  const pausedAt = enabled ? null : now;
  if ((active.pausedAt === null) === enabled) return none;
  if (!enabled && (active.transitionCondition === null || active.progressionExecutedAt !== null)) return none;
  const resumed = { ...active, pausedAt, ...(enabled ? { startedAt: now } : {}) };
  return { ops: [{ o: 'releasePlan.put', plan: { ...plan, milestones: plan.milestones.map((m) => (m === active ? resumed : m)) } }], events: [], strategies: [] };
}

/** Where a segment is used by release templates and plans, for the refusal to delete it. */
export function releaseUsesOfSegment(state: State, id: number): string[] {
  const out: string[] = [];
  for (const t of state.releaseTemplates.values()) {
    if (t.milestones.some((m) => m.strategies.some((s) => s.segments.includes(id)))) out.push(`template "${t.name}"`);
  }
  for (const p of state.releasePlans.values()) {
    if (p.milestones.some((m) => m.strategies.some((s) => s.segments.includes(id)))) out.push(`release plan of ${p.featureName}/${p.environment}`);
  }
  return out;
}
