// Pure strategy commands: add, update, delete, reorder. Each returns the ops and events of
// the change; the engine makes it durable.
import type { Change, Command, CommandEnv, EventDraft } from '../../core/engine/command.js';
import { invalid, NotFoundError, ValidationError } from '../../core/errors.js';
import { normalizeConstraints, type ConstraintInput } from '../constraints/constraints.js';
import { requireFeature, requireFeatureEnv } from '../../core/state/lookup.js';
import type { Op } from '../../core/state/ops.js';
import { featureEnvKey, milestoneStrategiesOf, strategiesOf, type State } from '../../core/state/state.js';
import type { Constraint, Feature, Strategy, StrategyType, Variant } from '../../core/state/types.js';
import { normalizeVariants, type VariantInput } from '../variants/weights.js';
import { setEnvironmentVariants } from '../variants/logic.js';
import { inSequence } from '../../core/engine/sequence.js';
import { checkParameters } from '../strategy-types/logic.js';
import { checkLegalValues } from '../context-fields/logic.js';

export const MAX_STRATEGIES = 30;
export const MAX_SEGMENTS_PER_STRATEGY = 5;

export interface StrategyInput {
  name?: string;
  title?: string | null;
  disabled?: boolean | null;
  sortOrder?: number;
  constraints?: ConstraintInput[];
  variants?: VariantInput[];
  parameters?: Record<string, string | number | boolean>;
  segments?: number[];
}

export interface Where {
  project: string;
  feature: string;
  environment: string;
}

/** The strategy as the admin API shows it. */
export function strategyView(s: Strategy) {
  return {
    id: s.id,
    name: s.name,
    title: s.title,
    disabled: s.disabled,
    featureName: s.featureName,
    sortOrder: s.sortOrder,
    segments: s.segments,
    constraints: s.constraints,
    parameters: s.parameters,
    variants: s.variants,
  };
}

const PERCENT = /^(100|[1-9]?\d)$/;

function normalizeParameters(state: State, feature: Feature, type: string, raw: StrategyInput['parameters']): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw ?? {})) params[k] = String(v);
  if (type === 'flexibleRollout') {
    params.rollout ??= '100';
    params.stickiness ||= state.projects.get(feature.project)?.defaultStickiness || 'default';
    params.groupId ||= feature.name;
    if (!PERCENT.test(params.rollout)) throw invalid('parameters.rollout', `"rollout" must be a whole number from 0 to 100, got "${params.rollout}"`);
  }
  if (type.startsWith('gradualRollout') && params.percentage !== undefined && !PERCENT.test(params.percentage)) {
    throw invalid('parameters.percentage', `"percentage" must be a whole number from 0 to 100, got "${params.percentage}"`);
  }
  return params;
}

/** New constraints keep to the legal values of the fields they name (context-fields/logic.ts). */
function legalConstraints(state: State, constraints: Constraint[]): Constraint[] {
  checkLegalValues(state, constraints, 'constraints');
  return constraints;
}

function checkType(state: State, name: string): StrategyType {
  const t = state.strategyTypes.get(name);
  if (!t) {
    const known = [...state.strategyTypes.keys()].join(', ');
    throw new ValidationError(`Request validation failed: strategy type "${name}" does not exist; the known ones are ${known}.`, [
      { path: 'name', message: `unknown strategy type "${name}"; the known ones are ${known}` },
    ]);
  }
  return t;
}

function checkSegments(state: State, feature: Feature, ids: number[]): number[] {
  if (ids.length > MAX_SEGMENTS_PER_STRATEGY) throw invalid('segments', `a strategy can use at most ${MAX_SEGMENTS_PER_STRATEGY} segments`);
  for (const id of ids) {
    const seg = state.segments.get(id);
    if (!seg) throw invalid('segments', `segment ${id} does not exist`);
    if (seg.project && seg.project !== feature.project) throw invalid('segments', `segment ${id} belongs to project "${seg.project}"`);
  }
  return [...new Set(ids)].sort((a, b) => a - b);
}

function strategyEvent(type: string, where: Where, data: unknown, preData?: unknown): EventDraft {
  return { type, project: where.project, featureName: where.feature, environment: where.environment, data: data ?? null, preData: preData ?? null };
}

/** The ids of a flag's strategies in an environment, unsorted: cheaper than strategiesOf when order does not matter. */
function idsOf(state: State, where: Where): readonly string[] {
  return state.strategiesByFeatureEnv.get(featureEnvKey(where.feature, where.environment)) ?? [];
}

