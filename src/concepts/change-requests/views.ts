// Change requests as the admin API shows them (Unleash's changeRequestSchema), with each open
// request's conflicts worked out against the state as it is now.
import type { State } from '../../core/state/state.js';
import type { Actor, ChangeRequest, ChangeRequestPerson, ChangeRequestSchedule, RequestedChange } from '../../core/state/types.js';
import { conflictOf } from './actions.js';
import { isAuthor, OPEN, visibleTo } from './workflow.js';

const person = (p: ChangeRequestPerson) => ({ id: p.id, username: p.username, imageUrl: null });

function changeView(state: State, cr: ChangeRequest, feature: string, c: RequestedChange) {
  // A closed request's changes are history: what moved since says nothing about them.
  const conflict = OPEN.includes(cr.state) ? conflictOf(state, { project: cr.project, environment: cr.environment }, feature, c) : null;
  return {
    id: c.id, action: c.action, payload: c.payload, createdAt: c.createdAt, createdBy: person(c.createdBy),
    ...(feature === '' ? { name: segmentName(state, c) } : {}),
    ...(conflict ? { conflict } : {}),
  };
}

function segmentName(state: State, c: RequestedChange): string {
  const id = (c.payload as { id?: number }).id;
  const seg = id === undefined ? undefined : state.segments.get(id);
  return seg?.name ?? (c.payload as { name?: string }).name ?? String(id);
}

export function requestView(state: State, cr: ChangeRequest) {
  const features = cr.features.map((f) => {
    const changes = f.changes.map((c) => changeView(state, cr, f.name, c));
    const conflicted = changes.find((c) => 'conflict' in c) as { conflict?: string } | undefined;
    return { name: f.name, changes, ...(conflicted ? { conflict: conflicted.conflict } : {}) };
  });
  return {
    id: cr.id,
    ...(cr.title !== null ? { title: cr.title } : {}),
    environment: cr.environment,
    project: cr.project,
    minApprovals: cr.minApprovals,
    state: cr.state,
    stateTimestamps: cr.stateTimestamps,
    features,
    segments: cr.segments.map((c) => changeView(state, cr, '', c)),
    approvals: cr.approvals.map((a) => ({ createdBy: person(a.createdBy), createdAt: a.createdAt })),
    rejections: cr.rejections.map((a) => ({ createdBy: person(a.createdBy), createdAt: a.createdAt })),
    comments: cr.comments.map((c) => ({ id: c.id, text: c.text, createdBy: person(c.createdBy), createdAt: c.createdAt })),
    createdBy: person(cr.createdBy),
    createdAt: cr.createdAt,
    ...(cr.schedule ? { schedule: scheduleView(cr.schedule) } : {}),
  };
}

/** Unleash's shape: the reason of a suspension as `reason`, of a failure as `failureReason` (and `reason`). */
function scheduleView(s: ChangeRequestSchedule) {
  return {
    scheduledAt: s.scheduledAt, status: s.status,
    ...(s.reason !== null ? { reason: s.reason } : {}),
    ...(s.status === 'failed' && s.reason !== null ? { failureReason: s.reason } : {}),
  };
}

/** The requests of a project `actor` may see (drafts only their own), newest first. */
export function visibleRequests(state: State, project: string, actor: Actor): ChangeRequest[] {
  const out: ChangeRequest[] = [];
  for (const cr of state.changeRequests.values()) if (cr.project === project && visibleTo(cr, actor)) out.push(cr);
  return out.sort((a, b) => b.id - a.id);
}

/** Open requests (a draft, in review or approved) that change `feature`. */
export function pendingFor(state: State, project: string, feature: string, actor: Actor): ChangeRequest[] {
  return visibleRequests(state, project, actor).filter((cr) => OPEN.includes(cr.state) && cr.features.some((f) => f.name === feature));
}

/** Counts by state, in Unleash's changeRequestsCountSchema. */
export function countView(state: State, project: string, actor: Actor) {
  const list = visibleRequests(state, project, actor);
  const n = (s: string) => list.filter((cr) => cr.state === s).length;
  return { total: list.filter((cr) => OPEN.includes(cr.state)).length, approved: n('Approved'), applied: n('Applied'), rejected: n('Rejected'), reviewRequired: n('In review'), scheduled: n('Scheduled') };
}

/**
 * The requests waiting for `actor`: in review (theirs to approve, unless they made it) and
 * approved (theirs to apply), as far as their rights go.
 */
export function actionable(state: State, project: string, actor: Actor, may: (cr: ChangeRequest) => { approve: boolean; apply: boolean }): ChangeRequest[] {
  return visibleRequests(state, project, actor).filter((cr) => {
    const rights = may(cr);
    if (cr.state === 'In review') return rights.approve && !isAuthor(cr, actor) && !cr.approvals.some((a) => a.createdBy.id === actor.userId);
    return cr.state === 'Approved' && rights.apply;
  });
}
