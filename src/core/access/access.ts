// "Who is calling, and may they do this?" Route code only sees this interface: the open mode
// (AUTH_TYPE=none), API tokens (src/tokens) and people (src/people: session cookies and personal
// access tokens, with API tokens as before) implement it. Who calls is found by the
// authenticator (`caller`); whether they may is decided in one place, auth/permissions.ts.
import type { IncomingMessage } from 'node:http';
import type { Actor } from '../state/types.js';
import type { Grant } from './permissions.js';

/** What an admin operation touches, for scoped admin tokens. */
export interface AdminScope {
  project?: string;
  environment?: string;
  /**
   * Environments where the change takes effect although the path names none of them: where a
   * segment's users have strategies, where a flag whose dependencies change is on, every
   * environment for a project's own settings. A caller limited to some environments must have
   * each of them (auth/permissions.ts).
   */
  reaches?: readonly string[];
  /**
   * Where the change takes effect when that spans projects (a shared segment, which names no
   * project): each flag's project and environment. Change requests are decided per project and
   * environment (concepts/change-requests/enforcement.ts); `refusal` does not read it.
   */
  places?: readonly Place[];
  /**
   * The project is named in the body (checked there, through bodyScopes): before the body is read
   * the caller only needs the permission in some project, or everywhere.
   */
  inSomeProject?: boolean;
  /**
   * The route answers only what the caller may see (event listings filter by `adminView`), so
   * any admin token may call it, whatever its limits.
   */
  visibleOnly?: boolean;
}

/** A project's environment. */
export interface Place {
  project: string;
  environment: string;
}

/**
 * What an admin caller may see of the server's history: a token's stored limits. `['*']` and
 * `'*'` mean no limit; only an unlimited view (both) sees what belongs to no project.
 */
export interface AdminView {
  projects: readonly string[];
  environment: string;
  /**
   * Events about what only an Admin may list (people, tokens, webhooks) are not shown: set for
   * everyone who may not list those (a person who is not an Admin, a limited admin token).
   */
  hideAdminEvents?: boolean;
}

export const FULL_VIEW: AdminView = Object.freeze({ projects: Object.freeze(['*']), environment: '*' });

/** How a refusal names a token's limits, e.g. `projects=a,b and environment=production`. */
export function describeLimits(limits: AdminView): string {
  return `project${limits.projects.length > 1 ? 's' : ''}=${limits.projects.join(',')} and environment=${limits.environment}`;
}

/** What a client (SDK) token may see. `projects` of ['*'] means every project. */
export interface ClientScope {
  environment: string;
  projects: string[];
  /** Stable key of the scope, part of the client snapshot's cache key. */
  key: string;
  actor: Actor;
  /** The token's hash, naming the token itself (tokens may share a scope); none with AUTH_TYPE=none. */
  token?: string;
  /** The token's expiry and last use, for a repeated poll answered without authenticating again (the client API's front door). */
  credential?: CredentialUse;
}

/** When a credential stops working, and when it was last used (ms since the epoch). */
export interface CredentialUse {
  readonly expiresAtMs: number;
  usedAt: number;
}

/** Whether a flag of `project` is inside what a client scope may see (and count). */
export function inClientScope(scope: ClientScope, project: string): boolean {
  return scope.projects.includes('*') || scope.projects.includes(project);
}

/** Who calls the admin API, and what they may do. */
export interface AdminCaller {
  /** The name and person id events record. */
  actor: Actor;
  grant: Grant;
  /** How they proved it. */
  via: 'open' | 'token' | 'session' | 'personal-token';
  /** The person calling (a session or a personal access token). */
  userId?: number;
}

export interface Authenticator {
  /** Who calls the admin API, or throws AuthenticationRequired (401) / NoAccessError (403: not an admin credential). */
  caller(req: IncomingMessage): AdminCaller;
  /** Returns the calling actor, or throws AuthenticationRequired (401) / NoAccessError (403). */
  admin(req: IncomingMessage, permission: string, scope: AdminScope): Actor;
  /** What the admin caller of a `visibleOnly` route may see; throws like `admin` for anyone else. */
  adminView(req: IncomingMessage): AdminView;
  /** Returns what the caller may see on /api/client, or throws 401 / 403. */
  client(req: IncomingMessage): ClientScope;
  /** Frontend API callers (frontend tokens). */
  frontend(req: IncomingMessage): ClientScope;
  /**
   * Remote evaluation (OFREP): a frontend or a client token, in `Authorization` (as is or after
   * `Bearer `) or in `X-API-Key`.
   */
  evaluator(req: IncomingMessage): ClientScope;
}

export const OPEN_ADMIN: Actor = { name: 'admin', userId: null };

/** AUTH_TYPE=none: everyone is an admin, and the client API serves `development`. */
export class OpenAuthenticator implements Authenticator {
  private readonly scope: ClientScope = { environment: 'development', projects: ['*'], key: 'open', actor: OPEN_ADMIN };
  private readonly open: AdminCaller = { actor: OPEN_ADMIN, grant: { kind: 'everything' }, via: 'open' };
  caller(): AdminCaller {
    return this.open;
  }
  admin(): Actor {
    return OPEN_ADMIN;
  }
  adminView(): AdminView {
    return FULL_VIEW;
  }
  client(): ClientScope {
    return this.scope;
  }
  frontend(): ClientScope {
    return this.scope;
  }
  evaluator(): ClientScope {
    return this.scope;
  }
}
