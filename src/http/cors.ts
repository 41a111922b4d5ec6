// CORS for the routes browsers call from other sites: the Frontend API and OFREP. The origins are
// FRONTEND_API_ORIGINS (every origin when it is empty). An allowed origin is echoed back (never
// "*", so answers stay cacheable per origin with `Vary: Origin`), `ETag` is exposed (the browser
// SDK sends it back), and preflights are answered for whatever headers the SDK asks to send.
import type { IncomingMessage, ServerResponse } from 'node:http';

const METHODS = 'GET, POST, OPTIONS';
/** A day: browsers cap it lower anyway (Chromium at 2 hours). */
const MAX_AGE = '86400';

function allowedOrigin(origins: readonly string[], req: IncomingMessage): string | null {
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || origin === '') return null;
  return origins.length === 0 || origins.includes(origin) ? origin : null;
}

const VARY_ONLY: readonly string[] = Object.freeze(['Vary', 'Origin']);

/** The CORS headers of an answer, as a flat name/value list for writeHead (shared when there is no origin to allow). */
export function corsHeaders(origins: readonly string[], req: IncomingMessage): readonly string[] {
  const origin = allowedOrigin(origins, req);
  return origin === null ? VARY_ONLY : ['Vary', 'Origin', 'Access-Control-Allow-Origin', origin, 'Access-Control-Expose-Headers', 'ETag'];
}

/** Sets the CORS headers of an answer (before it is written). */
export function corsFor(origins: readonly string[]): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const list = corsHeaders(origins, req);
    for (let i = 0; i < list.length; i += 2) res.setHeader(list[i], list[i + 1]);
  };
}

/** Answers a preflight: 204, with what the browser may send when the origin is allowed. */
export function preflightFor(origins: readonly string[]): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const headers: Record<string, string> = { Vary: 'Origin', 'Content-Length': '0' };
    const origin = allowedOrigin(origins, req);
    if (origin !== null) {
      headers['Access-Control-Allow-Origin'] = origin;
      headers['Access-Control-Allow-Methods'] = METHODS;
      const asked = req.headers['access-control-request-headers'];
      headers['Access-Control-Allow-Headers'] = typeof asked === 'string' && asked.length <= 2000 ? asked : 'Authorization, Content-Type, If-None-Match, X-API-Key';
      headers['Access-Control-Max-Age'] = MAX_AGE;
    }
    res.writeHead(204, headers);
    res.end();
  };
}
