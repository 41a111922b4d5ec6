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
/** A ValidationError about one field: the message says what is wrong, `path` names the field. */
export function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Request validation failed: ${message}.`, [{ path, message }]);
}

export class AuthenticationRequired extends FanionError {
  override readonly name = 'AuthenticationRequired';
  readonly status = 401;
}
/** A sign-in refused: the same answer for an unknown account, a wrong password or a deactivated account (Unleash's name). */
export class PasswordMismatch extends FanionError {
  override readonly name = 'PasswordMismatch';
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
/** The path exists, but not for this method; `allow` lists the methods it has (the Allow header). */
export class MethodNotAllowedError extends FanionError {
  override readonly name = 'MethodNotAllowedError';
  readonly status = 405;
  constructor(message: string, readonly allow: string[]) {
    super(message);
  }
}
export class NameExistsError extends FanionError {
  override readonly name = 'NameExistsError';
  readonly status = 409;
}
/** The request is valid but the state it acts on moved under it (a change request's change made against an older strategy). */
export class ConflictError extends FanionError {
  override readonly name = 'ConflictError';
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
/** Node's HTTP parser refused the bytes: not HTTP, or malformed. */
export class BadRequestError extends FanionError {
  override readonly name = 'BadRequestError';
  readonly status = 400;
}
/** The request did not arrive in time (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS). */
export class RequestTimeoutError extends FanionError {
  override readonly name = 'RequestTimeout';
  readonly status = 408;
}
export class HeadersTooLargeError extends FanionError {
  override readonly name = 'RequestHeaderFieldsTooLarge';
  readonly status = 431;
}
/** STREAMING_MAX_CONNECTIONS streams are open, or STREAMING_MAX_CONNECTIONS_PER_TOKEN of the token: the SDK falls back to polling at once. */
export class TooManyStreamsError extends FanionError {
  override readonly name = 'TooManyStreamsError';
  readonly status = 429;
}
/** Too many attempts (sign-ins from one address or at one account, or a busy password hasher): try again after `retryAfter` seconds (the Retry-After header). */
export class TooManyRequestsError extends FanionError {
  override readonly name = 'TooManyRequestsError';
  readonly status = 429;
  constructor(message: string, readonly retryAfter: number) {
    super(message);
  }
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

/** What Node's parser reports (server 'clientError'), as one of ours. */
export function parserError(code: string | undefined): FanionError {
  if (code === 'HPE_HEADER_OVERFLOW') return new HeadersTooLargeError('The request headers are too large.');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new RequestTimeoutError('The request took too long to arrive.');
  return new BadRequestError('The request is not valid HTTP.');
}

export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; unexpected: boolean; headers?: Record<string, string> } {
  if (err instanceof FanionError) {
    const body: ErrorBody = { id: randomUUID(), name: err.name, message: err.message };
    if (err.details) body.details = err.details;
    const headers: Record<string, string> | undefined = err instanceof MethodNotAllowedError
      ? { Allow: err.allow.join(', ') }
      : err instanceof TooManyRequestsError ? { 'Retry-After': String(Math.max(1, Math.ceil(err.retryAfter))) } : undefined;
    return { status: err.status, body, unexpected: false, headers };
  }
  return {
    status: 500,
    body: { id: randomUUID(), name: 'UnknownError', message: 'An unexpected error occurred; it has been logged.' },
    unexpected: true,
  };
}

/**
 * What stops start-up until a person acts on the data (a database table Fanion does not recognise,
 * a record in its log it cannot read): the process exits with status 2, as for a bad setting,
 * rather than 1, which an orchestrator reads as "restart me" (restarting would meet it again).
 */
export class CannotStartError extends Error {}

/**
 * Data written by a newer Fanion in a format this one does not know (a WAL record, a checkpoint,
 * the cluster's tables). Reading on would misread it, and treating it as damage would cut it off
 * or skip it: the process refuses to start instead (status 2), saying what and which version.
 */
export class NewerFormatError extends CannotStartError {
  constructor(
    readonly what: string,
    readonly found: number,
    readonly newest: number,
  ) {
    super(
      `${what}: format version ${found}, written by a newer Fanion; this Fanion reads versions up to ${newest}. ` +
        'Run the newer Fanion (or a later one), or restore the backup taken before the upgrade (docs/upgrading.md)',
    );
  }

  /** The same error, naming where the data was found (a file, a table). */
  at(where: string): NewerFormatError {
    return new NewerFormatError(`${this.what} in ${where}`, this.found, this.newest);
  }
}
