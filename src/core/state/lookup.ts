// Lookups that turn a missing resource into the right 404, shared by every admin route.
import { NotFoundError } from '../errors.js';
import type { State } from './state.js';
import type { Environment, Feature, FeatureEnv, Project } from './types.js';

export function requireProject(state: State, id: string): Project {
  const project = state.projects.get(id);
  if (!project) throw new NotFoundError(`Could not find project with id "${id}".`);
  return project;
}

export function requireEnvironment(state: State, name: string): Environment {
  const env = state.environments.get(name);
  if (!env) throw new NotFoundError(`Could not find environment "${name}".`);
  return env;
}

/** A live (not archived) flag in the given project. */
export function requireFeature(state: State, project: string, name: string): Feature {
  const feature = state.features.get(name);
  if (!feature || feature.archived || feature.project !== project) {
    requireProject(state, project);
    throw new NotFoundError(`There's no feature named "${name}" in project "${project}".`);
  }
  return feature;
}

/** Whether `environment` is one of `project`'s: every environment is, unless it was taken out of the project. */
export function inProject(state: State, project: string, environment: string): boolean {
  const removed = state.projects.get(project)?.removedEnvironments;
  return removed === undefined || !removed.includes(environment);
}

/** A flag's configuration in an environment of its project (an environment taken out of the project is not there for its flags). */
export function requireFeatureEnv(state: State, feature: Feature, environment: string): FeatureEnv {
  requireEnvironment(state, environment);
  if (!inProject(state, feature.project, environment)) {
    throw new NotFoundError(`Environment "${environment}" is not an environment of project "${feature.project}", so feature "${feature.name}" has none there.`);
  }
  const fe = state.featureEnvs.get(feature.name)?.get(environment);
  if (!fe) throw new NotFoundError(`Feature "${feature.name}" is not configured in environment "${environment}".`);
  return fe;
}

/** The metadata Unleash puts in feature events' data/preData. */
export function featureMetadata(f: Feature): Record<string, unknown> {
  return {
    name: f.name,
    description: f.description,
    type: f.type,
    project: f.project,
    stale: f.stale,
    impressionData: f.impressionData,
    archived: f.archived,
    createdAt: f.createdAt,
    lastSeenAt: f.lastSeenAt,
  };
}
