// Where a change takes effect when its path names no environment: what a route's scope lists in
// `reaches`, so that a caller limited to some environments (a person's limit, an admin token's
// environment) cannot change another one through a door that does not name it. "Takes effect"
// means: how a flag evaluates for an SDK of that environment may change. Read from the state
// when the request arrives; every function answers [] for what does not exist (the command then
// answers 404 or 400 by itself).
import type { State } from '../state/state.js';
import type { Place } from './access.js';

/** The environments where flag `name` (of `project`, when given) is on. */
export function flagOnIn(state: State, name: string, project?: string): string[] {
  const f = state.features.get(name);
  if (!f || (project !== undefined && f.project !== project)) return [];
  const out: string[] = [];
  for (const [environment, fe] of state.featureEnvs.get(name) ?? []) if (fe.enabled) out.push(environment);
  return out.sort();
}

/**
 * Archiving a live flag takes it out of every environment where it is on. Deleting an archived
 * flag for good also removes it from the dependencies of live flags (a flag archived after its
 * child was), so it reaches where those are on. Reviving one turns it off everywhere: nothing.
 */
export function archiveReach(state: State, name: string, project?: string): string[] {
  const f = state.features.get(name);
  if (!f || (project !== undefined && f.project !== project)) return [];
  if (!f.archived) return flagOnIn(state, name);
  const out = new Set<string>();
  for (const child of state.features.values()) {
    if (!child.archived && child.dependencies.some((d) => d.feature === name)) for (const e of flagOnIn(state, child.name)) out.add(e);
  }
  return [...out].sort();
}

/**
 * A segment's constraints apply wherever a strategy uses it, on or off (a strategy of a flag turned
 * on later would use the change), a release plan's milestone strategies included, active or not (a
 * progression starts the next milestone with no further change by anyone). A template's use does
 * not count: applying it is a change in the plan's environment, made with the segment as it is then.
 */
export function segmentReach(state: State, id: number): string[] {
  const out = new Set<string>();
  for (const s of state.strategies.values()) if (s.segments.includes(id)) out.add(s.environment);
  for (const plan of state.releasePlans.values()) {
    if (plan.milestones.some((m) => m.strategies.some((s) => s.segments.includes(id)))) out.add(plan.environment);
  }
  return [...out].sort();
}

/** The same as places: each project and environment with a strategy that uses the segment (a shared segment reaches several projects). */
export function segmentPlaces(state: State, id: number): Place[] {
  const seen = new Map<string, Place>();
  for (const s of state.strategies.values()) {
    if (!s.segments.includes(id)) continue;
    const project = state.features.get(s.featureName)?.project ?? s.projectId;
    seen.set(`${project}\u0000${s.environment}`, { project, environment: s.environment });
  }
  return [...seen.values()];
}

/** A project's own settings (and its deletion) belong to every environment. */
export function everyEnvironment(state: State): string[] {
  return [...state.environments.keys()].sort();
}
