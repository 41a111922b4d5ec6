// Change requests' workflow, as pure commands: changes gathered in their author's draft, sent to
// review, approved by others, applied as one change, now or at a scheduled time (or rejected,
// cancelled, discarded). Who may approve or apply is decided by the routes (it depends on the
// caller's grant) and passed in as facts; what a state allows next is decided here.
import type { Change, CommandEnv, EventDraft } from '../../core/engine/command.js';
import { inSequence } from '../../core/engine/sequence.js';
import { ConflictError, FanionError, invalid, NoAccessError, NotFoundError, ValidationError } from '../../core/errors.js';
import { requireEnvironment, requireFeature, requireProject } from '../../core/state/lookup.js';
import type { Op } from '../../core/state/ops.js';
import type { State } from '../../core/state/state.js';
import type { Actor, ChangeRequest, ChangeRequestPerson, ChangeRequestState, RequestedChange } from '../../core/state/types.js';
import { requireSegment } from '../segments/logic.js';
import { baseOf, commandOf, conflictOf, isSegmentAction, slotOf, type RequestWhere } from './actions.js';
import { checkScheduledAt, suspensionOf } from './schedule.js';

/** At most this many changes in one request, and comments on it: a request is reviewed by people. */
export const MAX_CHANGES = 100;
const MAX_COMMENTS = 200;
/** Open requests (drafts, in review, approved) of one project: each is kept in memory and checked for conflicts when listed. */
export const MAX_OPEN_PER_PROJECT = 500;

/** A change as the routes receive it (`feature` is absent for a segment's change). */
export interface ChangeInput {
  feature?: string;
  action: string;
  payload?: unknown;
}

/** Whether change requests are on for the environment, and how many approvals they need. */
export interface Rule {
  enabled: boolean;
  requiredApprovals: number;
}

/** What the route found the caller may do in the request's project and environment. */
export interface Rights {
  /** The caller is an API token, not a person: tokens never approve. */
  token: boolean;
  mayApprove: boolean;
  mayApply: boolean;
  /** An Admin whom the settings let approve their own requests. */
  maySelfApprove: boolean;
}

export const OPEN: readonly ChangeRequestState[] = ['Draft', 'In review', 'Approved', 'Scheduled'];

function personOf(actor: Actor): ChangeRequestPerson {
  return { id: actor.userId, username: actor.name };
}

/** Whether `actor` made the request (a person by id; an API token, which has none, by name). */
export function isAuthor(cr: ChangeRequest, actor: Actor): boolean {
  return actor.userId !== null ? cr.createdBy.id === actor.userId : cr.createdBy.id === null && cr.createdBy.username === actor.name;
}

/** A draft is its author's alone: to anyone else it does not exist. */
export function visibleTo(cr: ChangeRequest, actor: Actor): boolean {
  return cr.state !== 'Draft' || isAuthor(cr, actor);
}

/** The request `id` of `project` as `actor` may see it, or 404. */
export function requireRequest(state: State, project: string, rawId: string | number, actor: Actor): ChangeRequest {
  const id = typeof rawId === 'number' ? rawId : /^[1-9]\d{0,15}$/.test(rawId) ? Number(rawId) : NaN;
  const cr = state.changeRequests.get(id);
  if (!cr || cr.project !== project || !visibleTo(cr, actor)) throw new NotFoundError(`Could not find change request with id "${rawId}" in project "${project}".`);
  return cr;
}

/** Every change of a request, in the order they were added (flags' and segments' alike), with the flag each names. */
function changesOf(cr: ChangeRequest): { feature: string; change: RequestedChange }[] {
  const all = [
    ...cr.features.flatMap((f) => f.changes.map((change) => ({ feature: f.name, change }))),
    ...cr.segments.map((change) => ({ feature: '', change })),
  ];
  return all.sort((a, b) => a.change.id - b.change.id);
}

function whereOf(cr: ChangeRequest): RequestWhere {
  return { project: cr.project, environment: cr.environment };
}

function event(cr: ChangeRequest, type: string, data: Record<string, unknown> = {}, featureName: string | null = null): EventDraft {
  return { type, project: cr.project, environment: cr.environment, featureName, data: { changeRequestId: cr.id, title: cr.title, state: cr.state, ...data } };
}

