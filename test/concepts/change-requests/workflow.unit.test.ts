// The change request workflow as pure commands: drafts per author, the states and who may move
// them, approvals revoked by edits, conflicts with what moved since, and an apply that is one change
// holding every change's ops and events, or nothing.
import t, { type Test } from 'tap';
import type { Command } from '../../../src/core/engine/command.js';
import { applyOp } from '../../../src/core/state/ops.js';
import type { State } from '../../../src/core/state/state.js';
import { strategiesOf } from '../../../src/core/state/state.js';
import type { Actor, ChangeRequest } from '../../../src/core/state/types.js';
import { requestView } from '../../../src/concepts/change-requests/views.js';
import {
  addChanges, deleteDraft, discardChange, editChange, MAX_OPEN_PER_PROJECT, setState, type ChangeInput, type Rights,
} from '../../../src/concepts/change-requests/workflow.js';
import { changeRequest, copiesOf, fixtureState } from '../../core/state/fixture.js';
import { runFailing, runPure } from '../../core/engine/pure.js';

const AUTHOR: Actor = { name: 'ann@example.com', userId: 21 };
const BOB: Actor = { name: 'bob@example.com', userId: 22 };
const CAROL: Actor = { name: 'carol@example.com', userId: 23 };
const TOKEN: Actor = { name: 'ci-token', userId: null };
const where = { project: 'default', environment: 'development' };
const rule = (requiredApprovals = 1) => ({ enabled: true, requiredApprovals });
const reviewer: Rights = { token: false, mayApprove: true, mayApply: true, maySelfApprove: false };

/** The command as `actor` runs it. */
const as = <R>(actor: Actor, cmd: Command<R>): Command<R> => (state, env) => cmd(state, { ...env, actor });

/** Runs a command that must succeed (checked pure by runPure) and returns the state after it and its change. */
function step<R>(t: Test, state: State, actor: Actor, cmd: Command<R>) {
  return runPure(t, as(actor, cmd), copiesOf(state));
}

function fails<R>(t: Test, state: State, actor: Actor, cmd: Command<R>, name: string): Error {
  return runFailing(t, as(actor, cmd), name, copiesOf(state));
}

const switchOn: ChangeInput = { feature: 'beta', action: 'updateEnabled', payload: { enabled: true } };
const editS2: ChangeInput = { feature: 'alpha', action: 'updateStrategy', payload: { id: 's2', parameters: { x: '1' } } };

/** A request of ann's with the two changes above, sent to review; its id. */
function inReview(t: Test, approvals = 1): { state: State; id: string } {
  const made = step(t, fixtureState(), AUTHOR, addChanges(where, rule(approvals), [switchOn, editS2]));
  const id = String((made.change.result as ChangeRequest).id);
  return { state: step(t, made.after, AUTHOR, setState('default', id, 'In review', undefined, reviewer)).after, id };
}

t.test('changes gather in their author\'s draft, one per person, project and environment', async (t) => {
  const first = step(t, fixtureState(), AUTHOR, addChanges(where, rule(2), [switchOn]));
  const cr = first.change.result;
  t.equal(cr.state, 'Draft');
  t.equal(cr.minApprovals, 2, 'the approvals it needs are fixed when it is made');
  t.same(first.change.events.map((e) => e.type), ['change-request-created', 'change-added']);
  const second = step(t, first.after, AUTHOR, addChanges(where, rule(2), [editS2, { ...switchOn, payload: { enabled: false } }]));
  t.equal(second.change.result.id, cr.id, 'the same draft');
  t.same(second.change.events.map((e) => e.type), ['change-added', 'change-added'], 'no second request made');
  const beta = second.change.result.features.find((f) => f.name === 'beta')!;
  t.same(beta.changes.map((c) => c.payload), [{ enabled: false }], 'a second switch of the flag replaces the first');
  const other = step(t, second.after, BOB, addChanges(where, rule(2), [switchOn]));
  t.not(other.change.result.id, cr.id, 'another person gets a draft of their own');
  t.same(requestView(other.after, other.after.changeRequests.get(cr.id)!).features.map((f) => f.name), ['beta', 'alpha']);
});

