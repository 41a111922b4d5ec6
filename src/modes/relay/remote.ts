// What an upstream sends, read into plain, normalized values: the flags of one token's environment
// (from GET /api/client/features, or the delta and streaming events) and the segments they name.
// The upstream may be a real Unleash, a Fanion or another relay, and it is not trusted to be well
// formed: every answer is checked against a schema first, and a bad one is refused whole (the
// follower then keeps what it has), never half-applied.
import { Ajv } from 'ajv';
import { finish, type Slicer } from '../../core/slices.js';
import type { Constraint, Feature, FeatureEnv, Variant } from '../../core/state/types.js';

/** One strategy as SDKs get it; `segments` name segments by id (empty when they were inlined). */
export interface RemoteStrategy {
  name: string;
  parameters: Record<string, string>;
  constraints: Constraint[];
  variants: Variant[];
  segments: number[];
}

/** One flag in one environment, as the upstream's client API describes it. */
export interface RemoteFlag
  extends Pick<Feature, 'name' | 'project' | 'type' | 'description' | 'impressionData' | 'stale' | 'dependencies'>, Pick<FeatureEnv, 'enabled' | 'variants'> {
  strategies: RemoteStrategy[];
}

export interface RemoteSegment {
  id: number;
  name: string;
  constraints: Constraint[];
}

/** A whole answer: every flag the token sees, and the segments (absent when they were inlined). */
export interface FullAnswer {
  flags: RemoteFlag[];
  segments: RemoteSegment[] | null;
}

export type RemoteEvent =
  | { type: 'hydration'; eventId: number; answer: FullAnswer }
  | { type: 'feature-updated'; eventId: number; flag: RemoteFlag }
  | { type: 'feature-removed'; eventId: number; featureName: string; project: string | null }
  | { type: 'segment-updated'; eventId: number; segment: RemoteSegment }
  | { type: 'segment-removed'; eventId: number; segmentId: number };

/** An answer the relay cannot read: the follower counts a failure and keeps what it has. */
export class UpstreamFormatError extends Error {
  override name = 'UpstreamFormatError';
}

/*
 * What one upstream answer may hold, at most: generous for real use (a large Unleash has a few
 * thousand flags), small enough that reading and applying it stays within memory and time bounds.
 * An answer past any of them is refused whole, with a log line naming the bound.
 */
/** Flags in one answer (a full answer, or all of a delta's or a stream frame's events). */
export const MAX_UPSTREAM_FLAGS = 50_000;
/** Segments in one answer. */
export const MAX_UPSTREAM_SEGMENTS = 10_000;
/** Events in one delta answer or stream frame. */
export const MAX_UPSTREAM_EVENTS = 100_000;
/** Strategies of one flag in one environment; variants of a flag or a strategy; constraints of a strategy or a segment. */
export const MAX_UPSTREAM_ITEMS = 1_000;
/** Strategies in one answer, all flags together. */
export const MAX_UPSTREAM_STRATEGIES = 200_000;
/** Constraint values in one answer, all constraints together. */
export const MAX_UPSTREAM_VALUES = 1_000_000;

