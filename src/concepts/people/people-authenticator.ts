// AUTH_TYPE=api-token with people: an admin request is proved by its Authorization header (an
// admin API token, as before, or a personal access token `user:<64 hex digits>` acting as its person) or, with
// no header, by the session cookie. Either way the answer is an AdminCaller, and the one check of
// auth/permissions.ts decides. SDK routes (client, frontend, evaluator) take API tokens only:
// a cookie never authenticates them.
//
// A request costs one HMAC of the cookie (or token) and Map lookups: the session by hash, its
// person by id. What follows from a session (its caller, its end) is cached per session and person
// object, so a change to either (a new role, deactivation, the metrics flush noting a use) is seen
// at the next request. Uses are noted in memory and written by the metrics flush, like tokens'.
import type { IncomingMessage } from 'node:http';
import type { AdminCaller, AdminScope, AdminView, Authenticator, ClientScope } from '../../core/access/access.js';
import { authorize, viewOf, type Grant } from '../../core/access/permissions.js';
import { AuthenticationRequired } from '../../core/errors.js';
import type { State } from '../../core/state/state.js';
import type { Actor, PersonalToken, Session, User } from '../../core/state/types.js';
import { credentialOf } from '../tokens/format.js';
import type { TokenHasher } from '../tokens/hasher.js';
import type { TokenAuthenticator } from '../tokens/token-authenticator.js';
import { actorName, sessionEnded, type Seen } from './logic.js';
import { cookieOf, SESSION_COOKIE } from './session-cookie.js';

/** Personal access tokens start so (as Unleash's do), followed by 64 hex digits and nothing else. */
export const PAT_PREFIX = 'user:';
/**
 * A personal access token's whole shape. The prefix alone is not enough: an API token for a project
 * named `user` starts with `user:` too (`user:<environment>.<secret>`), and it has a dot where a
 * personal token never has one. Every personal token ever issued has exactly this shape.
 */
const PAT_SHAPE = /^user:[0-9a-f]{64}$/;

/** Whether a credential is a personal access token (else it is an API token). */
export const isPersonalToken = (credential: string) => PAT_SHAPE.test(credential);

interface KnownSession {
  session: Session;
  user: User;
  caller: AdminCaller;
  /** Last use in ms, and up to when that was handed to takeSeen. */
  usedAt: number;
  reportedAt: number;
}

interface KnownToken {
  token: PersonalToken;
  user: User;
  caller: AdminCaller;
  usedAt: number;
  reportedAt: number;
}

/** A person's actor and grant, as a caller through `via`. */
export function personCaller(user: User, via: AdminCaller['via']): AdminCaller {
  const actor: Actor = { name: actorName(user), userId: user.id };
  const grant: Grant = { kind: 'person', role: user.rootRole, projects: user.projects, environments: user.environments };
  return { actor, grant, via, userId: user.id };
}

export class PeopleAuthenticator implements Authenticator {
  private readonly sessions = new Map<string, KnownSession>();
  private readonly tokens = new Map<string, KnownToken>();

  constructor(
    private readonly apiTokens: TokenAuthenticator,
    private readonly state: () => State,
    private readonly hasher: TokenHasher,
    /** A session ends after this long unused (read by the metrics flush too). */
    readonly idleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  caller(req: IncomingMessage): AdminCaller {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const credential = credentialOf(header);
      if (credential !== null && isPersonalToken(credential)) return this.personalToken(credential).caller;
      return this.apiTokens.caller(req);
    }
    const id = cookieOf(req, SESSION_COOKIE);
    if (id !== null) return this.session(id).caller;
    return this.apiTokens.caller(req);
  }

  admin(req: IncomingMessage, permission: string, scope: AdminScope): Actor {
    return authorize(this.caller(req), permission, scope);
  }

  adminView(req: IncomingMessage): AdminView {
    return viewOf(this.caller(req).grant);
  }

  client(req: IncomingMessage): ClientScope {
    return this.apiTokens.client(req);
  }

