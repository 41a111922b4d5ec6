// Several commands as one change: each runs against the state the ones before it leave, and their
// ops and events are concatenated into one record, so the log holds all of them or none.
import { applyRecord } from '../state/apply.js';
import type { State } from '../state/state.js';
import type { Change, Command, CommandEnv } from './command.js';

/**
 * A working copy of `state` that ops may be applied to without touching it: the maps are copied
 * (their entries shared), and ops applied with their inverses kept replace nested maps and lists
 * rather than change them (the copy-on-write a checkpoint relies on), so the entries stay as they
 * were. The event log is shared: the ops applied here come without events.
 */
function workingCopy(state: State): State {
  const copy: Record<string, unknown> = { ...state };
  for (const [key, value] of Object.entries(state)) if (value instanceof Map) copy[key] = new Map(value);
  return copy as unknown as State;
}

/**
 * Runs `steps` in order, each against the state as the steps before it changed it, and returns
 * their changes joined (ops and events in order, the results as a list). A step that throws ends
 * the run and the error goes to the caller; nothing is kept.
 *
 * Commands are pure and must not change the state they are given, so from the second step on they
 * run against a working copy with the earlier steps' ops applied (made once, and only when a later
 * step needs it). The engine then applies the joined change itself, as for any command.
 */
export function inSequence(state: State, env: CommandEnv, steps: readonly Command<unknown>[]): Change<unknown[]> {
  const joined: Change<unknown[]> = { ops: [], events: [], result: [] };
  let current = state;
  steps.forEach((step, i) => {
    const change = step(current, env);
    joined.ops.push(...change.ops);
    joined.events.push(...change.events);
    joined.result.push(change.result);
    if (change.ops.length === 0 || i === steps.length - 1) return;
    if (current === state) current = workingCopy(state);
    applyRecord(current, { lsn: 0, ops: change.ops, events: [] }, true);
  });
  return joined;
}
