// Shared by the evaluator's tests: this machine's host name as the SDK reads it, and a
// specification context turned into Fanion's evaluation context.
import os from 'node:os';
import type { EvalContext } from '../../src/concepts/evaluation/context.js';

export const HOSTNAME = (process.env.HOSTNAME || os.hostname() || 'undefined').toLowerCase();

/** A specification context as the SDK reads it: strings, with properties apart. */
export function specContext(raw: Record<string, unknown>): EvalContext {
  const ctx: EvalContext = { properties: {} };
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined || v === null) continue;
    if (k === 'properties') {
      for (const [pk, pv] of Object.entries(v as Record<string, unknown>)) if (pv !== undefined && pv !== null) ctx.properties[pk] = String(pv);
    } else if (['userId', 'sessionId', 'remoteAddress', 'environment', 'appName', 'currentTime'].includes(k)) {
      (ctx as unknown as Record<string, string>)[k] = String(v);
    } else ctx.properties[k] = String(v);
  }
  return ctx;
}
