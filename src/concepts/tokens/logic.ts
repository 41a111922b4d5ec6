// Pure token commands. They only ever see the keyed hash of a secret: the secret is generated and
// hashed by the caller, so it cannot reach an op, an event or the WAL.
import type { Change, CommandEnv, EventDraft } from '../../core/engine/command.js';
import { invalid, NotFoundError, ValidationError } from '../../core/errors.js';
import type { Op } from '../../core/state/ops.js';
import type { State } from '../../core/state/state.js';
import type { ApiToken, TokenType } from '../../core/state/types.js';
import { projectPart } from './format.js';
import { tokenId } from './hasher.js';

/** Unleash's default limit on the number of API tokens. */
export const TOKEN_LIMIT = 2000;

export interface CreateTokenBody {
  tokenName: string;
  type: string;
  environment?: string;
  project?: string;
  projects?: string[];
  expiresAt?: string | null;
}

/** A token's scope and metadata, checked and normalized, before it has a secret. */
export interface TokenSpec {
  tokenName: string;
  type: TokenType;
  environment: string;
  projects: string[];
  expiresAt: string | null;
}

export interface TokenView {
  id: string;
  tokenName: string;
  type: TokenType;
  environment: string;
  project: string;
  projects: string[];
  expiresAt: string | null;
  createdAt: string;
  seenAt: string | null;
  alias: null;
  prefix: string;
}

/** How PUT/DELETE name a token: by its secret (through its hash) or by the listed id. */
export interface TokenRef {
  hash: string;
  id: string;
}

export function tokenView(t: ApiToken): TokenView {
  return {
    id: tokenId(t.hash),
    tokenName: t.tokenName,
    type: t.type,
    environment: t.environment,
    project: projectPart(t.projects),
    projects: t.projects,
    expiresAt: t.expiresAt,
    createdAt: t.createdAt,
    seenAt: t.seenAt ?? null,
    alias: null,
    prefix: t.prefix,
  };
}

export function normalizeType(raw: string): TokenType {
  const t = raw.toLowerCase();
  if (t === 'backend' || t === 'client') return 'client';
  if (t === 'admin' || t === 'frontend') return t;
  throw invalid('type', `"type" must be one of admin, client, backend, frontend`);
}

/** Turns a POST body into a spec: defaults, `project` vs `projects`, one environment for SDK tokens. */
export function specFromBody(body: CreateTokenBody): TokenSpec {
  const type = normalizeType(body.type);
  if (body.project !== undefined && body.projects !== undefined) {
    throw invalid('projects', 'give either "project" or "projects", not both');
  }
  const projects = normalizeProjects(body.projects ?? [body.project ?? '*']);
  const environment = body.environment ?? (type === 'admin' ? '*' : 'development');
  if (type !== 'admin' && environment === '*') {
    throw invalid('environment', `a ${type} token belongs to exactly one environment; "*" is only for admin tokens`);
  }
  const tokenName = body.tokenName.trim();
  if (tokenName.length === 0) throw invalid('tokenName', '"tokenName" must not be blank');
  return { tokenName, type, environment, projects, expiresAt: body.expiresAt ?? null };
}

export function normalizeProjects(list: string[]): string[] {
  if (list.includes('*')) return ['*'];
  return [...new Set(list)].sort();
}

function checkScopeExists(state: State, spec: TokenSpec): void {
  if (spec.environment !== '*' && !state.environments.has(spec.environment)) {
    throw invalid('environment', `environment "${spec.environment}" does not exist`);
  }
  for (const p of spec.projects) {
    if (p !== '*' && !state.projects.has(p)) throw invalid('projects', `project "${p}" does not exist`);
  }
}

function normalizeExpiry(expiresAt: string | null, now: string, mustBeFuture: boolean): string | null {
  if (expiresAt === null) return null;
  const ms = Date.parse(expiresAt);
  if (Number.isNaN(ms)) throw invalid('expiresAt', '"expiresAt" must be a date-time');
  const iso = new Date(ms).toISOString();
  if (mustBeFuture && iso <= now) throw invalid('expiresAt', '"expiresAt" must be in the future');
  return iso;
}

function tokenEvent(type: string, t: ApiToken, preData?: TokenView): EventDraft {
  return {
    type,
    environment: t.environment === '*' ? null : t.environment,
    project: t.projects.length === 1 && t.projects[0] !== '*' ? t.projects[0] : null,
    data: tokenView(t),
    ...(preData ? { preData } : {}),
  };
}

