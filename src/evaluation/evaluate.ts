// Evaluating prepared flags for one context: is it on, and with which variant. The rules are the
// official Node SDK's: the first strategy that matches decides (its variants win over the flag's),
// a flag's own variants take an override first, then a weighted pick by stickiness; parents are
// checked first (a parent with parents of its own, or one the caller cannot see, fails).
import type { Dependency, Feature, Segment, Strategy, Variant } from '../state/types.js';
import { compileStrategy, type CompiledStrategy, type Runtime } from './compile.js';
import { resolve, type EvalContext } from './context.js';
import { variantBucket } from './murmur.js';

export interface PreparedFlag {
  name: string;
  project: string;
  impressionData: boolean;
  /** On in this environment. */
  enabled: boolean;
  /** Its enabled strategies; an empty list means on for everyone (when enabled). */
  strategies: CompiledStrategy[];
  /** The environment's variants. */
  variants: Variant[];
  dependencies: Dependency[];
}

export interface VariantResult {
  name: string;
  enabled: boolean;
  payload?: { type: string; value: string };
}

export interface Evaluation {
  enabled: boolean;
  /** The variant the SDK's getVariant gives, with the flag on or off. */
  variant: VariantResult;
  /** How it was decided, for OFREP's reason: a weighted pick, a targeting rule, or the environment being off. */
  reason: 'DISABLED' | 'TARGETING_MATCH' | 'SPLIT' | 'STATIC';
}

export const DISABLED_VARIANT: VariantResult = Object.freeze({ name: 'disabled', enabled: false });

/** A flag prepared for `environment`: what a client record holds, compiled. */
export function prepareFlag(
  f: Feature, environment: string, strategies: Strategy[], env: { enabled: boolean; variants: Variant[] } | undefined, segments: Map<number, Segment>, hostname: string,
): PreparedFlag {
  return {
    name: f.name,
    project: f.project,
    impressionData: f.impressionData,
    enabled: env?.enabled ?? false,
    strategies: strategies.filter((s) => !s.disabled).map((s) => compileStrategy(s, segments, hostname)),
    variants: env?.variants ?? [],
    dependencies: f.dependencies,
  };
}

function seedOf(ctx: EvalContext, stickiness: string | undefined, rt: Runtime): string {
  if (stickiness !== undefined && stickiness !== 'default') {
    const v = resolve(ctx, stickiness);
    if (v) return v;
  } else {
    for (const v of [ctx.userId, ctx.sessionId, ctx.remoteAddress]) if (typeof v === 'string' && v !== '') return v;
  }
  rt.volatile = true;
  return String(Math.round(rt.random() * 100000));
}

/** A weighted pick (after overrides), or null when the weights add up to nothing. */
export function pickVariant(variants: Variant[], groupId: string, stickiness: string | undefined, ctx: EvalContext, rt: Runtime): { variant: Variant; split: boolean } | null {
  let total = 0;
  for (const v of variants) total += v.weight;
  if (total <= 0) return null;
  for (const v of variants) {
    if (v.overrides?.some((o) => o.values.some((value) => value === resolve(ctx, o.contextName)))) return { variant: v, split: false };
  }
  const target = variantBucket(seedOf(ctx, stickiness, rt), groupId, total);
  let counter = 0;
  for (const v of variants) {
    if (v.weight === 0) continue;
    counter += v.weight;
    if (counter >= target) return { variant: v, split: true };
  }
  return null;
}

const asResult = (v: Variant): VariantResult => (v.payload ? { name: v.name, enabled: true, payload: { type: v.payload.type, value: v.payload.value } } : { name: v.name, enabled: true });

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
      } else if (!strategiesMatch(parent, ctx, rt, lookup).enabled) return false;
    } else if (strategiesMatch(parent, ctx, rt, lookup).enabled) return false;
  }
  return true;
}

function strategiesMatch(flag: PreparedFlag, ctx: EvalContext, rt: Runtime, lookup: FlagLookup): { enabled: boolean; by: CompiledStrategy | null } {
  if (!flag.enabled || !parentsSatisfied(flag, ctx, rt, lookup)) return { enabled: false, by: null };
  if (flag.strategies.length === 0) return { enabled: true, by: null };
  for (const s of flag.strategies) if (s.check(ctx, rt)) return { enabled: true, by: s };
  return { enabled: false, by: null };
}

/** On or off, and the variant, for one context. */
export function evaluate(flag: PreparedFlag, ctx: EvalContext, rt: Runtime, lookup: FlagLookup): Evaluation {
  const m = strategiesMatch(flag, ctx, rt, lookup);
  if (!m.enabled) return { enabled: false, variant: DISABLED_VARIANT, reason: flag.enabled ? 'TARGETING_MATCH' : 'DISABLED' };
  const s = m.by;
  if (s && s.variants.length > 0) {
    // Weights adding up to nothing pick none; the flag's own variants then have their turn.
    const picked = pickVariant(s.variants, s.groupId, s.variantStickiness, ctx, rt);
    if (picked) return { enabled: true, variant: asResult(picked.variant), reason: picked.split ? 'SPLIT' : 'TARGETING_MATCH' };
  }
  if (flag.variants.length > 0) {
    const picked = pickVariant(flag.variants, flag.name, flag.variants[0]?.stickiness, ctx, rt);
    if (picked) return { enabled: true, variant: asResult(picked.variant), reason: picked.split ? 'SPLIT' : 'TARGETING_MATCH' };
  }
  const unconditional = flag.dependencies.length === 0 && (s === null || s.unconditional);
  return { enabled: true, variant: DISABLED_VARIANT, reason: unconditional ? 'STATIC' : 'TARGETING_MATCH' };
}
