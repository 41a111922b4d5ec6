// The playground: for a context, what every flag would do in an environment, and why, in the shape
// of Unleash's playground answers. Each strategy is reported whole (its result, each constraint's
// and each segment's), evaluated with the same compiled checks SDK answers use; only the reporting
// is the playground's own. Pure: the state, the request and a runtime in, the answer out.
//
// Unleash's rules, kept as they are (docs/reference/admin-api.md, "Playground"):
// - every strategy is evaluated, disabled ones too (their constraints and segments get results, the
//   strategy itself is "unknown, unevaluated"); the flag's strategy result is true when one matched,
//   else "unknown" when one could not be evaluated, else false;
// - applicationHostname and custom strategy types cannot be evaluated by a server: "unknown,
//   incomplete" (false when their constraints already fail);
// - strategies are evaluated when the environment is off too; the flag is on only when the
//   environment is on, a strategy matched and its parents are as it depends on them;
// - the flag's `variants` are the matched strategy's (even when off), else the environment's.
import { ValidationError } from '../../core/errors.js';
import { servedStrategiesOf, type State } from '../../core/state/state.js';
import type { Constraint, Feature, Segment, Strategy, Variant } from '../../core/state/types.js';
import { compileConstraint, parameterCheck, strategyVariants, type Check, type Runtime } from '../evaluation/compile.js';
import { TOP_LEVEL, type EvalContext } from '../evaluation/context.js';
import { pickVariant } from '../evaluation/evaluate.js';
import { variantSet, type VariantResult, type VariantSet } from '../evaluation/variants.js';

/** Flags × environments × contexts evaluated by one advanced request, at most (Unleash's limit). */
export const MAX_EVALUATIONS = 15_000;
/**
 * Results one advanced answer may hold, at most: an evaluation counts one, plus one per strategy,
 * constraint and segment it reports. Bounds the answer's size (a few hundred bytes a result).
 */
const MAX_RESULTS = 100_000;

/** The strategy types a server can evaluate; others depend on where the SDK runs. */
const EVALUABLE = new Set(['default', 'userWithId', 'remoteAddress', 'flexibleRollout', 'gradualRolloutUserId', 'gradualRolloutSessionId', 'gradualRolloutRandom']);

type Tri = boolean | 'unknown';
type Scalar = string | number | boolean;
type ContextInput = Record<string, Scalar | Record<string, Scalar> | undefined>;

export interface PlaygroundRequest {
  environment: string;
  projects?: '*' | string[];
  context: ContextInput;
}

export interface AdvancedRequest {
  environments: string[];
  projects?: '*' | string[];
  context: ContextInput;
}

interface CompiledConstraint {
  raw: Constraint;
  check: Check;
}

interface CompiledSegment {
  segment: Segment | undefined;
  id: number;
  constraints: CompiledConstraint[];
}

interface PlayStrategy {
  raw: Strategy;
  constraints: CompiledConstraint[];
  segments: CompiledSegment[];
  /** The strategy's own rule; null for a type a server cannot evaluate. */
  rule: Check | null;
  variants: VariantSet;
  groupId: string;
  variantStickiness: string | undefined;
}

/** A flag in one environment, compiled once per request for every context asked about. */
interface PlayFlag {
  feature: Feature;
  environment: string;
  enabled: boolean;
  strategies: PlayStrategy[];
  envVariants: Variant[];
  /** The environment's own variants, as they are picked from. */
  envVariantSet: VariantSet;
  /** Results one evaluation of it reports (see MAX_RESULTS). */
  weight: number;
}

const compiled = (c: Constraint): CompiledConstraint => ({ raw: c, check: compileConstraint(c) });

function playStrategy(s: Strategy, segments: Map<number, Segment>, hostname: string): PlayStrategy {
  // Each check is compiled on its own (each result is reported); the variants are picked as SDK evaluation picks them.
  return {
    raw: s,
    constraints: s.constraints.map(compiled),
    segments: s.segments.map((id) => {
      const segment = segments.get(id);
      return { segment, id, constraints: (segment?.constraints ?? []).map(compiled) };
    }),
    rule: EVALUABLE.has(s.name) ? parameterCheck(s.name, s.parameters, hostname) : null,
    ...strategyVariants(s),
  };
}

