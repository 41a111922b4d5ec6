// Single sign-on with OpenID Connect, through openid-client (the certified client library): the
// authorization code flow with PKCE (S256), a state and a nonce per attempt. Configured by
// OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET; the provider sends people back to
// PUBLIC_URL/auth/oidc/callback.
//
// An attempt is bound to the browser that started it: its state is also in an HttpOnly cookie,
// and the callback must bring both, so another site cannot finish a sign-in it started in a
// victim's browser (login CSRF). Attempts waiting for their callback are kept in memory, at most
// MAX_PENDING of them for PENDING_MS each (the oldest is forgotten first); each is used once.
import * as client from 'openid-client';
import type { OidcConfig } from '../../core/config.js';
import { AuthenticationRequired } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { RootRole } from '../../core/state/types.js';
import type { SsoIdentity } from './logic.js';

/** How long an attempt may take, provider's sign-in page included. */
export const PENDING_MS = 10 * 60_000;
const MAX_PENDING = 10_000;
const ROLE_RANK: Record<RootRole, number> = { Viewer: 0, Editor: 1, Admin: 2 };

interface Pending {
  verifier: string;
  nonce: string;
  at: number;
}

/**
 * The root role a provider's claim gives: with a map, the highest role of any value (group) it
 * maps; without one, the claim's value names the role. Null when the claim says nothing usable.
 */
export function roleFromClaim(value: unknown, map: readonly [string, RootRole][]): RootRole | null {
  const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
  let best: RootRole | null = null;
  for (const v of values) {
    const role = map.length > 0
      ? map.find(([group]) => group === v)?.[1]
      : (['Admin', 'Editor', 'Viewer'] as RootRole[]).find((r) => r.toLowerCase() === v.trim().toLowerCase());
    if (role && (best === null || ROLE_RANK[role] > ROLE_RANK[best])) best = role;
  }
  return best;
}

export class OidcSignIn {
  readonly displayName: string;
  private configuration: Promise<client.Configuration> | null = null;
  private readonly pending = new Map<string, Pending>();
  private readonly redirectUri: string;

  constructor(
    private readonly settings: OidcConfig,
    publicUrl: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.displayName = settings.displayName;
    this.redirectUri = `${publicUrl}/auth/oidc/callback`;
  }

  /** The provider's metadata, discovered on first use (and again after a failure). */
  private discover(): Promise<client.Configuration> {
    this.configuration ??= (async () => {
      const issuer = new URL(this.settings.issuer);
      // http is allowed for an issuer on this machine only (config.ts), for tests.
      const execute = issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [];
      return client.discovery(issuer, this.settings.clientId, this.settings.clientSecret, undefined, { execute, timeout: 10 });
    })();
    this.configuration.catch((err) => {
      this.configuration = null;
      this.log.warn({ issuer: this.settings.issuer, err: (err as Error).message }, 'single sign-on: the provider could not be reached');
    });
    return this.configuration;
  }

  /**
   * Starts an attempt: the provider's authorization URL to send the browser to, and the state to
   * bind to that browser (its cookie). Throws when the provider cannot be reached.
   */
  async start(): Promise<{ url: string; state: string }> {
    const configuration = await this.discover();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const verifier = client.randomPKCECodeVerifier();
    this.remember(state, { verifier, nonce, at: this.now() });
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri, scope: this.settings.scopes, state, nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    return { url: url.href, state };
  }

  /**
   * Finishes the attempt the callback `search` (its query string) answers, given the state the
   * browser's cookie holds: who signed in, and the root role their claims give (null without
   * OIDC_ROLE_CLAIM). An AuthenticationRequired when the attempt is not this browser's, is unknown,
   * used or too old; any other error when the provider refuses or answers wrongly.
   */
  async finish(search: string, cookieState: string | null): Promise<{ identity: SsoIdentity; role: RootRole | null }> {
    const params = new URLSearchParams(search);
    const state = params.get('state') ?? '';
    const attempt = this.pending.get(state);
    this.pending.delete(state);
    if (!attempt || cookieState !== state || this.now() - attempt.at > PENDING_MS) {
      throw new AuthenticationRequired('This sign-in was not started in this browser, or took too long: start again.');
    }
    const configuration = await this.discover();
    const callback = new URL(this.redirectUri);
    callback.search = search;
    const tokens = await client.authorizationCodeGrant(configuration, callback, {
      pkceCodeVerifier: attempt.verifier, expectedState: state, expectedNonce: attempt.nonce, idTokenExpected: true,
    });
    const claims: Record<string, unknown> = { ...tokens.claims() };
    // Providers often keep email and groups out of the ID token: ask userinfo for what is missing.
    if (claims.email === undefined || (this.settings.roleClaim && claims[this.settings.roleClaim] === undefined)) {
      Object.assign(claims, { ...(await client.fetchUserInfo(configuration, tokens.access_token, String(claims.sub))), ...claims });
    }
    const identity: SsoIdentity = {
      issuer: String(claims.iss), subject: String(claims.sub),
      email: typeof claims.email === 'string' ? claims.email : null,
      username: typeof claims.preferred_username === 'string' ? claims.preferred_username : null,
      emailVerified: claims.email_verified === true,
      name: typeof claims.name === 'string' ? claims.name : null,
    };
    const role = this.settings.roleClaim ? (roleFromClaim(claims[this.settings.roleClaim], this.settings.roleMap) ?? this.settings.defaultRole) : null;
    return { identity, role };
  }

  /** Who may be created at a first sign-in, and with which role. */
  get creation(): { autoCreate: boolean; defaultRole: RootRole } {
    return { autoCreate: this.settings.autoCreate, defaultRole: this.settings.defaultRole };
  }

  /** Keeps an attempt until its callback, within MAX_PENDING (the oldest forgotten first). */
  private remember(state: string, p: Pending): void {
    this.pending.set(state, p);
    while (this.pending.size > MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
  }

  /** Attempts waiting now (for tests). */
  get waiting(): number {
    return this.pending.size;
  }
}
