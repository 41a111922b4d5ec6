// AUTH_TYPE=api-token. Every check starts with one HMAC of the presented token and one Map hit on
// State.apiTokens; the derived, per-token facts (digest bytes, expiry, client scope) are cached by
// token object, so the client API's hot path allocates nothing else per request.
import type { IncomingMessage } from 'node:http';
import type { AdminCaller, AdminScope, AdminView, Authenticator, ClientScope } from '../../core/access/access.js';
import { authorize, viewOf } from '../../core/access/permissions.js';
import { AuthenticationRequired, NoAccessError } from '../../core/errors.js';
import type { State } from '../../core/state/state.js';
import type { Actor, ApiToken, TokenType } from '../../core/state/types.js';
import { credentialOf } from './format.js';
import { sameDigest, type TokenHasher } from './hasher.js';

interface Known {
  token: ApiToken;
  digest: Buffer;
  expiresAtMs: number;
  actor: Actor;
  scope: ClientScope;
  /** What the token may do on the admin API (admin tokens only). */
  caller: AdminCaller;
  view: AdminView;
  /** When the token was last used (ms), and up to when that was handed to takeSeen. */
  usedAt: number;
  reportedAt: number;
}

/** A token's last use, waiting to be written with the next metrics flush. */
export interface TokenSeen {
  hash: string;
  at: string;
}

const API_OF: Record<TokenType, string> = { admin: 'admin', client: 'client', frontend: 'frontend' };
const article = (type: TokenType) => (type === 'admin' ? 'an' : 'a');

export class TokenAuthenticator implements Authenticator {
  private readonly known = new Map<string, Known>();
  private readonly bySocket = new WeakMap<object, { header: string; known: Known }>();

  constructor(
    private readonly state: () => State,
    private readonly hasher: TokenHasher,
    private readonly now: () => number = Date.now,
  ) {}

  caller(req: IncomingMessage): AdminCaller {
    return this.adminToken(req, 'READ', '*').caller;
  }

  admin(req: IncomingMessage, permission: string, scope: AdminScope): Actor {
    return authorize(this.adminToken(req, permission, scope.environment ?? '*').caller, permission, scope);
  }

  adminView(req: IncomingMessage): AdminView {
    return this.adminToken(req, 'READ', '*').view;
  }

  /** The admin token in the request; 401 without a valid token, 403 for a client or frontend one. */
  private adminToken(req: IncomingMessage, permission: string, environment: string): Known {
    const k = this.identify(req);
    if (k.token.type !== 'admin') {
      throw new NoAccessError(
        `You need permission=${permission} to perform this action on environment=${environment}: ` +
          `${article(k.token.type)} ${k.token.type} token only works on the ${API_OF[k.token.type]} API.`,
      );
    }
    return k;
  }

  client(req: IncomingMessage): ClientScope {
    return this.sdk(req, 'client');
  }

  frontend(req: IncomingMessage): ClientScope {
    return this.sdk(req, 'frontend');
  }

  evaluator(req: IncomingMessage): ClientScope {
    const header = req.headers.authorization ?? (req.headers['x-api-key'] as string | undefined);
    const k = this.identify(req, header);
    if (k.token.type === 'admin') {
      throw new NoAccessError(`You need a frontend or client token to evaluate flags on environment=${k.token.environment}: an admin token does not work here.`);
    }
    return k.scope;
  }

  private sdk(req: IncomingMessage, wanted: 'client' | 'frontend'): ClientScope {
    const k = this.identify(req);
    if (k.token.type !== wanted) {
      throw new NoAccessError(
        `You need a ${wanted} token to perform this action on environment=${k.token.environment}: ` +
          `${article(k.token.type)} ${k.token.type} token does not work on the ${wanted} API.`,
      );
    }
    return k.scope;
  }

  /** 401 unless the header carries a known, unexpired token. */
  private identify(req: IncomingMessage, header: string | undefined = req.headers.authorization): Known {
    // SDKs poll over keep-alive connections with the same header every time. A connection that
    // already proved this exact header skips the HMAC (measured: ~20% of a 304's CPU); the token
    // is still looked up by hash, so a revoked or expired token stops working at once. Only the
    // same socket can hit this memo, so the string comparison reveals nothing to other callers.
    const memo = req.socket ? this.bySocket.get(req.socket) : undefined;
    const now = this.now();
    if (memo !== undefined && memo.header === header && this.state().apiTokens.get(memo.known.token.hash) === memo.known.token) {
      if (now >= memo.known.expiresAtMs) throw new AuthenticationRequired('The API token in the Authorization header has expired.');
      memo.known.usedAt = now;
      return memo.known;
    }
    const known = this.identifyByHash(header);
    known.usedAt = now;
    if (req.socket && header !== undefined) this.bySocket.set(req.socket, { header, known });
    return known;
  }