function put(cr: ChangeRequest): Op {
  return { o: 'changeRequest.put', request: cr };
}

/** The request moved to `state`; a schedule is kept only while it stays Scheduled. */
function withState(cr: ChangeRequest, state: ChangeRequestState, now: string): ChangeRequest {
  const { schedule, ...rest } = cr;
  return { ...rest, ...(state === 'Scheduled' && schedule ? { schedule } : {}), state, stateTimestamps: { ...cr.stateTimestamps, [state]: now } };
}

/** The flag or segment a change names exists where the request is for; returns the flag's name ('' for a segment). */
function checkTarget(state: State, where: RequestWhere, input: ChangeInput, at: string): string {
  if (isSegmentAction(input.action)) {
    const id = (input.payload as { id: number }).id;
    const seg = requireSegment(state, id);
    if (seg.project !== null && seg.project !== where.project) throw invalid(`${at}payload.id`, `segment ${id} belongs to project "${seg.project}"`);
    return '';
  }
  if (input.feature === undefined) throw invalid(`${at}feature`, `"feature" is required for ${input.action}`);
  requireFeature(state, where.project, input.feature);
  return input.feature;
}

/**
 * Adds changes to `actor`'s draft for the project and environment, making the draft if they have
 * none. Each change is checked the way its direct route would check it (its command run against
 * the state as it is now, in the order given), so a draft never holds a change that cannot apply
 * today; what it was made against is kept for conflicts.
 */
export function addChanges(where: RequestWhere, rule: Rule, inputs: ChangeInput[]) {
  return (state: State, env: CommandEnv): Change<ChangeRequest> => {
    requireProject(state, where.project);
    requireEnvironment(state, where.environment);
    if (!rule.enabled) {
      throw new ValidationError(`Change requests are not enabled for environment "${where.environment}" in project "${where.project}"; change it directly.`);
    }
    const at = (i: number) => (inputs.length > 1 ? `[${i}].` : '');
    const targets = inputs.map((input, i) => checkTarget(state, where, input, at(i)));
    const label = (i: number) => `${inputs.length > 1 ? `Change ${i + 1}` : 'The change'} (${inputs[i].action})`;
    inSequence(state, env, inputs.map((input, i) => guarded(commandOf(where, targets[i], input.action, input.payload ?? {}), label(i))));

    const person = personOf(env.actor);
    const existing = [...state.changeRequests.values()].find((cr) =>
      cr.state === 'Draft' && cr.project === where.project && cr.environment === where.environment && isAuthor(cr, env.actor));
    const events: EventDraft[] = [];
    let cr: ChangeRequest = existing ?? {
      id: state.nextChangeRequestId, title: null, project: where.project, environment: where.environment, minApprovals: rule.requiredApprovals,
      state: 'Draft', stateTimestamps: { Draft: env.now }, features: [], segments: [], approvals: [], rejections: [], comments: [],
      createdBy: person, createdAt: env.now,
    };
    if (!existing) {
      let open = 0;
      for (const other of state.changeRequests.values()) if (other.project === where.project && OPEN.includes(other.state)) open++;
      if (open >= MAX_OPEN_PER_PROJECT) {
        throw new ValidationError(`Project "${where.project}" has ${open} open change requests, the most it may have; apply, reject or cancel some first.`);
      }
      events.push(event(cr, 'change-request-created'));
    }
    let nextId = state.nextChangeId;
    inputs.forEach((input, i) => {
      const feature = targets[i];
      const payload = input.payload ?? {};
      const change: RequestedChange = {
        id: nextId++, action: input.action, payload, createdAt: env.now, createdBy: person, base: baseOf(state, where, feature, input.action, payload),
      };
      cr = placeChange(cr, feature, change, slotOf(feature, input.action, payload));
      events.push(event(cr, 'change-added', { change: changeData(change) }, feature || null));
    });
    if (changesOf(cr).length > MAX_CHANGES) throw new ValidationError(`A change request holds at most ${MAX_CHANGES} changes.`);
    return { ops: [put(cr)], events, result: cr };
  };
}

