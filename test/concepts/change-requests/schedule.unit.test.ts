// Scheduled change requests as pure logic, with the clock passed in: scheduling (only an approved
// request, by someone who may apply, at a time in the future and within the bound), the decision
// over the state and the clock (nothing before the time, the apply once due, a suspension as soon
// as a flag, a strategy or the scheduler went), and the write of a step, which decides again
// against the state it lands on, so a step decided twice applies once.
import t, { type Test } from 'tap';
import type { Command } from '../../../src/core/engine/command.js';
import { applyOp } from '../../../src/core/state/ops.js';
import type { State } from '../../../src/core/state/state.js';
import type { Actor, ChangeRequest } from '../../../src/core/state/types.js';
import { countView, requestView } from '../../../src/concepts/change-requests/views.js';
import { MAX_SCHEDULE_AHEAD_DAYS, nextDue, scheduledTouching, scheduleSteps } from '../../../src/concepts/change-requests/schedule.js';
import { addChanges, editChange, runScheduled, setState, type ChangeInput, type Rights } from '../../../src/concepts/change-requests/workflow.js';
import { copiesOf, fixedEnv, fixtureState, user } from '../../core/state/fixture.js';
import { runFailing, runPure } from '../../core/engine/pure.js';

const AUTHOR: Actor = { name: 'ann', userId: 21 };
const BOB: Actor = { name: 'bob', userId: 22 };
const where = { project: 'default', environment: 'development' };
const reviewer: Rights = { token: false, mayApprove: true, mayApply: true, maySelfApprove: false };
/** fixedEnv's clock. */
const NOW = Date.parse(fixedEnv().now);
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The command as `actor` runs it, at `now` (fixedEnv's clock unless given). */
const as = <R>(actor: Actor, cmd: Command<R>, now?: number): Command<R> => (state, env) => cmd(state, { ...env, actor, ...(now !== undefined ? { now: iso(now) } : {}) });
const step = <R>(t: Test, state: State, actor: Actor, cmd: Command<R>, now?: number) => runPure(t, as(actor, cmd, now), copiesOf(state));
const fails = <R>(t: Test, state: State, actor: Actor, cmd: Command<R>, name: string) => runFailing(t, as(actor, cmd), name, copiesOf(state));

const switchOn: ChangeInput = { feature: 'beta', action: 'updateEnabled', payload: { enabled: true } };
const editS2: ChangeInput = { feature: 'alpha', action: 'updateStrategy', payload: { id: 's2', parameters: { x: '1' } } };
const variants: ChangeInput = { feature: 'alpha', action: 'patchVariant', payload: { variants: [{ name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' }] } };

/** The fixture with ann and bob as people, and a request of ann's holding `changes`, approved by bob; its id. */
function approved(t: Test, changes: ChangeInput[] = [switchOn, editS2]): { state: State; id: string } {
  const base = fixtureState();
  for (const id of [21, 22]) applyOp(base, { o: 'user.put', user: user(id) }, false);
  const made = step(t, base, AUTHOR, addChanges(where, { enabled: true, requiredApprovals: 1 }, changes));
  const id = String((made.change.result as ChangeRequest).id);
  const sent = step(t, made.after, AUTHOR, setState('default', id, 'In review', undefined, reviewer)).after;
  return { state: step(t, sent, BOB, setState('default', id, 'Approved', undefined, reviewer)).after, id };
}

/** The same request scheduled by bob an hour from now. */
function scheduled(t: Test, changes?: ChangeInput[]) {
  const { state, id } = approved(t, changes);
  return { state: step(t, state, BOB, setState('default', id, 'Scheduled', undefined, reviewer, iso(NOW + HOUR))).after, id, at: iso(NOW + HOUR) };
}

t.test('scheduling: an approved request, by someone who may apply, at a time ahead and within the bound', async (t) => {
  const { state, id } = approved(t);
  const made = step(t, state, BOB, setState('default', id, 'Scheduled', 'at the quiet hour', reviewer, '2026-02-02T03:02:02+00:00'));
  const cr = made.change.result;
  t.equal(cr.state, 'Scheduled');
  t.match(cr.schedule, { scheduledAt: '2026-02-02T03:02:02.000Z', status: 'pending', reason: null, scheduledBy: { id: 22, username: 'bob' } }, 'kept in UTC, with who scheduled it');
  t.same(made.change.events.map((e) => [e.type, (e.data as { scheduledAt: string }).scheduledAt]), [['change-request-scheduled', '2026-02-02T03:02:02.000Z']]);
  t.match(requestView(made.after, cr), { state: 'Scheduled', schedule: { scheduledAt: '2026-02-02T03:02:02.000Z', status: 'pending' } }, 'Unleash\'s shape');
  t.notOk('reason' in requestView(made.after, cr).schedule!, 'no reason while pending');
  t.match(countView(made.after, 'default', AUTHOR), { scheduled: 1, approved: 0 }, 'counted as scheduled');

  fails(t, state, BOB, setState('default', id, 'Scheduled', undefined, { ...reviewer, mayApply: false }, iso(NOW + HOUR)), 'NoAccessError');
  for (const [at, why] of [[undefined, /needs "scheduledAt"/], [iso(NOW), /not in the future/], [iso(NOW - 1), /not in the future/], ['not a date', /not a date-time/],
    [iso(NOW + (MAX_SCHEDULE_AHEAD_DAYS + 1) * 24 * HOUR), /more than 366 days ahead/]] as const) {
    const err = fails(t, state, BOB, setState('default', id, 'Scheduled', undefined, reviewer, at), 'ValidationError') as Error & { details: { path: string }[] };
    t.match(err.message, why, `${at}: ${why}`);
    t.match(err.details, [{ path: 'scheduledAt' }], 'naming the field');
  }
  t.ok(step(t, state, BOB, setState('default', id, 'Scheduled', undefined, reviewer, iso(NOW + MAX_SCHEDULE_AHEAD_DAYS * 24 * HOUR))), 'the bound itself is allowed');
  const sent = approved(t);
  const inReview = step(t, sent.state, AUTHOR, editChange('default', sent.id, String(sent.state.changeRequests.get(Number(sent.id))!.features[0].changes[0].id), switchOn)).after;
  fails(t, inReview, BOB, setState('default', sent.id, 'Scheduled', undefined, reviewer, iso(NOW + HOUR)), 'ValidationError'); // not approved
});

t.test('the decision: nothing before the time, the apply once due; a step written applies once', async (t) => {
  const { state, id, at } = scheduled(t);
  t.equal(nextDue(state), NOW + HOUR);
  t.same(scheduleSteps(state, new Date(NOW + HOUR - 1)), [], 'a millisecond before: nothing');
  const due = scheduleSteps(state, new Date(NOW + HOUR));
  t.same(due, [{ id: Number(id), scheduledAt: at, kind: 'apply' }], 'at the time: apply');
  t.same(step(t, state, BOB, runScheduled(due[0].id, at), NOW + HOUR - 1).change, { ops: [], events: [], result: null }, 'written early (a clock behind): nothing');

  const ran = step(t, state, BOB, runScheduled(due[0].id, at), NOW + HOUR + 20);
  t.same(ran.change.result, { id: Number(id), outcome: 'applied', reason: null });
  t.same(ran.change.events.map((e) => e.type), [
    'feature-strategy-add', 'feature-environment-enabled', 'feature-strategy-update', 'change-request-applied', 'change-request-scheduled-application-success',
  ], 'every change\'s events, applied, success: one change');
  t.equal(ran.after.featureEnvs.get('beta')!.get('development')!.enabled, true, 'beta on');
  const after = ran.after.changeRequests.get(Number(id))!;
  t.equal(after.state, 'Applied');
  t.notOk('schedule' in after, 'an applied request has no schedule left');
  t.same(scheduleSteps(ran.after, new Date(NOW + 2 * HOUR)), [], 'nothing more to do');
  t.equal(nextDue(ran.after), null);
  // Another node (or a second look) decided the same step before it saw the first write.
  t.same(step(t, ran.after, BOB, runScheduled(due[0].id, at), NOW + HOUR + 40).change, { ops: [], events: [], result: null }, 'the second write of the same step changes nothing');
});

t.test('a reschedule makes an earlier decision stale; apply now, reject and cancel from Scheduled', async (t) => {
  const { state, id, at } = scheduled(t);
  const later = step(t, state, BOB, setState('default', id, 'Scheduled', undefined, reviewer, iso(NOW + 2 * HOUR)));
  t.equal(later.change.result.schedule!.scheduledAt, iso(NOW + 2 * HOUR), 'rescheduled');
  t.same(later.change.events.map((e) => e.type), ['change-request-scheduled']);
  t.same(step(t, later.after, BOB, runScheduled(Number(id), at), NOW + HOUR).change.ops, [], 'the step for the old time writes nothing');
  t.same(scheduleSteps(later.after, new Date(NOW + HOUR)), [], 'and is not decided any more');

  const now = step(t, state, BOB, setState('default', id, 'Applied', undefined, reviewer));
  t.equal(now.change.result.state, 'Applied', 'applied now');
  t.same(step(t, now.after, BOB, runScheduled(Number(id), at), NOW + HOUR).change.ops, [], 'and not again at its time');
  const rejected = step(t, state, { name: 'carol', userId: 23 }, setState('default', id, 'Rejected', undefined, reviewer));
  t.equal(rejected.change.result.state, 'Rejected');
  t.notOk('schedule' in rejected.change.result, 'its schedule goes');
  t.equal(step(t, state, AUTHOR, setState('default', id, 'Cancelled', undefined, reviewer)).change.result.state, 'Cancelled');
  // Editing a change revokes the approvals: back to review, unscheduled.
  const changeId = String(state.changeRequests.get(Number(id))!.features[0].changes[0].id);
  const edited = step(t, state, AUTHOR, editChange('default', id, changeId, { ...switchOn, payload: { enabled: false } })).change.result;
  t.match(edited, { state: 'In review', approvals: [] });
  t.notOk('schedule' in edited, 'an edited request is no longer scheduled');
});

t.test('suspended, as soon as it is seen, when a flag is archived or deleted, a strategy changed or deleted, or the scheduler deleted', async (t) => {
  const { state, id, at } = scheduled(t);
  const cases: [string, (s: State) => void, RegExp][] = [
    ['flag archived', (s) => applyOp(s, { o: 'feature.put', feature: { ...s.features.get('beta')!, archived: true } }, false), /Flag "beta" has been archived/],
    ['flag deleted', (s) => applyOp(s, { o: 'feature.del', name: 'beta' }, false), /Flag "beta" has been deleted/],
    ['strategy changed', (s) => applyOp(s, { o: 'strategy.put', strategy: { ...s.strategies.get('s2')!, parameters: { x: 'meanwhile' } } }, false), /updateStrategy of "alpha"\): The strategy this change was made against has been changed/],
    ['strategy deleted', (s) => applyOp(s, { o: 'strategy.del', id: 's2' }, false), /has been deleted since/],
    ['scheduler deleted', (s) => applyOp(s, { o: 'user.del', id: 22 }, false), /bob, who scheduled it, has been deleted/],
  ];
  for (const [what, change, reason] of cases) {
    const moved = copiesOf(state)();
    change(moved);
    const steps = scheduleSteps(moved, new Date(NOW));
    t.equal(steps.length, 1, `${what}: decided an hour before the time`);
    t.match(steps[0], { kind: 'suspend', reason }, what);
    const written = step(t, moved, BOB, runScheduled(Number(id), at), NOW + HOUR);
    t.match(written.change.result, { outcome: 'suspended', reason }, `${what}: written as a suspension even once due`);
    t.same(written.change.events.map((e) => [e.type, e.createdBy]), [['change-request-schedule-suspended', 'fanion']], `${what}: nothing applied`);
    const cr = written.after.changeRequests.get(Number(id))!;
    t.match(requestView(written.after, cr), { state: 'Scheduled', schedule: { status: 'suspended', reason } });
    t.same(scheduleSteps(written.after, new Date(NOW + 2 * HOUR)), [], `${what}: a suspended request is left alone`);
  }
  // The scheduler deleted: someone else reschedules it, and it applies.
  const gone = copiesOf(state)();
  applyOp(gone, { o: 'user.del', id: 22 }, false);
  applyOp(gone, { o: 'user.put', user: user(23) }, false);
  const suspended = step(t, gone, BOB, runScheduled(Number(id), at), NOW).after;
  const again = step(t, suspended, { name: 'carol', userId: 23 }, setState('default', id, 'Scheduled', undefined, reviewer, at));
  t.match(again.change.result.schedule, { status: 'pending', scheduledBy: { username: 'carol' } }, 'rescheduled by carol');
  // Still archived: scheduling it again is refused with the reason.
  const archived = copiesOf(state)();
  applyOp(archived, { o: 'feature.put', feature: { ...archived.features.get('beta')!, archived: true } }, false);
  const err = fails(t, archived, BOB, setState('default', id, 'Scheduled', undefined, reviewer, at), 'ConflictError');
  t.match(err.message, /cannot be scheduled: Flag "beta" has been archived/);
});

t.test('a change that cannot apply when due fails the schedule with the reason, and applies nothing', async (t) => {
  const { state, id, at } = scheduled(t, [switchOn, variants]);
  const moved = copiesOf(state)();
  applyOp(moved, { o: 'featureEnv.put', feature: 'alpha', env: { ...moved.featureEnvs.get('alpha')!.get('development')!, variants: [{ name: 'z', weight: 1000, weightType: 'variable', stickiness: 'default', overrides: [] }] as never[] } }, false);
  t.same(scheduleSteps(moved, new Date(NOW)), [], 'variants moving is not a suspension');
  const written = step(t, moved, BOB, runScheduled(Number(id), at), NOW + HOUR);
  t.match(written.change.result, { outcome: 'failed', reason: /cannot be applied: change \d+: The variants this change was made against has been changed/ });
  t.same(written.change.events.map((e) => e.type), ['change-request-scheduled-application-failure'], 'nothing of the changes');
  t.equal(written.after.featureEnvs.get('beta')!.get('development')!.enabled, false, 'beta still off');
  t.match(requestView(written.after, written.after.changeRequests.get(Number(id))!).schedule, { status: 'failed', reason: /variants/, failureReason: /variants/ });
});

t.test('scheduled requests touching a flag or a strategy', async (t) => {
  const { state, id } = scheduled(t);
  const found = (features: string[], strategy?: string) => scheduledTouching(state, 'default', features, strategy).map((cr) => cr.id);
  t.same(found(['beta']), [Number(id)]);
  t.same(found(['gamma', 'alpha']), [Number(id)]);
  t.same(found(['gamma']), []);
  t.same(found([], 's2'), [Number(id)], 'the strategy its updateStrategy edits');
  t.same(found([], 's1'), []);
  t.same(found([]), [Number(id)], 'no filter: every scheduled one');
  t.same(scheduledTouching(state, 'other', ['beta'], undefined), [], 'of the project asked');
});