/** Adds a token whose secret hashes to `hash`. */
export function createToken(spec: TokenSpec, hash: string, prefix: string) {
  return (state: State, env: CommandEnv): Change<TokenView> => {
    checkScopeExists(state, spec);
    if (state.apiTokens.size >= TOKEN_LIMIT) {
      throw new ValidationError(`Failed to create api token. You can't create more than the established limit of ${TOKEN_LIMIT}.`);
    }
    if (state.apiTokens.has(hash) || state.revokedTokens.has(hash)) {
      // Only a seeded token can collide (generated ones are random); seeding checks first.
      throw invalid('secret', 'this token already exists or was deleted');
    }
    const token: ApiToken = {
      hash,
      tokenName: spec.tokenName,
      type: spec.type,
      environment: spec.environment,
      projects: spec.projects,
      expiresAt: normalizeExpiry(spec.expiresAt, env.now, true),
      createdAt: env.now,
      prefix,
    };
    return { ops: [{ o: 'token.put', token }], events: [tokenEvent('api-token-created', token)], result: tokenView(token) };
  };
}

export function findToken(state: State, ref: TokenRef): ApiToken | undefined {
  const direct = state.apiTokens.get(ref.hash);
  if (direct) return direct;
  if (!/^[0-9a-f]{16}$/.test(ref.id)) return undefined;
  for (const t of state.apiTokens.values()) if (tokenId(t.hash) === ref.id) return t;
  return undefined;
}

function requireToken(state: State, ref: TokenRef): ApiToken {
  const t = findToken(state, ref);
  // The message must not repeat what was asked for: it may be a secret.
  if (!t) throw new NotFoundError('No API token matches the given secret or id.');
  return t;
}

export function updateTokenExpiry(ref: TokenRef, expiresAt: string | null) {
  return (state: State, env: CommandEnv): Change<TokenView> => {
    const prev = requireToken(state, ref);
    const token: ApiToken = { ...prev, expiresAt: normalizeExpiry(expiresAt, env.now, false) };
    return {
      ops: [{ o: 'token.put', token }],
      events: [tokenEvent('api-token-updated', token, tokenView(prev))],
      result: tokenView(token),
    };
  };
}

/** The removal of a token, remembering its hash so INIT_*_API_TOKENS never brings it back. */
function removal(prev: ApiToken, now: string): { ops: Op[]; event: EventDraft } {
  return {
    ops: [{ o: 'token.del', hash: prev.hash }, { o: 'token.revoke', revoked: { hash: prev.hash, revokedAt: now } }],
    event: { ...tokenEvent('api-token-deleted', prev), data: null, preData: tokenView(prev) },
  };
}

export function deleteToken(ref: TokenRef) {
  return (state: State, env: CommandEnv): Change<TokenView> => {
    const prev = requireToken(state, ref);
    const { ops, event } = removal(prev, env.now);
    return { ops, events: [event], result: tokenView(prev) };
  };
}

/**
 * What a deleted project or environment does to the tokens scoped to it, as Unleash does for
 * projects: a token left with no project, or whose one environment is gone, is deleted (and can
 * never come back, even if a project or environment of that name is created again); a token of
 * several projects only loses the deleted ones. Part of the deleting command's change, so the
 * scope and its tokens go in the same WAL record. Several at once: for an import that drops some.
 */
export function tokensWithout(state: State, gone: { projects?: readonly string[]; environments?: readonly string[] }, now: string): { ops: Op[]; events: EventDraft[] } {
  const ops: Op[] = [];
  const events: EventDraft[] = [];
  const goneProjects = new Set(gone.projects ?? []);
  const goneEnvironments = new Set(gone.environments ?? []);
  const byAge = [...state.apiTokens.values()].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.hash < b.hash ? -1 : 1));
  for (const prev of byAge) {
    const loses = prev.projects.some((p) => goneProjects.has(p));
    const projects = loses ? prev.projects.filter((p) => !goneProjects.has(p)) : prev.projects;
    if (projects.length === 0 || goneEnvironments.has(prev.environment)) {
      const r = removal(prev, now);
      ops.push(...r.ops);
      events.push(r.event);
    } else if (loses) {
      const token: ApiToken = { ...prev, projects };
      ops.push({ o: 'token.put', token });
      events.push(tokenEvent('api-token-updated', token, tokenView(prev)));
    }
  }
  return { ops, events };
}

/**
 * True when an unexpired, unlimited admin token exists. Only such a token can manage tokens, so
 * without one the server could never be administered again.
 */