  frontend(req: IncomingMessage): ClientScope {
    return this.apiTokens.frontend(req);
  }

  evaluator(req: IncomingMessage): ClientScope {
    return this.apiTokens.evaluator(req);
  }

  /** The session of the cookie's id, and its hash: for sign-out, which ends this session. */
  sessionOf(req: IncomingMessage): { hash: string; session: Session; user: User } | null {
    const id = cookieOf(req, SESSION_COOKIE);
    if (id === null) return null;
    try {
      const hash = this.hasher.hash(id);
      const k = this.session(id, hash);
      return { hash, session: k.session, user: k.user };
    } catch {
      return null;
    }
  }

  /** The live session whose id is `id`; 401 for an unknown, ended, or deactivated person's one. */
  private session(id: string, hash = this.hasher.hash(id)): KnownSession {
    const state = this.state();
    const session = state.sessions.get(hash);
    const user = session ? state.users.get(session.userId) : undefined;
    if (!session || !user) {
      this.sessions.delete(hash);
      throw new AuthenticationRequired('Your session has ended (signed out, or signed out everywhere): sign in again.');
    }
    if (!user.active) throw new AuthenticationRequired('Your account has been deactivated: your sessions have ended.');
    let k = this.sessions.get(hash);
    if (!k || k.session !== session || k.user !== user) {
      if (this.sessions.size > 2 * state.sessions.size + 100) this.sessions.clear();
      k = { session, user, caller: personCaller(user, 'session'), usedAt: Math.max(k?.usedAt ?? 0, Date.parse(session.seenAt)), reportedAt: k?.reportedAt ?? 0 };
      this.sessions.set(hash, k);
    }
    const now = this.now();
    if (sessionEnded(session, now, k.usedAt, this.idleMs)) throw new AuthenticationRequired('Your session has expired: sign in again.');
    k.usedAt = now;
    return k;
  }

  private personalToken(secret: string): KnownToken {
    const hash = this.hasher.hash(secret);
    const state = this.state();
    const token = state.personalTokens.get(hash);
    const user = token ? state.users.get(token.userId) : undefined;
    if (!token || !user) {
      this.tokens.delete(hash);
      throw new AuthenticationRequired('The personal access token in the Authorization header is not valid.');
    }
    if (!user.active) throw new AuthenticationRequired('The personal access token belongs to a deactivated account.');
    if (this.now() >= Date.parse(token.expiresAt)) throw new AuthenticationRequired('The personal access token in the Authorization header has expired.');
    let k = this.tokens.get(hash);
    if (!k || k.token !== token || k.user !== user) {
      if (this.tokens.size > 2 * state.personalTokens.size + 100) this.tokens.clear();
      k = { token, user, caller: personCaller(user, 'personal-token'), usedAt: k?.usedAt ?? 0, reportedAt: k?.reportedAt ?? 0 };
      this.tokens.set(hash, k);
    }
    k.usedAt = this.now();
    return k;
  }

  /** Sessions and personal tokens used since the last call, for the metrics flush to write. */
  takeSeen(): { sessions: Seen[]; tokens: Seen[] } {
    const take = (known: Map<string, { usedAt: number; reportedAt: number }>) => {
      const out: Seen[] = [];
      for (const [hash, k] of known) {
        if (k.usedAt <= k.reportedAt) continue;
        out.push({ hash, at: new Date(k.usedAt).toISOString() });
        k.reportedAt = k.usedAt;
      }
      return out;
    };
    return { sessions: take(this.sessions), tokens: take(this.tokens) };
  }

  /** Puts back a batch whose write failed. */
  restoreSeen(batch: { sessions: Seen[]; tokens: Seen[] }): void {
    for (const { hash } of batch.sessions) {
      const k = this.sessions.get(hash);
      if (k) k.reportedAt = 0;
    }
    for (const { hash } of batch.tokens) {
      const k = this.tokens.get(hash);
      if (k) k.reportedAt = 0;
    }
  }
}