/** The flag as the playground evaluates it in `environment` (every strategy, disabled ones too). */
function playFlag(state: State, feature: Feature, environment: string, hostname: string): PlayFlag {
  const env = state.featureEnvs.get(feature.name)?.get(environment);
  const served = servedStrategiesOf(state, feature.name, environment);
  const strategies = served.map((s) => playStrategy(s, state.segments, hostname));
  const weight = 1 + strategies.reduce((n, s) => n + 1 + s.constraints.length + s.segments.reduce((m, g) => m + 1 + g.constraints.length, 0), 0);
  return {
    feature, environment, enabled: env?.enabled ?? false, strategies, envVariants: env?.variants ?? [],
    envVariantSet: variantSet(env?.variants ?? []), weight,
  };
}

/** Looks a parent up among the flags the caller may see. */
type ParentLookup = (name: string) => PlayFlag | undefined;

/** Parents: flags of the projects the caller may see, compiled on first use. */
function parentLookup(state: State, environment: string, visible: (project: string) => boolean, hostname: string): ParentLookup {
  const memo = new Map<string, PlayFlag | undefined>();
  return (name) => {
    if (memo.has(name)) return memo.get(name);
    const f = state.features.get(name);
    const p = f && !f.archived && visible(f.project) ? playFlag(state, f, environment, hostname) : undefined;
    memo.set(name, p);
    return p;
  };
}

/**
 * Whether the flag's parents are as it wants them. As Unleash's playground has it: a parent wanted
 * on must be on (environment, a strategy, and the variant when named); a parent wanted off must
 * have no strategy that matches, whether its environment is on or not (so a parent switched off
 * whose strategy would match the context leaves the child unsatisfied). A parent with parents of
 * its own, or one the caller cannot see, fails.
 */
function parentsMet(flag: PlayFlag, ctx: EvalContext, rt: Runtime, parents: ParentLookup): boolean {
  for (const dep of flag.feature.dependencies) {
    const parent = parents(dep.feature);
    if (!parent || parent.feature.dependencies.length > 0) return false;
    const e = evaluateFlag(parent, ctx, rt, parents);
    if (dep.enabled !== false) {
      if (!e.isEnabled) return false;
      if (dep.variants.length > 0 && !dep.variants.includes(String((e.variant as { name: string }).name))) return false;
    } else if ((e.strategies as { result: Tri }).result !== false) return false;
  }
  return true;
}

// What the answer holds, in Unleash's field order.

function variantView(v: Variant): Record<string, unknown> {
  const out: Record<string, unknown> = { name: v.name, weight: v.weight };
  if (v.payload) out.payload = { type: v.payload.type, value: v.payload.value };
  if (v.stickiness !== undefined) out.stickiness = v.stickiness;
  out.weightType = v.weightType;
  if (v.overrides && v.overrides.length > 0) out.overrides = v.overrides.map((o) => ({ contextName: o.contextName, values: [...o.values] }));
  return out;
}

function constraintView(c: Constraint, result: boolean, strategyLevel: boolean): Record<string, unknown> {
  // Unleash gives a strategy's constraints an `inverted` (first) and its segments' none more.
  const out: Record<string, unknown> = strategyLevel ? { inverted: c.inverted } : {};
  out.values = c.values ?? [];
  if (c.value !== undefined) out.value = c.value;
  if (!strategyLevel) out.inverted = c.inverted;
  out.operator = c.operator;
  out.contextName = c.contextName;
  out.caseInsensitive = c.caseInsensitive;
  out.result = result;
  return out;
}

const resultOf = (v: VariantResult) => (v.payload ? { name: v.name, enabled: v.enabled, payload: { type: v.payload.type, value: v.payload.value } } : { name: v.name, enabled: v.enabled });