const text = { type: 'string' };
const scalar = { type: ['string', 'number', 'boolean'] };
const constraint = {
  type: 'object',
  required: ['contextName', 'operator'],
  properties: {
    contextName: text, operator: text, values: { type: ['array', 'null'], items: scalar }, value: { type: ['string', 'number', 'null'] },
    caseInsensitive: { type: ['boolean', 'null'] }, inverted: { type: ['boolean', 'null'] },
  },
};
const constraints = { type: ['array', 'null'], maxItems: MAX_UPSTREAM_ITEMS, items: constraint };
const variant = {
  type: 'object',
  required: ['name'],
  properties: {
    name: text, weight: { type: ['number', 'null'] }, weightType: { type: ['string', 'null'] }, stickiness: { type: ['string', 'null'] },
    payload: { type: ['object', 'null'], required: ['type', 'value'], properties: { type: text } },
    overrides: { type: ['array', 'null'], items: { type: 'object', required: ['contextName', 'values'], properties: { contextName: text, values: { type: 'array', items: scalar } } } },
  },
};
const variants = { type: ['array', 'null'], maxItems: MAX_UPSTREAM_ITEMS, items: variant };
const strategy = {
  type: 'object',
  required: ['name'],
  properties: {
    name: text, parameters: { type: ['object', 'null'], additionalProperties: scalar }, constraints, variants,
    segments: { type: ['array', 'null'], items: { type: 'integer' } },
  },
};
const feature = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 }, project: { type: ['string', 'null'] }, type: { type: ['string', 'null'] }, description: { type: ['string', 'null'] },
    enabled: { type: ['boolean', 'null'] }, stale: { type: ['boolean', 'null'] }, impressionData: { type: ['boolean', 'null'] },
    strategies: { type: ['array', 'null'], maxItems: MAX_UPSTREAM_ITEMS, items: strategy }, variants,
    dependencies: { type: ['array', 'null'], maxItems: MAX_UPSTREAM_ITEMS, items: { type: 'object', required: ['feature'], properties: { feature: text, enabled: { type: ['boolean', 'null'] }, variants: { type: ['array', 'null'], items: text } } } },
  },
};
const segment = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 0 }, name: { type: ['string', 'null'] }, constraints } };
// The answer's shape is checked first, each flag and segment then on its own (a slice at a time).
const fullAnswer = {
  type: 'object',
  required: ['features'],
  properties: { features: { type: 'array' }, segments: { type: ['array', 'null'] } },
};
const eventId = { type: 'integer', minimum: 0 };
const deltaEvents = { type: 'object', required: ['events'], properties: { events: { type: 'array' } } };
const deltaEvent = {
  type: 'object',
  required: ['type'],
  properties: { type: text, eventId },
  // An event type this relay does not know is left out, not a reason to refuse the rest.
  allOf: [
    { if: { properties: { type: { const: 'hydration' } } }, then: { required: ['features'], properties: { features: { type: 'array' }, segments: { type: ['array', 'null'] } } } },
    { if: { properties: { type: { const: 'feature-updated' } } }, then: { required: ['feature'], properties: { feature } } },
    { if: { properties: { type: { const: 'feature-removed' } } }, then: { required: ['featureName'], properties: { featureName: text, project: { type: ['string', 'null'] } } } },
    { if: { properties: { type: { const: 'segment-updated' } } }, then: { required: ['segment'], properties: { segment } } },
    { if: { properties: { type: { const: 'segment-removed' } } }, then: { required: ['segmentId'], properties: { segmentId: { type: 'integer' } } } },
  ],
};

const ajv = new Ajv({ allErrors: false, strict: false });
const checkFull = ajv.compile(fullAnswer);
const checkDelta = ajv.compile(deltaEvents);
const checkEvent = ajv.compile(deltaEvent);
const checkFeature = ajv.compile(feature);
const checkSegment = ajv.compile(segment);

type Json = Record<string, any>;

const str = (v: unknown): string => (typeof v === 'string' ? v : String(v));

function readConstraint(c: Json): Constraint {
  const out: Constraint = { contextName: c.contextName, operator: c.operator, caseInsensitive: c.caseInsensitive === true, inverted: c.inverted === true };
  if (Array.isArray(c.values)) out.values = c.values.map(str);
  if (c.value !== undefined && c.value !== null) out.value = str(c.value);
  return out;
}

function readVariant(v: Json): Variant {
  const out: Variant = { name: v.name, weight: typeof v.weight === 'number' ? v.weight : 0, weightType: v.weightType === 'fix' ? 'fix' : 'variable' };
  if (typeof v.stickiness === 'string') out.stickiness = v.stickiness;
  if (v.payload) out.payload = { type: v.payload.type, value: typeof v.payload.value === 'string' ? v.payload.value : JSON.stringify(v.payload.value) };
  if (Array.isArray(v.overrides) && v.overrides.length > 0) out.overrides = v.overrides.map((o: Json) => ({ contextName: o.contextName, values: o.values.map(str) }));
  return out;
}