t.test('a change is checked as its direct route would check it, and nothing is kept when one is wrong', async (t) => {
  const err = fails(t, fixtureState(), AUTHOR, addChanges(where, rule(), [switchOn, { feature: 'alpha', action: 'deleteStrategy', payload: { id: 'nope' } }]), 'NotFoundError');
  t.match(err.message, /^Change 2 \(deleteStrategy\): Could not find strategy with id "nope"/);
  fails(t, fixtureState(), AUTHOR, addChanges(where, { enabled: false, requiredApprovals: 1 }, [switchOn]), 'ValidationError');
  fails(t, fixtureState(), AUTHOR, addChanges(where, rule(), [{ feature: 'no-such-flag', action: 'updateEnabled', payload: { enabled: true } }]), 'NotFoundError');
});

t.test('review: only its author sends it; others approve, as many as it needs; the author and tokens cannot', async (t) => {
  const made = step(t, fixtureState(), AUTHOR, addChanges(where, rule(2), [switchOn]));
  const id = String(made.change.result.id);
  fails(t, made.after, BOB, setState('default', id, 'In review', undefined, reviewer), 'NotFoundError'); // a draft is its author's alone
  fails(t, made.after, AUTHOR, setState('default', id, 'Approved', undefined, reviewer), 'ValidationError'); // not in review yet
  const sent = step(t, made.after, AUTHOR, setState('default', id, 'In review', 'please', reviewer));
  t.same(sent.change.events.map((e) => e.type), ['change-request-sent-to-review']);
  t.equal(sent.change.result.comments[0].text, 'please', 'the comment is kept');
  let err = fails(t, sent.after, AUTHOR, setState('default', id, 'Approved', undefined, reviewer), 'NoAccessError');
  t.match(err.message, /your own change request/);
  err = fails(t, sent.after, TOKEN, setState('default', id, 'Approved', undefined, { ...reviewer, token: true }), 'NoAccessError');
  t.match(err.message, /API token cannot approve/);
  fails(t, sent.after, BOB, setState('default', id, 'Approved', undefined, { ...reviewer, mayApprove: false }), 'NoAccessError');
  const one = step(t, sent.after, BOB, setState('default', id, 'Approved', undefined, reviewer));
  t.equal(one.change.result.state, 'In review', 'one approval of two');
  t.same(one.change.events.map((e) => e.type), ['change-request-approval-added']);
  fails(t, one.after, BOB, setState('default', id, 'Approved', undefined, reviewer), 'ConflictError'); // twice by the same person
  fails(t, one.after, BOB, setState('default', id, 'Applied', undefined, reviewer), 'ValidationError'); // not approved yet
  const two = step(t, one.after, CAROL, setState('default', id, 'Approved', undefined, reviewer));
  t.equal(two.change.result.state, 'Approved');
  t.same(two.change.events.map((e) => e.type), ['change-request-approved']);
  const self = step(t, sent.after, AUTHOR, setState('default', id, 'Approved', undefined, { ...reviewer, maySelfApprove: true }));
  t.equal(self.change.result.approvals.length, 1, 'an Admin the settings allow may approve their own');
});

t.test('apply: one change with every change\'s ops and events, then change-request-applied', async (t) => {
  const { state, id } = inReview(t);
  const approved = step(t, state, BOB, setState('default', id, 'Approved', undefined, reviewer)).after;
  fails(t, approved, CAROL, setState('default', id, 'Applied', undefined, { ...reviewer, mayApply: false }), 'NoAccessError');
  const applied = step(t, approved, CAROL, setState('default', id, 'Applied', undefined, reviewer));
  t.same(applied.change.events.map((e) => e.type), ['feature-strategy-add', 'feature-environment-enabled', 'feature-strategy-update', 'change-request-applied']);
  t.equal(applied.after.featureEnvs.get('beta')!.get('development')!.enabled, true, 'beta switched on');
  t.same(applied.after.strategies.get('s2')!.parameters, { x: '1' }, 's2 updated');
  t.equal(applied.after.changeRequests.get(Number(id))!.state, 'Applied');
  t.equal(applied.change.ops.at(-1)!.o, 'changeRequest.put', 'the request is marked Applied in the same change');
  fails(t, applied.after, CAROL, setState('default', id, 'Applied', undefined, reviewer), 'ValidationError'); // once
});

