// What the upstream grants a token, and the pure commands that hold it in the state: a token the
// upstream accepts becomes an API token of the state (kept by its keyed hash, like every token),
// so the token authenticator and the SDK fast paths serve it unchanged; one it no longer accepts
// is deleted, and its streams end (the push hub rechecks them on a token change).
import type { Command, EventDraft } from '../../core/engine/command.js';
import { tokenPrefix } from '../../concepts/tokens/format.js';
import type { ApiToken } from '../../core/state/types.js';
import { normalizeScope, type RelayScope } from './scope.js';

/** The kinds of token a relay serves: SDK tokens only (it has no admin API). */
export type GrantType = 'client' | 'frontend';

export interface Grant {
  type: GrantType;
  scope: RelayScope;
  /**
   * When the upstream stops taking the token (ISO), as its answer said; null when it said none.
   * The relay refuses the token from then on without asking.
   */
  expiresAt: string | null;
}

/** Tokens the relay holds are named so; anything else in a relay's data folder is not its own. */
export const RELAY_TOKEN_NAME = 'relay';
/** Tokens held from PRETRUSTED_TOKENS: never asked about upstream, so never revoked by it. */
export const PRETRUSTED_TOKEN_NAME = 'relay-pretrusted';

/**
 * Reads one entry of `/edge/validate`'s answer (`{token, type, projects, environment}`). Backend
 * tokens are client tokens; admin tokens and entries without one environment are refused (null).
 */
export function grantOf(entry: { type?: unknown; projects?: unknown; environment?: unknown; project?: unknown; expiresAt?: unknown }): Grant | null {
  const raw = typeof entry.type === 'string' ? entry.type.toLowerCase() : '';
  const type: GrantType | null = raw === 'client' || raw === 'backend' ? 'client' : raw === 'frontend' ? 'frontend' : null;
  if (type === null) return null;
  const env = entry.environment;
  if (typeof env !== 'string' || env === '' || env === '*') return null;
  let projects = Array.isArray(entry.projects) ? entry.projects.filter((p): p is string => typeof p === 'string' && p !== '') : [];
  if (projects.length === 0 && typeof entry.project === 'string' && entry.project !== '') projects = [entry.project];
  if (projects.length === 0) return null;
  return { type, scope: normalizeScope(env, projects), expiresAt: expiryOf(entry.expiresAt) };
}

/** An expiry as the upstream wrote it (Fanion's /edge/validate gives one), normalized; null for none or one that is not a date. */
export function expiryOf(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

const sameGrant = (t: ApiToken, g: Grant) =>
  t.type === g.type && t.expiresAt === g.expiresAt && t.environment === g.scope.environment && t.projects.length === g.scope.projects.length && t.projects.every((p, i) => p === g.scope.projects[i]);

function tokenData(t: ApiToken) {
  return { tokenName: t.tokenName, type: t.type, environment: t.environment, projects: t.projects, prefix: t.prefix, expiresAt: t.expiresAt };
}

/** Holds (or updates) a token the upstream granted; nothing when the state already holds it so. */
export function holdToken(hash: string, grant: Grant, source: string, name = RELAY_TOKEN_NAME): Command<boolean> {
  return (state, env) => {
    const had = state.apiTokens.get(hash);
    if (had && had.tokenName === name && sameGrant(had, grant)) return { ops: [], events: [], result: false };
    const token: ApiToken = {
      hash, tokenName: name, type: grant.type, environment: grant.scope.environment, projects: grant.scope.projects, expiresAt: grant.expiresAt,
      createdAt: had?.createdAt ?? env.now, prefix: tokenPrefix(grant.scope.projects, grant.scope.environment), seenAt: had?.seenAt ?? null,
    };
    const event: EventDraft = {
      type: had ? 'api-token-updated' : 'api-token-created', environment: token.environment,
      data: { ...tokenData(token), source }, preData: had ? tokenData(had) : null,
    };
    return { ops: [{ o: 'token.put', token }], events: [event], result: true };
  };
}

/** Forgets tokens the upstream no longer grants. */
export function dropTokens(hashes: readonly string[], source: string): Command<number> {
  return (state) => {
    const gone = hashes.map((h) => state.apiTokens.get(h)).filter((t): t is ApiToken => t !== undefined);
    return {
      ops: gone.map((t) => ({ o: 'token.del' as const, hash: t.hash })),
      events: gone.map((t) => ({ type: 'api-token-deleted', environment: t.environment, data: null, preData: { ...tokenData(t), source } })),
      result: gone.length,
    };
  };
}