function readStrategy(s: Json): RemoteStrategy {
  const parameters: Record<string, string> = {};
  for (const [k, v] of Object.entries((s.parameters ?? {}) as Json)) parameters[k] = str(v);
  return {
    name: s.name, parameters, constraints: (s.constraints ?? []).map(readConstraint), variants: (s.variants ?? []).map(readVariant), segments: [...(s.segments ?? [])],
  };
}

export function readFlag(f: Json): RemoteFlag {
  return {
    name: f.name,
    project: f.project ?? 'default',
    type: f.type ?? 'release',
    description: f.description ?? null,
    impressionData: f.impressionData === true,
    stale: f.stale === true,
    dependencies: (f.dependencies ?? []).map((d: Json) => ({ feature: d.feature, enabled: d.enabled !== false, variants: d.variants ?? [] })),
    enabled: f.enabled === true,
    variants: (f.variants ?? []).map(readVariant),
    strategies: (f.strategies ?? []).map(readStrategy),
  };
}

function readSegment(s: Json): RemoteSegment {
  return { id: s.id, name: s.name ?? `segment-${s.id}`, constraints: (s.constraints ?? []).map(readConstraint) };
}

/** What one answer holds so far, against the MAX_UPSTREAM_* bounds. */
class Tally {
  flags = 0;
  segments = 0;
  strategies = 0;
  values = 0;

  private static over(what: string, max: number): never {
    throw new UpstreamFormatError(`the upstream's answer has more than ${max} ${what}: refused, the relay keeps serving what it has`);
  }

  flag(f: Json): void {
    if (++this.flags > MAX_UPSTREAM_FLAGS) Tally.over('flags', MAX_UPSTREAM_FLAGS);
    for (const s of (f.strategies ?? []) as Json[]) {
      if (++this.strategies > MAX_UPSTREAM_STRATEGIES) Tally.over('strategies', MAX_UPSTREAM_STRATEGIES);
      this.constraints(s.constraints);
    }
  }

  segment(s: Json): void {
    if (++this.segments > MAX_UPSTREAM_SEGMENTS) Tally.over('segments', MAX_UPSTREAM_SEGMENTS);
    this.constraints(s.constraints);
  }

  private constraints(list: Json[] | null | undefined): void {
    for (const c of list ?? []) {
      this.values += Array.isArray(c.values) ? c.values.length : 0;
      if (this.values > MAX_UPSTREAM_VALUES) Tally.over('constraint values', MAX_UPSTREAM_VALUES);
    }
  }
}

function refuse(what: string, errors: { instancePath?: string; message?: string }[] | null | undefined, at = ''): never {
  const e = errors?.[0];
  throw new UpstreamFormatError(`the upstream's ${what} is not what the client API sends${e ? ` (${at}${e.instancePath || (at ? '' : 'body')} ${e.message})` : ''}`);
}

/** Flags and segments checked and read one at a time, yielding between them. */
function* readFullSteps(body: Json, tally: Tally, what: string, at: string): Generator<void, FullAnswer> {
  const features = body.features as unknown[];
  if (features.length > MAX_UPSTREAM_FLAGS) throw new UpstreamFormatError(`the upstream's answer has more than ${MAX_UPSTREAM_FLAGS} flags (${features.length}): refused, the relay keeps serving what it has`);
  const flags: RemoteFlag[] = [];
  for (let i = 0; i < features.length; i++) {
    if (!checkFeature(features[i])) refuse(what, checkFeature.errors, `${at}/features/${i}`);
    tally.flag(features[i] as Json);
    flags.push(readFlag(features[i] as Json));
    yield;
  }
  if (!Array.isArray(body.segments)) return { flags, segments: null };
  const segments: RemoteSegment[] = [];
  for (let i = 0; i < body.segments.length; i++) {
    const s = body.segments[i];
    if (!checkSegment(s)) refuse(what, checkSegment.errors, `${at}/segments/${i}`);
    tally.segment(s as Json);
    segments.push(readSegment(s as Json));
    yield;
  }
  return { flags, segments };
}

