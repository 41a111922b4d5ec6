// Pure project commands: create, update, delete.
import type { Change, EventDraft } from '../../core/engine/command.js';
import { invalid, NameExistsError, NoAccessError, ValidationError } from '../../core/errors.js';
import { requireProject } from '../../core/state/lookup.js';
import type { Op } from '../../core/state/ops.js';
import { checkName } from '../../core/state/names.js';
import type { State } from '../../core/state/state.js';
import type { Project } from '../../core/state/types.js';
import { accessWithout } from '../people/logic.js';
import { defaultRules } from '../change-requests/config.js';
import type { ChangeRequestsConfig } from '../../core/config.js';

export const MAX_PROJECTS = 500;
export const DEFAULT_PROJECT = 'default';

export interface ProjectInput {
  id?: string;
  name: string;
  description?: string | null;
  mode?: string;
  defaultStickiness?: string;
}

/** The stored project, as events and the API show it. */
export function projectRecord(p: Project) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    mode: p.mode,
    defaultStickiness: p.defaultStickiness,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

export interface ProjectCounts {
  featureCount: number;
  staleFeatureCount: number;
  archivedFeatureCount: number;
}

/** Flag counts per project in one pass over the flags (listing many projects stays linear). */
export function countFlags(state: State): Map<string, ProjectCounts> {
  const counts = new Map<string, ProjectCounts>();
  for (const f of state.features.values()) {
    let c = counts.get(f.project);
    if (!c) counts.set(f.project, (c = { featureCount: 0, staleFeatureCount: 0, archivedFeatureCount: 0 }));
    if (f.archived) c.archivedFeatureCount++;
    else {
      c.featureCount++;
      if (f.stale) c.staleFeatureCount++;
    }
  }
  return counts;
}

export function projectView(p: Project, counts: Map<string, ProjectCounts>) {
  return { ...projectRecord(p), ...(counts.get(p.id) ?? { featureCount: 0, staleFeatureCount: 0, archivedFeatureCount: 0 }) };
}

/** `changeRequests`: the server's defaults, which may protect some of the new project's environments. */
export function createProject(input: ProjectInput, changeRequests?: ChangeRequestsConfig) {
  return (state: State, env: { now: string }): Change<Project> => {
    const id = checkName('id', input.id);
    if (state.projects.has(id)) throw new NameExistsError(`A project with id "${id}" already exists.`);
    if (state.projects.size >= MAX_PROJECTS) {
      throw new ValidationError(`Failed to create project. You can't create more than the established limit of ${MAX_PROJECTS}.`);
    }
    const project: Project = {
      id,
      name: input.name,
      description: input.description ?? null,
      mode: input.mode ?? 'open',
      defaultStickiness: input.defaultStickiness ?? 'default',
      createdAt: env.now,
      updatedAt: null,
    };
    const rules = changeRequests ? defaultRules(state, id, changeRequests) : { ops: [], events: [] };
    return {
      ops: [{ o: 'project.put', project }, ...rules.ops],
      events: [{ type: 'project-created', project: id, data: projectRecord(project) }, ...rules.events],
      result: project,
    };
  };
}

/** Fields left out keep their value, as an Unleash update does. */
export function updateProject(id: string, input: ProjectInput) {
  return (state: State, env: { now: string }): Change<Project> => {
    const before = requireProject(state, id);
    if (input.id !== undefined && input.id !== id) throw invalid('id', `the body's id "${input.id}" does not match the path's "${id}"; a project cannot be renamed`);
    const after: Project = {
      ...before,
      name: input.name,
      description: input.description !== undefined ? input.description : before.description,
      mode: input.mode ?? before.mode,
      defaultStickiness: input.defaultStickiness ?? before.defaultStickiness,
      updatedAt: env.now,
    };
    return {
      ops: [{ o: 'project.put', project: after }],
      events: [{ type: 'project-updated', project: id, data: projectRecord(after), preData: projectRecord(before) }],
      result: after,
    };
  };
}

/**
 * Refused (403, as Unleash's InvalidOperationError) for `default` and for a project that still
 * holds flags, archived ones included: deleting it would orphan them. Segments scoped to the
 * project go with it; only that project's flags could use them, and there are none left. API
 * tokens of that project alone are deleted, tokens of several projects lose it, and people lose their role in it (accessWithout).
 */
export function deleteProject(id: string) {
  return (state: State, env: { now: string }): Change<null> => {
    const before = requireProject(state, id);
    if (id === DEFAULT_PROJECT) throw new NoAccessError('You can not delete the default project.');
    const flags = [...state.features.values()].filter((f) => f.project === id);
    if (flags.length > 0) {
      const archived = flags.filter((f) => f.archived).length;
      throw new NoAccessError(
        `You can not delete project "${id}": it still holds ${flags.length} flag(s)${archived ? `, ${archived} of them archived` : ''}. Delete them (or move them) first.`,
      );
    }
    const ops: Op[] = [];
    const events: EventDraft[] = [];
    for (const seg of state.segments.values()) {
      if (seg.project !== id) continue;
      ops.push({ o: 'segment.del', id: seg.id });
      events.push({ type: 'segment-deleted', project: id, preData: seg });
    }
    ops.push({ o: 'project.del', id });
    events.push({ type: 'project-deleted', project: id, preData: projectRecord(before) });
    const tokens = accessWithout(state, { projects: [id] }, env.now);
    return { ops: [...ops, ...tokens.ops], events: [...events, ...tokens.events], result: null };
  };
}
