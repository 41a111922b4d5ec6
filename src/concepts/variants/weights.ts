// Variant normalization with Unleash's weight rules: `fix` variants keep their weight, the
// rest of 1000 is split evenly among `variable` ones (remainder +1 to the first in input
// order), and the result is sorted by name as Unleash sorts it (byName).
import { invalid } from '../../core/errors.js';
import type { Variant, VariantOverride, VariantPayload } from '../../core/state/types.js';
import { checkName, nameSchema } from '../../core/state/names.js';
import { MAX_CONSTRAINT_VALUES } from '../constraints/constraints.js';

export const TOTAL_WEIGHT = 1000;

export interface VariantInput {
  name: string;
  weight?: number;
  weightType?: 'fix' | 'variable';
  stickiness?: string;
  payload?: VariantPayload;
  overrides?: VariantOverride[];
}

export function normalizeVariants(input: VariantInput[], field: string, allowOverrides: boolean, stickiness = 'default'): Variant[] {
  if (input.length === 0) return [];
  const seen = new Set<string>();
  input.forEach((v, i) => {
    checkName(`${field}[${i}].name`, v.name);
    if (seen.has(v.name)) throw invalid(`${field}[${i}].name`, `variant names must be unique; "${v.name}" appears twice`);
    seen.add(v.name);
    if (v.payload?.type === 'json') {
      try {
        JSON.parse(v.payload.value);
      } catch {
        throw invalid(`${field}[${i}].payload.value`, 'a json payload must hold valid JSON');
      }
    }
    if (v.payload?.type === 'number' && (v.payload.value.trim() === '' || !Number.isFinite(Number(v.payload.value)))) {
      throw invalid(`${field}[${i}].payload.value`, 'a number payload must hold a number');
    }
    if (!allowOverrides && v.overrides && v.overrides.length > 0) {
      throw invalid(`${field}[${i}].overrides`, 'strategy variants cannot have overrides');
    }
  });
  const fixed = input.filter((v) => v.weightType === 'fix');
  const variable = input.filter((v) => v.weightType !== 'fix');
  if (variable.length === 0) throw invalid(field, 'there must be at least one variant with weightType "variable"');
  const fixedTotal = fixed.reduce((sum, v) => sum + (v.weight ?? 0), 0);
  if (fixed.some((v) => v.weight === undefined)) throw invalid(field, 'a variant with weightType "fix" needs a weight');
  if (fixedTotal > TOTAL_WEIGHT) throw invalid(field, `the weights of "fix" variants add up to ${fixedTotal}, more than ${TOTAL_WEIGHT}`);
  const share = Math.floor((TOTAL_WEIGHT - fixedTotal) / variable.length);
  let remainder = (TOTAL_WEIGHT - fixedTotal) % variable.length;
  const out = input.map((v): Variant => {
    let weight = v.weight ?? 0;
    if (v.weightType !== 'fix') {
      weight = share + (remainder > 0 ? 1 : 0);
      if (remainder > 0) remainder--;
    }
    const variant: Variant = { name: v.name, weight, weightType: v.weightType === 'fix' ? 'fix' : 'variable', stickiness: v.stickiness || stickiness };
    if (v.payload) variant.payload = { type: v.payload.type, value: v.payload.value };
    if (allowOverrides) variant.overrides = (v.overrides ?? []).map((o) => ({ contextName: o.contextName, values: [...o.values] }));
    return variant;
  });
  return out.sort((a, b) => byName(a.name, b.name));
}

/**
 * Unleash orders variants with String.prototype.localeCompare, and SDKs walk the list in that
 * order, so the same weights give a user the same variant only if the order is the same: "a-b",
 * "ab", "Alpha", "blue", "Green", not code-unit order. The locale is fixed (en-US, what Unleash's
 * own image runs with) so that the order does not change with the host's LANG.
 */
export function byName(a: string, b: string): number {
  return (collator ??= new Intl.Collator('en-US')).compare(a, b);
}
/**
 * Made on first use: creating a Collator reads ICU's collation data into memory (4 MB of resident
 * memory), which a process that never orders two variants (a relay) need not pay.
 */
let collator: Intl.Collator | null = null;

/** Variants per list (a flag's in one environment, or a strategy's). */
export const MAX_VARIANTS = 100;
/** Characters in a variant's payload: SDKs receive it with every poll. */
export const MAX_PAYLOAD_LENGTH = 50_000;

/**
 * A variant, as every door takes it: the admin API, the state import and the features-batch
 * import (docs/decisions/0008-two-doors.md: weights and order are data, but what cannot be stored or
 * addressed safely is refused everywhere alike). The name is URL friendly, as docs/decisions/0009-names.md says;
 * every string and list has the admin API's bound, so an import cannot bring a million-character
 * name or payload that the admin API would refuse.
 */
export const variantSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: nameSchema,
    weight: { type: 'integer', minimum: 0, maximum: TOTAL_WEIGHT },
    weightType: { enum: ['fix', 'variable'] },
    stickiness: { type: 'string', maxLength: 100 },
    payload: {
      type: 'object',
      required: ['type', 'value'],
      properties: {
        type: { enum: ['json', 'csv', 'string', 'number'] },
        value: { type: 'string', maxLength: MAX_PAYLOAD_LENGTH, description: `a string of at most ${MAX_PAYLOAD_LENGTH} characters` },
      },
    },
    overrides: {
      type: 'array',
      maxItems: MAX_VARIANTS,
      items: {
        type: 'object',
        required: ['contextName', 'values'],
        properties: {
          contextName: { type: 'string', minLength: 1, maxLength: 100 },
          values: { type: 'array', maxItems: MAX_CONSTRAINT_VALUES, items: { type: 'string', maxLength: 1000 } },
        },
      },
    },
  },
};

/** A list of variants, in every door. */
export const variantListSchema = { type: 'array', maxItems: MAX_VARIANTS, items: variantSchema };

/**
 * Variants that come in as data (state and features-batch imports) are stored as given:
 * recomputing weights could move a remainder and change which users get which variant.
 */
export function importedVariants(list: unknown[] | undefined): Variant[] {
  return ((list ?? []) as Variant[]).map((v) => {
    const out: Variant = { name: v.name, weight: v.weight ?? 0, weightType: v.weightType === 'fix' ? 'fix' : 'variable' };
    if (v.stickiness !== undefined) out.stickiness = v.stickiness;
    if (v.payload) out.payload = { type: v.payload.type, value: v.payload.value };
    if (v.overrides) out.overrides = v.overrides.map((o) => ({ contextName: o.contextName, values: [...o.values] }));
    return out;
  });
}
