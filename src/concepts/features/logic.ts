// Pure flag commands: create, patch, archive, revive, delete, environment on/off, dependencies.
import type { Change, CommandEnv, EventDraft } from '../../core/engine/command.js';
import { invalid, NameExistsError, NoAccessError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { Op } from '../../core/state/ops.js';
import { checkFlagName } from '../../core/state/names.js';
import { normalizeTag } from '../tags/logic.js';
import { servedStrategiesOf, strategiesOf, tagKey, type State } from '../../core/state/state.js';
import type { Feature, Tag } from '../../core/state/types.js';
import { defaultRolloutStrategy, strategyView } from '../strategies/logic.js';
import { onEnvironmentSwitch } from '../release-plans/logic.js';
import { featureMetadata, requireFeatureEnv, requireFeature, requireProject } from '../../core/state/lookup.js';

export interface CreateFeatureInput {
  name: string;
  type?: string;
  description?: string | null;
  impressionData?: boolean;
  tags?: Tag[];
}

export function createFeature(project: string, input: CreateFeatureInput) {
  return (state: State, env: CommandEnv): Change<Record<string, unknown>> => {
    requireProject(state, project);
    checkFlagName('name', input.name);
    if (state.features.has(input.name)) {
      const existing = state.features.get(input.name)!;
      throw new NameExistsError(`A flag named "${input.name}" already exists${existing.archived ? ' in the archive' : ''}.`);
    }
    const feature: Feature = {
      name: input.name,
      project,
      type: input.type ?? 'release',
      description: input.description ?? null,
      impressionData: input.impressionData ?? false,
      stale: false,
      archived: false,
      archivedAt: null,
      createdAt: env.now,
      lastSeenAt: null,
      dependencies: [],
    };
    const ops: Op[] = [{ o: 'feature.put', feature }];
    for (const e of state.environments.values()) {
      ops.push({ o: 'featureEnv.put', feature: feature.name, env: { environment: e.name, enabled: false, variants: [], lastSeenAt: null } });
    }
    // Same rules as the tag routes (trimmed value, existing type), so both ways of tagging agree.
    const tags = (input.tags ?? []).map((t, i) => normalizeTag(state, t, `tags[${i}].`));
    for (const tag of tags) {
      if (!state.tags.has(tagKey(tag)) && !ops.some((op) => op.o === 'tag.put' && tagKey(op.tag) === tagKey(tag))) ops.push({ o: 'tag.put', tag });
      ops.push({ o: 'featureTag.add', feature: feature.name, tag });
    }
    const meta = featureMetadata(feature);
    return {
      ops,
      events: [{ type: 'feature-created', project, featureName: feature.name, data: meta, tags: tags.length ? tags : null }],
      result: meta,
    };
  };
}

const PATCHABLE = ['description', 'type', 'stale', 'impressionData'] as const;

export function patchFeature(project: string, name: string, patched: Record<string, unknown>) {
  return (state: State): Change<Feature> => {
    const before = requireFeature(state, project, name);
    if (patched.name !== before.name) throw invalid('name', 'a flag cannot be renamed');
    if (patched.project !== before.project) throw invalid('project', 'use the project move endpoint to change a flag\'s project');
    if (patched.archived !== undefined && patched.archived !== before.archived) {
      throw invalid('archived', 'archive or revive a flag with its own endpoints');
    }
    const after: Feature = { ...before };
    for (const key of PATCHABLE) {
      if (key in patched) (after as unknown as Record<string, unknown>)[key] = patched[key] ?? (key === 'description' ? null : (before as unknown as Record<string, unknown>)[key]);
    }
    const events: EventDraft[] = [
      { type: 'feature-metadata-updated', project, featureName: name, data: featureMetadata(after), preData: featureMetadata(before) },
    ];
    if (after.stale !== before.stale) {
      events.push({ type: after.stale ? 'feature-stale-on' : 'feature-stale-off', project, featureName: name, data: { stale: after.stale } });
    }
    return { ops: [{ o: 'feature.put', feature: after }], events, result: after };
  };
}

/** Live flags that depend on `parent`. */
export function childrenOf(state: State, parent: string): string[] {
  const out: string[] = [];
  for (const f of state.features.values()) {
    if (!f.archived && f.dependencies.some((d) => d.feature === parent)) out.push(f.name);
  }
  return out;
}

/** Archives a flag; flags in `along` are archived in the same change, so depending on it is no obstacle. */
export function archiveFeature(project: string, name: string, along: ReadonlySet<string> = new Set()) {
  return (state: State, env: CommandEnv): Change<null> => {
    const before = requireFeature(state, project, name);
    const children = childrenOf(state, name).filter((c) => !along.has(c));
    if (children.length > 0) {
      throw new NoAccessError(`You can not archive "${name}": ${children.join(', ')} depend on it. Remove the dependencies first.`);
    }
    const after: Feature = { ...before, archived: true, archivedAt: env.now };
    return {
      ops: [{ o: 'feature.put', feature: after }],
      events: [{ type: 'feature-archived', project, featureName: name, data: { name, archived: true }, preData: { name, archived: false } }],
      result: null,
    };
  };
}

function requireArchived(state: State, name: string): Feature {
  const f = state.features.get(name);
  if (!f || !f.archived) throw new NotFoundError(`Could not find an archived flag named "${name}".`);
  return f;
}

export function reviveFeature(name: string) {
  return (state: State): Change<null> => {
    const before = requireArchived(state, name);
    requireProject(state, before.project);
    const ops: Op[] = [{ o: 'feature.put', feature: { ...before, archived: false, archivedAt: null } }];
    for (const [envName, fe] of state.featureEnvs.get(name) ?? []) {
      if (fe.enabled) ops.push({ o: 'featureEnv.put', feature: name, env: { ...fe, enabled: false } });
      void envName;
    }
    return {
      ops,
      events: [{ type: 'feature-revived', project: before.project, featureName: name, data: { name, archived: false }, preData: { name, archived: true } }],
      result: null,
    };
  };
}

export function deleteArchivedFeature(name: string) {
  return (state: State): Change<null> => {
    const before = requireArchived(state, name);
    const ops: Op[] = [];
    for (const envName of state.featureEnvs.get(name)?.keys() ?? []) {
      for (const s of strategiesOf(state, name, envName)) ops.push({ o: 'strategy.del', id: s.id });
    }
    // Flags that depended on it lose the dependency rather than pointing at nothing.
    for (const f of state.features.values()) {
      if (f.dependencies.some((d) => d.feature === name)) {
        ops.push({ o: 'feature.put', feature: { ...f, dependencies: f.dependencies.filter((d) => d.feature !== name) } });
      }
    }
    ops.push({ o: 'feature.del', name });
    const tags = state.featureTags.get(name) ?? [];
    return {
      ops,
      events: [{ type: 'feature-deleted', project: before.project, featureName: name, preData: featureMetadata(before), tags: tags.length ? tags : null }],
      result: null,
    };
  };
}

export function setEnvironmentEnabled(project: string, name: string, environment: string, enabled: boolean) {
  return (state: State, env: CommandEnv): Change<null> => {
    const feature = requireFeature(state, project, name);
    const fe = requireFeatureEnv(state, feature, environment);
    if (fe.enabled === enabled) return { ops: [], events: [], result: null };
    const ops: Op[] = [];
    const events: EventDraft[] = [];
    // A release plan that never started starts with its first milestone once its environment is on;
    // switched off, its progression pauses.
    const plan = onEnvironmentSwitch(state, feature, environment, enabled, env.now);
    // A release milestone's strategies count: a 100 % default next to them would undo the rollout.
    if (enabled && ![...plan.strategies, ...servedStrategiesOf(state, name, environment)].some((s) => !s.disabled)) {
      const strategy = defaultRolloutStrategy(state, env, feature, environment);
      ops.push({ o: 'strategy.put', strategy });
      events.push({ type: 'feature-strategy-add', project, featureName: name, environment, data: strategyView(strategy) });
    }
    ops.push(...plan.ops);
    ops.push({ o: 'featureEnv.put', feature: name, env: { ...fe, enabled } });
    events.push({ type: enabled ? 'feature-environment-enabled' : 'feature-environment-disabled', project, featureName: name, environment }, ...plan.events);
    return { ops, events, result: null };
  };
}

export interface DependencyInput {
  feature: string;
  enabled?: boolean;
  variants?: string[];
}

export function addDependency(project: string, child: string, input: DependencyInput) {
  return (state: State): Change<null> => {
    const feature = requireFeature(state, project, child);
    const parent = state.features.get(input.feature);
    if (!parent || parent.archived) throw invalid('feature', `parent flag "${input.feature}" does not exist`);
    if (parent.name === child) throw invalid('feature', 'a flag cannot depend on itself');
    if (parent.project !== project) throw invalid('feature', 'a flag can only depend on a flag in the same project');
    if (parent.dependencies.length > 0) throw invalid('feature', `"${parent.name}" has dependencies itself; only one level is supported`);
    if (childrenOf(state, child).length > 0) throw invalid('feature', `"${child}" is a parent of other flags and cannot depend on one`);
    const enabled = input.enabled ?? true;
    const variants = enabled ? [...(input.variants ?? [])] : [];
    const dep = { feature: parent.name, enabled, variants };
    const deps = [...feature.dependencies.filter((d) => d.feature !== parent.name), dep];
    return {
      ops: [{ o: 'feature.put', feature: { ...feature, dependencies: deps } }],
      events: [{ type: 'feature-dependency-added', project, featureName: child, data: dep }],
      result: null,
    };
  };
}

export function removeDependency(project: string, child: string, parent: string | null) {
  return (state: State): Change<null> => {
    const feature = requireFeature(state, project, child);
    if (parent !== null && !feature.dependencies.some((d) => d.feature === parent)) {
      throw new NotFoundError(`"${child}" does not depend on "${parent}".`);
    }
    const deps = parent === null ? [] : feature.dependencies.filter((d) => d.feature !== parent);
    if (deps.length === feature.dependencies.length) return { ops: [], events: [], result: null };
    return {
      ops: [{ o: 'feature.put', feature: { ...feature, dependencies: deps } }],
      events: [
        parent === null
          ? { type: 'feature-dependencies-removed', project, featureName: child }
          : { type: 'feature-dependency-removed', project, featureName: child, data: { feature: parent } },
      ],
      result: null,
    };
  };
}

export { ValidationError };
