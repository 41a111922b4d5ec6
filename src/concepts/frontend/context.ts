// The evaluation context of a Frontend API or OFREP request: from the query string (GET
// /api/frontend), or from a JSON `context` object (POST). The well-known fields go on top, `properties`
// and every other key into properties; values are read as strings. Bounded, since the context
// comes from the browser: at most MAX_PROPERTIES fields, keys of MAX_KEY characters, values of
// MAX_VALUE. `remoteAddress` defaults to the caller's address.
import type { IncomingMessage } from 'node:http';
import { ValidationError } from '../../core/errors.js';
import { TOP_LEVEL, type EvalContext } from '../evaluation/context.js';

export const MAX_PROPERTIES = 1000;
export const MAX_KEY = 255;
export const MAX_VALUE = 10_000;

const TOP = new Set<string>(TOP_LEVEL);

const bad = (path: string, message: string) => new ValidationError(`Invalid context: ${message}.`, [{ path, message }]);

/** Longer X-Forwarded-For entries are not addresses: the socket's is used instead. */
const MAX_ADDRESS = 64;

/**
 * The caller's address. Behind `trustedHops` proxies, each appending the address it saw to
 * X-Forwarded-For, it is the entry that many places from the right: what the outermost trusted
 * proxy saw. Entries to the left of it came from the client, who may write anything there, so they
 * are never used. With fewer entries than hops, the left-most (the request skipped a proxy).
 */
export function callerAddress(req: IncomingMessage, trustedHops: number): string | undefined {
  if (trustedHops > 0) {
    const fwd = req.headers['x-forwarded-for'];
    // Node joins repeated X-Forwarded-For lines with ", ", in order: one list either way.
    const entries = (Array.isArray(fwd) ? fwd.join(',') : fwd)?.split(',');
    if (entries) {
      const hop = entries[Math.max(0, entries.length - trustedHops)].trim();
      if (hop.length > 0 && hop.length <= MAX_ADDRESS) return hop;
    }
  }
  const a = req.socket.remoteAddress;
  return a?.startsWith('::ffff:') ? a.slice(7) : a;
}

/** Builds a context field by field, enforcing the bounds. */
class ContextBuilder {
  readonly ctx: EvalContext = { properties: {} };
  private count = 0;

  set(key: string, raw: unknown, path: string, intoProperties = false): void {
    if (raw === undefined || raw === null) return;
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') throw bad(path, `"${path}" must be a string, a number or a boolean`);
    const value = String(raw);
    if (key.length > MAX_KEY) throw bad(path, `field names are at most ${MAX_KEY} characters`);
    if (value.length > MAX_VALUE) throw bad(path, `"${path}" is longer than ${MAX_VALUE} characters`);
    if (++this.count > MAX_PROPERTIES) throw bad(path, `a context has at most ${MAX_PROPERTIES} fields`);
    if (!intoProperties && TOP.has(key)) (this.ctx as unknown as Record<string, string>)[key] = value;
    else if (key !== '__proto__') this.ctx.properties[key] = value;
  }
}

function finish(b: ContextBuilder, defaults: { remoteAddress?: string; environment: string }): EvalContext {
  const ctx = b.ctx;
  ctx.remoteAddress ??= defaults.remoteAddress;
  if (ctx.remoteAddress === undefined) delete ctx.remoteAddress;
  ctx.environment ??= defaults.environment;
  return ctx;
}

/** GET /api/frontend?userId=…&properties[plan]=… */
export function contextFromQuery(search: string, defaults: { remoteAddress?: string; environment: string }): EvalContext {
  const b = new ContextBuilder();
  for (const [key, value] of new URLSearchParams(search)) {
    const m = /^properties\[(.+)\]$/.exec(key);
    if (m) b.set(m[1], value, key, true);
    else b.set(key, value, key);
  }
  return finish(b, defaults);
}

/** A JSON context object: `{userId, …, properties: {…}, anything: …}`; OFREP's `targetingKey` is the userId. */
export function contextFromObject(raw: Record<string, unknown> | undefined, defaults: { remoteAddress?: string; environment: string }, targetingKey = false): EvalContext {
  const b = new ContextBuilder();
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [pk, pv] of Object.entries(value as Record<string, unknown>)) b.set(pk, pv, `context.properties.${pk}`, true);
    } else if (targetingKey && key === 'targetingKey') {
      if (raw?.userId === undefined) b.set('userId', value, 'context.targetingKey');
    } else b.set(key, value, `context.${key}`);
  }
  return finish(b, defaults);
}
