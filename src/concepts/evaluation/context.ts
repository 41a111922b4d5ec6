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

/**
 * A reader of one field, chosen once (when flags are prepared): a well-known field is a property
 * read; any other is looked up in properties (own keys only: "constructor" is not a field).
 */
export function fieldReader(field: string): (ctx: EvalContext) => string | undefined {
  switch (field) {
    case 'userId': return (ctx) => ctx.userId ?? own(ctx.properties, field);
    case 'sessionId': return (ctx) => ctx.sessionId ?? own(ctx.properties, field);
    case 'remoteAddress': return (ctx) => ctx.remoteAddress ?? own(ctx.properties, field);
    case 'environment': return (ctx) => ctx.environment ?? own(ctx.properties, field);
    case 'appName': return (ctx) => ctx.appName ?? own(ctx.properties, field);
    case 'currentTime': return (ctx) => ctx.currentTime ?? own(ctx.properties, field);
    default: return (ctx) => own(ctx.properties, field);
  }
}

const own = (props: Record<string, string>, key: string) => (Object.prototype.hasOwnProperty.call(props, key) ? props[key] : undefined);

/** A stable text of the context, to recognise one seen before. */
export function contextKey(ctx: EvalContext): string {
  const props = Object.keys(ctx.properties).sort().map((k) => [k, ctx.properties[k]]);
  return JSON.stringify([ctx.userId, ctx.sessionId, ctx.remoteAddress, ctx.environment, ctx.appName, ctx.currentTime, props]);
}