function changeData(c: RequestedChange) {
  return { id: c.id, action: c.action, payload: c.payload };
}

/** Puts a change in the request: in place of the one in the same slot (keeping its id), or last. */
function placeChange(cr: ChangeRequest, feature: string, change: RequestedChange, slot: string | null): ChangeRequest {
  const same = (c: RequestedChange) => slot !== null && slotOf(feature, c.action, c.payload) === slot;
  if (feature === '') {
    const old = cr.segments.find(same);
    return { ...cr, segments: old ? cr.segments.map((c) => (c === old ? { ...change, id: old.id } : c)) : [...cr.segments, change] };
  }
  const entry = cr.features.find((f) => f.name === feature);
  if (!entry) return { ...cr, features: [...cr.features, { name: feature, changes: [change] }] };
  const old = entry.changes.find(same);
  const changes = old ? entry.changes.map((c) => (c === old ? { ...change, id: old.id } : c)) : [...entry.changes, change];
  return { ...cr, features: cr.features.map((f) => (f === entry ? { name: feature, changes } : f)) };
}

/** A step's failure names the change it came from; its kind (and so its status) is kept. */
function guarded<R>(step: (state: State, env: CommandEnv) => Change<R>, label: string) {
  return (state: State, env: CommandEnv): Change<R> => {
    try {
      return step(state, env);
    } catch (err) {
      if (err instanceof FanionError) err.message = `${label}${label.endsWith('.') ? ' ' : ': '}${err.message}`;
      throw err;
    }
  };
}

function requireAuthor(cr: ChangeRequest, actor: Actor, what: string): void {
  if (!isAuthor(cr, actor)) throw new NoAccessError(`Only the author of change request ${cr.id} (${cr.createdBy.username}) may ${what}.`);
}

function requireIn(cr: ChangeRequest, states: readonly ChangeRequestState[], what: string): void {
  if (!states.includes(cr.state)) {
    throw new ValidationError(`Change request ${cr.id} is ${cr.state}: it can ${what} only when ${states.join(' or ')}.`);
  }
}

/** Conflicts of a request's changes with the state as it is now: the change's id and why. */
function conflictsOf(state: State, cr: ChangeRequest): { id: number; conflict: string }[] {
  const out: { id: number; conflict: string }[] = [];
  for (const { feature, change } of changesOf(cr)) {
    const conflict = conflictOf(state, whereOf(cr), feature, change);
    if (conflict) out.push({ id: change.id, conflict });
  }
  return out;
}

/**
 * The command that applies every change of the request, in the order they were added, as one
 * change: the ops and events of each change's own command, then the request marked Applied and
 * `change-request-applied`. A change that conflicts or fails leaves everything as it was.
 */
function applyAll(state: State, env: CommandEnv, cr: ChangeRequest): Change<ChangeRequest> {
  const conflicts = conflictsOf(state, cr);
  if (conflicts.length > 0) {
    throw new ConflictError(`Change request ${cr.id} cannot be applied: change ${conflicts[0].id}: ${conflicts[0].conflict}` +
      (conflicts.length > 1 ? ` (and ${conflicts.length - 1} more change${conflicts.length > 2 ? 's' : ''} in conflict)` : ''));
  }
  const steps = changesOf(cr).map(({ feature, change }) =>
    guarded(commandOf(whereOf(cr), feature, change.action, change.payload), `Change request ${cr.id} cannot be applied: change ${change.id} (${change.action}${feature ? ` of "${feature}"` : ''}) failed.`));
  const joined = inSequence(state, env, steps);
  const applied = withState(cr, 'Applied', env.now);
  return { ops: [...joined.ops, put(applied)], events: [...joined.events, event(applied, 'change-request-applied')], result: applied };
}

/**
 * Moves the request on: Draft → In review (its author) → Approved (people other than its author,
 * as many as it needs) → Applied, now or, through Scheduled (`scheduledAt`, by someone who may
 * apply; again to reschedule), at a set time; or Rejected (by a reviewer), or Cancelled (by its author).
 */
