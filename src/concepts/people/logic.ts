// Pure commands about people: accounts, their sessions, personal access tokens and one-time
// password links. Like tokens, they only ever see keyed hashes: a password is hashed, a session id,
// token or link secret is generated and hashed by the caller, so none can reach an op, an event or
// the WAL; a password's hash is kept in the person's record but never in an event or an answer.
import type { Change, CommandEnv, EventDraft } from '../../core/engine/command.js';
import { AuthenticationRequired, invalid, NameExistsError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { Op } from '../../core/state/ops.js';
import type { State } from '../../core/state/state.js';
import type { PasswordLink, PersonalToken, ProjectBinding, ProjectRole, RootRole, Session, User } from '../../core/state/types.js';
import { tokensWithout } from '../tokens/logic.js';

/** People at most: each one's record, sessions and tokens live in memory. */
export const MAX_PEOPLE = 10_000;
/** Sessions of one person at most; a new sign-in past it ends the oldest. */
export const MAX_SESSIONS_PER_PERSON = 20;
/** Personal access tokens of one person at most. */
export const MAX_PERSONAL_TOKENS = 50;

export const ROLE_IDS: Record<RootRole, number> = { Admin: 1, Editor: 2, Viewer: 3 };
const ROLE_BY_ID: Record<number, RootRole> = { 1: 'Admin', 2: 'Editor', 3: 'Viewer' };
const PROJECT_ROLE_NAMES: ProjectRole[] = ['Owner', 'Member', 'Viewer'];

/** A person as the API and events show them: never a password's hash. */
export interface UserView {
  id: number;
  name: string | null;
  email: string | null;
  username: string | null;
  rootRole: number;
  /** Fanion's own: roles in projects, environments the person may change (null: all), whether they may sign in. */
  projects: ProjectBinding[];
  environments: string[] | null;
  active: boolean;
}

export function userView(u: User): UserView {
  return {
    id: u.id, name: u.name, email: u.email, username: u.username, rootRole: ROLE_IDS[u.rootRole],
    projects: u.projects, environments: u.environments, active: u.active,
  };
}

/** What events say of a person who signs in by single sign-on too. */
function eventData(u: User) {
  return { ...userView(u), sso: u.sso !== null };
}

/** The name events record for what a person does: their email, else username, else name. */
export function actorName(u: User): string {
  return u.email ?? u.username ?? u.name ?? `person ${u.id}`;
}

/** A root role given by id (Unleash's 1, 2, 3) or by name, any case. */
export function rootRoleOf(raw: number | string, field = 'rootRole'): RootRole {
  if (typeof raw === 'number') {
    const r = ROLE_BY_ID[raw];
    if (r) return r;
  } else {
    const r = (['Admin', 'Editor', 'Viewer'] as RootRole[]).find((n) => n.toLowerCase() === raw.trim().toLowerCase());
    if (r) return r;
  }
  throw invalid(field, `"${field}" must be a root role: 1 or "Admin", 2 or "Editor", 3 or "Viewer"`);
}

/** What an admin may give when creating or changing a person. */
export interface PersonInput {
  email?: string | null;
  name?: string | null;
  username?: string | null;
  rootRole?: number | string;
  projects?: { project: string; role: string }[];
  environments?: string[] | null;
  active?: boolean;
}

const sameText = (a: string | null, b: string | null) => a !== null && b !== null && a.toLowerCase() === b.toLowerCase();

/** The person whose email or username is `login` (without regard to case). */
export function findByLogin(state: State, login: string): User | undefined {
  const key = login.trim().toLowerCase();
  if (key.length === 0) return undefined;
  for (const u of state.users.values()) if (u.email?.toLowerCase() === key || u.username?.toLowerCase() === key) return u;
  return undefined;
}

export function requireUser(state: State, id: number | string): User {
  const n = typeof id === 'number' ? id : /^\d{1,9}$/.test(id) ? Number(id) : NaN;
  const u = state.users.get(n);
  if (!u) throw new NotFoundError(`No person has id ${String(id).slice(0, 20)}.`);
  return u;
}

/** Emails and usernames are unique together: no one's login may be another's. */
function checkUnique(state: State, u: User): void {
  for (const other of state.users.values()) {
    if (other.id === u.id) continue;
    for (const mine of [u.email, u.username]) {
      if (sameText(mine, other.email) || sameText(mine, other.username)) throw new NameExistsError(`Another person already signs in as "${mine}".`);
    }
  }
}

function normalizeBindings(state: State, raw: { project: string; role: string }[]): ProjectBinding[] {
  const seen = new Set<string>();
  const out: ProjectBinding[] = [];
  raw.forEach((b, i) => {
    if (!state.projects.has(b.project)) throw invalid(`projects[${i}].project`, `project "${b.project}" does not exist`);
    if (seen.has(b.project)) throw invalid(`projects[${i}].project`, `project "${b.project}" is given twice`);
    const role = PROJECT_ROLE_NAMES.find((r) => r.toLowerCase() === b.role.toLowerCase());
    if (!role) throw invalid(`projects[${i}].role`, 'a project role is one of Owner, Member, Viewer');
    seen.add(b.project);
    out.push({ project: b.project, role });
  });
  return out.sort((a, b) => (a.project < b.project ? -1 : 1));
}

function normalizeEnvironments(state: State, raw: string[] | null): string[] | null {
  if (raw === null) return null;
  raw.forEach((e, i) => {
    if (!state.environments.has(e)) throw invalid(`environments[${i}]`, `environment "${e}" does not exist`);
  });
  return [...new Set(raw)].sort();
}

const trimmed = (v: string | null | undefined) => (v === undefined || v === null ? null : v.trim() || null);

/** The person `input` makes of `prev` (or of nothing), checked against the state. */
function applyInput(state: State, prev: User, input: PersonInput): User {
  const next: User = { ...prev };
  if (input.email !== undefined) next.email = trimmed(input.email);
  if (input.name !== undefined) next.name = trimmed(input.name);
  if (input.username !== undefined) next.username = trimmed(input.username);
  if (input.rootRole !== undefined) next.rootRole = rootRoleOf(input.rootRole);
  if (input.projects !== undefined) next.projects = normalizeBindings(state, input.projects);
  if (input.environments !== undefined) next.environments = normalizeEnvironments(state, input.environments);
  if (input.active !== undefined) next.active = input.active;
  if (next.email === null && next.username === null) throw invalid('email', 'a person needs an email or a username to sign in with');
  if (next.email !== null && !/^[^\s@]+@[^\s@]+$/.test(next.email)) throw invalid('email', '"email" must be an email address');
  if (next.username !== null && /\s/.test(next.username)) throw invalid('username', '"username" may not contain spaces');
  checkUnique(state, next);
  return next;
}

/** Active Admins besides the person `except`. */
function otherAdmins(state: State, except: number): number {
  let n = 0;
  for (const u of state.users.values()) if (u.id !== except && u.active && u.rootRole === 'Admin') n++;
  return n;
}

/** Refuses a change that leaves no active Admin: then no person could manage people again. */
function keepAnAdmin(state: State, prev: User, next: User | null): void {
  const wasAdmin = prev.active && prev.rootRole === 'Admin';
  const staysAdmin = next !== null && next.active && next.rootRole === 'Admin';
  if (wasAdmin && !staysAdmin && otherAdmins(state, prev.id) === 0) {
    throw new ValidationError(`${actorName(prev)} is the last active Admin: make another person Admin first.`);
  }
}

/** Session ends (ops) for every session of `userId`, but `keep`. */
function endSessions(state: State, userId: number, keep: string | null = null): Op[] {
  const ops: Op[] = [];
  for (const s of state.sessions.values()) if (s.userId === userId && s.hash !== keep) ops.push({ o: 'session.del', hash: s.hash });
  return ops;
}

export function createPerson(input: PersonInput, passwordHash: string | null) {
  return (state: State, env: CommandEnv): Change<User> => {
    if (state.users.size >= MAX_PEOPLE) throw new ValidationError(`Fanion keeps at most ${MAX_PEOPLE} people; delete some first.`);
    const blank: User = {
      id: state.nextUserId, name: null, email: null, username: null, rootRole: 'Viewer', projects: [], environments: null,
      passwordHash, active: true, sso: null, createdAt: env.now, seenAt: null,
    };
    if (input.rootRole === undefined) throw invalid('rootRole', '"rootRole" is required');
    const user = applyInput(state, blank, input);
    return { ops: [{ o: 'user.put', user }], events: [{ type: 'user-created', data: eventData(user) }], result: user };
  };
}

/** Creates a person with a one-time invitation link (its secret hashed) in the same change. */
export function invitePerson(input: PersonInput, linkHash: string, ttlMs: number) {
  return (state: State, env: CommandEnv): Change<{ user: User; link: PasswordLink }> => {
    const made = createPerson(input, null)(state, env);
    const user = made.result;
    const link = newLink(user.id, linkHash, 'invite', ttlMs, env);
    return { ops: [...made.ops, { o: 'passwordLink.put', link }], events: made.events, result: { user, link } };
  };
}

/**
 * Changes a person. Deactivating one ends all their sessions in the same change, so they are
 * signed out everywhere at the next request; their personal tokens stop working while inactive.
 * Deactivating or reactivating one also ends their invitation or reset link: a link made before a
 * deactivation must not set a password once the person is back (an admin makes a new one).
 */
export function updatePerson(id: number | string, input: PersonInput) {
  return (state: State): Change<User> => {
    const prev = requireUser(state, id);
    const next = applyInput(state, prev, input);
    keepAnAdmin(state, prev, next);
    if (JSON.stringify(eventData(prev)) === JSON.stringify(eventData(next))) return { ops: [], events: [], result: prev };
    const ops: Op[] = [{ o: 'user.put', user: next }];
    if (prev.active && !next.active) ops.push(...endSessions(state, prev.id));
    if (prev.active !== next.active) ops.push(...endLinks(state, prev.id));
    return { ops, events: [{ type: 'user-updated', data: eventData(next), preData: eventData(prev) }], result: next };
  };
}

/** Deletes a person with their sessions, personal tokens and password links. */
export function deletePerson(id: number | string) {
  return (state: State): Change<User> => {
    const prev = requireUser(state, id);
    keepAnAdmin(state, prev, null);
    const ops: Op[] = [...endSessions(state, prev.id)];
    for (const t of state.personalTokens.values()) if (t.userId === prev.id) ops.push({ o: 'pat.del', hash: t.hash });
    ops.push(...endLinks(state, prev.id), { o: 'user.del', id: prev.id });
    return { ops, events: [{ type: 'user-deleted', data: null, preData: eventData(prev) }], result: prev };
  };
}

/**
 * A new password for a person (already hashed), ending their sessions but `keep` (the one that
 * changed it, when they changed their own). No event: it would say nothing but "changed".
 */
export function setPassword(userId: number, passwordHash: string, keep: string | null) {
  return (state: State): Change<null> => {
    const prev = requireUser(state, userId);
    return { ops: [{ o: 'user.put', user: { ...prev, passwordHash } }, ...endSessions(state, userId, keep)], events: [], result: null };
  };
}

/** Ops that delete every password link of `userId`. */
function endLinks(state: State, userId: number): Op[] {
  const ops: Op[] = [];
  for (const l of state.passwordLinks.values()) if (l.userId === userId) ops.push({ o: 'passwordLink.del', hash: l.hash });
  return ops;
}

function newLink(userId: number, hash: string, kind: PasswordLink['kind'], ttlMs: number, env: CommandEnv): PasswordLink {
  return { hash, userId, kind, createdAt: env.now, expiresAt: new Date(Date.parse(env.now) + ttlMs).toISOString(), createdBy: env.actor.name };
}

/** The same password hashed again with stronger parameters (at sign-in): nothing else changes, no session ends. */
export function rehashPassword(userId: number, passwordHash: string) {
  return (state: State): Change<null> => {
    const prev = state.users.get(userId);
    if (!prev || prev.passwordHash === null) return { ops: [], events: [], result: null };
    return { ops: [{ o: 'user.put', user: { ...prev, passwordHash } }], events: [], result: null };
  };
}

/** A one-time link (its secret hashed) that sets `userId`'s password; it replaces any earlier one. */
export function createPasswordLink(userId: number, hash: string, kind: PasswordLink['kind'], ttlMs: number) {
  return (state: State, env: CommandEnv): Change<PasswordLink> => {
    const user = requireUser(state, userId);
    if (!user.active) throw new ValidationError(`${actorName(user)} is deactivated: activate them before sending a link.`);
    const link = newLink(userId, hash, kind, ttlMs, env);
    const ops: Op[] = [...endLinks(state, userId), { o: 'passwordLink.put', link }];
    return { ops, events: [], result: link };
  };
}

/** The link `hash` names, unexpired, and its (active) person; a 401 otherwise, the same for each reason. */
export function validLink(state: State, hash: string, now: string): { link: PasswordLink; user: User } {
  const link = state.passwordLinks.get(hash);
  const user = link ? state.users.get(link.userId) : undefined;
  if (!link || !user || !user.active || link.expiresAt <= now) {
    throw new AuthenticationRequired('This link is not valid: it was used already, has expired, or was replaced by a newer one. Ask an admin for a new one.');
  }
  return { link, user };
}

/** Uses a link: sets the password, forgets the link (single use) and ends every session of the person. */
export function usePasswordLink(hash: string, passwordHash: string) {
  return (state: State, env: CommandEnv): Change<User> => {
    const { user } = validLink(state, hash, env.now);
    const next = { ...user, passwordHash };
    return { ops: [{ o: 'user.put', user: next }, { o: 'passwordLink.del', hash }, ...endSessions(state, user.id)], events: [], result: next };
  };
}

/**
 * A new session (its id hashed) for a person who just proved who they are; always a new id, so a
 * session id planted in the browser before sign-in is worthless after it, and the session the
 * browser had (`replaces`) ends. Their sessions that have ended are forgotten, and past
 * MAX_SESSIONS_PER_PERSON the oldest is ended.
 */
export function openSession(userId: number, hash: string, method: Session['method'], limits: { maxAgeMs: number; idleMs: number }, replaces: string | null = null) {
  return (state: State, env: CommandEnv): Change<Session> => {
    const user = requireUser(state, userId);
    if (!user.active) throw new AuthenticationRequired('This account is deactivated.');
    const nowMs = Date.parse(env.now);
    const live: Session[] = [];
    const ops: Op[] = [];
    for (const s of state.sessions.values()) {
      if (s.hash === replaces) {
        ops.push({ o: 'session.del', hash: s.hash });
        continue;
      }
      if (s.userId !== userId) continue;
      if (sessionEnded(s, nowMs, s.seenAt, limits.idleMs)) ops.push({ o: 'session.del', hash: s.hash });
      else live.push(s);
    }
    live.sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
    while (live.length >= MAX_SESSIONS_PER_PERSON) ops.push({ o: 'session.del', hash: live.shift()!.hash });
    const session: Session = { hash, userId, method, createdAt: env.now, expiresAt: new Date(nowMs + limits.maxAgeMs).toISOString(), seenAt: env.now };
    ops.push({ o: 'session.put', session }, { o: 'user.put', user: { ...user, seenAt: env.now } });
    return { ops, events: [], result: session };
  };
}

/** Whether `s` has ended at `nowMs`: past its absolute end, or unused for `idleMs` since `lastUse`. */
export function sessionEnded(s: Session, nowMs: number, lastUse: string | number, idleMs: number): boolean {
  const last = typeof lastUse === 'number' ? lastUse : Date.parse(lastUse);
  return nowMs >= Date.parse(s.expiresAt) || nowMs - last > idleMs;
}

export function closeSession(hash: string) {
  return (): Change<null> => ({ ops: [{ o: 'session.del', hash }], events: [], result: null });
}

/** Signs a person out everywhere (every session, the current one included). */
export function closeSessionsOf(userId: number) {
  return (state: State): Change<number> => {
    const ops = endSessions(state, userId);
    return { ops, events: [], result: ops.length };
  };
}

/** A personal access token as Unleash lists it (never its secret). */
export function patView(t: PersonalToken) {
  return { id: t.id, description: t.description, expiresAt: t.expiresAt, createdAt: t.createdAt, seenAt: t.seenAt, userId: t.userId };
}

export function createPersonalToken(userId: number, hash: string, description: string, expiresAt: string) {
  return (state: State, env: CommandEnv): Change<PersonalToken> => {
    requireUser(state, userId);
    let mine = 0;
    for (const t of state.personalTokens.values()) if (t.userId === userId) mine++;
    if (mine >= MAX_PERSONAL_TOKENS) throw new ValidationError(`A person may have at most ${MAX_PERSONAL_TOKENS} personal access tokens; delete some first.`);
    const ms = Date.parse(expiresAt);
    if (Number.isNaN(ms)) throw invalid('expiresAt', '"expiresAt" must be a date-time');
    const at = new Date(ms).toISOString();
    if (at <= env.now) throw invalid('expiresAt', '"expiresAt" must be in the future');
    const desc = description.trim();
    if (desc.length === 0) throw invalid('description', '"description" must not be blank');
    const token: PersonalToken = { hash, id: state.nextPersonalTokenId, userId, description: desc, expiresAt: at, createdAt: env.now, seenAt: null };
    return { ops: [{ o: 'pat.put', token }], events: [{ type: 'pat-created', data: patView(token) }], result: token };
  };
}

/** Deletes personal token `id`; of `owner` only when given (a person deleting their own). */
export function deletePersonalToken(id: number | string, owner: number | null) {
  return (state: State): Change<PersonalToken> => {
    const n = typeof id === 'number' ? id : /^\d{1,9}$/.test(id) ? Number(id) : NaN;
    let found: PersonalToken | undefined;
    for (const t of state.personalTokens.values()) if (t.id === n && (owner === null || t.userId === owner)) found = t;
    if (!found) throw new NotFoundError(`No personal access token has id ${String(id).slice(0, 20)}${owner === null ? '' : ' among yours'}.`);
    return { ops: [{ o: 'pat.del', hash: found.hash }], events: [{ type: 'pat-deleted', data: null, preData: patView(found) }], result: found };
  };
}

/** A use of a session or personal token, waiting to be written with the next metrics flush. */
export interface Seen {
  hash: string;
  at: string;
}

/**
 * Writes when sessions and personal tokens were last used, and forgets what has ended: sessions
 * past their end or idle for `idleMs`, and links past theirs. Run by the metrics flush.
 */
export function recordPeopleSeen(sessions: Seen[], tokens: Seen[], idleMs: number) {
  return (state: State, env: CommandEnv): Change<number> => {
    const ops: Op[] = [];
    const used = new Map(sessions.map((s) => [s.hash, s.at]));
    const nowMs = Date.parse(env.now);
    for (const s of state.sessions.values()) {
      const at = used.get(s.hash);
      const last = at !== undefined && at > s.seenAt ? at : s.seenAt;
      if (sessionEnded(s, nowMs, last, idleMs)) ops.push({ o: 'session.del', hash: s.hash });
      else if (last !== s.seenAt) ops.push({ o: 'session.put', session: { ...s, seenAt: last } });
    }
    for (const { hash, at } of tokens) {
      const t = state.personalTokens.get(hash);
      if (t && (t.seenAt ?? '') < at) ops.push({ o: 'pat.put', token: { ...t, seenAt: at } });
    }
    for (const l of state.passwordLinks.values()) if (l.expiresAt <= env.now) ops.push({ o: 'passwordLink.del', hash: l.hash });
    return { ops, events: [], result: ops.length };
  };
}

/**
 * Everything a deleted project or environment takes along: API tokens scoped to it (tokensWithout)
 * and what people were given there (peopleWithout), for the deleting command's change.
 */
export function accessWithout(state: State, gone: { projects?: readonly string[]; environments?: readonly string[] }, now: string): { ops: Op[]; events: EventDraft[] } {
  const tokens = tokensWithout(state, gone, now);
  const people = peopleWithout(state, gone);
  return { ops: [...tokens.ops, ...people.ops], events: [...tokens.events, ...people.events] };
}

/**
 * What a deleted project or environment does to people: their role in that project goes, and the
 * environment leaves their limit, so a project or environment created again under the same name
 * gives nobody anything. Part of the deleting command's change, as for tokens (tokensWithout).
 */
export function peopleWithout(state: State, gone: { projects?: readonly string[]; environments?: readonly string[] }): { ops: Op[]; events: EventDraft[] } {
  const ops: Op[] = [];
  const events: EventDraft[] = [];
  const projects = new Set(gone.projects ?? []);
  const environments = new Set(gone.environments ?? []);
  for (const prev of state.users.values()) {
    const bindings = prev.projects.filter((b) => !projects.has(b.project));
    const limit = prev.environments?.filter((e) => !environments.has(e)) ?? null;
    if (bindings.length === prev.projects.length && (limit?.length ?? -1) === (prev.environments?.length ?? -1)) continue;
    const next: User = { ...prev, projects: bindings, environments: limit };
    ops.push({ o: 'user.put', user: next });
    events.push({ type: 'user-updated', data: eventData(next), preData: eventData(prev) });
  }
  return { ops, events };
}

/** Who a single sign-on provider says signed in. */
export interface SsoIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  /** `preferred_username`, for a person the provider gives no email. */
  username: string | null;
  /** Whether the provider vouches for the email (`email_verified`). */
  emailVerified: boolean;
  name: string | null;
}

