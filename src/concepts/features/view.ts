// How the admin API shows a flag.
import { strategiesOf, type State } from '../../core/state/state.js';
import type { Feature } from '../../core/state/types.js';
import { strategyView } from '../strategies/logic.js';
import { childrenOf } from './logic.js';
import { inProject } from '../../core/state/lookup.js';

const NONE: ReadonlySet<string> = new Set();

export function environmentsView(state: State, f: Feature) {
  const envs = [...state.environments.values()].sort((a, b) => a.sortOrder - b.sortOrder || (a.name < b.name ? -1 : 1));
  const out = [];
  for (const e of envs) {
    const fe = state.featureEnvs.get(f.name)?.get(e.name);
    // An environment taken out of the flag's project is not shown (as Unleash shows the flag).
    if (!fe || !inProject(state, f.project, e.name)) continue;
    const strategies = strategiesOf(state, f.name, e.name).map(strategyView);
    out.push({
      name: e.name,
      environment: e.name,
      featureName: f.name,
      type: e.type,
      enabled: fe.enabled,
      sortOrder: e.sortOrder,
      variantCount: fe.variants.length,
      strategies,
      variants: fe.variants,
      lastSeenAt: fe.lastSeenAt,
      hasStrategies: strategies.length > 0,
      hasEnabledStrategies: strategies.some((s) => !s.disabled),
    });
  }
  return out;
}

/** A flag with everything; `favorites`: the caller's starred flags. */
export function featureView(state: State, f: Feature, favorites: ReadonlySet<string> = NONE) {
  const environments = environmentsView(state, f);
  return {
    name: f.name,
    type: f.type,
    description: f.description,
    project: f.project,
    enabled: environments.some((e) => e.enabled),
    stale: f.stale,
    favorite: favorites.has(f.name),
    impressionData: f.impressionData,
    archived: f.archived,
    archivedAt: f.archivedAt,
    createdAt: f.createdAt,
    lastSeenAt: f.lastSeenAt,
    environments,
    variants: [],
    tags: state.featureTags.get(f.name) ?? [],
    dependencies: f.dependencies,
    children: childrenOf(state, f.name),
    lifecycle: { stage: f.archived ? 'archived' : 'initial', enteredStageAt: f.archivedAt ?? f.createdAt },
  };
}

export function featureSummary(state: State, f: Feature, favorites: ReadonlySet<string> = NONE) {
  return {
    name: f.name,
    type: f.type,
    description: f.description,
    project: f.project,
    stale: f.stale,
    favorite: favorites.has(f.name),
    impressionData: f.impressionData,
    archived: f.archived,
    archivedAt: f.archivedAt,
    createdAt: f.createdAt,
    lastSeenAt: f.lastSeenAt,
    environments: environmentsView(state, f).map(({ strategies: _s, variants: _v, ...rest }) => rest),
    tags: state.featureTags.get(f.name) ?? [],
  };
}
