// Pure segment commands. A segment is a named list of constraints that strategies refer to
// by id; it may be scoped to one project, and then only that project's flags may use it.
import type { Change } from '../../core/engine/command.js';
import { normalizeConstraints, type ConstraintInput } from '../constraints/constraints.js';
import { invalid, NameExistsError, NoAccessError, NotFoundError, ValidationError } from '../../core/errors.js';
import { checkSegmentName } from '../../core/state/names.js';
import type { State } from '../../core/state/state.js';
import type { Segment, Strategy } from '../../core/state/types.js';
import { checkLegalValues } from '../context-fields/logic.js';
import { releaseUsesOfSegment } from '../release-plans/logic.js';

export const MAX_SEGMENTS = 300;
/** Unleash's segment values limit: all constraint values of one segment together. */
export const MAX_SEGMENT_VALUES = 1000;

export interface SegmentInput {
  name: string;
  description?: string | null;
  project?: string | null;
  constraints: ConstraintInput[];
}

export function segmentView(s: Segment) {
  return { id: s.id, name: s.name, description: s.description, project: s.project, constraints: s.constraints, createdAt: s.createdAt, createdBy: s.createdBy };
}

/** A path parameter that is not a segment id names no segment. */
export function requireSegment(state: State, rawId: string | number): Segment {
  const id = typeof rawId === 'number' ? rawId : /^[1-9]\d{0,15}$/.test(rawId) ? Number(rawId) : NaN;
  const seg = state.segments.get(id);
  if (!seg) throw new NotFoundError(`Could not find segment with id "${rawId}".`);
  return seg;
}

export function strategiesUsing(state: State, id: number): Strategy[] {
  const out: Strategy[] = [];
  for (const s of state.strategies.values()) if (s.segments.includes(id)) out.push(s);
  return out;
}

function checkProject(state: State, project: string | null): void {
  if (project !== null && !state.projects.has(project)) throw invalid('project', `project "${project}" does not exist`);
}

function checkUniqueName(state: State, name: string, self: number | null): void {
  for (const s of state.segments.values()) {
    if (s.name === name && s.id !== self) throw new NameExistsError(`A segment named "${name}" already exists.`);
  }
}

function constraintsOf(state: State, input: SegmentInput) {
  const constraints = normalizeConstraints(input.constraints, 'constraints');
  checkLegalValues(state, constraints, 'constraints');
  const values = constraints.reduce((n, c) => n + (c.values?.length ?? 0) + (c.value !== undefined ? 1 : 0), 0);
  if (values > MAX_SEGMENT_VALUES) {
    throw invalid('constraints', `a segment can hold at most ${MAX_SEGMENT_VALUES} values over all its constraints, got ${values}`);
  }
  return constraints;
}

export function createSegment(input: SegmentInput) {
  return (state: State, env: { now: string; actor: { name: string } }): Change<Segment> => {
    const name = checkSegmentName('name', input.name);
    checkUniqueName(state, name, null);
    const project = input.project ?? null;
    checkProject(state, project);
    if (state.segments.size >= MAX_SEGMENTS) {
      throw new ValidationError(`Failed to create segment. You can't create more than the established limit of ${MAX_SEGMENTS}.`);
    }
    const segment: Segment = {
      id: state.nextSegmentId,
      name,
      description: input.description ?? null,
      project,
      constraints: constraintsOf(state, input),
      createdAt: env.now,
      createdBy: env.actor.name,
    };
    const data = segmentView(segment);
    return { ops: [{ o: 'segment.put', segment }], events: [{ type: 'segment-created', project, data }], result: segment };
  };
}

/**
 * A segment in use may only move to a project that every flag using it belongs to (or become
 * global): otherwise those strategies would refer to a segment of another project.
 */
export function updateSegment(rawId: string, input: SegmentInput) {
  return (state: State): Change<Segment> => {
    const before = requireSegment(state, rawId);
    const name = checkSegmentName('name', input.name);
    checkUniqueName(state, name, before.id);
    const project = input.project === undefined ? before.project : input.project;
    checkProject(state, project);
    if (project !== null) {
      // A release plan's milestone strategies are the flag's strategies too: their project counts.
      const planStrategies = [...state.releasePlans.values()].flatMap((p) => p.milestones.flatMap((m) => m.strategies.filter((s) => s.segments.includes(before.id))));
      const outside = [...strategiesUsing(state, before.id), ...planStrategies].filter((s) => s.projectId !== project);
      if (outside.length > 0) {
        const flags = [...new Set(outside.map((s) => `${s.featureName} (${s.projectId})`))].join(', ');
        throw invalid('project', `segment ${before.id} is used by flags outside project "${project}": ${flags}`);
      }
    }
    const after: Segment = {
      ...before,
      name,
      description: input.description !== undefined ? input.description : before.description,
      project,
      constraints: constraintsOf(state, input),
    };
    return {
      ops: [{ o: 'segment.put', segment: after }],
      events: [{ type: 'segment-updated', project, data: segmentView(after), preData: segmentView(before) }],
      result: after,
    };
  };
}

/** Refused with 403 (Unleash's status for an operation the current state forbids) while in use. */
export function deleteSegment(rawId: string) {
  return (state: State): Change<null> => {
    const before = requireSegment(state, rawId);
    const users = strategiesUsing(state, before.id);
    if (users.length > 0) {
      const flags = [...new Set(users.map((s) => `${s.featureName}/${s.environment}`))].join(', ');
      throw new NoAccessError(`Segment ${before.id} is used by ${users.length} strateg${users.length === 1 ? 'y' : 'ies'} (${flags}); remove it from them first.`);
    }
    // A milestone strategy that lost its segment would be served without its constraints: to more people.
    const releases = releaseUsesOfSegment(state, before.id);
    if (releases.length > 0) throw new NoAccessError(`Segment ${before.id} is used by ${releases.join(', ')}; remove it from them first.`);
    return {
      ops: [{ o: 'segment.del', id: before.id }],
      events: [{ type: 'segment-deleted', project: before.project, preData: segmentView(before) }],
      result: null,
    };
  };
}
