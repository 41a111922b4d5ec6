// Runs a command the way the purity tests need: on a deep-frozen state (so any in-place
// mutation throws), twice with the same clock and id source (so the output must repeat).
import type { Test } from 'tap';
import { resolveEvents, type Change, type Command, type SlicedCommand } from '../../../src/core/engine/command.js';
import { Slicer } from '../../../src/core/slices.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { storeEvent } from '../../../src/core/state/events/stored.js';
import type { State } from '../../../src/core/state/state.js';
import { deepFreeze, fixedEnv, fixtureState, snapshot } from '../state/fixture.js';

export interface PureRun<R> {
  change: Change<R>;
  /** The fixture state with the change applied (a separate, unfrozen copy). */
  after: State;
}

export function runPure<R>(t: Test, command: Command<R>, base: () => State = fixtureState): PureRun<R> {
  const frozen = deepFreeze(base());
  const before = snapshot(frozen);
  const first = command(frozen, fixedEnv());
  const second = command(frozen, fixedEnv());
  const fresh = command(base(), fixedEnv());
  t.strictSame(snapshot(frozen), before, 'the input state is unchanged');
  t.strictSame(second, first, 'same state, clock and ids give the same change');
  t.strictSame(fresh, first, 'an equal state gives the same change');
  const after = base();
  const env = fixedEnv();
  const events = resolveEvents(after, env, first.events);
  t.strictSame(events, resolveEvents(frozen, fixedEnv(), first.events), 'event resolution is pure too');
  applyRecord(after, { lsn: 2, ops: first.ops, events: events.map(storeEvent) }, false);
  return { change: first, after };
}

/** A command that must fail: it throws the given error class and leaves the frozen state as it was. */
export function runFailing<R>(t: Test, command: Command<R>, errorName: string, base: () => State = fixtureState): Error {
  const frozen = deepFreeze(base());
  const before = snapshot(frozen);
  let caught: unknown;
  try {
    command(frozen, fixedEnv());
  } catch (err) {
    caught = err;
  }
  t.ok(caught instanceof Error, 'it throws');
  t.equal((caught as Error)?.name, errorName, `it throws ${errorName}`);
  t.notMatch(String((caught as Error)?.message), /frozen|read.only|not extensible/i, 'not by touching the frozen state');
  t.strictSame(snapshot(frozen), before, 'the input state is unchanged');
  return caught as Error;
}

/** runPure for a sliced command (engine.runInSlices): the pauses between slices change when the work happens, never its result. */
export async function runPureSliced<R>(t: Test, command: SlicedCommand<R>, base: () => State = fixtureState): Promise<PureRun<R>> {
  const run = (state: State) => command(state, fixedEnv(), new Slicer());
  const frozen = deepFreeze(base());
  const before = snapshot(frozen);
  const first = await run(frozen);
  t.strictSame(await run(frozen), first, 'same state, clock and ids give the same change');
  t.strictSame(await run(base()), first, 'an equal state gives the same change');
  t.strictSame(snapshot(frozen), before, 'the input state is unchanged');
  const after = base();
  applyRecord(after, { lsn: 2, ops: first.ops, events: resolveEvents(after, fixedEnv(), first.events).map(storeEvent) }, false);
  return { change: first, after };
}

/** runFailing for a sliced command. */
export async function runFailingSliced<R>(t: Test, command: SlicedCommand<R>, errorName: string, base: () => State = fixtureState): Promise<Error> {
  const frozen = deepFreeze(base());
  const before = snapshot(frozen);
  const caught = await command(frozen, fixedEnv(), new Slicer()).then(() => undefined, (err: unknown) => err);
  t.ok(caught instanceof Error, 'it throws');
  t.equal((caught as Error)?.name, errorName, `it throws ${errorName}`);
  t.notMatch(String((caught as Error)?.message), /frozen|read.only|not extensible/i, 'not by touching the frozen state');
  t.strictSame(snapshot(frozen), before, 'the input state is unchanged');
  return caught as Error;
}
