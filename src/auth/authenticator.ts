// "Who is calling, and may they do this?" Route code only sees this interface: the open mode
// (AUTH_TYPE=none) and API tokens (src/tokens) both implement it.
import type { IncomingMessage } from 'node:http';
import type { Actor } from '../state/types.js';

/** What an admin operation touches, for scoped admin tokens. */
export interface AdminScope {
  project?: string;
  environment?: string;
}

/** What a client (SDK) token may see. `projects` of ['*'] means every project. */
export interface ClientScope {
  environment: string;
  projects: string[];
  /** Stable key of the scope, part of the client snapshot's cache key. */
  key: string;
  actor: Actor;
}

export interface Authenticator {
  /** Returns the calling actor, or throws AuthenticationRequired (401) / NoAccessError (403). */
  admin(req: IncomingMessage, permission: string, scope: AdminScope): Actor;
  /** Returns what the caller may see on /api/client, or throws 401 / 403. */
  client(req: IncomingMessage): ClientScope;
  /** Frontend API callers (frontend tokens). */
  frontend?(req: IncomingMessage): ClientScope;
}

export const OPEN_ADMIN: Actor = { name: 'admin', userId: null };

/** AUTH_TYPE=none: everyone is an admin, and the client API serves `development`. */
export class OpenAuthenticator implements Authenticator {
  private readonly scope: ClientScope = { environment: 'development', projects: ['*'], key: 'open', actor: OPEN_ADMIN };
  admin(): Actor {
    return OPEN_ADMIN;
  }
  client(): ClientScope {
    return this.scope;
  }
  frontend(): ClientScope {
    return this.scope;
  }
}