export function setState(project: string, id: string, to: string, comment: string | undefined, rights: Rights, scheduledAt?: string) {
  return (state: State, env: CommandEnv): Change<ChangeRequest> => {
    const cr = requireRequest(state, project, id, env.actor);
    const person = personOf(env.actor);
    const events: EventDraft[] = [];
    let next: ChangeRequest;
    switch (to) {
      case 'In review':
        requireAuthor(cr, env.actor, 'send it to review');
        requireIn(cr, ['Draft'], 'be sent to review');
        if (changesOf(cr).length === 0) throw new ValidationError(`Change request ${cr.id} has no changes to review.`);
        next = withState(cr, 'In review', env.now);
        events.push(event(next, 'change-request-sent-to-review'));
        break;
      case 'Approved': {
        requireIn(cr, ['In review'], 'be approved');
        checkReviewer(cr, env.actor, rights, 'approve');
        // Its author may have discarded every change since it was sent: nothing to approve.
        if (changesOf(cr).length === 0) throw new ValidationError(`Change request ${cr.id} has no changes to approve.`);
        if (cr.approvals.some((a) => samePerson(a.createdBy, person))) throw new ConflictError(`You have already approved change request ${cr.id}.`);
        const approvals = [...cr.approvals, { createdBy: person, createdAt: env.now }];
        const enough = approvals.length >= cr.minApprovals;
        next = enough ? withState({ ...cr, approvals }, 'Approved', env.now) : { ...cr, approvals };
        events.push(event(next, enough ? 'change-request-approved' : 'change-request-approval-added', { approvals: approvals.length, minApprovals: cr.minApprovals }));
        break;
      }
      case 'Scheduled': {
        // Scheduling again (a new time, or after a suspension or a failure) is the same step.
        requireIn(cr, ['Approved', 'Scheduled'], 'be scheduled');
        requireMayApply(cr, rights, 'schedule');
        const at = checkScheduledAt(scheduledAt, env.now);
        const pending: ChangeRequest = { ...cr, schedule: { scheduledAt: at, status: 'pending', reason: null, scheduledBy: person } };
        // One that would be suspended at once is refused, with the reason, rather than kept.
        const reason = suspensionOf(state, pending);
        if (reason !== null) throw new ConflictError(`Change request ${cr.id} cannot be scheduled: ${reason}`);
        next = withState(pending, 'Scheduled', env.now);
        events.push(event(next, 'change-request-scheduled', { scheduledAt: at }));
        break;
      }
      case 'Applied':
        requireIn(cr, ['Approved', 'Scheduled'], 'be applied');
        requireMayApply(cr, rights, 'apply');
        return withComment(state, applyAll(state, env, cr), comment, env);
      case 'Rejected':
        requireIn(cr, ['In review', 'Approved', 'Scheduled'], 'be rejected');
        checkReviewer(cr, env.actor, rights, 'reject');
        next = withState({ ...cr, rejections: [...cr.rejections, { createdBy: person, createdAt: env.now }] }, 'Rejected', env.now);
        events.push(event(next, 'change-request-rejected'));
        break;
      case 'Cancelled':
        requireAuthor(cr, env.actor, 'cancel it');
        requireIn(cr, OPEN, 'be cancelled');
        next = withState(cr, 'Cancelled', env.now);
        events.push(event(next, 'change-request-cancelled'));
        break;
      default:
        throw invalid('state', `a change request can be moved to In review, Approved, Scheduled, Applied, Rejected or Cancelled, not "${to}"`);
    }
    return withComment(state, { ops: [put(next)], events, result: next }, comment, env);
  };
}

function requireMayApply(cr: ChangeRequest, rights: Rights, verb: string): void {
  if (!rights.mayApply) throw new NoAccessError(`You need permission=APPLY_CHANGE_REQUEST to ${verb} change request ${cr.id} in environment=${cr.environment} of project=${cr.project}.`);
}

/** What writing a scheduled request's step did: applied it, suspended it or recorded its failure (and why). */
export interface ScheduledOutcome {
  id: number;
  outcome: 'applied' | 'suspended' | 'failed';
  reason: string | null;
}

/**
 * Writes the step a schedule calls for, deciding again against the state it lands on: nothing
 * unless request `id` is still Scheduled, pending, for `scheduledAt` (a reschedule or an apply in
 * between makes the step stale); then suspended if what it touches moved (schedule.ts
 * suspensionOf), or, once due, every change applied as one record with `change-request-applied`
 * and `change-request-scheduled-application-success`; a change that cannot apply leaves everything
 * as it was but the schedule, marked failed with the reason. Run in the name of its scheduler.
 */
