// Variants and evaluations as shared, immutable values: every variant of a strategy or an
// environment is turned, when flags are prepared, into the evaluations that can choose it.
import type { Variant } from '../../core/state/types.js';

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
  /** Unique among evaluations (they are interned). */
  id: number;
}

let lastId = 0;

/** A new id, unique among evaluations and prepared flags. */
export const nextId = () => ++lastId;

export const DISABLED_VARIANT: VariantResult = Object.freeze({ name: 'disabled', enabled: false });

// Evaluations are few distinct values, made when flags are prepared and shared by every answer:
// answering for a context allocates nothing per flag, and an answer can be named by the ids of
// its evaluations (answers.ts).
export const evaluation = (enabled: boolean, variant: VariantResult, reason: Evaluation['reason']): Evaluation => Object.freeze({ enabled, variant, reason, id: ++lastId });
export const OFF = evaluation(false, DISABLED_VARIANT, 'DISABLED');
export const NOT_TARGETED = evaluation(false, DISABLED_VARIANT, 'TARGETING_MATCH');
export const ON_STATIC = evaluation(true, DISABLED_VARIANT, 'STATIC');
export const ON_TARGETED = evaluation(true, DISABLED_VARIANT, 'TARGETING_MATCH');

/** A variant with the evaluations that choose it: by a weighted pick, or by an override or rule. */
export interface VariantChoice {
  variant: Variant;
  split: Evaluation;
  matched: Evaluation;
}

/** The variants of a strategy or an environment, ready to pick from. */
export interface VariantSet {
  choices: VariantChoice[];
  total: number;
  hasOverrides: boolean;
}

export function variantSet(variants: Variant[]): VariantSet {
  let total = 0;
  const choices = variants.map((v) => {
    total += v.weight;
    const r: VariantResult = Object.freeze(v.payload ? { name: v.name, enabled: true, payload: { type: v.payload.type, value: v.payload.value } } : { name: v.name, enabled: true });
    return { variant: v, split: evaluation(true, r, 'SPLIT'), matched: evaluation(true, r, 'TARGETING_MATCH') };
  });
  return { choices, total, hasOverrides: variants.some((v) => v.overrides && v.overrides.length > 0) };
}
