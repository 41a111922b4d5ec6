import type { IncomingMessage, ServerResponse } from 'node:http';
import { toErrorResponse } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { requestIdOf } from './access-log.js';
import { closeWithin } from './connections.js';

/**
 * Sent with every answer: a browser must never guess that a JSON error echoing user input is
 * HTML or script. The poll path has it in its prebuilt headers (client-api/snapshot.ts).
 */
export const NOSNIFF = ['X-Content-Type-Options', 'nosniff'] as const;

/** A body already serialized (a large answer built a slice at a time): sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = body === undefined ? '' : body instanceof JsonText ? body.text : JSON.stringify(body);
  // One writeHead with a flat list: on a response with no headers set yet, Node stores the list
  // as it is instead of going through setHeader's map per header (every admin answer comes here).
  const list: string[] = [];
  if (headers) {
    for (const k in headers) {
      // The body's own type and length always win, as they did when these were set after.
      const lower = k.toLowerCase();
      if (lower !== 'content-type' && lower !== 'content-length') list.push(k, headers[k]);
    }
  }
  if (text) list.push('Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(text)));
  else list.push('Content-Length', '0');
  list.push(...NOSNIFF);
  res.writeHead(status, list);
  res.end(text);
}

/** Answers after which an unread body is not worth reading: the request is refused whatever it holds. */
const REFUSALS = new Set([401, 403, 413, 415]);
/** With it, Node ends and destroys the socket once the answer is written, instead of reading on. */
const CLOSE = { Connection: 'close' };

function bodyStillArriving(req: IncomingMessage | undefined): boolean {
  if (!req || req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Answers `err` through the error catalogue. The body's `id` is the request's id (access-log.ts),
 * so the line that logged the request, and any error logged with it, carry the id a user reports.
 */
export function sendError(res: ServerResponse, err: unknown, log: Logger, context: Record<string, unknown> = {}): void {
  const { status, body, unexpected, headers } = toErrorResponse(err);
  body.id = requestIdOf(res);
  const withId = { ...headers, 'X-Request-Id': body.id };
  if (unexpected) log.error({ ...context, err, errorId: body.id }, 'unexpected error while handling a request');
  else if (status >= 500) log.warn({ ...context, errorId: body.id, err: (err as Error).message }, 'request failed');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const closing = REFUSALS.has(status) && bodyStillArriving(res.req);
  sendJson(res, status, body, closing ? { ...withId, ...CLOSE } : withId);
  // Node ends the socket once the answer is written; a client that does not read may never let
  // it be written.
  if (closing) closeWithin(res.socket);
}
