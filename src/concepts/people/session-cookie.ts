// The session cookie. It holds only a random id (32 bytes); the state keeps its keyed hash. Flags:
// HttpOnly (no script reads it), SameSite=Lax (another site's page cannot make the browser send it
// with a request of its own, only with a top-level navigation, and every state-changing request is
// also checked by http/origin.ts), Path=/, and Secure when the request came over TLS or, with
// TRUST_PROXY, the proxy says it did (X-Forwarded-Proto: https): a cookie set Secure over plain
// HTTP would never come back, and one set without it over HTTPS could leak to a plain request.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { parse, serialize } from 'cookie';

export const SESSION_COOKIE = 'fanion-session';
/** Binds a single sign-on attempt to the browser that started it (see oidc.ts). */
export const OIDC_COOKIE = 'fanion-oidc';

/** The value of cookie `name` in the request, or null. */
export function cookieOf(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie;
  if (!header || header.length > 8192) return null;
  const value = parse(header)[name];
  return value === undefined || value.length === 0 || value.length > 200 ? null : value;
}

/** Whether the browser reached us over HTTPS (directly, or through a trusted proxy that says so). */
export function overTls(req: IncomingMessage, trustedHops: number): boolean {
  if ((req.socket as TLSSocket).encrypted) return true;
  // Only what the client's own cookie gets: a client that writes the header itself gains nothing.
  if (trustedHops === 0) return false;
  const proto = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}

/** A Set-Cookie value: `value` for `maxAgeMs`, or, with null, one that makes the browser forget the cookie. */
export function cookieHeader(req: IncomingMessage, trustedHops: number, name: string, value: string | null, maxAgeMs = 0): string {
  return serialize(name, value ?? '', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: overTls(req, trustedHops),
    maxAge: value === null ? 0 : Math.floor(maxAgeMs / 1000),
    ...(value === null ? { expires: new Date(0) } : {}),
  });
}
