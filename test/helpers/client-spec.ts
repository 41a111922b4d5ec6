// The public Unleash client specification (@unleash/client-specification): its files, and their
// states turned into what Fanion takes in: a state document for the import, or the admin calls
// that build the same flags.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface SpecStrategy {
  name: string;
  parameters?: Record<string, string>;
  constraints?: Record<string, unknown>[];
  variants?: SpecVariant[];
  segments?: number[];
}
export interface SpecVariant {
  name: string;
  weight?: number;
  weightType?: string;
  stickiness?: string;
  payload?: { type: string; value: string };
  overrides?: { contextName: string; values: string[] }[];
}
export interface SpecFeature {
  name: string;
  enabled: boolean;
  project?: string;
  type?: string;
  description?: string | null;
  impressionData?: boolean;
  stale?: boolean;
  strategies?: SpecStrategy[];
  variants?: SpecVariant[] | null;
  dependencies?: { feature: string; enabled?: boolean; variants?: string[] }[];
}
export interface SpecSegment {
  id: number;
  name?: string;
  constraints: Record<string, unknown>[];
}
export interface SpecState {
  features: SpecFeature[];
  segments: SpecSegment[];
}
export interface ToggleCase {
  description: string;
  context: Record<string, unknown>;
  toggleName: string;
  expectedResult: boolean;
}
export interface VariantCase {
  description: string;
  context: Record<string, unknown>;
  toggleName: string;
  expectedResult: { name: string; enabled: boolean; feature_enabled?: boolean; payload?: { type: string; value: string } };
}
export interface SpecFile {
  name: string;
  state: SpecState;
  tests: ToggleCase[];
  variantTests: VariantCase[];
}

const require = createRequire(import.meta.url);
const DIR = path.join(path.dirname(require.resolve('@unleash/client-specification/package.json')), 'specifications');

/** Every file the package's index lists, in order, with delta-stream states folded into their end state. */
export function specFiles(): SpecFile[] {
  const index = JSON.parse(fs.readFileSync(path.join(DIR, 'index.json'), 'utf8')) as string[];
  return index.map((file) => {
    const raw = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'));
    return { name: raw.name, state: finalState(raw.state), tests: raw.tests ?? [], variantTests: raw.variantTests ?? [] };
  });
}

interface DeltaEvent {
  type: string;
  features?: SpecFeature[];
  segments?: SpecSegment[];
  feature?: SpecFeature;
  featureName?: string;
  segment?: SpecSegment;
  segmentId?: number;
}

/**
 * Files 19 and 20 give their state as delta events (hydration, then updates and removals), as the
 * delta API streams them; played in order they leave one state, which is what a server holds.
 */
function finalState(state: { features?: SpecFeature[]; segments?: SpecSegment[]; events?: DeltaEvent[] }): SpecState {
  if (!state.events) return { features: state.features ?? [], segments: state.segments ?? [] };
  const features = new Map<string, SpecFeature>();
  const segments = new Map<number, SpecSegment>();
  for (const e of state.events) {
    switch (e.type) {
      case 'hydration':
        features.clear();
        segments.clear();
        for (const f of e.features ?? []) features.set(f.name, f);
        for (const s of e.segments ?? []) segments.set(s.id, s);
        break;
      case 'feature-updated':
        features.set(e.feature!.name, e.feature!);
        break;
      case 'feature-removed':
        features.delete(e.featureName!);
        break;
      case 'segment-updated':
        segments.set(e.segment!.id, e.segment!);
        break;
      case 'segment-removed':
        segments.delete(e.segmentId!);
        break;
      default:
        throw new Error(`unknown delta event type ${e.type}`);
    }
  }
  return { features: [...features.values()], segments: [...segments.values()] };
}

/** Strategies that name a segment their own state lacks: no server can store that link. */
export function missingSegmentLinks(state: SpecState): { feature: string; segment: number }[] {
  const ids = new Set(state.segments.map((s) => s.id));
  const out: { feature: string; segment: number }[] = [];
  for (const f of state.features) {
    for (const s of f.strategies ?? []) for (const id of s.segments ?? []) if (!ids.has(id)) out.push({ feature: f.name, segment: id });
  }
  return out;
}

/**
 * The state as a state document (the shape Unleash's export has) for one environment: flags in
 * the default project, their enabled switch and variants as the environment's, strategies in
 * order. A link to a segment the state lacks is left out (see missingSegmentLinks).
 */
export function stateDocument(state: SpecState, environment: string): Record<string, unknown> {
  const segmentIds = new Set(state.segments.map((s) => s.id));
  return {
    version: 1,
    features: state.features.map((f) => ({
      name: f.name, project: 'default', type: f.type ?? 'release', description: f.description ?? null,
      impressionData: f.impressionData ?? false, stale: f.stale ?? false, dependencies: f.dependencies ?? [],
    })),
    featureEnvironments: state.features.map((f) => ({ featureName: f.name, environment, enabled: f.enabled, variants: f.variants ?? [] })),
    featureStrategies: state.features.flatMap((f) =>
      (f.strategies ?? []).map((s, i) => ({
        featureName: f.name, environment, strategyName: s.name, sortOrder: i, parameters: s.parameters ?? {},
        constraints: s.constraints ?? [], variants: s.variants ?? [], segments: (s.segments ?? []).filter((id) => segmentIds.has(id)),
      })),
    ),
    // The client API's segments carry no name; a state document's always do.
    segments: state.segments.map((s) => ({ id: s.id, name: s.name ?? `segment ${s.id}`, constraints: s.constraints })),
  };
}
