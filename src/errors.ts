// One catalogue of the errors Fanion answers with. Every error leaves the server through
// `toErrorResponse`, so the mapping from kind to HTTP status lives here and nowhere else.
import { randomUUID } from 'node:crypto';

export interface ErrorDetail {
  message: string;
  path?: string;
}

export abstract class FanionError extends Error {
  abstract readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  constructor(message: string, details?: ErrorDetail[]) {
    super(message);
    this.details = details;
  }
}

export class ValidationError extends FanionError {
  override readonly name = 'ValidationError';
  readonly status = 400;
}
export class AuthenticationRequired extends FanionError {
  override readonly name = 'AuthenticationRequired';
  readonly status = 401;
}
export class NoAccessError extends FanionError {
  override readonly name = 'NoAccessError';
  readonly status = 403;
}
export class NotFoundError extends FanionError {
  override readonly name = 'NotFoundError';
  readonly status = 404;
}
export class MethodNotAllowedError extends FanionError {
  override readonly name = 'MethodNotAllowedError';
  readonly status = 405;
}
export class NameExistsError extends FanionError {
  override readonly name = 'NameExistsError';
  readonly status = 409;
}
export class PayloadTooLargeError extends FanionError {
  override readonly name = 'PayloadTooLargeError';
  readonly status = 413;
}
/** The spec spells this name with a lower-case "e"; clients match on it, so we keep it. */
export class ContentTypeError extends FanionError {
  override readonly name = 'ContentTypeerror';
  readonly status = 415;
}
/** The write-ahead log could not make a change durable; nothing was applied. */
export class ServiceUnavailableError extends FanionError {
  override readonly name = 'ServiceUnavailableError';
  readonly status = 503;
}

export interface ErrorBody {
  id: string;
  name: string;
  message: string;
  details?: ErrorDetail[];
}

export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; unexpected: boolean } {
  if (err instanceof FanionError) {
    const body: ErrorBody = { id: randomUUID(), name: err.name, message: err.message };
    if (err.details) body.details = err.details;
    return { status: err.status, body, unexpected: false };
  }
  return {
    status: 500,
    body: { id: randomUUID(), name: 'UnknownError', message: 'An unexpected error occurred; it has been logged.' },
    unexpected: true,
  };
}