interface StrategyOutcome {
  enabled: Tri;
  view: Record<string, unknown>;
  variant: VariantResult | null;
}

function evaluateStrategy(flag: PlayFlag, s: PlayStrategy, ctx: EvalContext, rt: Runtime): StrategyOutcome {
  const constraints = s.constraints.map((c) => ({ c, result: c.check(ctx, rt) }));
  const segments = s.segments.map((g) => {
    const results = g.constraints.map((c) => ({ c, result: c.check(ctx, rt) }));
    return { g, result: g.segment !== undefined && results.every((r) => r.result), results };
  });
  const passes = constraints.every((r) => r.result) && segments.every((r) => r.result);
  let enabled: Tri;
  let status: string;
  let variant: VariantResult | null = null;
  if (s.raw.disabled) {
    enabled = 'unknown';
    status = 'unevaluated';
  } else if (s.rule === null) {
    enabled = passes ? 'unknown' : false;
    status = 'incomplete';
  } else {
    enabled = passes && s.rule(ctx, rt);
    status = 'complete';
    // Unleash reports the variant a strategy would give whether it matched or not.
    if (s.variants.total > 0) variant = pickVariant(s.variants, s.groupId, s.variantStickiness, ctx, rt)?.variant ?? null;
  }
  const result: Record<string, unknown> = { enabled, evaluationStatus: status };
  if (variant) {
    result.variant = resultOf(variant);
    result.variants = s.raw.variants.map(variantView);
  }
  const { raw } = s;
  return {
    enabled,
    variant,
    view: {
      name: raw.name,
      id: raw.id,
      disabled: raw.disabled,
      parameters: { ...raw.parameters },
      result,
      constraints: constraints.map((r) => constraintView(r.c.raw, r.result, true)),
      segments: segments.filter((r) => r.g.segment !== undefined).map((r) => ({
        name: r.g.segment!.name, id: r.g.id, result: r.result, constraints: r.results.map((x) => constraintView(x.c.raw, x.result, false)),
      })),
      links: { edit: `/projects/${flag.feature.project}/features/${flag.feature.name}/strategies/edit?environmentId=${flag.environment}&strategyId=${raw.id}` },
    },
  };
}

/** One flag for one context: the fields every playground answer has. */
function evaluateFlag(flag: PlayFlag, ctx: EvalContext, rt: Runtime, parents: ParentLookup): Record<string, unknown> {
  const outcomes = flag.strategies.map((s) => evaluateStrategy(flag, s, ctx, rt));
  const matched = outcomes.find((o) => o.enabled === true);
  const strategiesResult: Tri = outcomes.length === 0 ? flag.enabled : matched ? true : outcomes.some((o) => o.enabled === 'unknown') ? 'unknown' : false;
  const unsatisfied = flag.feature.dependencies.length > 0 && !parentsMet(flag, ctx, rt, parents);
  const isEnabled = flag.enabled && strategiesResult === true && !unsatisfied;
  const matchedStrategy = matched ? flag.strategies[outcomes.indexOf(matched)] : undefined;
  let variant: Record<string, unknown>;
  if (!isEnabled) variant = { name: 'disabled', enabled: false, feature_enabled: false };
  else if (matched?.variant) variant = { ...resultOf(matched.variant), feature_enabled: true };
  else {
    const picked = flag.envVariantSet.total > 0 ? pickVariant(flag.envVariantSet, flag.feature.name, flag.envVariants[0]?.stickiness, ctx, rt) : null;
    variant = picked ? { ...resultOf(picked.variant), feature_enabled: true } : { feature_enabled: true, featureEnabled: true, name: 'disabled', enabled: false };
  }
  const variants = matchedStrategy && matchedStrategy.raw.variants.length > 0 ? matchedStrategy.raw.variants : flag.envVariants;
  return {
    isEnabled,
    isEnabledInCurrentEnvironment: flag.enabled,
    hasUnsatisfiedDependency: unsatisfied,
    variant,
    variants: variants.map(variantView),
    name: flag.feature.name,
    projectId: flag.feature.project,
    strategies: { result: strategiesResult, data: outcomes.map((o) => o.view) },
  };
}

