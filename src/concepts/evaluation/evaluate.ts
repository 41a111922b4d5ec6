// Evaluating prepared flags for one context: is it on, and with which variant. The rules are the
// official Node SDK's: the first strategy that matches decides (its variants win over the flag's),
// a flag's own variants take an override first, then a weighted pick by stickiness; parents are
// checked first (a parent with parents of its own, or one the caller cannot see, fails).
import type { Dependency, Feature, Segment, Strategy, Variant } from '../../core/state/types.js';
import { compileStrategy, type CompiledStrategy, type Runtime } from './compile.js';
import { NOT_TARGETED, OFF, ON_STATIC, ON_TARGETED, nextId, variantSet, type Evaluation, type VariantSet } from './variants.js';

export { DISABLED_VARIANT, type Evaluation, type VariantResult } from './variants.js';
import { resolve, type EvalContext } from './context.js';
import { variantBucket } from './murmur.js';

export interface PreparedFlag {
  /** Unique among prepared flags: a flag prepared again gets a new one (answers.ts names answers by them). */
  id: number;
  name: string;
  project: string;
  impressionData: boolean;
  /** On in this environment. */
  enabled: boolean;
  /** Its enabled strategies; an empty list means on for everyone (when enabled). */
  strategies: CompiledStrategy[];
  /** The environment's variants. */
  variants: VariantSet;
  dependencies: Dependency[];
}

/** A flag prepared for `environment`: what a client record holds, compiled. */
export function prepareFlag(
  f: Feature, environment: string, strategies: Strategy[], env: { enabled: boolean; variants: Variant[] } | undefined, segments: Map<number, Segment>, hostname: string,
): PreparedFlag {
  return {
    id: nextId(),
    name: f.name,
    project: f.project,
    impressionData: f.impressionData,
    enabled: env?.enabled ?? false,
    strategies: strategies.filter((s) => !s.disabled).map((s) => compileStrategy(s, segments, hostname)),
    variants: variantSet(env?.variants ?? []),
    dependencies: f.dependencies,
  };
}

function seedOf(ctx: EvalContext, stickiness: string | undefined, rt: Runtime): string {
  if (stickiness !== undefined && stickiness !== 'default') {
    const v = resolve(ctx, stickiness);
    if (v) return v;
  } else {
    if (typeof ctx.userId === 'string' && ctx.userId !== '') return ctx.userId;
    if (typeof ctx.sessionId === 'string' && ctx.sessionId !== '') return ctx.sessionId;
    if (typeof ctx.remoteAddress === 'string' && ctx.remoteAddress !== '') return ctx.remoteAddress;
  }
  rt.volatile = true;
  return String(Math.round(rt.random() * 100000));
}

/** The evaluation of a pick among `set` (after overrides), or null when the weights add up to nothing. */
export function pickVariant(set: VariantSet, groupId: string, stickiness: string | undefined, ctx: EvalContext, rt: Runtime): Evaluation | null {
  if (set.total <= 0) return null;
  const { choices } = set;
  if (set.hasOverrides) {
    for (const c of choices) {
      if (c.variant.overrides?.some((o) => o.values.some((value) => value === resolve(ctx, o.contextName)))) return c.matched;
    }
  }
  const target = variantBucket(seedOf(ctx, stickiness, rt), groupId, set.total);
  let counter = 0;
  for (const c of choices) {
    if (c.variant.weight === 0) continue;
    counter += c.variant.weight;
    if (counter >= target) return c.split;
  }
  return null;
}

/** Looks a flag up among those the caller may see (parents outside it count as missing). */
export type FlagLookup = (name: string) => PreparedFlag | undefined;

function parentsSatisfied(flag: PreparedFlag, ctx: EvalContext, rt: Runtime, lookup: FlagLookup): boolean {
  for (const dep of flag.dependencies) {
    const parent = lookup(dep.feature);
    if (!parent || parent.dependencies.length > 0) return false;
    if (dep.enabled !== false) {
      if (dep.variants.length > 0) {
        const e = evaluate(parent, ctx, rt, lookup);
        if (!(e.enabled && dep.variants.includes(e.variant.name))) return false;
      } else if (strategiesMatch(parent, ctx, rt, lookup) === NO_MATCH) return false;
    } else if (strategiesMatch(parent, ctx, rt, lookup) !== NO_MATCH) return false;
  }
  return true;
}

/** Sentinels of strategiesMatch: off (no strategy matched, or off or parents unmet), on with no strategy. */
const NO_MATCH = null;
const NO_STRATEGY = 'none' as const;

function strategiesMatch(flag: PreparedFlag, ctx: EvalContext, rt: Runtime, lookup: FlagLookup): CompiledStrategy | typeof NO_STRATEGY | null {
  if (!flag.enabled || (flag.dependencies.length > 0 && !parentsSatisfied(flag, ctx, rt, lookup))) return NO_MATCH;
  const list = flag.strategies;
  if (list.length === 0) return NO_STRATEGY;
  for (let i = 0; i < list.length; i++) if (list[i].check(ctx, rt)) return list[i];
  return NO_MATCH;
}

/** On or off, and the variant, for one context. */
export function evaluate(flag: PreparedFlag, ctx: EvalContext, rt: Runtime, lookup: FlagLookup): Evaluation {
  const s = strategiesMatch(flag, ctx, rt, lookup);
  if (s === NO_MATCH) return flag.enabled ? NOT_TARGETED : OFF;
  if (s !== NO_STRATEGY && s.variants.total > 0) {
    // Weights adding up to nothing pick none; the flag's own variants then have their turn.
    const picked = pickVariant(s.variants, s.groupId, s.variantStickiness, ctx, rt);
    if (picked) return picked;
  }
  if (flag.variants.total > 0) {
    const picked = pickVariant(flag.variants, flag.name, flag.variants.choices[0]?.variant.stickiness, ctx, rt);
    if (picked) return picked;
  }
  return flag.dependencies.length === 0 && (s === NO_STRATEGY || s.unconditional) ? ON_STATIC : ON_TARGETED;
}
