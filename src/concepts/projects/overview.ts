// A project at a glance, for the console's overview page: its live flags counted by type, by
// state and by environment, and the few that need someone's attention (stale, potentially stale,
// switched on but never evaluated by an SDK), in one pass over the flags. The lists are capped;
// the counts say how many there are.
import { FLAG_TYPES, isPotentiallyStale } from '../features/flag-types.js';
import type { State } from '../../core/state/state.js';
import type { Project } from '../../core/state/types.js';
import { projectRecord } from './logic.js';
import { inProject } from '../../core/state/lookup.js';

/** At most this many flags in each list (the counts are whole). */
export const OVERVIEW_LISTED = 50;

interface Listed<T> {
  count: number;
  items: T[];
}

function listed<T>(): Listed<T> {
  return { count: 0, items: [] };
}

function add<T>(l: Listed<T>, item: T): void {
  l.count++;
  if (l.items.length < OVERVIEW_LISTED) l.items.push(item);
}

export function projectOverview(state: State, p: Project, now: number) {
  const envs = [...state.environments.values()].filter((e) => inProject(state, p.id, e.name)).sort((a, b) => a.sortOrder - b.sortOrder || (a.name < b.name ? -1 : 1));
  const byType = new Map<string, number>(FLAG_TYPES.map((t) => [t.id, 0]));
  const byEnv = new Map(envs.map((e) => [e.name, { environment: e.name, type: e.type, enabled: 0, disabled: 0 }]));
  const stale = listed<{ name: string; type: string; createdAt: string }>();
  const potentiallyStale = listed<{ name: string; type: string; createdAt: string }>();
  const neverEvaluated = listed<{ name: string; environment: string }>();
  // Oldest first: the flags longest past their expected lifetime lead the lists.
  const flags = [...state.features.values()].filter((f) => f.project === p.id && !f.archived)
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.name < b.name ? -1 : 1));
  for (const f of flags) {
    byType.set(f.type, (byType.get(f.type) ?? 0) + 1);
    if (f.stale) add(stale, { name: f.name, type: f.type, createdAt: f.createdAt });
    else if (isPotentiallyStale(f, now)) add(potentiallyStale, { name: f.name, type: f.type, createdAt: f.createdAt });
    for (const [environment, fe] of state.featureEnvs.get(f.name) ?? []) {
      const counts = byEnv.get(environment);
      if (!counts) continue;
      if (fe.enabled) counts.enabled++;
      else counts.disabled++;
      if (fe.enabled && fe.lastSeenAt === null) add(neverEvaluated, { name: f.name, environment });
    }
  }
  const healthy = flags.length - stale.count - potentiallyStale.count;
  const health = flags.length === 0 ? 100 : Math.round((100 * healthy) / flags.length);
  return {
    version: 1,
    ...projectRecord(p),
    featureCount: flags.length,
    featureTypeCounts: [...byType].filter(([, count]) => count > 0).map(([type, count]) => ({ type, count })),
    environments: envs.map((e) => ({ environment: e.name, type: e.type })),
    environmentCounts: [...byEnv.values()],
    health,
    technicalDebt: 100 - health,
    stale,
    potentiallyStale,
    neverEvaluated,
  };
}
