// The state export: every kind the import takes, in the same shape, in a deterministic order,
// so export → import into an empty server → export gives the same document.
import { featureMetadata } from '../../core/state/lookup.js';
import { projectRecord } from '../projects/logic.js';
import { strategiesOf, type State } from '../../core/state/state.js';
import type { Feature, ImpactChart, Project, ReleasePlan, ReleaseTemplate, Safeguard, Segment, Strategy } from '../../core/state/types.js';

export const STATE_VERSION = 4;

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sortedKeys = <V>(m: Map<string, V>) => [...m.keys()].sort(byString);

export function exportedFeature(f: Feature) {
  return {
    ...featureMetadata(f),
    archivedAt: f.archivedAt,
    dependencies: f.dependencies.map((d) => ({ feature: d.feature, enabled: d.enabled, variants: [...d.variants] })),
  };
}

/** Projects export exactly as the API shows them. */
export const exportedProject = (p: Project) => projectRecord(p);

export function exportedSegment(s: Segment) {
  return { id: s.id, name: s.name, description: s.description, project: s.project, constraints: s.constraints, createdAt: s.createdAt, createdBy: s.createdBy };
}

/** Unleash's featureStrategies row: the type is `strategyName`; segments are listed apart. */
function exportedStrategy(s: Strategy) {
  return {
    id: s.id,
    featureName: s.featureName,
    projectId: s.projectId,
    environment: s.environment,
    strategyName: s.name,
    title: s.title,
    disabled: s.disabled,
    sortOrder: s.sortOrder,
    parameters: s.parameters,
    constraints: s.constraints,
    variants: s.variants,
    createdAt: s.createdAt,
  };
}

/** A template as Fanion keeps it: ids, order and strategies, so plans made after a round trip match. */
function exportedTemplate(t: ReleaseTemplate) {
  return {
    id: t.id, name: t.name, description: t.description, createdByUserId: t.createdByUserId, createdAt: t.createdAt, archivedAt: t.archivedAt,
    milestones: t.milestones.map((m) => ({ id: m.id, name: m.name, sortOrder: m.sortOrder, strategies: m.strategies.map((s) => ({ ...s })) })),
  };
}

/**
 * A plan with its progress (which milestone is active, when each started, its progression and
 * whether it ran or is paused); its milestones' strategies in a template's shape (the flag, its
 * project and environment are the plan's).
 */
export function exportedPlan(p: ReleasePlan) {
  return {
    id: p.id, name: p.name, description: p.description, createdByUserId: p.createdByUserId, createdAt: p.createdAt,
    featureName: p.featureName, environment: p.environment, releasePlanTemplateId: p.releasePlanTemplateId, activeMilestoneId: p.activeMilestoneId,
    milestones: p.milestones.map((m) => ({
      id: m.id, name: m.name, sortOrder: m.sortOrder, startedAt: m.startedAt, transitionCondition: m.transitionCondition, progressionTarget: m.progressionTarget,
      progressionExecutedAt: m.progressionExecutedAt, pausedAt: m.pausedAt,
      strategies: m.strategies.map((s) => ({
        id: s.id, strategyName: s.name, title: s.title, disabled: s.disabled, sortOrder: s.sortOrder, parameters: s.parameters,
        constraints: s.constraints, variants: s.variants, segments: s.segments, createdAt: s.createdAt,
      })),
    })),
  };
}

const exportedSafeguard = (sg: Safeguard) => ({ ...sg });
const exportedChart = (c: ImpactChart) => ({ ...c });

const byId = <V extends { id: string }>(m: Map<string, V>) => [...m.values()].sort((a, b) => byString(a.id, b.id));

export function exportState(state: State) {
  const flags = sortedKeys(state.features);
  const environments = [...state.environments.values()].sort((a, b) => a.sortOrder - b.sortOrder || byString(a.name, b.name));
  const featureEnvironments = [];
  const featureStrategies = [];
  const featureStrategySegments = [];
  for (const name of flags) {
    const envs = state.featureEnvs.get(name);
    if (!envs) continue;
    for (const envName of [...envs.keys()].sort(byString)) {
      const fe = envs.get(envName)!;
      featureEnvironments.push({ featureName: name, environment: envName, enabled: fe.enabled, variants: fe.variants, lastSeenAt: fe.lastSeenAt });
      for (const s of strategiesOf(state, name, envName)) {
        featureStrategies.push(exportedStrategy(s));
        for (const segmentId of s.segments) featureStrategySegments.push({ featureStrategyId: s.id, segmentId });
      }
    }
  }
  const featureTags = [];
  for (const name of sortedKeys(state.featureTags)) {
    const tags = [...state.featureTags.get(name)!].sort((a, b) => byString(a.type, b.type) || byString(a.value, b.value));
    for (const t of tags) featureTags.push({ featureName: name, tagType: t.type, tagValue: t.value });
  }
  return {
    version: STATE_VERSION,
    features: flags.map((n) => exportedFeature(state.features.get(n)!)),
    // Only the strategy types a user defined: the built-in ones exist everywhere.
    strategies: sortedKeys(state.strategyTypes).map((n) => state.strategyTypes.get(n)!).filter((t) => t.editable),
    projects: sortedKeys(state.projects).map((id) => exportedProject(state.projects.get(id)!)),
    tagTypes: sortedKeys(state.tagTypes).map((n) => state.tagTypes.get(n)!),
    tags: sortedKeys(state.tags).map((k) => state.tags.get(k)!),
    featureTags,
    featureStrategies,
    environments,
    featureEnvironments,
    segments: [...state.segments.values()].sort((a, b) => a.id - b.id).map(exportedSegment),
    featureStrategySegments,
    releasePlanTemplates: byId(state.releaseTemplates).map(exportedTemplate),
    releasePlans: [...state.releasePlans.values()].sort((a, b) => byString(a.featureName, b.featureName) || byString(a.environment, b.environment)).map(exportedPlan),
    safeguards: byId(state.safeguards).map(exportedSafeguard),
    impactMetricsConfigs: byId(state.impactCharts).map(exportedChart),
  };
}