export function runScheduled(id: number, scheduledAt: string) {
  return (state: State, env: CommandEnv): Change<ScheduledOutcome | null> => {
    const cr = state.changeRequests.get(id);
    const schedule = cr?.schedule;
    if (!cr || cr.state !== 'Scheduled' || !schedule || schedule.status !== 'pending' || schedule.scheduledAt !== scheduledAt) return { ops: [], events: [], result: null };
    // Said by Fanion, not by the person in whose name it was scheduled.
    const system = { createdBy: 'fanion', createdByUserId: null };
    const stopped = (status: 'suspended' | 'failed', type: string, reason: string): Change<ScheduledOutcome> => {
      const next: ChangeRequest = { ...cr, schedule: { ...schedule, status, reason } };
      return { ops: [put(next)], events: [{ ...event(next, type, { scheduledAt, reason }), ...system }], result: { id, outcome: status, reason } };
    };
    const reason = suspensionOf(state, cr);
    if (reason !== null) return stopped('suspended', 'change-request-schedule-suspended', reason);
    if (Date.parse(scheduledAt) > Date.parse(env.now)) return { ops: [], events: [], result: null };
    let applied: Change<ChangeRequest>;
    try {
      applied = applyAll(state, env, cr);
    } catch (err) {
      if (!(err instanceof FanionError)) throw err;
      return stopped('failed', 'change-request-scheduled-application-failure', err.message);
    }
    return {
      ops: applied.ops,
      events: [...applied.events, { ...event(applied.result, 'change-request-scheduled-application-success', { scheduledAt }), ...system }],
      result: { id, outcome: 'applied', reason: null },
    };
  };
}

function samePerson(a: ChangeRequestPerson, b: ChangeRequestPerson): boolean {
  return a.id !== null ? a.id === b.id : b.id === null && a.username === b.username;
}

function checkReviewer(cr: ChangeRequest, actor: Actor, rights: Rights, verb: string): void {
  if (rights.token) throw new NoAccessError(`An API token cannot ${verb} change requests: a person must.`);
  if (!rights.mayApprove) throw new NoAccessError(`You need permission=APPROVE_CHANGE_REQUEST to ${verb} change request ${cr.id} in environment=${cr.environment} of project=${cr.project}.`);
  if (isAuthor(cr, actor) && !rights.maySelfApprove) throw new NoAccessError(`You cannot ${verb} your own change request ${cr.id}: someone else must review it.`);
}

/** The change with `text` added to the request's comments (the request being the last op's). */
function withComment(state: State, change: Change<ChangeRequest>, text: string | undefined, env: CommandEnv): Change<ChangeRequest> {
  if (text === undefined || text.trim() === '') return change;
  const last = change.ops[change.ops.length - 1] as { o: 'changeRequest.put'; request: ChangeRequest };
  const cr = commented(state, last.request, text, env);
  return { ...change, ops: [...change.ops.slice(0, -1), put(cr)], result: cr };
}

function commented(state: State, cr: ChangeRequest, text: string, env: CommandEnv): ChangeRequest {
  if (cr.comments.length >= MAX_COMMENTS) throw new ValidationError(`A change request holds at most ${MAX_COMMENTS} comments.`);
  // Comments take their ids from the counter of changes; the op moves it on.
  return { ...cr, comments: [...cr.comments, { id: state.nextChangeId, text: text.trim(), createdBy: personOf(env.actor), createdAt: env.now }] };
}

/** Adds a comment (anyone who can see the request, until it is closed). */
export function addComment(project: string, id: string, text: string) {
  return (state: State, env: CommandEnv): Change<ChangeRequest> => {
    const cr = requireRequest(state, project, id, env.actor);
    if (text.trim() === '') throw invalid('text', 'a comment cannot be empty');
    const next = commented(state, cr, text, env);
    return { ops: [put(next)], events: [], result: next };
  };
}