// Contexts.

const IS_TOP = new Set<string>(TOP_LEVEL);

/** The context as evaluated: well-known fields on top, every other (and `properties`) as properties. */
function evalContext(flat: Record<string, string>): EvalContext {
  const ctx: EvalContext = { properties: {} };
  for (const [k, v] of Object.entries(flat)) {
    if (IS_TOP.has(k)) (ctx as unknown as Record<string, string>)[k] = v;
    else if (k !== '__proto__') ctx.properties[k] = v;
  }
  return ctx;
}

/** The context as the answer echoes it: values as text, `properties` kept apart. */
function echoContext(input: ContextInput): ContextInput {
  const out: ContextInput = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined) continue;
    if (typeof v === 'object') out[k] = Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, String(pv)]));
    else out[k] = String(v);
  }
  return out;
}

/** One context from the request: `properties` merged in with the other fields. */
function flatContext(input: ContextInput): Record<string, string> {
  const flat: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined) continue;
    if (typeof v === 'object') for (const [pk, pv] of Object.entries(v)) flat[pk] = String(pv);
    else flat[k] = String(v);
  }
  return flat;
}

/**
 * The fields of an advanced request, each with its values: a value is a list, comma-separated
 * (taken apart as is: Unleash trims nothing). `appName` goes last, as Unleash lists it.
 */
export function contextFields(input: ContextInput): [string, string[]][] {
  const fields: [string, string[]][] = [];
  let appName: [string, string[]] | null = null;
  const add = (k: string, v: Scalar) => {
    const entry: [string, string[]] = [k, String(v).split(',')];
    const at = fields.findIndex(([name]) => name === k);
    if (at >= 0) fields[at] = entry;
    else fields.push(entry);
  };
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined) continue;
    if (k === 'appName' && typeof v !== 'object') appName = [k, String(v).split(',')];
    else if (typeof v === 'object') for (const [pk, pv] of Object.entries(v)) add(pk, pv);
    else add(k, v);
  }
  if (appName) fields.push(appName);
  return fields;
}

/** How many contexts the fields make (every combination), without making them. */
export function combinationCount(fields: [string, string[]][]): number {
  return fields.reduce((n, [, values]) => n * values.length, 1);
}

/** Every combination, the first field changing slowest. */
export function* combinations(fields: [string, string[]][]): Generator<Record<string, string>> {
  const at = fields.map(() => 0);
  const total = combinationCount(fields);
  for (let i = 0; i < total; i++) {
    const ctx: Record<string, string> = {};
    fields.forEach(([k, values], f) => {
      ctx[k] = values[at[f]];
    });
    yield ctx;
    for (let f = fields.length - 1; f >= 0; f--) {
      if (++at[f] < fields[f][1].length) break;
      at[f] = 0;
    }
  }
}

/** Refuses an advanced request whose answer would exceed the bounds, before anything is evaluated. */
export function checkBounds(environments: number, flags: number, contexts: number, results: number): void {
  const evaluations = environments * flags * contexts;
  // The contexts themselves are made before any flag is evaluated: bounded even when no flag is selected.
  if (evaluations > MAX_EVALUATIONS || contexts > MAX_EVALUATIONS) {
    throw new ValidationError(
      `Request validation failed: the playground would evaluate ${Math.max(evaluations, contexts)} combinations, over the limit of ${MAX_EVALUATIONS}: ` +
      `select fewer environments (${environments}), flags (${flags}) or context values (${contexts} combinations).`,
      [{ path: 'context', message: `${Math.max(evaluations, contexts)} combinations of environment, flag and context; at most ${MAX_EVALUATIONS}` }],
    );
  }
  if (results > MAX_RESULTS) {
    throw new ValidationError(
      `Request validation failed: the answer would hold ${results} results (flags, strategies, constraints and segments over ${contexts} contexts), over the limit of ${MAX_RESULTS}: ` +
      'select fewer environments, projects or context values.',
      [{ path: 'context', message: `${results} results; at most ${MAX_RESULTS}` }],
    );
  }
}

