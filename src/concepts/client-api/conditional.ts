// Request-header checks of the hot path: conditional GET and content negotiation.

/**
 * Does If-None-Match match our (strong) ETag? A list, a weak `W/"…"` form and `*` all count:
 * If-None-Match uses the weak comparison (RFC 9110 §13.1.2).
 */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag) return true;
  for (const part of header.split(',')) {
    let tag = part.trim();
    if (tag === '*') return true;
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === etag) return true;
  }
  return false;
}

let lastHeader: string | undefined;
let lastAnswer = false;

/** Does Accept-Encoding allow gzip? `gzip;q=0` refuses it; `*` accepts it unless gzip is refused. */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined || header === '') return false;
  // Clients send the same header on every poll: remember the last answer.
  if (header === lastHeader) return lastAnswer;
  let gzip: boolean | null = null;
  let star = false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.split(';');
    const name = coding.trim().toLowerCase();
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (name === 'gzip' || name === 'x-gzip') gzip = gzip === true ? true : allowed;
    else if (name === '*') star = allowed;
  }
  lastHeader = header;
  lastAnswer = gzip ?? star;
  return lastAnswer;
}
