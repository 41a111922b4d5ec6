// What an upstream sends, read into plain, normalized values: the flags of one token's environment
// (from GET /api/client/features, or the delta and streaming events) and the segments they name.
// The upstream may be a real Unleash, a Fanion or another relay, and it is not trusted to be well
// formed: every answer is checked against a schema first, and a bad one is refused whole (the
// follower then keeps what it has), never half-applied.
import { Ajv } from 'ajv';
import type { Constraint, Feature, FeatureEnv, Variant } from '../state/types.js';

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
const constraints = { type: ['array', 'null'], items: constraint };
const variant = {
  type: 'object',
  required: ['name'],
  properties: {
    name: text, weight: { type: ['number', 'null'] }, weightType: { type: ['string', 'null'] }, stickiness: { type: ['string', 'null'] },
    payload: { type: ['object', 'null'], required: ['type', 'value'], properties: { type: text } },
    overrides: { type: ['array', 'null'], items: { type: 'object', required: ['contextName', 'values'], properties: { contextName: text, values: { type: 'array', items: scalar } } } },
  },
};
const variants = { type: ['array', 'null'], items: variant };
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
    strategies: { type: ['array', 'null'], items: strategy }, variants,
    dependencies: { type: ['array', 'null'], items: { type: 'object', required: ['feature'], properties: { feature: text, enabled: { type: ['boolean', 'null'] }, variants: { type: ['array', 'null'], items: text } } } },
  },
};
const segment = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 0 }, name: { type: ['string', 'null'] }, constraints } };
const fullAnswer = {
  type: 'object',
  required: ['features'],
  properties: { features: { type: 'array', items: feature }, segments: { type: ['array', 'null'], items: segment } },
};
const eventId = { type: 'integer', minimum: 0 };
const deltaEvents = {
  type: 'object',
  required: ['events'],
  properties: {
    events: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type'],
        properties: { type: text, eventId },
        // An event type this relay does not know is left out, not a reason to refuse the rest.
        allOf: [
          { if: { properties: { type: { const: 'hydration' } } }, then: { required: ['features'], properties: { features: { type: 'array', items: feature }, segments: { type: ['array', 'null'], items: segment } } } },
          { if: { properties: { type: { const: 'feature-updated' } } }, then: { required: ['feature'], properties: { feature } } },
          { if: { properties: { type: { const: 'feature-removed' } } }, then: { required: ['featureName'], properties: { featureName: text, project: { type: ['string', 'null'] } } } },
          { if: { properties: { type: { const: 'segment-updated' } } }, then: { required: ['segment'], properties: { segment } } },
          { if: { properties: { type: { const: 'segment-removed' } } }, then: { required: ['segmentId'], properties: { segmentId: { type: 'integer' } } } },
        ],
      },
    },
  },
};

const ajv = new Ajv({ allErrors: false, strict: false });
const checkFull = ajv.compile(fullAnswer);
const checkDelta = ajv.compile(deltaEvents);

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

function readFull(body: Json): FullAnswer {
  return { flags: body.features.map(readFlag), segments: Array.isArray(body.segments) ? body.segments.map(readSegment) : null };
}

function refuse(what: string, errors: { instancePath?: string; message?: string }[] | null | undefined): never {
  const e = errors?.[0];
  throw new UpstreamFormatError(`the upstream's ${what} is not what the client API sends${e ? ` (${e.instancePath || 'body'} ${e.message})` : ''}`);
}

/** GET /api/client/features: `{features, segments?}` (a full state, as streaming may also send). */
export function readFullAnswer(body: unknown): FullAnswer {
  if (!checkFull(body)) refuse('feature list', checkFull.errors);
  return readFull(body as Json);
}

/** GET /api/client/delta and SSE data: `{events:[…]}`. */
export function readEvents(body: unknown): RemoteEvent[] {
  if (!checkDelta(body)) refuse('delta events', checkDelta.errors);
  const out: RemoteEvent[] = [];
  for (const e of (body as Json).events as Json[]) {
    const one = readEvent(e);
    if (one) out.push(one);
  }
  return out;
}

function readEvent(e: Json): RemoteEvent | null {
  const id = typeof e.eventId === 'number' ? e.eventId : 0;
  switch (e.type) {
    case 'hydration':
      return { type: 'hydration', eventId: id, answer: readFull(e) };
    case 'feature-updated':
      return { type: 'feature-updated', eventId: id, flag: readFlag(e.feature) };
    case 'feature-removed':
      return { type: 'feature-removed', eventId: id, featureName: e.featureName, project: e.project ?? null };
    case 'segment-updated':
      return { type: 'segment-updated', eventId: id, segment: readSegment(e.segment) };
    case 'segment-removed':
      return { type: 'segment-removed', eventId: id, segmentId: e.segmentId };
    default:
      return null;
  }
}

/** SSE data: a delta (`{events}`) or a whole state (`{features}`), as the SDK reads either. */
export function readStreamData(body: unknown): RemoteEvent[] {
  if (body !== null && typeof body === 'object' && 'events' in body) return readEvents(body);
  const answer = readFullAnswer(body);
  return [{ type: 'hydration', eventId: 0, answer }];
}
