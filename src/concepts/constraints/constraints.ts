// Constraints through two doors (docs/decisions/0008-two-doors.md): what a person writes through
// the admin API is checked strictly (normalizeConstraint); what arrives as data in an import is
// stored as given (importedConstraint), since SDKs are specified to evaluate even an unknown
// operator, an empty value list or a regular expression that does not compile (as false).
import net from 'node:net';
import { invalid } from '../../core/errors.js';
import type { Constraint } from '../../core/state/types.js';

export const STRING_OPERATORS = ['IN', 'NOT_IN', 'STR_ENDS_WITH', 'STR_STARTS_WITH', 'STR_CONTAINS'] as const;
export const NUM_OPERATORS = ['NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE'] as const;
export const DATE_OPERATORS = ['DATE_AFTER', 'DATE_BEFORE'] as const;
export const SEMVER_OPERATORS = ['SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE'] as const;
export const OPERATORS = [...STRING_OPERATORS, ...NUM_OPERATORS, ...DATE_OPERATORS, ...SEMVER_OPERATORS, 'REGEX', 'IN_CIDR'] as const;
/** Operators that take a list of `values`; the others take one `value`. */
const LIST_OPERATORS: readonly string[] = [...STRING_OPERATORS, 'IN_CIDR'];

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

/** The import's constraint: any operator name, any values; still bounded in size. */
export const importedConstraintListSchema = {
  type: 'array',
  maxItems: MAX_CONSTRAINTS,
  items: {
    ...constraintSchema,
    properties: { ...constraintSchema.properties, operator: { type: 'string', minLength: 1, maxLength: 100 } },
  },
};

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
  if (LIST_OPERATORS.includes(op)) {
    if (out.values!.length === 0) throw invalid(`${field}.values`, `operator ${op} needs at least one value`);
    if (op === 'IN_CIDR') {
      out.values!.forEach((v, i) => {
        if (!isCidrOrIp(v)) throw invalid(`${field}.values[${i}]`, `operator IN_CIDR needs IPv4 or IPv6 addresses or CIDR ranges such as 10.0.0.0/8, got "${v}"`);
      });
    }
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
      new RegExp(withoutInlineFlags(value));
    } catch {
      throw invalid(`${field}.value`, `"${value}" is not a valid regular expression`);
    }
    if (out.inverted) throw invalid(`${field}.inverted`, 'a REGEX constraint cannot be inverted');
  }
  out.value = value;
  out.values = [];
  return out;
}

/**
 * Unleash checks patterns with RE2, and SDKs honour RE2's inline flags ("(?i)abc", "(?s:a.b)"),
 * which JavaScript's RegExp (Node 20) does not parse; they are taken out before the check.
 */
function withoutInlineFlags(pattern: string): string {
  return pattern.replace(/\(\?[imsU]+\)/g, '').replace(/\(\?[imsU]+:/g, '(?:');
}

/** An address (`192.168.1.7`, `::1`) or a CIDR range (`10.0.0.0/8`, `2001:db8::/32`). */
export function isCidrOrIp(value: string): boolean {
  const slash = value.indexOf('/');
  const address = slash === -1 ? value : value.slice(0, slash);
  const family = net.isIP(address);
  if (family === 0) return false;
  if (slash === -1) return true;
  const bits = value.slice(slash + 1);
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** A constraint from an import, kept as the document gives it (only absent fields get defaults). */
export function importedConstraint(c: ConstraintInput): Constraint {
  const out: Constraint = {
    contextName: c.contextName,
    operator: c.operator,
    values: c.values ? [...c.values] : [],
    caseInsensitive: c.caseInsensitive ?? false,
    inverted: c.inverted ?? false,
  };
  if (c.value !== undefined) out.value = c.value;
  return out;
}

export function normalizeConstraints(list: ConstraintInput[] | undefined, field: string): Constraint[] {
  return (list ?? []).map((c, i) => normalizeConstraint(c, `${field}[${i}]`));
}
