// The console's only way to the server: the public HTTP API, with the session cookie the browser
// keeps (HttpOnly: no script here reads it) or an admin token of this tab. The token lives in
// sessionStorage: it goes when the tab closes, and no other site can read it.

const TOKEN_KEY = 'fanion.token';

/** What a 400 says of one field: `path` names it as the API does (`name`, `tokenName`). */
export interface ErrorDetail { message: string; path?: string }

/**
 * An answer of 400 or more, with the API's own message (shown in its words, next to what caused
 * it; `errorName` is for code, not for people) and, for a validation error, what it says per field.
 */
export class ApiError extends Error {
  constructor(readonly status: number, readonly errorName: string, message: string, readonly id?: string, readonly details?: ErrorDetail[]) {
    super(message);
  }
}

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value: string | null): void {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

let onSignedOut: ((err: ApiError) => void) | null = null;

/** Told when the API answers 401 (the session ended: signed out elsewhere, deactivated, expired). */
export function whenSignedOut(fn: ((err: ApiError) => void) | null): void {
  onSignedOut = fn;
}

/**
 * Calls the API; resolves with the JSON answer (undefined when there is none), throws ApiError
 * otherwise. `background`: a read repeated on a timer, which the server leaves out of its access
 * log when it succeeds.
 */
export async function api<T = any>(method: string, path: string, body?: unknown, background = false): Promise<T> {
  const headers: Record<string, string> = {};
  const t = token();
  if (t) headers.authorization = t;
  if (background) headers['x-fanion-background'] = 'poll';
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'NetworkError', 'Fanion could not be reached. Is the server running?');
  }
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const message = json?.message ?? json?.errors?.[0]?.message ?? `${res.status} ${res.statusText}`;
    const details = Array.isArray(json?.details) ? (json.details as ErrorDetail[]).filter((d) => typeof d?.message === 'string') : undefined;
    const err = new ApiError(res.status, json?.name ?? 'Error', message, json?.id, details);
    if (res.status === 401 && path.startsWith('/api/admin/')) onSignedOut?.(err);
    throw err;
  }
  return json as T;
}

export const get = <T = any>(path: string) => api<T>('GET', path);
/** A GET the console repeats on a timer (see `api`). */
export const poll = <T = any>(path: string) => api<T>('GET', path, undefined, true);
export const enc = encodeURIComponent;
