// Name rules (docs/decisions/0009-names.md), stated once in words for error messages and once
// as schema fragments for the OpenAPI description. Three kinds:
// - flag names: any Unicode but whitespace, control characters and "/" (the specification has
//   UTF-8 names; admin paths carry them percent-encoded);
// - segment names: any text, trimmed (Unleash allows "Beta users");
// - everything else that appears in a path (projects, environments, tag types, strategy types,
//   context fields, variant names): Unleash's URL-friendly rule.
import { invalid } from '../errors.js';

export const NAME_MAX = 100;

const URL_FRIENDLY_RULE = `1 to ${NAME_MAX} characters among letters, digits and - _ . ! ~ * ' ( ), and not "." or ".."`;
const FLAG_NAME_RULE = `1 to ${NAME_MAX} characters with no whitespace, no control character and no "/", and not "." or ".."`;
const SEGMENT_NAME_RULE = `1 to ${NAME_MAX} characters once leading and trailing spaces are trimmed`;

/** URL-friendly names: projects, environments, variants and the like. */
export function checkName(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length < 1 || value.length > NAME_MAX || value === '.' || value === '..' || !isUrlFriendly(value)) {
    throw invalid(field, `"${field}" must be ${URL_FRIENDLY_RULE}; you gave ${shown(value)}`);
  }
  return value;
}

/** Flag names: any Unicode but whitespace, control characters and "/". */
export function checkFlagName(field: string, value: unknown): string {
  if (typeof value !== 'string' || !isFlagName(value)) throw invalid(field, `"${field}" must be ${FLAG_NAME_RULE}; you gave ${shown(value)}`);
  return value;
}

/** Segment names: any text, trimmed. Returns the trimmed name, which is what is stored. */
export function checkSegmentName(field: string, value: unknown): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name.length < 1 || name.length > NAME_MAX || !isWellFormed(name)) {
    throw invalid(field, `"${field}" must be ${SEGMENT_NAME_RULE}; you gave ${shown(value)}`);
  }
  return name;
}

// \s covers Unicode whitespace; \p{Cc} the C0/C1 controls; \p{Cf} format characters such as
// zero-width joiners are allowed (emoji sequences need them).
const FLAG_NAME_FORBIDDEN = /[\s\p{Cc}/]/u;

export function isFlagName(value: string): boolean {
  return value.length >= 1 && value.length <= NAME_MAX && value !== '.' && value !== '..' && !FLAG_NAME_FORBIDDEN.test(value) && isWellFormed(value);
}

/** A lone surrogate cannot be percent-encoded (encodeURIComponent throws), so no path could address it. */
function isWellFormed(value: string): boolean {
  return !/\p{Cs}/u.test(value);
}

function isUrlFriendly(value: string): boolean {
  try {
    return encodeURIComponent(value) === value;
  } catch {
    return false;
  }
}

function shown(value: unknown): string {
  if (typeof value !== 'string') return `a ${value === null ? 'null' : typeof value}`;
  return JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);
}

// Schema fragments. `description` is what validation errors say when a value breaks the rule
// (see http/validation.ts), so the message and the OpenAPI description cannot drift apart.

/** URL-friendly names (projects, environments, …). */
export const nameSchema = {
  type: 'string', minLength: 1, maxLength: NAME_MAX, pattern: "^[A-Za-z0-9\\-_.!~*'()]+$", not: { enum: ['.', '..'] },
  description: URL_FRIENDLY_RULE,
};

/** Flag names. ajv compiles patterns with the `u` flag, so \p classes work. */
export const flagNameSchema = {
  type: 'string', minLength: 1, maxLength: NAME_MAX, pattern: '^[^\\s\\p{Cc}\\p{Cs}/]+$', not: { enum: ['.', '..'] },
  description: FLAG_NAME_RULE,
};

/** Segment names (trimmed by the command, which also checks the trimmed length). */
export const segmentNameSchema = { type: 'string', minLength: 1, maxLength: 1000, description: SEGMENT_NAME_RULE };
