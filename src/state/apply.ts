import type { StateChange } from './change.js';
import { applyOp, OrderKeeper, type Undo } from './ops.js';
import type { State } from './state.js';

/** Applies a whole record (its ops, then its events). Returns the inverse when asked for it. */
export function applyRecord(state: State, rec: StateChange, withUndo: boolean): Undo | null {
  if (!withUndo) {
    for (const op of rec.ops) applyOp(state, op, false);
    for (const e of rec.events) state.events.appendStored(e);
    state.revision++;
    return null;
  }
  const undos: Undo[] = [];
  const order = new OrderKeeper();
  let appended = 0;
  const undo = () => {
    for (let i = appended - 1; i >= 0; i--) state.events.removeLast(rec.events[i][0]);
    for (let i = undos.length - 1; i >= 0; i--) undos[i]();
    order.restore();
  };
  try {
    for (const op of rec.ops) undos.push(applyOp(state, op, true, order));
    for (const e of rec.events) {
      state.events.appendStored(e);
      appended++;
    }
  } catch (err) {
    // An op that cannot apply (a bug in the command that built it): take back what did, so the
    // state never holds part of a change that will not be logged.
    undo();
    throw err;
  }
  state.revision++;
  return () => {
    state.revision--;
    undo();
  };
}
