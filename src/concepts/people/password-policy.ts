// What a new password must be: at least 12 characters (NIST SP 800-63B's advice is length, not
// character classes), at most 256 (hashing is cheap either way, but a limit keeps bodies honest),
// and not one of the most common passwords, nor one of them with digits or symbols added around it
// ("Password123!" is as guessable as "password"). A refusal names the rule, never the password.
import { invalid, type ValidationError } from '../../core/errors.js';
import { COMMON_PASSWORDS } from './common-passwords.js';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

const COMMON = new Set(COMMON_PASSWORDS);

/** Why `password` may not be used (a 400 naming `field`), or null when it may. */
export function passwordProblem(password: string, field = 'password'): ValidationError | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return invalid(field, `a password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  if (length > MAX_PASSWORD_LENGTH) return invalid(field, `a password may have at most ${MAX_PASSWORD_LENGTH} characters`);
  const lower = password.toLowerCase();
  if (COMMON.has(lower)) return invalid(field, 'this password is one of the most common ones; choose another');
  const core = lower.replace(/^[\d\W_]+/u, '').replace(/[\d\W_]+$/u, '');
  if (core.length > 0 && core !== lower && COMMON.has(core)) {
    return invalid(field, 'this password is a common one with digits or symbols added; choose another');
  }
  if (new Set(lower).size <= 2) return invalid(field, 'this password repeats one or two characters; choose another');
  return null;
}