/** The flags of the request's projects the caller may see, live ones, by name. */
function selectedFlags(state: State, projects: '*' | string[] | undefined, visible: (project: string) => boolean): Feature[] {
  const wanted = projects === undefined || projects === '*' || projects.includes('*') ? null : new Set(projects);
  const out: Feature[] = [];
  for (const f of state.features.values()) if (!f.archived && visible(f.project) && (wanted === null || wanted.has(f.project))) out.push(f);
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export interface Scope {
  visible: (project: string) => boolean;
  hostname: string;
}

/**
 * POST /api/admin/playground: every selected flag in one environment for one context. The flags
 * (and their parents) are compiled first, then evaluated a flag at a time, yielding between them.
 */
export function* playgroundSteps(state: State, req: PlaygroundRequest, scope: Scope, rt: Runtime): Generator<void, { input: unknown; features: Record<string, unknown>[] }> {
  const ctx = evalContext(flatContext(req.context));
  const lookup = parentLookup(state, req.environment, scope.visible, scope.hostname);
  const flags = selectedFlags(state, req.projects, scope.visible).map((f) => playFlag(state, f, req.environment, scope.hostname));
  for (const f of flags) for (const d of f.feature.dependencies) lookup(d.feature);
  const features: Record<string, unknown>[] = [];
  for (const f of flags) {
    features.push(evaluateFlag(f, ctx, rt, lookup));
    yield;
  }
  return { input: { environment: req.environment, projects: req.projects, context: echoContext(req.context) }, features };
}

/**
 * POST /api/admin/playground/advanced: every selected flag in each environment for every
 * combination of the context's values. A generator that yields after each evaluation, so the route
 * can let the event loop run between slices (15,000 evaluations take a second or more).
 */
export function* advancedSteps(state: State, req: AdvancedRequest, scope: Scope, rt: Runtime): Generator<void, { input: unknown; features: Record<string, unknown>[] }> {
  const fields = contextFields(req.context);
  const contexts = combinationCount(fields);
  const flags = selectedFlags(state, req.projects, scope.visible);
  const environments = [...new Set(req.environments)];
  // The count first (cheap, and refused before any flag is compiled when it is far too many).
  checkBounds(environments.length, flags.length, contexts, 0);
  const compiled = environments.map((environment) => ({ environment, flags: flags.map((f) => playFlag(state, f, environment, scope.hostname)), lookup: parentLookup(state, environment, scope.visible, scope.hostname) }));
  const results = compiled.reduce((n, e) => n + e.flags.reduce((m, f) => m + f.weight, 0), 0) * contexts;
  checkBounds(environments.length, flags.length, contexts, results);
  // Parents compiled now too: what is evaluated below is the state as it was when the request came.
  for (const e of compiled) for (const f of e.flags) for (const d of f.feature.dependencies) e.lookup(d.feature);
  const list = [...combinations(fields)].map((flat) => ({ flat, ctx: evalContext(flat) }));
  const features: Record<string, unknown>[] = [];
  for (const [i, f] of flags.entries()) {
    const byEnv: Record<string, unknown[]> = {};
    for (const e of compiled) {
      const entries: unknown[] = [];
      for (const { flat, ctx } of list) {
        const { isEnabled, isEnabledInCurrentEnvironment, hasUnsatisfiedDependency, variant, variants, name, projectId, strategies } = evaluateFlag(e.flags[i], ctx, rt, e.lookup);
        entries.push({ isEnabled, isEnabledInCurrentEnvironment, hasUnsatisfiedDependency, variant, context: flat, variants, name, environment: e.environment, projectId, strategies });
        yield;
      }
      byEnv[e.environment] = entries;
    }
    features.push({ name: f.name, projectId: f.project, environments: byEnv });
  }
  return { input: { environments: req.environments, projects: req.projects, context: echoContext(req.context) }, features };
}
