// The shape of a token string, `<project>:<environment>.<secret>`. The scope written in the string
// is only a hint for humans and SDK logs: authorization always uses the scope stored with the
// token's hash, so editing the prefix of a valid token gives an unknown token, not a wider one.
import { randomBytes } from 'node:crypto';
import { SCOPED_TOKEN } from '../../core/config.js';

/** `*` for every project, the name for one, `[]` for several (as Unleash spells it). */
export function projectPart(projects: string[]): string {
  if (projects.includes('*')) return '*';
  return projects.length === 1 ? projects[0] : '[]';
}

/** The non-secret part of a token, kept so listings can show what a token is for. */
export function tokenPrefix(projects: string[], environment: string): string {
  return `${projectPart(projects)}:${environment}.`;
}

/** A fresh token: 32 random bytes, so guessing one is hopeless. */
export function generateToken(projects: string[], environment: string): string {
  return tokenPrefix(projects, environment) + randomBytes(32).toString('hex');
}

export interface ParsedToken {
  project: string;
  environment: string;
}

/**
 * Reads the scope out of a token given to INIT_*_API_TOKENS, where it is the only source of the
 * scope. Returns null when the string is not `<project>:<environment>.<secret>`.
 */
export function parseSeedToken(token: string): ParsedToken | null {
  const m = SCOPED_TOKEN.exec(token);
  if (!m) return null;
  return { project: m[1], environment: m[2] };
}

/** The credential in an Authorization header, with or without `Bearer `; null when absent. */
export function credentialOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  let v = header.trim();
  if (v.length > 7 && v.slice(0, 7).toLowerCase() === 'bearer ') v = v.slice(7).trim();
  return v.length > 0 ? v : null;
}
