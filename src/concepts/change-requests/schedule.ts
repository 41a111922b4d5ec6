// Scheduled change requests: time as a change source, as for release plan progressions. What is
// to be done is a pure decision over the state and the clock (`scheduleSteps`): a Scheduled
// request whose flag, strategy or scheduler went is suspended (as soon as that is seen, not only
// when it is due), and one that is due is applied. One node acts on it (scheduler.ts) and writes
// each step through `runScheduled` (workflow.ts), which decides again against the state it lands
// on, so a step decided twice (two looks, two nodes) is written once.
import { invalid } from '../../core/errors.js';
import type { State } from '../../core/state/state.js';
import type { ChangeRequest } from '../../core/state/types.js';
import { conflictOf } from './actions.js';

const DAY_MS = 86_400_000;
/**
 * How far ahead a request may be scheduled. A scheduled request is an open one, held and checked
 * for what moved under it until it applies; a year covers any release calendar, and a date past it
 * is taken for a typo (a year 20260 in place of 2026).
 */
export const MAX_SCHEDULE_AHEAD_DAYS = 366;

/** Actions whose change is suspended, not applied, when the strategies it was made against moved. */
const STRATEGY_ACTIONS = new Set(['updateStrategy', 'deleteStrategy', 'reorderStrategy']);

/** `scheduledAt` as the request keeps it (ISO, UTC), once it is found to be in the future and within the bound; a 400 otherwise. */
export function checkScheduledAt(scheduledAt: string | undefined, now: string): string {
  if (scheduledAt === undefined) throw invalid('scheduledAt', 'scheduling a change request needs "scheduledAt", the date and time to apply it');
  const at = Date.parse(scheduledAt);
  if (Number.isNaN(at)) throw invalid('scheduledAt', `"${scheduledAt}" is not a date-time`);
  const from = Date.parse(now);
  if (at <= from) throw invalid('scheduledAt', `${new Date(at).toISOString()} is not in the future (it is ${now})`);
  if (at - from > MAX_SCHEDULE_AHEAD_DAYS * DAY_MS) {
    throw invalid('scheduledAt', `${new Date(at).toISOString()} is more than ${MAX_SCHEDULE_AHEAD_DAYS} days ahead; schedule it later, closer to the time`);
  }
  return new Date(at).toISOString();
}

/**
 * Why a Scheduled request must not be applied as it stands, or null: the person who scheduled it
 * was deleted, a flag it changes was archived or deleted (or moved to another project), or a
 * strategy (or the order of strategies) one of its changes edits was changed or deleted since.
 * Other things that moved (variants, a segment) show as conflicts and fail the request when due.
 */
export function suspensionOf(state: State, cr: ChangeRequest): string | null {
  const by = cr.schedule?.scheduledBy;
  if (by && by.id !== null && !state.users.has(by.id)) return `${by.username}, who scheduled it, has been deleted.`;
  const where = { project: cr.project, environment: cr.environment };
  for (const f of cr.features) {
    const flag = state.features.get(f.name);
    if (!flag || flag.project !== cr.project) return `Flag "${f.name}" has been deleted.`;
    if (flag.archived) return `Flag "${f.name}" has been archived.`;
    for (const c of f.changes) {
      const conflict = STRATEGY_ACTIONS.has(c.action) ? conflictOf(state, where, f.name, c) : null;
      if (conflict) return `Change ${c.id} (${c.action} of "${f.name}"): ${conflict}`;
    }
  }
  return null;
}

/** One thing to write for a Scheduled request: suspend it (why), or apply it (it is due). */
export type ScheduleStep = { id: number; scheduledAt: string } & ({ kind: 'suspend'; reason: string } | { kind: 'apply' });

/** Every pending schedule's step at `now`: suspensions first seen, and what is due. Pure. */
export function scheduleSteps(state: State, now: Date): ScheduleStep[] {
  const out: ScheduleStep[] = [];
  for (const cr of pendingSchedules(state)) {
    const { scheduledAt } = cr.schedule!;
    const reason = suspensionOf(state, cr);
    if (reason !== null) out.push({ id: cr.id, scheduledAt, kind: 'suspend', reason });
    else if (Date.parse(scheduledAt) <= now.getTime()) out.push({ id: cr.id, scheduledAt, kind: 'apply' });
  }
  return out.sort((a, b) => Date.parse(a.scheduledAt) - Date.parse(b.scheduledAt) || a.id - b.id);
}

/** The earliest time a pending schedule is due (ms), or null when none is pending. */
export function nextDue(state: State): number | null {
  let next: number | null = null;
  for (const cr of pendingSchedules(state)) {
    const at = Date.parse(cr.schedule!.scheduledAt);
    if (next === null || at < next) next = at;
  }
  return next;
}

function* pendingSchedules(state: State): Generator<ChangeRequest> {
  for (const cr of state.changeRequests.values()) if (cr.state === 'Scheduled' && cr.schedule?.status === 'pending') yield cr;
}

/**
 * Scheduled requests of `project` (any status) that change one of `features`, or the strategy
 * `strategyId` (every one of the project when neither is given): what Unleash's console asks
 * before someone edits a flag or a strategy.
 */
export function scheduledTouching(state: State, project: string, features: string[], strategyId: string | undefined): ChangeRequest[] {
  const out: ChangeRequest[] = [];
  for (const cr of state.changeRequests.values()) {
    if (cr.project !== project || cr.state !== 'Scheduled') continue;
    const byFlag = features.length > 0 && cr.features.some((f) => features.includes(f.name));
    const byStrategy = strategyId !== undefined && cr.features.some((f) => f.changes.some((c) => touchesStrategy(c.payload, strategyId)));
    if (byFlag || byStrategy || (features.length === 0 && strategyId === undefined)) out.push(cr);
  }
  return out.sort((a, b) => a.id - b.id);
}

function touchesStrategy(payload: unknown, strategyId: string): boolean {
  if (Array.isArray(payload)) return payload.some((p) => (p as { id?: unknown })?.id === strategyId);
  return (payload as { id?: unknown } | null)?.id === strategyId;
}
