// Pure environment commands. An environment is part of every flag: creating one gives each
// flag a disabled configuration there, deleting one removes those configurations and their
// strategies, all in the same change.
import type { Change } from '../../core/engine/command.js';
import { NameExistsError, NoAccessError, ValidationError } from '../../core/errors.js';
import { requireEnvironment } from '../../core/state/lookup.js';
import type { Op } from '../../core/state/ops.js';
import { checkName } from '../../core/state/names.js';
import { strategiesOf, type State } from '../../core/state/state.js';
import type { Environment, Project } from '../../core/state/types.js';
import { accessWithout } from '../people/logic.js';

export const MAX_ENVIRONMENTS = 50;

export interface EnvironmentInput {
  name: string;
  type: string;
  sortOrder?: number;
}

export function environmentView(e: Environment) {
  return { name: e.name, type: e.type, enabled: e.enabled, protected: e.protected, sortOrder: e.sortOrder };
}

/** `p` with `removed` as the environments taken out of it (the field left out when there are none, as in a project that never had any). */
export function withRemovedEnvironments(p: Project, removed: string[]): Project {
  const { removedEnvironments: _, ...rest } = p;
  return removed.length === 0 ? rest : { ...rest, removedEnvironments: removed };
}

export function sortedEnvironments(state: State): Environment[] {
  return [...state.environments.values()].sort((a, b) => a.sortOrder - b.sortOrder || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Without a sortOrder a new environment goes last. */
export function createEnvironment(input: EnvironmentInput) {
  return (state: State): Change<Environment> => {
    const name = checkName('name', input.name);
    if (state.environments.has(name)) throw new NameExistsError(`An environment named "${name}" already exists.`);
    if (state.environments.size >= MAX_ENVIRONMENTS) {
      throw new ValidationError(`Failed to create environment. You can't create more than the established limit of ${MAX_ENVIRONMENTS}.`);
    }
    let last = 0;
    for (const e of state.environments.values()) last = Math.max(last, e.sortOrder);
    const environment: Environment = { name, type: input.type, enabled: true, protected: false, sortOrder: input.sortOrder ?? last + 1 };
    const ops: Op[] = [{ o: 'env.put', environment }];
    // Archived flags too, so a revived flag is usable there at once.
    for (const f of state.features.keys()) {
      ops.push({ o: 'featureEnv.put', feature: f, env: { environment: name, enabled: false, variants: [], lastSeenAt: null } });
    }
    return { ops, events: [{ type: 'environment-created', environment: name, data: environmentView(environment) }], result: environment };
  };
}

function requireUnprotected(e: Environment, verb: string): void {
  if (e.protected) throw new NoAccessError(`You can not ${verb} the protected environment "${e.name}".`);
}

export function updateEnvironment(name: string, input: Partial<EnvironmentInput>) {
  return (state: State): Change<Environment> => {
    const before = requireEnvironment(state, name);
    requireUnprotected(before, 'update');
    const after: Environment = { ...before, type: input.type ?? before.type, sortOrder: input.sortOrder ?? before.sortOrder };
    return {
      ops: [{ o: 'env.put', environment: after }],
      events: [{ type: 'environment-updated', environment: name, data: environmentView(after), preData: environmentView(before) }],
      result: after,
    };
  };
}

/** API tokens of that environment are deleted with it, and it leaves people's environment limits (accessWithout). */
export function deleteEnvironment(name: string) {
  return (state: State, env: { now: string }): Change<null> => {
    const before = requireEnvironment(state, name);
    requireUnprotected(before, 'delete');
    const ops: Op[] = [];
    for (const [feature, envs] of state.featureEnvs) {
      if (!envs.has(name)) continue;
      for (const s of strategiesOf(state, feature, name)) ops.push({ o: 'strategy.del', id: s.id });
      ops.push({ o: 'featureEnv.del', feature, environment: name });
    }
    // A project it was taken out of forgets it: an environment made later under the name is every project's.
    for (const p of state.projects.values()) {
      if (p.removedEnvironments?.includes(name)) ops.push({ o: 'project.put', project: withRemovedEnvironments(p, p.removedEnvironments.filter((e) => e !== name)) });
    }
    ops.push({ o: 'env.del', name });
    const tokens = accessWithout(state, { environments: [name] }, env.now);
    return {
      ops: [...ops, ...tokens.ops],
      events: [{ type: 'environment-deleted', environment: name, preData: environmentView(before) }, ...tokens.events],
      result: null,
    };
  };
}
