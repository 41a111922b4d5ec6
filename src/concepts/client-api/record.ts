// The client feature record (docs/decisions/0010-client-record-shape.md): what an SDK evaluates for one flag in
// one environment. Pure: reads state, returns a new plain object.
import { servedStrategiesOf, type State } from '../../core/state/state.js';
import type { Constraint, Dependency, Feature, Segment, Strategy, Variant } from '../../core/state/types.js';

export interface ClientStrategy {
  name: string;
  parameters: Record<string, string>;
  constraints: Constraint[];
  variants: Variant[];
  /** Only in the delta and streaming form, where segments travel apart and strategies name them. */
  segments?: number[];
}

/**
 * How strategies carry their segments: inlined as extra constraints (the polled
 * /api/client/features, which every SDK understands), or named by id with the segments sent
 * apart (delta and streaming, as the protocol says).
 */
export type SegmentForm = 'inline' | 'by-id';

export interface ClientDependency {
  feature: string;
  enabled: boolean;
  variants?: string[];
}

export interface ClientFeature {
  name: string;
  type: string;
  enabled: boolean;
  stale: boolean;
  project: string;
  description: string | null;
  impressionData: boolean;
  strategies: ClientStrategy[];
  strategy: string;
  parameters: Record<string, string>;
  variants: Variant[];
  dependencies?: ClientDependency[];
}

/** SDKs evaluate this exactly like an empty list, and the spec wants at least one strategy. */
const SYNTHETIC_DEFAULT: ClientStrategy = Object.freeze({ name: 'default', parameters: {}, constraints: [], variants: [] }) as ClientStrategy;

function clientStrategy(state: State, s: Strategy, form: SegmentForm): ClientStrategy {
  if (form === 'by-id') {
    const out: ClientStrategy = { name: s.name, parameters: s.parameters, constraints: s.constraints, variants: s.variants };
    if (s.segments.length > 0) out.segments = s.segments;
    return out;
  }
  let constraints = s.constraints;
  // SDKs on older specs know nothing of segments, so their constraints are inlined for everyone.
  if (s.segments.length > 0) {
    constraints = [...s.constraints];
    for (const id of s.segments) {
      const seg = state.segments.get(id);
      if (seg) constraints.push(...seg.constraints);
    }
  }
  return { name: s.name, parameters: s.parameters, constraints, variants: s.variants };
}

function clientDependency(d: Dependency): ClientDependency {
  // A variant list only means something for "parent enabled"; Unleash leaves it out otherwise.
  return d.enabled ? { feature: d.feature, enabled: true, variants: d.variants } : { feature: d.feature, enabled: false };
}

export function clientFeature(state: State, f: Feature, environment: string, form: SegmentForm = 'inline'): ClientFeature {
  const fe = state.featureEnvs.get(f.name)?.get(environment);
  const strategies: ClientStrategy[] = [];
  for (const s of servedStrategiesOf(state, f.name, environment)) {
    if (!s.disabled) strategies.push(clientStrategy(state, s, form));
  }
  if (strategies.length === 0) strategies.push(SYNTHETIC_DEFAULT);
  const record: ClientFeature = {
    name: f.name,
    type: f.type,
    enabled: fe?.enabled ?? false,
    stale: f.stale,
    project: f.project,
    description: f.description,
    impressionData: f.impressionData,
    strategies,
    strategy: strategies[0].name,
    parameters: strategies[0].parameters,
    variants: fe?.variants ?? [],
  };
  if (f.dependencies.length > 0) record.dependencies = f.dependencies.map(clientDependency);
  return record;
}

/** A segment as the delta and streaming forms send it. */
export function clientSegment(s: Segment) {
  return { id: s.id, name: s.name, constraints: s.constraints };
}
