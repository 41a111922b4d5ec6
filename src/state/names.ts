import { ValidationError } from '../errors.js';

/** Names of flags, projects, environments, segments (decisions.md § Admin API). */
export function checkName(field: string, value: unknown): string {
  if (typeof value !== 'string') throw invalid(field, `"${field}" must be a string`);
  if (value.length < 1 || value.length > 100) throw invalid(field, `"${field}" must be 1 to 100 characters long`);
  if (value === '.' || value === '..') throw invalid(field, `"${field}" cannot be "." or ".."`);
  if (!isUrlFriendly(value)) throw invalid(field, `"${field}" must be URL friendly. You provided "${value}".`);
  return value;
}

/** encodeURIComponent throws on a lone surrogate; such a string is not URL friendly either. */
function isUrlFriendly(value: string): boolean {
  try {
    return encodeURIComponent(value) === value;
  } catch {
    return false;
  }
}

export function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Request validation failed: ${message}.`, [{ path, message }]);
}

/** JSON-schema fragment for the same rule, so the OpenAPI description states it too. */
export const nameSchema = { type: 'string', minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9\\-_.!~*'()]+$", not: { enum: ['.', '..'] } };
