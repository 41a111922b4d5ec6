import type { ServerResponse } from 'node:http';
import { toErrorResponse } from '../errors.js';
import type { Logger } from '../log.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.statusCode = status;
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  if (text) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(text));
  } else {
    res.setHeader('Content-Length', 0);
  }
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown, log: Logger, context: Record<string, unknown> = {}): void {
  const { status, body, unexpected } = toErrorResponse(err);
  if (unexpected) log.error({ ...context, err, errorId: body.id }, 'unexpected error while handling a request');
  else if (status >= 500) log.warn({ ...context, errorId: body.id, err: (err as Error).message }, 'request failed');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, body);
}