  /**
   * The tokens used since the last call, with when: written as `seenAt` by the metrics flush, so
   * a request never costs a disk write. `restoreSeen` puts back a batch whose write failed.
   */
  takeSeen(): TokenSeen[] {
    const out: TokenSeen[] = [];
    for (const [hash, k] of this.known) {
      if (k.usedAt <= k.reportedAt) continue;
      out.push({ hash, at: new Date(k.usedAt).toISOString() });
      k.reportedAt = k.usedAt;
    }
    return out;
  }

  restoreSeen(list: TokenSeen[]): void {
    for (const { hash } of list) {
      const k = this.known.get(hash);
      if (k) k.reportedAt = 0;
    }
  }

  private identifyByHash(header: string | undefined): Known {
    const credential = credentialOf(header);
    if (credential === null) {
      throw new AuthenticationRequired('You must authenticate: send an API token in the Authorization header.');
    }
    const found = this.lookup(credential);
    if (found === 'expired') throw new AuthenticationRequired('The API token in the Authorization header has expired.');
    if (found === null) throw new AuthenticationRequired('The API token in the Authorization header is not valid.');
    return found;
  }

  /** The stored token a credential proves, 'expired', or null when it proves none. */
  private lookup(credential: string): Known | 'expired' | null {
    const digest = this.hasher.digest(credential);
    const hash = digest.toString('hex');
    const token = this.state().apiTokens.get(hash);
    if (!token) {
      this.known.delete(hash);
      return null;
    }
    let k = this.known.get(hash);
    if (!k || k.token !== token) k = this.remember(hash, token);
    if (!sameDigest(k.digest, digest)) return null;
    if (this.now() >= k.expiresAtMs) return 'expired';
    return k;
  }

  /**
   * Of `credentials`, the tokens an SDK or a relay may use (client and frontend ones that exist
   * and have not expired), in the order given, repeats included. Nothing is said of the others:
   * unknown, expired, admin and malformed ones are simply left out (POST /edge/validate).
   */
  sdkTokens(credentials: readonly string[]): { given: string; token: ApiToken }[] {
    const out: { given: string; token: ApiToken }[] = [];
    for (const given of credentials) {
      const k = this.sdkToken(given);
      if (k) out.push({ given, token: k.token });
    }
    return out;
  }

  /**
   * Tokens a relay saw its SDKs use, counted as used now (their `seenAt`, written with the next
   * metrics flush): the client and frontend ones of `environment`, since a relay's token speaks
   * for its own environment only. Returns how many were counted.
   */
  markSeen(credentials: readonly string[], environment: string): number {
    let n = 0;
    const now = this.now();
    for (const c of credentials) {
      const k = this.sdkToken(c);
      if (!k || k.token.environment !== environment) continue;
      k.usedAt = now;
      n++;
    }
    return n;
  }

  /** A client or frontend token that exists and has not expired, or null. */
  private sdkToken(c: string): Known | null {
    const credential = credentialOf(c);
    const k = credential === null ? null : this.lookup(credential);
    return k === null || k === 'expired' || k.token.type === 'admin' ? null : k;
  }

  private remember(hash: string, token: ApiToken): Known {
    // Tokens deleted while cached are dropped on their next use; this bound covers ones never used again.
    if (this.known.size > 2 * this.state().apiTokens.size + 100) this.known.clear();
    const actor: Actor = { name: token.tokenName, userId: null };
    const k: Known = {
      token,
      digest: Buffer.from(hash, 'hex'),
      expiresAtMs: token.expiresAt === null ? Infinity : Date.parse(token.expiresAt),
      actor,
      // Tokens with the same scope share the key, so they share the client API's cached responses.
      scope: { environment: token.environment, projects: token.projects, key: `${token.environment}|${token.projects.join(',')}`, actor, token: hash },
      caller: { actor, grant: { kind: 'token', projects: token.projects, environment: token.environment }, via: 'token' },
      view: viewOf({ kind: 'token', projects: token.projects, environment: token.environment }),
      usedAt: 0,
      reportedAt: 0,
    };
    // A repeated poll answered without authenticating again still checks the expiry and counts the use.
    k.scope.credential = k;
    this.known.set(hash, k);
    return k;
  }
}