function* fullAnswerSteps(body: unknown): Generator<void, FullAnswer> {
  if (!checkFull(body)) refuse('feature list', checkFull.errors);
  return yield* readFullSteps(body as Json, new Tally(), 'feature list', '');
}

function* eventSteps(body: unknown): Generator<void, RemoteEvent[]> {
  if (!checkDelta(body)) refuse('delta events', checkDelta.errors);
  const events = (body as Json).events as unknown[];
  if (events.length > MAX_UPSTREAM_EVENTS) throw new UpstreamFormatError(`the upstream's answer has more than ${MAX_UPSTREAM_EVENTS} events (${events.length}): refused, the relay keeps serving what it has`);
  const tally = new Tally();
  const out: RemoteEvent[] = [];
  for (let i = 0; i < events.length; i++) {
    if (!checkEvent(events[i])) refuse('delta events', checkEvent.errors, `/events/${i}`);
    const e = events[i] as Json;
    const id = typeof e.eventId === 'number' ? e.eventId : 0;
    switch (e.type) {
      case 'hydration':
        out.push({ type: 'hydration', eventId: id, answer: yield* readFullSteps(e, tally, 'delta events', `/events/${i}`) });
        break;
      case 'feature-updated':
        tally.flag(e.feature);
        out.push({ type: 'feature-updated', eventId: id, flag: readFlag(e.feature) });
        break;
      case 'feature-removed':
        out.push({ type: 'feature-removed', eventId: id, featureName: e.featureName, project: e.project ?? null });
        break;
      case 'segment-updated':
        tally.segment(e.segment);
        out.push({ type: 'segment-updated', eventId: id, segment: readSegment(e.segment) });
        break;
      case 'segment-removed':
        out.push({ type: 'segment-removed', eventId: id, segmentId: e.segmentId });
        break;
    }
    yield;
  }
  return out;
}

function* streamDataSteps(body: unknown): Generator<void, RemoteEvent[]> {
  if (body !== null && typeof body === 'object' && 'events' in body) return yield* eventSteps(body);
  const answer = yield* fullAnswerSteps(body);
  return [{ type: 'hydration', eventId: 0, answer }];
}

/** GET /api/client/features: `{features, segments?}` (a full state, as streaming may also send). */
export function readFullAnswer(body: unknown): FullAnswer;
export function readFullAnswer(body: unknown, slicer: Slicer): Promise<FullAnswer>;
export function readFullAnswer(body: unknown, slicer?: Slicer): FullAnswer | Promise<FullAnswer> {
  return slicer ? slicer.run(fullAnswerSteps(body)) : finish(fullAnswerSteps(body));
}

/** GET /api/client/delta and SSE data: `{events:[…]}`. */
export function readEvents(body: unknown): RemoteEvent[];
export function readEvents(body: unknown, slicer: Slicer): Promise<RemoteEvent[]>;
export function readEvents(body: unknown, slicer?: Slicer): RemoteEvent[] | Promise<RemoteEvent[]> {
  return slicer ? slicer.run(eventSteps(body)) : finish(eventSteps(body));
}

/** SSE data: a delta (`{events}`) or a whole state (`{features}`), as the SDK reads either. */
export function readStreamData(body: unknown): RemoteEvent[];
export function readStreamData(body: unknown, slicer: Slicer): Promise<RemoteEvent[]>;
export function readStreamData(body: unknown, slicer?: Slicer): RemoteEvent[] | Promise<RemoteEvent[]> {
  return slicer ? slicer.run(streamDataSteps(body)) : finish(streamDataSteps(body));
}
