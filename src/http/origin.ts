// Cross-origin protection for state-changing requests, after Go's net/http CrossOriginProtection.
//
// Any web page can make a browser send a body-less or "simple" POST to a Fanion it can reach
// (localhost, a LAN address): with AUTH_TYPE=none that page is an admin, and with tokens the web
// console's session would be too. Browsers say where a request comes from: Sec-Fetch-Site (all
// current browsers) or, failing that, Origin. Requests that carry neither come from programs
// (curl, SDKs, proxies, scripts), which a web page cannot forge, and pass.
import type { IncomingMessage } from 'node:http';
import { NoAccessError } from '../core/errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Builds the check; `trusted` are the origins allowed besides the server's own. */
export function crossOriginGuard(trusted: readonly string[]): (req: IncomingMessage) => void {
  const allowed = new Set(trusted);
  return (req) => {
    if (SAFE_METHODS.has(req.method ?? 'GET')) return;
    // A webhook of a Fanion (this one, reached through an allowed host or its public address)
    // aimed at a Fanion API would make changes whose events send it again: a loop. Every
    // delivery carries this header and an addon cannot remove or set it (addons/logic.ts).
    if (req.headers['x-fanion-delivery'] !== undefined) {
      throw new NoAccessError('Refused: this request is a Fanion webhook delivery (X-Fanion-Delivery), and a webhook may not change Fanion: its events would call it again.');
    }
    const site = req.headers['sec-fetch-site'];
    const origin = req.headers.origin;
    if (typeof site === 'string') {
      if (site === 'same-origin' || site === 'none') return;
    } else {
      if (origin === undefined) return;
      if (sameHost(origin, req.headers.host)) return;
    }
    if (origin !== undefined && allowed.has(origin)) return;
    throw new NoAccessError(
      `Cross-origin request refused: a page at ${origin ?? 'another site'} may not change Fanion` +
        `${typeof site === 'string' ? ` (Sec-Fetch-Site: ${site})` : ''}. ` +
        'Send it from the same origin, without a browser, or add that origin to CORS_ORIGINS.',
    );
  };
}

function sameHost(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false; // "null" (sandboxed frames, file: pages) or garbage: not this server
  }
}
