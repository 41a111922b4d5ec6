// Constraint validation and normalization (Unleash's operator set and value rules).
import type { Constraint } from '../state/types.js';
import { invalid } from '../state/names.js';

export const STRING_OPERATORS = ['IN', 'NOT_IN', 'STR_ENDS_WITH', 'STR_STARTS_WITH', 'STR_CONTAINS'] as const;
export const NUM_OPERATORS = ['NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE'] as const;
export const DATE_OPERATORS = ['DATE_AFTER', 'DATE_BEFORE'] as const;
export const SEMVER_OPERATORS = ['SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE'] as const;
export const OPERATORS = [...STRING_OPERATORS, ...NUM_OPERATORS, ...DATE_OPERATORS, ...SEMVER_OPERATORS, 'REGEX'] as const;

export const MAX_CONSTRAINTS = 30;
export const MAX_CONSTRAINT_VALUES = 1000;

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export const constraintSchema = {
  type: 'object',
  required: ['contextName', 'operator'],
  properties: {
    contextName: { type: 'string', minLength: 1, maxLength: 100 },
    operator: { enum: [...OPERATORS] },
    values: { type: 'array', maxItems: MAX_CONSTRAINT_VALUES, items: { type: 'string', maxLength: 1000 } },
    value: { type: 'string', maxLength: 1000 },
    caseInsensitive: { type: 'boolean' },
    inverted: { type: 'boolean' },
  },
};

export const constraintListSchema = { type: 'array', maxItems: MAX_CONSTRAINTS, items: constraintSchema };

export interface ConstraintInput {
  contextName: string;
  operator: string;
  values?: string[];
  value?: string;
  caseInsensitive?: boolean;
  inverted?: boolean;
}

const has = (list: readonly string[], op: string) => list.includes(op);

export function normalizeConstraint(c: ConstraintInput, field: string): Constraint {
  const op = c.operator;
  // The schema lists the operators too, but segments and imports call this without it; an
  // unknown operator would otherwise be stored and reach SDKs that cannot evaluate it.
  if (!has(OPERATORS, op)) throw invalid(`${field}.operator`, `unknown constraint operator "${op}"; use one of ${OPERATORS.join(', ')}`);
  const out: Constraint = {
    contextName: c.contextName,
    operator: op,
    values: c.values ? [...c.values] : [],
    caseInsensitive: c.caseInsensitive ?? false,
    inverted: c.inverted ?? false,
  };
  if (has(STRING_OPERATORS, op)) {
    if (out.values!.length === 0) throw invalid(`${field}.values`, `operator ${op} needs at least one value`);
    return out;
  }
  const value = c.value ?? (c.values && c.values.length === 1 ? c.values[0] : undefined);
  if (value === undefined || value === '') throw invalid(`${field}.value`, `operator ${op} needs a "value"`);
  if (has(NUM_OPERATORS, op) && (value.trim() === '' || !Number.isFinite(Number(value)))) {
    throw invalid(`${field}.value`, `operator ${op} needs a number, got "${value}"`);
  }
  if (has(DATE_OPERATORS, op) && (!ISO_DATE.test(value) || Number.isNaN(Date.parse(value)))) {
    throw invalid(`${field}.value`, `operator ${op} needs an RFC 3339 date, got "${value}"`);
  }
  if (has(SEMVER_OPERATORS, op) && !SEMVER.test(value)) {
    throw invalid(`${field}.value`, `operator ${op} needs a semantic version, got "${value}"`);
  }
  if (op === 'REGEX') {
    try {
      new RegExp(value);
    } catch {
      throw invalid(`${field}.value`, `"${value}" is not a valid regular expression`);
    }
    if (out.inverted) throw invalid(`${field}.inverted`, 'a REGEX constraint cannot be inverted');
  }
  out.value = value;
  out.values = [];
  return out;
}

export function normalizeConstraints(list: ConstraintInput[] | undefined, field: string): Constraint[] {
  return (list ?? []).map((c, i) => normalizeConstraint(c, `${field}[${i}]`));
}