/** One past the highest sortOrder in use: a new strategy goes last. */
function nextSortOrder(state: State, ids: readonly string[]): number {
  let next = 0;
  for (const id of ids) next = Math.max(next, state.strategies.get(id)!.sortOrder + 1);
  return next;
}

/** Builds a full strategy from input; `base` is the existing one for updates. */
function buildStrategy(
  state: State, env: CommandEnv, feature: Feature, where: Where, input: StrategyInput, base: Strategy | null, ids = idsOf(state, where),
): Strategy {
  const name = input.name ?? base?.name;
  if (!name) throw invalid('name', '"name" is required');
  const type = checkType(state, name);
  const sortOrder = input.sortOrder ?? base?.sortOrder ?? nextSortOrder(state, ids);
  const parameters = input.parameters !== undefined || !base || name !== base.name
    ? normalizeParameters(state, feature, name, input.parameters ?? (base && name === base.name ? base.parameters : {}))
    : base.parameters;
  checkParameters(type, parameters);
  return {
    id: base?.id ?? env.newId(),
    featureName: feature.name,
    projectId: feature.project,
    environment: where.environment,
    name,
    title: input.title !== undefined ? input.title : (base?.title ?? null),
    disabled: input.disabled !== undefined && input.disabled !== null ? input.disabled : (base?.disabled ?? false),
    sortOrder,
    constraints: input.constraints !== undefined ? legalConstraints(state, normalizeConstraints(input.constraints, 'constraints')) : (base?.constraints ?? []),
    parameters,
    // A variant written without stickiness follows its strategy's, as SDKs would do with none.
    variants: input.variants !== undefined ? normalizeVariants(input.variants, 'variants', false, parameters.stickiness) : (base?.variants ?? []),
    segments: input.segments !== undefined ? checkSegments(state, feature, input.segments) : (base?.segments ?? []),
    createdAt: base?.createdAt ?? env.now,
    seq: base?.seq ?? state.nextStrategySeq,
  };
}

export function addStrategy(where: Where, input: StrategyInput) {
  return (state: State, env: CommandEnv): Change<ReturnType<typeof strategyView>> => {
    const feature = requireFeature(state, where.project, where.feature);
    requireFeatureEnv(state, feature, where.environment);
    const ids = idsOf(state, where);
    if (ids.length >= MAX_STRATEGIES) {
      throw new ValidationError(`Failed to create strategy. You can't create more than the established limit of ${MAX_STRATEGIES}.`);
    }
    const strategy = buildStrategy(state, env, feature, where, input, null, ids);
    const view = strategyView(strategy);
    return { ops: [{ o: 'strategy.put', strategy }], events: [strategyEvent('feature-strategy-add', where, view)], result: view };
  };
}

export function requireStrategy(state: State, where: Where, id: string): Strategy {
  const s = state.strategies.get(id);
  if (!s || s.featureName !== where.feature || s.environment !== where.environment) {
    throw new NotFoundError(`Could not find strategy with id "${id}" for feature "${where.feature}" in environment "${where.environment}".`);
  }
  return s;
}

/** When no enabled strategy is left, an enabled environment is switched off (as Unleash does). */
function disableIfNoneEnabled(state: State, where: Where, remaining: Strategy[]): { ops: Op[]; events: EventDraft[] } {
  const fe = state.featureEnvs.get(where.feature)?.get(where.environment);
  // A release milestone's strategies are served too: the environment stays on for them.
  if (!fe || !fe.enabled || remaining.some((s) => !s.disabled) || milestoneStrategiesOf(state, where.feature, where.environment).length > 0) return { ops: [], events: [] };
  return {
    ops: [{ o: 'featureEnv.put', feature: where.feature, env: { ...fe, enabled: false } }],
    events: [{ type: 'feature-environment-disabled', project: where.project, featureName: where.feature, environment: where.environment }],
  };
}

export function updateStrategy(where: Where, id: string, input: StrategyInput) {
  return (state: State, env: CommandEnv): Change<ReturnType<typeof strategyView>> => {
    const feature = requireFeature(state, where.project, where.feature);
    requireFeatureEnv(state, feature, where.environment);
    const before = requireStrategy(state, where, id);
    const strategy = buildStrategy(state, env, feature, where, input, before);
    const view = strategyView(strategy);
    const remaining = strategiesOf(state, where.feature, where.environment).map((s) => (s.id === id ? strategy : s));
    const off = disableIfNoneEnabled(state, where, remaining);
    return {
      ops: [{ o: 'strategy.put', strategy }, ...off.ops],
      events: [strategyEvent('feature-strategy-update', where, view, strategyView(before)), ...off.events],
      result: view,
    };
  };
}