t.test('apply is all or nothing: a change that cannot apply any more fails the whole request, naming it', async (t) => {
  const { state, id } = inReview(t);
  const approved = step(t, state, BOB, setState('default', id, 'Approved', undefined, reviewer)).after;
  // beta is archived meanwhile (its switch can no longer apply); s2 is untouched.
  const broken = copiesOf(approved)();
  applyOp(broken, { o: 'feature.put', feature: { ...broken.features.get('beta')!, archived: true } }, false);
  const err = fails(t, broken, CAROL, setState('default', id, 'Applied', undefined, reviewer), 'NotFoundError');
  t.match(err.message, /^Change request \d+ cannot be applied: change \d+ \(updateEnabled of "beta"\) failed\. There's no feature named "beta"/);
});

t.test('conflicts: a change made against a strategy, variants or segment that moved since is shown, and blocks apply', async (t) => {
  const { state, id } = inReview(t);
  const approved = step(t, state, BOB, setState('default', id, 'Approved', undefined, reviewer)).after;
  t.notOk(JSON.stringify(requestView(approved, approved.changeRequests.get(Number(id))!)).includes('conflict'), 'none yet');
  const moved = copiesOf(approved)();
  applyOp(moved, { o: 'strategy.put', strategy: { ...moved.strategies.get('s2')!, parameters: { x: 'someone else' } } }, false);
  const view = requestView(moved, moved.changeRequests.get(Number(id))!);
  const alpha = view.features.find((f) => f.name === 'alpha')!;
  t.match(alpha.changes[0], { action: 'updateStrategy', conflict: /strategy this change was made against has been changed/ });
  t.match(alpha, { conflict: /changed/ }, 'the flag is marked too');
  t.notOk('conflict' in view.features.find((f) => f.name === 'beta')!, 'the switch does not conflict');
  const err = fails(t, moved, CAROL, setState('default', id, 'Applied', undefined, reviewer), 'ConflictError');
  t.match(err.message, /cannot be applied: change \d+: The strategy this change was made against has been changed/);
  const gone = copiesOf(approved)();
  applyOp(gone, { o: 'strategy.del', id: 's2' }, false);
  t.match(requestView(gone, gone.changeRequests.get(Number(id))!).features[1].changes[0], { conflict: /has been deleted/ });
  // Segments and variants too.
  const seg = step(t, fixtureState(), AUTHOR, addChanges(where, rule(), [
    { action: 'updateSegment', payload: { id: 1, name: 'seg', constraints: [] } },
    { feature: 'alpha', action: 'patchVariant', payload: { variants: [{ name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' }] } },
  ]));
  const segMoved = copiesOf(seg.after)();
  applyOp(segMoved, { o: 'segment.put', segment: { ...segMoved.segments.get(1)!, description: 'edited' } }, false);
  applyOp(segMoved, { o: 'featureEnv.put', feature: 'alpha', env: { ...segMoved.featureEnvs.get('alpha')!.get('development')!, variants: [] as never[] } }, false);
  const segView = requestView(segMoved, segMoved.changeRequests.get(seg.change.result.id)!);
  t.match(segView.segments[0], { action: 'updateSegment', name: 'seg', conflict: /segment this change was made against has been changed/ });
  t.notOk('conflict' in segView.features[0].changes[0], 'variants unchanged ([] before and after): no conflict');
});

t.test('editing or discarding a change of a request in review revokes its approvals', async (t) => {
  const { state, id } = inReview(t, 2);
  const one = step(t, state, BOB, setState('default', id, 'Approved', undefined, reviewer)).after;
  const changeId = String(one.changeRequests.get(Number(id))!.features[1].changes[0].id);
  fails(t, one, BOB, editChange('default', id, changeId, editS2), 'NoAccessError'); // only its author
  const edited = step(t, one, AUTHOR, editChange('default', id, changeId, { ...editS2, payload: { id: 's2', parameters: { x: '2' } } }));
  t.same(edited.change.result.approvals, [], 'approvals revoked');
  t.equal(edited.change.result.state, 'In review');
  t.same(edited.change.events.map((e) => [e.type, (e.data as { approvalsRevoked: number }).approvalsRevoked]), [['change-edited', 1]]);
  const discarded = step(t, one, AUTHOR, discardChange('default', id, changeId));
  t.same(discarded.change.result.approvals, []);
  t.same(discarded.change.result.features.map((f) => f.name), ['beta'], 'the change is gone');
});

t.test('reject, cancel, delete a draft', async (t) => {
  const { state, id } = inReview(t);
  fails(t, state, AUTHOR, setState('default', id, 'Rejected', undefined, reviewer), 'NoAccessError');
  const rejected = step(t, state, BOB, setState('default', id, 'Rejected', 'not now', reviewer));
  t.equal(rejected.change.result.state, 'Rejected');
  t.same(rejected.change.events.map((e) => e.type), ['change-request-rejected']);
  fails(t, rejected.after, AUTHOR, setState('default', id, 'Cancelled', undefined, reviewer), 'ValidationError'); // closed
  fails(t, state, BOB, setState('default', id, 'Cancelled', undefined, reviewer), 'NoAccessError');
  const cancelled = step(t, state, AUTHOR, setState('default', id, 'Cancelled', undefined, reviewer));
  t.same(cancelled.change.events.map((e) => e.type), ['change-request-cancelled']);
  fails(t, state, AUTHOR, deleteDraft('default', id), 'ValidationError'); // sent to review: cancel it instead
  const draft = step(t, fixtureState(), AUTHOR, addChanges(where, rule(), [switchOn]));
  const deleted = step(t, draft.after, AUTHOR, deleteDraft('default', String(draft.change.result.id)));
  t.same(deleted.change.events.map((e) => e.type), ['change-request-discarded']);
  t.equal(deleted.after.changeRequests.has(draft.change.result.id), false);
});

t.test('strategies added by a request land where the direct route would put them', async (t) => {
  const { after } = step(t, fixtureState(), AUTHOR, addChanges({ project: 'default', environment: 'production' }, rule(), [
    { feature: 'alpha', action: 'addStrategy', payload: { name: 'default' } },
    { feature: 'alpha', action: 'addStrategy', payload: { name: 'flexibleRollout' } },
  ]));
  t.equal(strategiesOf(after, 'alpha', 'production').length, 1, 'nothing applied while it is a draft');
});

t.test('a project holds at most MAX_OPEN_PER_PROJECT open requests; closed ones do not count', async (t) => {
  const full = fixtureState();
  // The fixture holds one open request already (id 1).
  for (let id = 2; id <= MAX_OPEN_PER_PROJECT; id++) applyOp(full, { o: 'changeRequest.put', request: changeRequest(id, 'alpha', 'production', { createdBy: { id: 1000 + id, username: `p${id}` } }) }, false);
  const err = fails(t, full, AUTHOR, addChanges(where, rule(), [switchOn]), 'ValidationError');
  t.match(err.message, `has ${MAX_OPEN_PER_PROJECT} open change requests`);
  applyOp(full, { o: 'changeRequest.put', request: changeRequest(2, 'alpha', 'production', { state: 'Applied' }) }, false);
  t.equal(step(t, full, AUTHOR, addChanges(where, rule(), [switchOn])).change.result.state, 'Draft', 'one closed: room for a new draft');
});
