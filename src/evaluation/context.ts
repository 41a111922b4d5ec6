// The evaluation context, as SDKs build it: a few well-known fields, and everything else under
// `properties`. A constraint or stickiness names a field; it is read from the well-known ones
// first, then from properties, always as a string (as the official Node SDK reads it).

export interface EvalContext {
  userId?: string;
  sessionId?: string;
  remoteAddress?: string;
  environment?: string;
  appName?: string;
  currentTime?: string;
  properties: Record<string, string>;
}

export const TOP_LEVEL = ['userId', 'sessionId', 'remoteAddress', 'environment', 'appName', 'currentTime'] as const;
const IS_TOP = new Set<string>(TOP_LEVEL);

/** The field's value as a string, or undefined when the context lacks it. */
export function resolve(ctx: EvalContext, field: string): string | undefined {
  if (IS_TOP.has(field)) {
    const v = ctx[field as (typeof TOP_LEVEL)[number]];
    if (v !== undefined) return v;
  }
  return Object.prototype.hasOwnProperty.call(ctx.properties, field) ? ctx.properties[field] : undefined;
}

/** A stable text of the context, to recognise one seen before. */
export function contextKey(ctx: EvalContext): string {
  const props = Object.keys(ctx.properties).sort().map((k) => [k, ctx.properties[k]]);
  return JSON.stringify([ctx.userId, ctx.sessionId, ctx.remoteAddress, ctx.environment, ctx.appName, ctx.currentTime, props]);
}