/** Sets the title (its author, while it is open). */
export function setTitle(project: string, id: string, title: string) {
  return (state: State, env: CommandEnv): Change<ChangeRequest> => {
    const cr = requireRequest(state, project, id, env.actor);
    requireAuthor(cr, env.actor, 'change its title');
    requireIn(cr, OPEN, 'be retitled');
    const next = { ...cr, title: title.trim() === '' ? null : title.trim() };
    return { ops: [put(next)], events: [], result: next };
  };
}

/** The request and the change `changeId` in it, for its author while the request is open. */
function ownChange(state: State, project: string, id: string, changeId: string, actor: Actor, what: string) {
  const cr = requireRequest(state, project, id, actor);
  requireAuthor(cr, actor, what);
  requireIn(cr, OPEN, what.replace(/ it$/, ''));
  const found = changesOf(cr).find((c) => String(c.change.id) === changeId);
  if (!found) throw new NotFoundError(`Could not find change "${changeId}" in change request ${cr.id}.`);
  return { cr, ...found };
}

/**
 * Approvals are for what was reviewed: once a change of a request in review (or approved) is
 * edited or discarded, its approvals go, and an approved request goes back to review.
 */
function revoked(cr: ChangeRequest, now: string): ChangeRequest {
  if (cr.state === 'Draft') return cr;
  return { ...withState(cr, 'In review', now), approvals: [] };
}

/** Replaces a change's payload (its author, while the request is open); what it is made against is taken afresh. */
export function editChange(project: string, id: string, changeId: string, input: ChangeInput) {
  return (state: State, env: CommandEnv): Change<ChangeRequest> => {
    const { cr, feature, change } = ownChange(state, project, id, changeId, env.actor, 'edit its changes');
    if (input.action !== change.action) throw invalid('action', `change ${change.id} is a ${change.action}; discard it and add a ${input.action} instead`);
    if (!isSegmentAction(input.action) && input.feature !== undefined && input.feature !== feature) throw invalid('feature', `change ${change.id} is of flag "${feature}"`);
    const payload = input.payload ?? {};
    checkTarget(state, whereOf(cr), { ...input, feature: feature || undefined, payload }, '');
    guarded(commandOf(whereOf(cr), feature, input.action, payload), 'The change')(state, env);
    const edited: RequestedChange = { ...change, payload, createdAt: env.now, base: baseOf(state, whereOf(cr), feature, input.action, payload) };
    const next = revoked(mapChanges(cr, (c) => (c.id === change.id ? edited : c)), env.now);
    return { ops: [put(next)], events: [event(next, 'change-edited', { change: changeData(edited), approvalsRevoked: cr.approvals.length }, feature || null)], result: next };
  };
}

/** Removes a change (its author, while the request is open). */
export function discardChange(project: string, id: string, changeId: string) {
  return (state: State, env: CommandEnv): Change<ChangeRequest> => {
    const { cr, feature, change } = ownChange(state, project, id, changeId, env.actor, 'discard its changes');
    const next = revoked(mapChanges(cr, (c) => (c.id === change.id ? null : c)), env.now);
    return { ops: [put(next)], events: [event(next, 'change-discarded', { change: changeData(change), approvalsRevoked: cr.approvals.length }, feature || null)], result: next };
  };
}

function mapChanges(cr: ChangeRequest, fn: (c: RequestedChange) => RequestedChange | null): ChangeRequest {
  const keep = (list: RequestedChange[]) => list.map(fn).filter((c): c is RequestedChange => c !== null);
  return {
    ...cr,
    features: cr.features.map((f) => ({ name: f.name, changes: keep(f.changes) })).filter((f) => f.changes.length > 0),
    segments: keep(cr.segments),
  };
}

/** Deletes a draft (its author's); a request that was sent to review is cancelled instead, and stays on record. */
export function deleteDraft(project: string, id: string) {
  return (state: State, env: CommandEnv): Change<null> => {
    const cr = requireRequest(state, project, id, env.actor);
    requireAuthor(cr, env.actor, 'delete it');
    requireIn(cr, ['Draft'], 'be deleted (cancel it instead)');
    return { ops: [{ o: 'changeRequest.del', id: cr.id }], events: [event(cr, 'change-request-discarded')], result: null };
  };
}