export function hasUsableAdminToken(state: State, now: string): boolean {
  for (const t of state.apiTokens.values()) {
    const unlimited = t.environment === '*' && t.projects.includes('*');
    if (t.type === 'admin' && unlimited && (t.expiresAt === null || t.expiresAt > now)) return true;
  }
  return false;
}

/** Writes when tokens were last used (from the metrics flush); tokens deleted meanwhile are skipped. */
export function recordTokensSeen(entries: { hash: string; at: string }[]) {
  return (state: State): Change<number> => {
    const ops: Op[] = [];
    for (const { hash, at } of entries) {
      const token = state.apiTokens.get(hash);
      if (!token || (token.seenAt ?? '') >= at) continue;
      ops.push({ o: 'token.put', token: { ...token, seenAt: at } });
    }
    return { ops, events: [], result: ops.length };
  };
}

/** A token brought over from another server, its secret already hashed by the caller. */
export interface TokenImport {
  hash: string;
  prefix: string;
  tokenName: string;
  type: TokenType;
  environment: string;
  projects: string[];
  expiresAt: string | null;
  createdAt: string | null;
}

export interface TokenImportResult {
  ops: Op[];
  events: EventDraft[];
  added: number;
  updated: number;
  unchanged: number;
  /** Deleted here before: a token deleted stays deleted, as with INIT_*_API_TOKENS. */
  stayDeleted: number;
}

/**
 * Tokens brought over with their secrets (`fanion migrate`), so that every SDK and proxy keeps
 * the token it has. A new one is added with the other server's name, scope, expiry (even a past
 * one: it then stays refused) and creation date; one already here takes the other server's name,
 * scope and expiry; one deleted here stays deleted. `scope` is what will exist once the change is
 * applied, since the same change may create the projects and environments. Refused, naming the
 * token (never its secret): an SDK token for every environment, a scope that does not exist,
 * more than TOKEN_LIMIT tokens.
 */
export function importTokens(state: State, list: TokenImport[], scope: { projects: Set<string>; environments: Set<string> }, now: string): TokenImportResult {
  const r: TokenImportResult = { ops: [], events: [], added: 0, updated: 0, unchanged: 0, stayDeleted: 0 };
  const seen = new Set<string>();
  list.forEach((t, i) => {
    const where = `tokens[${i}] ("${t.tokenName}")`;
    if (seen.has(t.hash)) return;
    seen.add(t.hash);
    if (t.type !== 'admin' && t.environment === '*') throw invalid(`tokens[${i}].environment`, `${where}: a ${t.type} token belongs to one environment, not "*"`);
    if (t.environment !== '*' && !scope.environments.has(t.environment)) throw invalid(`tokens[${i}].environment`, `${where}: environment "${t.environment}" does not exist`);
    for (const p of t.projects) if (p !== '*' && !scope.projects.has(p)) throw invalid(`tokens[${i}].projects`, `${where}: project "${p}" does not exist`);
    if (state.revokedTokens.has(t.hash)) {
      r.stayDeleted++;
      return;
    }
    const prev = state.apiTokens.get(t.hash);
    const dateOf = (field: 'expiresAt' | 'createdAt', v: string | null) => {
      if (v === null) return null;
      const ms = Date.parse(v);
      if (Number.isNaN(ms)) throw invalid(`tokens[${i}].${field}`, `${where}: "${field}" must be a date-time`);
      return new Date(ms).toISOString();
    };
    const token: ApiToken = {
      ...(prev ?? {}),
      hash: t.hash, tokenName: t.tokenName, type: t.type, environment: t.environment, projects: t.projects, expiresAt: dateOf('expiresAt', t.expiresAt),
      createdAt: prev?.createdAt ?? dateOf('createdAt', t.createdAt) ?? now, prefix: t.prefix,
    };
    if (prev && JSON.stringify(tokenView(prev)) === JSON.stringify(tokenView(token))) {
      r.unchanged++;
      return;
    }
    r.ops.push({ o: 'token.put', token });
    r.events.push(prev ? tokenEvent('api-token-updated', token, tokenView(prev)) : tokenEvent('api-token-created', token));
    if (prev) r.updated++;
    else r.added++;
  });
  if (state.apiTokens.size + r.added > TOKEN_LIMIT) {
    throw new ValidationError(`Failed to bring over ${r.added} API tokens: with the ${state.apiTokens.size} here that is more than the limit of ${TOKEN_LIMIT}.`);
  }
  return r;
}
