// The features-batch export: the chosen flags with their configuration in one environment, in
// the document format of Unleash 6–8, so that the import (here or on an Unleash) takes it back.
import type { Change } from '../../core/engine/command.js';
import { allContextFields } from '../context-fields/logic.js';
import { requireEnvironment, requireProject } from '../../core/state/lookup.js';
import { strategiesOf, type State } from '../../core/state/state.js';
import type { Feature, Strategy, Tag } from '../../core/state/types.js';
import type { ExportQuery } from './schema.js';

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A tag query: `type:value` names one tag when that type exists; otherwise (or without a colon)
 * the text is a value, matched under any type, as Unleash's export does.
 */
function tagMatcher(state: State, query: string): (t: Tag) => boolean {
  const colon = query.indexOf(':');
  if (colon > 0 && state.tagTypes.has(query.slice(0, colon))) {
    const type = query.slice(0, colon);
    const value = query.slice(colon + 1);
    return (t) => t.type === type && t.value === value;
  }
  return (t) => t.value === query;
}

/**
 * The flags an export query names, by name. Names that match no flag are left out, as in Unleash;
 * a flag named explicitly is exported even when archived (it says so), while `tag` and `project`
 * select live flags only.
 */
export function selectFlags(state: State, query: ExportQuery): Feature[] {
  requireEnvironment(state, query.environment);
  let flags: Feature[];
  if (query.features) {
    flags = [...new Set(query.features)].map((n) => state.features.get(n)).filter((f): f is Feature => f !== undefined);
  } else if (query.tag !== undefined) {
    const matches = tagMatcher(state, query.tag);
    flags = [...state.featureTags].filter(([, tags]) => tags.some(matches)).map(([n]) => state.features.get(n)!).filter((f) => !f.archived);
  } else {
    requireProject(state, query.project!);
    flags = [...state.features.values()].filter((f) => f.project === query.project && !f.archived);
  }
  return flags.sort((a, b) => byString(a.name, b.name));
}

/** Unleash's featureStrategies item: segments by id, the type as `name`. */
function exportedStrategy(s: Strategy) {
  return {
    name: s.name,
    id: s.id,
    featureName: s.featureName,
    title: s.title,
    parameters: s.parameters,
    constraints: s.constraints,
    variants: s.variants,
    disabled: s.disabled,
    segments: s.segments,
  };
}

/** The document for `flags` (from selectFlags) in `environment`. */
export function exportDocument(state: State, flags: Feature[], environment: string) {
  const features = [];
  const featureStrategies = [];
  const featureEnvironments = [];
  const featureTags = [];
  const dependencies = [];
  for (const f of flags) {
    features.push({ name: f.name, description: f.description, type: f.type, project: f.project, stale: f.stale, impressionData: f.impressionData, archived: f.archived });
    featureStrategies.push(...strategiesOf(state, f.name, environment).map(exportedStrategy));
    const fe = state.featureEnvs.get(f.name)?.get(environment);
    if (fe) featureEnvironments.push({ enabled: fe.enabled, featureName: f.name, environment, variants: fe.variants, name: f.name });
    for (const t of state.featureTags.get(f.name) ?? []) featureTags.push({ featureName: f.name, tagType: t.type, tagValue: t.value });
    if (f.dependencies.length > 0) {
      dependencies.push({ feature: f.name, dependencies: f.dependencies.map((d) => ({ feature: d.feature, enabled: d.enabled, variants: [...d.variants] })) });
    }
  }

  // Only what the flags use: the context fields their constraints, stickiness and overrides name,
  // the segments their strategies use (by id and name: the importer maps them by name), the tag
  // types of their tags.
  const usedFields = new Set<string>();
  for (const s of featureStrategies) {
    for (const c of s.constraints) usedFields.add(c.contextName);
    if (s.parameters.stickiness) usedFields.add(s.parameters.stickiness);
    for (const v of s.variants) if (v.stickiness) usedFields.add(v.stickiness);
  }
  for (const fe of featureEnvironments) {
    for (const v of fe.variants) {
      if (v.stickiness) usedFields.add(v.stickiness);
      for (const o of v.overrides ?? []) usedFields.add(o.contextName);
    }
  }
  const contextFields = allContextFields(state)
    .filter((c) => usedFields.has(c.name))
    .map((c) => ({ name: c.name, description: c.description, stickiness: c.stickiness, sortOrder: c.sortOrder, legalValues: c.legalValues }));
  const segmentIds = new Set(featureStrategies.flatMap((s) => s.segments));
  const segments = [...segmentIds].sort((a, b) => a - b).map((id) => ({ id, name: state.segments.get(id)?.name ?? String(id) }));
  const tagTypeNames = new Set(featureTags.map((t) => t.tagType));
  const tagTypes = [...tagTypeNames].sort(byString).flatMap((n) => {
    const t = state.tagTypes.get(n);
    return t ? [{ name: t.name, description: t.description, icon: t.icon }] : [];
  });
  return { features, featureStrategies, featureEnvironments, contextFields, featureTags, segments, tagTypes, dependencies };
}

/**
 * The export as a command: it records `features-exported` (who took which flags out, and from
 * where: the names, not the document, so an audit entry stays small) and returns the document.
 * `mayRead` throws (403) for a project the caller's token does not reach.
 */
export function exportFeatures(query: ExportQuery, mayRead: (project: string) => void) {
  return (state: State): Change<ReturnType<typeof exportDocument>> => {
    const flags = selectFlags(state, query);
    for (const project of new Set(flags.map((f) => f.project))) mayRead(project);
    const document = exportDocument(state, flags, query.environment);
    return {
      ops: [],
      events: [{
        type: 'features-exported',
        environment: query.environment,
        project: query.project ?? null,
        data: { environment: query.environment, features: flags.map((f) => f.name), ...(query.tag !== undefined ? { tag: query.tag } : {}) },
      }],
      result: document,
    };
  };
}