/**
 * The person a single sign-on is for: the one already bound to that identity; else the one whose
 * email it is, if the provider vouches for the email (binding them, so a provider that lets people
 * choose any address cannot take over an account); else, with `autoCreate`, a new person. With
 * `role` (from a claim), their root role follows the provider at every sign-in.
 */
export function ssoPerson(id: SsoIdentity, role: RootRole | null, opts: { autoCreate: boolean; defaultRole: RootRole }) {
  return (state: State, env: CommandEnv): Change<User> => {
    let prev: User | undefined;
    for (const u of state.users.values()) if (u.sso?.issuer === id.issuer && u.sso.subject === id.subject) prev = u;
    if (!prev && id.email !== null && id.emailVerified) {
      const byEmail = findByLogin(state, id.email);
      if (byEmail && byEmail.email?.toLowerCase() === id.email.toLowerCase() && byEmail.sso === null) prev = byEmail;
    }
    if (!prev) {
      if (!opts.autoCreate) {
        throw new AuthenticationRequired(`There is no Fanion account for ${id.email ?? 'this identity'}: ask an admin to invite you.`);
      }
      const made = createPerson({ email: id.email, username: id.email === null ? id.username : null, name: id.name, rootRole: role ?? opts.defaultRole }, null)(state, env);
      const user = { ...made.result, sso: { issuer: id.issuer, subject: id.subject } };
      return { ops: [{ o: 'user.put', user }], events: [{ type: 'user-created', data: eventData(user) }], result: user };
    }
    if (!prev.active) throw new AuthenticationRequired('Your account has been deactivated.');
    const next: User = { ...prev, sso: { issuer: id.issuer, subject: id.subject }, rootRole: role ?? prev.rootRole };
    if (prev.sso !== null && prev.rootRole === next.rootRole) return { ops: [], events: [], result: prev };
    return { ops: [{ o: 'user.put', user: next }], events: [{ type: 'user-updated', data: eventData(next), preData: eventData(prev) }], result: next };
  };
}
