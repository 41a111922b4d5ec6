// DNS rebinding defence: which `Host` headers Fanion answers.
//
// A page on evil.example can make its own name resolve to 127.0.0.1 (or a LAN address) after it
// has loaded; the browser then treats Fanion as evil.example itself: same origin, so the
// cross-origin check (origin.ts) sees nothing foreign, CORS does not apply, and the page reads
// and writes at will. With AUTH_TYPE=none it is an admin. What it cannot change is the `Host`
// its browser sends: the attacker's name. So a request is answered only when its Host is
//   - a loopback name (localhost, *.localhost: browsers resolve those to loopback themselves),
//   - an IP address (any: a page whose origin is an address is served from that address, and
//     no rebinding is involved; this keeps probes and LAN access by address working),
//   - a name in ALLOWED_HOSTS, or PUBLIC_URL's host,
//   - or absent (programs speaking HTTP/1.0; every browser sends one).
// Enforced whenever authentication is off, and with it on when ALLOWED_HOSTS is set (a session
// cookie is not sent to a rebound name, so tokens and sessions already stop such a page).
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Config } from '../core/config.js';
import { NoAccessError } from '../core/errors.js';

/** Host headers already accepted, so a browser's repeated Host is not parsed again (bounded). */
const REMEMBERED = 64;

/** The host name of a Host header, lower case, without port or trailing dot (IPv6 without brackets). */
export function hostNameOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(1, end);
  }
  const colon = h.indexOf(':');
  return (colon < 0 ? h : h.slice(0, colon)).replace(/\.$/, '');
}

/** Whether a host name may be answered without being listed: loopback names and IP addresses. */
export function needsNoListing(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0;
}

/**
 * The check for `config`, or null when Host is not checked (authentication on, ALLOWED_HOSTS
 * unset). It throws the refusal for a request whose Host is not served.
 */
export function hostGuard(config: Pick<Config, 'authType' | 'publicUrl'> & { http: Pick<Config['http'], 'allowedHosts'> }): ((req: IncomingMessage) => void) | null {
  if (config.authType !== 'none' && config.http.allowedHosts.length === 0) return null;
  const listed = new Set(config.http.allowedHosts);
  if (config.publicUrl) listed.add(hostNameOf(new URL(config.publicUrl).host));
  const accepted = new Set<string>();
  return (req) => {
    const header = req.headers.host;
    if (header === undefined || accepted.has(header)) return;
    const name = hostNameOf(header);
    if (!needsNoListing(name) && !listed.has(name)) {
      throw new NoAccessError(
        `Refused: this server does not answer for Host "${name.slice(0, 100)}". A web page whose name was made to resolve to this server (DNS rebinding) ` +
          'sends such a request. Reach Fanion at localhost or an IP address, or add the host name to ALLOWED_HOSTS.',
      );
    }
    if (accepted.size >= REMEMBERED) accepted.clear();
    accepted.add(header);
  };
}