export function deleteStrategy(where: Where, id: string) {
  return (state: State): Change<null> => {
    const feature = requireFeature(state, where.project, where.feature);
    requireFeatureEnv(state, feature, where.environment);
    const before = requireStrategy(state, where, id);
    const remaining = strategiesOf(state, where.feature, where.environment).filter((s) => s.id !== id);
    const off = disableIfNoneEnabled(state, where, remaining);
    return {
      ops: [{ o: 'strategy.del', id }, ...off.ops],
      events: [...off.events, strategyEvent('feature-strategy-remove', where, null, strategyView(before))],
      result: null,
    };
  };
}

export function setSortOrder(where: Where, order: { id: string; sortOrder: number }[]) {
  return (state: State): Change<null> => {
    const feature = requireFeature(state, where.project, where.feature);
    requireFeatureEnv(state, feature, where.environment);
    const before = strategiesOf(state, where.feature, where.environment);
    const ops: Op[] = [];
    const updated = new Map<string, Strategy>();
    order.forEach((item, i) => {
      const s = before.find((x) => x.id === item.id);
      if (!s) throw invalid(`[${i}].id`, `strategy "${item.id}" is not a strategy of "${where.feature}" in "${where.environment}"`);
      if (s.sortOrder !== item.sortOrder) updated.set(s.id, { ...s, sortOrder: item.sortOrder });
    });
    for (const s of updated.values()) ops.push({ o: 'strategy.put', strategy: s });
    if (ops.length === 0) return { ops: [], events: [], result: null };
    const after = before.map((s) => updated.get(s.id) ?? s).sort((a, b) => a.sortOrder - b.sortOrder || a.seq - b.seq);
    return {
      ops,
      events: [
        strategyEvent('strategy-order-changed', where, { strategyIds: after.map((s) => s.id) }, { strategyIds: before.map((s) => s.id) }),
      ],
      result: null,
    };
  };
}

/** What a copy made: the new strategies, and the variants it set (null: the source had none, the target's were left). */
export interface CopiedEnvironment { strategies: ReturnType<typeof strategyView>[]; variants: Variant[] | null }

/**
 * Copies a flag's set-up in environment `from` to `where.environment`: its strategies, in their
 * order, after the ones already there (a copy adds, it never takes away), and its variants in
 * place of the target's when it has any. One change, so the log holds all of it or none: a copy
 * that would pass the strategy limit halfway is refused whole.
 */
export function copyEnvironment(where: Where, from: string) {
  return (state: State, env: CommandEnv): Change<CopiedEnvironment> => {
    const feature = requireFeature(state, where.project, where.feature);
    requireFeatureEnv(state, feature, where.environment);
    const source = requireFeatureEnv(state, feature, from);
    if (from === where.environment) throw invalid('from', `"from" must be another environment than "${from}"`);
    const strategies = strategiesOf(state, where.feature, from);
    if (strategies.length === 0 && source.variants.length === 0) throw invalid('from', `"${where.feature}" has no strategies and no variants in "${from}": nothing to copy`);
    const adds = strategies.map((s) => addStrategy(where, {
      name: s.name, title: s.title, disabled: s.disabled, parameters: s.parameters, constraints: s.constraints, variants: s.variants, segments: s.segments,
    }));
    const steps: Command<unknown>[] = source.variants.length > 0 ? [...adds, setEnvironmentVariants(where.project, where.feature, [where.environment], source.variants)] : adds;
    const joined = inSequence(state, env, steps);
    const made = joined.result.slice(0, adds.length) as ReturnType<typeof strategyView>[];
    return { ops: joined.ops, events: joined.events, result: { strategies: made, variants: source.variants.length > 0 ? joined.result[adds.length] as Variant[] : null } };
  };
}

/** The strategy Unleash adds when an environment is switched on without an enabled strategy. */
export function defaultRolloutStrategy(state: State, env: CommandEnv, feature: Feature, environment: string): Strategy {
  const existing = strategiesOf(state, feature.name, environment);
  return {
    id: env.newId(),
    featureName: feature.name,
    projectId: feature.project,
    environment,
    name: 'flexibleRollout',
    title: null,
    disabled: false,
    sortOrder: existing.reduce((max, s) => Math.max(max, s.sortOrder + 1), 0),
    constraints: [],
    parameters: { rollout: '100', stickiness: state.projects.get(feature.project)?.defaultStickiness || 'default', groupId: feature.name },
    variants: [],
    segments: [],
    createdAt: env.now,
    seq: state.nextStrategySeq,
  };
}

export { strategyEvent };
