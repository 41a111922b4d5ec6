// A project's environments, on Unleash's routes (its Terraform provider's
// `unleash_project_environment` adds and removes them). Every environment is a project's until it
// is taken out; taken out, the project's flags are switched off there (their strategies stay, and
// are there again, switched off, when it is added back), and nothing of a flag can be changed
// there: the flag's configuration there is not found (requireFeatureEnv). SDKs asking for that
// environment still get the flags, off, as Unleash serves them.
import type { Change, CommandEnv, EventDraft } from '../../core/engine/command.js';
import { inSequence } from '../../core/engine/sequence.js';
import { NameExistsError, NotFoundError, ValidationError } from '../../core/errors.js';
import { inProject, requireEnvironment, requireProject } from '../../core/state/lookup.js';
import type { Op } from '../../core/state/ops.js';
import type { State } from '../../core/state/state.js';
import { changeRequestRule, setChangeRequestRule } from '../change-requests/config.js';
import { environmentView, sortedEnvironments, withRemovedEnvironments } from '../environments/logic.js';
import { setEnvironmentEnabled } from '../features/logic.js';

const projectEnvEvent = (type: string, project: string, environment: string): EventDraft => ({ type, project, environment, data: null, preData: null });

/**
 * POST /api/admin/projects/:p/environments: puts an environment taken out back into the project
 * (409 if it is there already, as Unleash answers). `changeRequestsEnabled`, when given, sets
 * whether change requests are needed there, in the same change.
 */
export function addProjectEnvironment(project: string, environment: string, changeRequestsEnabled?: boolean) {
  return (state: State): Change<null> => {
    const p = requireProject(state, project);
    if (!state.environments.has(environment)) throw new ValidationError(`Environment "${environment}" does not exist.`);
    if (inProject(state, project, environment)) throw new NameExistsError(`Project "${project}" already has the environment "${environment}".`);
    const after = withRemovedEnvironments(p, (p.removedEnvironments ?? []).filter((e) => e !== environment));
    const change: Change<null> = { ops: [{ o: 'project.put', project: after }], events: [projectEnvEvent('project-environment-added', project, environment)], result: null };
    if (changeRequestsEnabled === undefined) return change;
    const rule = setChangeRequestRule(project, environment, { changeRequestsEnabled })(state);
    return { ops: [...change.ops, ...rule.ops], events: [...change.events, ...rule.events], result: null };
  };
}

/**
 * DELETE /api/admin/projects/:p/environments/:env: takes the environment out of the project, its
 * flags switched off there first (each with its event, their release plans paused). Refused while
 * change requests are on there: switching production's flags off is a change four eyes would see,
 * so they are turned off first (itself a recorded change of the project's settings), as Unleash's
 * Terraform provider does before it removes the environment.
 */
export function removeProjectEnvironment(project: string, environment: string) {
  return (state: State, env: CommandEnv): Change<null> => {
    const p = requireProject(state, project);
    requireEnvironment(state, environment);
    if (!inProject(state, project, environment)) throw new NotFoundError(`Environment "${environment}" is not an environment of project "${project}".`);
    const rule = changeRequestRule(state, project, environment);
    if (rule.enabled) {
      throw new ValidationError(`Change requests are on in ${environment} of project ${project}: turn them off there before taking the environment out of the project.`);
    }
    const ops: Op[] = [];
    const switches = [];
    for (const f of state.features.values()) {
      if (f.project !== project || !state.featureEnvs.get(f.name)?.get(environment)?.enabled) continue;
      // An archived flag is not changed through its routes; it is switched off all the same, silently, as its configuration is.
      if (f.archived) ops.push({ o: 'featureEnv.put', feature: f.name, env: { ...state.featureEnvs.get(f.name)!.get(environment)!, enabled: false } });
      else switches.push(setEnvironmentEnabled(project, f.name, environment, false));
    }
    const off = inSequence(state, env, switches);
    const after = withRemovedEnvironments(p, [...(p.removedEnvironments ?? []), environment]);
    return {
      ops: [...off.ops, ...ops, { o: 'project.put', project: after }],
      events: [...off.events, projectEnvEvent('project-environment-removed', project, environment)],
      result: null,
    };
  };
}

/**
 * GET /api/admin/environments/project/:p: every environment, with whether it is the project's
 * (`visible`) and the project's counts there, in Unleash's shape. `requiredApprovals` is the
 * change request rule's when change requests are on there (null otherwise).
 */
export function projectEnvironmentsView(state: State, project: string) {
  requireProject(state, project);
  const flags = [...state.features.values()].filter((f) => f.project === project && !f.archived);
  const tokens = [...state.apiTokens.values()].filter((t) => t.type !== 'admin' && (t.projects.includes(project) || t.projects.includes('*')));
  return {
    version: 1,
    environments: sortedEnvironments(state).map((e) => {
      const rule = changeRequestRule(state, project, e.name);
      return {
        ...environmentView(e),
        requiredApprovals: rule.enabled ? rule.requiredApprovals : null,
        projectApiTokenCount: tokens.filter((t) => t.environment === e.name).length,
        projectEnabledToggleCount: flags.filter((f) => state.featureEnvs.get(f.name)?.get(e.name)?.enabled).length,
        visible: inProject(state, project, e.name),
      };
    }),
  };
}
