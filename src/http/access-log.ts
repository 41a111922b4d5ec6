// The access log: one line per admin request and per refused or failed request, through the same
// pino logger as everything else. Successful SDK and browser traffic (polls, streams, metrics,
// frontend answers) is not logged: thousands of instances would drown what people look for, and
// Prometheus counts it instead. Neither is the console's own polling (a line every 2 s per open
// tab): a successful GET of a route declared `background`, marked with BACKGROUND_HEADER. Only a
// GET, so no change goes unlogged; only a success, so no refusal does; only those routes (the event
// cursor, usage, applications), so the header cannot hide an export or a listing of tokens.
//
// A line never holds a secret: the route is its template (`/api/admin/features/:featureName`), the
// caller is the token's name, and the path of an unmatched request (which has no template) is
// logged as its fixed words only (loggablePath). Headers, query strings and bodies are not logged.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../core/logger.js';

/** What one line of the access log says about one request. */
export interface AccessEntry {
  method: string;
  /** The route template that answered; null when none matched. */
  route: string | null;
  status: number;
  /**
   * Time from the request reaching its handler to the answer being handed to the OS; for a refusal
   * on the SDK fast paths and a path no route matches, from the refusal on (no clock on the hot path).
   */
  ms: number;
  /** The name of the token that was accepted; never the token. Null when none was (or no auth). */
  token: string | null;
}

const REQUEST_ID = Symbol('fanion.requestId');
type Tagged = ServerResponse & { [REQUEST_ID]?: string };

/**
 * The id of the request `res` answers, made on first use: the same id is in the error body's `id`,
 * the `X-Request-Id` header and the access log line, so a user's error report finds its line.
 */
export function requestIdOf(res: ServerResponse): string {
  const t = res as Tagged;
  return (t[REQUEST_ID] ??= randomUUID());
}

/** The most segments of an unmatched path kept in a line. */
const MAX_SEGMENTS = 12;

/**
 * An unmatched request's path as it may be logged: each segment that is a fixed word of some
 * route (`api`, `admin`, `features`…) is kept, every other one becomes `*`. So the line shows what
 * was attempted (`/api/admin/segments/<star>/variants`) and nothing a caller typed reaches the
 * log: a token, or only its secret part, pasted into a path is gone whatever its shape or encoding.
 */
export function loggablePath(req: IncomingMessage, words: ReadonlySet<string>): string {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  const segments = (q < 0 ? url : url.slice(0, q)).split('/').slice(1);
  const kept = segments.slice(0, MAX_SEGMENTS).map((seg) => (words.has(seg) ? seg : '*'));
  return `/${kept.join('/')}${segments.length > MAX_SEGMENTS ? '/…' : ''}`;
}

/** The fixed words of route templates (`/api/admin/features/:featureName` gives api, admin, features). */
export function fixedWords(templates: Iterable<string>): Set<string> {
  const words = new Set<string>();
  for (const t of templates) for (const seg of t.split('/')) if (seg && !seg.startsWith(':') && !seg.includes('*')) words.add(seg);
  return words;
}

/** The header the console sets on the reads it repeats on a timer. */
export const BACKGROUND_HEADER = 'x-fanion-background';

/** Whether the request says it is a background poll (BACKGROUND_HEADER: poll). */
export function isBackgroundPoll(req: IncomingMessage): boolean {
  return req.headers[BACKGROUND_HEADER] === 'poll';
}

/** Writes access lines; `admin` says whether the route is an admin one (logged whatever its status). */
export class AccessLog {
  private readonly log: Logger;

  constructor(log: Logger) {
    this.log = log.child({ kind: 'access' });
  }

  /**
   * Whether a request with this answer is logged: every admin request and every refused or failed
   * one, except a successful background poll (`poll`: a background route, marked as such).
   */
  static wanted(admin: boolean, status: number, poll = false): boolean {
    if (status >= 400) return true;
    return admin && !poll;
  }

  write(res: ServerResponse, entry: AccessEntry, path?: string): void {
    this.line(requestIdOf(res), entry, path);
  }

  /** A line for a request answered without a response object (one Node's parser refused). */
  line(reqId: string, entry: AccessEntry, path?: string): void {
    const line = { reqId, ...entry, ms: Math.round(entry.ms * 100) / 100, ...(path === undefined ? {} : { path }) };
    const msg = `${entry.method} ${entry.route ?? path ?? '?'} ${entry.status}`;
    if (entry.status >= 500) this.log.error(line, msg);
    else if (entry.status >= 400) this.log.warn(line, msg);
    else this.log.info(line, msg);
  }
}
