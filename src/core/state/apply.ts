import type { StateChange } from './change.js';
import { applyOp, OrderKeeper, type Undo } from './ops.js';
import type { State } from './state.js';
import type { Slicer } from '../slices.js';

/** A record being applied with its inverse kept: what has applied so far can be taken back. */
class Applying {
  private readonly undos: Undo[] = [];
  private readonly order = new OrderKeeper();
  private appended = 0;

  constructor(private readonly state: State, private readonly rec: StateChange) {}

  op(i: number): void {
    this.undos.push(applyOp(this.state, this.rec.ops[i], true, this.order));
  }

  event(i: number): void {
    this.state.events.appendStored(this.rec.events[i]);
    this.appended++;
  }

  /** Takes back everything applied so far, newest first. */
  undo(): void {
    for (let i = this.appended - 1; i >= 0; i--) this.state.events.removeLast(this.rec.events[i][0]);
    for (let i = this.undos.length - 1; i >= 0; i--) this.undos[i]();
    this.order.restore();
  }

  /** The whole record has applied: count it, and return its inverse. */
  done(): Undo {
    this.state.revision++;
    return () => {
      this.state.revision--;
      this.undo();
    };
  }
}

/** Applies a whole record (its ops, then its events). Returns the inverse when asked for it. */
export function applyRecord(state: State, rec: StateChange, withUndo: boolean): Undo | null {
  if (!withUndo) {
    for (const op of rec.ops) applyOp(state, op, false);
    for (const e of rec.events) state.events.appendStored(e);
    state.revision++;
    return null;
  }
  const a = new Applying(state, rec);
  try {
    for (let i = 0; i < rec.ops.length; i++) a.op(i);
    for (let i = 0; i < rec.events.length; i++) a.event(i);
  } catch (err) {
    // An op that cannot apply (a bug in the command that built it): take back what did, so the
    // state never holds part of a change that will not be logged.
    a.undo();
    throw err;
  }
  return a.done();
}

/**
 * applyRecord with its inverse, a slice of ops or events at a time with pauses between: a
 * 50,000-flag import's record has half a million of them, which held the event loop for most of
 * a second. Between slices the state holds part of the change: the engine keeps readers away
 * meanwhile (Engine.applying). If an op fails, what did apply is taken back before it throws.
 */
export async function applyRecordInSlices(state: State, rec: StateChange, slicer: Slicer): Promise<Undo> {
  const a = new Applying(state, rec);
  try {
    for (let i = 0; i < rec.ops.length; i++) {
      a.op(i);
      if (slicer.due()) await slicer.pause();
    }
    for (let i = 0; i < rec.events.length; i++) {
      a.event(i);
      if (slicer.due()) await slicer.pause();
    }
  } catch (err) {
    a.undo();
    throw err;
  }
  return a.done();
}
