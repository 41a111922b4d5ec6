// The engine: the one place mutations go through.
//   command (pure) → resolved change → apply to memory (keeping its inverse) → append to WAL
//   → acknowledge when durable. If the WAL append fails, this change and every change applied
//   after it are rolled back and their callers get 503; reads go on from the restored state.
import { randomUUID } from 'node:crypto';
import { ServiceUnavailableError } from '../errors.js';
import { storeEvent, type StoredEvent } from '../state/events/stored.js';
import type { Logger } from '../log.js';
import { applyRecord, applyRecordInSlices } from '../state/apply.js';
import type { Undo } from '../state/ops.js';
import type { State } from '../state/state.js';
import type { Actor } from '../state/types.js';
import type { StateChange } from '../state/change.js';
import type { Wal } from '../wal/wal.js';
import { resolveEvents, type Command, type CommandEnv, type SlicedCommand } from './command.js';
import { Slicer } from '../slices.js';

export interface EngineDeps {
  state: State;
  wal: Wal;
  log: Logger;
  clock?: () => Date;
  newId?: () => string;
}

interface InFlight {
  lsn: number;
  rec: StateChange;
  undo: Undo;
  rolledBack: boolean;
  /** Settles true once durable, false if rolled back. */
  done: Promise<boolean>;
  finish: (durable: boolean) => void;
}

/** See Engine.onLargeChange. */
export interface LargeChangeListener {
  read?: (rec: StateChange, slicer: Slicer) => Promise<void>;
  catchUp?: (slicer: Slicer) => Promise<void>;
}

/**
 * Told of every change as it is applied, when it is durable (in commit order), and if it is
 * rolled back instead (the WAL refused it; reported once, for the oldest change undone: every
 * change applied after it is undone too).
 */
export type ChangeListener = (change: StateChange, kind: 'applied' | 'durable' | 'rolled-back') => void;

/**
 * The one place mutations go through: `run(actor, command)` applies the command's change to the
 * state (keeping its inverse), appends it to the WAL and resolves once it is durable; change
 * listeners hear of it as it is applied (and again if the WAL refuses it and it is rolled back).
 * `atQuietPoint` gives the checkpointer an instant with nothing in flight.
 */
export class Engine {
  readonly state: State;
  readonly wal: Wal;
  private readonly log: Logger;
  private readonly clock: () => Date;
  private readonly newId: () => string;
  private inFlight: InFlight[] = [];
  private listeners: ChangeListener[] = [];
  /** Called after each durable record; the checkpointer hooks in here. */
  afterDurable: (() => void) | null = null;
  /** Set while runInSlices applies a change a slice at a time: the state holds part of it. */
  private applyingNow: Promise<void> | null = null;
  /** While set, new commands wait: a checkpoint needs an instant with nothing in flight. */
  private barrier: Promise<void> | null = null;
  private drainWaiters: (() => void)[] = [];

  constructor(deps: EngineDeps) {
    this.state = deps.state;
    this.wal = deps.wal;
    this.log = deps.log;
    this.clock = deps.clock ?? (() => new Date());
    this.newId = deps.newId ?? randomUUID;
  }

  /**
   * While a large change is being applied a slice at a time (runInSlices), a promise that
   * resolves once it is whole (or was taken back); null otherwise. Whoever reads the state
   * between two turns of the event loop waits for it rather than see half an import.
   */
  get applying(): Promise<void> | null {
    return this.applyingNow;
  }

  /**
   * For a large change (runInSlices), work a change listener would do at once, done a slice at a
   * time instead, before readers are let back in: `read` once the change is applied and before
   * change listeners hear of it (what it touched: half a million ops), `catchUp` after they have
   * (the client snapshot serializes 50,000 flags rather than leaving them to the next poll).
   */
  onLargeChange(l: LargeChangeListener): void {
    this.largeChangeListeners.push(l);
  }

  private largeChangeListeners: LargeChangeListener[] = [];

  /** A large-change listener's failure is logged; the change goes on (its listeners do the work at once instead). */
  private async guarded(fn: () => Promise<void> | undefined): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.log.error({ err }, 'a large-change listener failed');
    }
  }

  onChange(fn: ChangeListener): void {
    this.listeners.push(fn);
  }

  /** Runs a command and resolves once its change is durable. */
  async run<R>(actor: Actor, command: Command<R>, opts: { durable?: boolean } = {}): Promise<R> {
    while (this.barrier) await this.barrier;
    const env: CommandEnv = { now: this.clock().toISOString(), newId: this.newId, actor };
    const change = command(this.state, env);
    if (change.ops.length === 0 && change.events.length === 0) return change.result;
    const events = resolveEvents(this.state, env, change.events).map(storeEvent);
    const lsn = this.wal.takeLsn();
    const rec: StateChange = { lsn, ops: change.ops, events };
    let bytes: Buffer;
    let undo: Undo;
    try {
      bytes = this.wal.encode(rec);
      // Throws only on a bug in a command; applyRecord then leaves the state as it was.
      undo = applyRecord(this.state, rec, true)!;
    } catch (err) {
      // Nothing of this change exists anywhere: its LSN goes to the next one.
      this.wal.returnLsn(lsn);
      throw err;
    }
    const entry = this.track(rec, undo);
    const written = this.wal.append(bytes);
    if (opts.durable === false) {
      // Metrics bookkeeping: acknowledged without waiting; a crash may lose the last few seconds.
      written.then(() => this.settle(entry), (err) => this.rollback(entry, rec, err));
      return change.result;
    }
    return this.durable(entry, rec, written, change.result);
  }

  /** An applied change, in flight until its WAL append settles; listeners hear it was applied. */
  private track(rec: StateChange, undo: Undo): InFlight {
    let finish!: (durable: boolean) => void;
    const done = new Promise<boolean>((resolve) => (finish = resolve));
    const entry: InFlight = { lsn: rec.lsn, rec, undo, rolledBack: false, done, finish };
    this.inFlight.push(entry);
    this.emit(rec, 'applied');
    return entry;
  }

  /** Resolves with `result` once the change is durable; rolls it back (503) if its append fails. */
  private async durable<R>(entry: InFlight, rec: StateChange, written: Promise<void>, result: R): Promise<R> {
    try {
      await written;
    } catch (err) {
      this.rollback(entry, rec, err);
      throw new ServiceUnavailableError(
        `The change could not be written to disk (${(err as NodeJS.ErrnoException).code ?? 'I/O error'}); nothing was changed. Try again later.`,
      );
    }
    this.settle(entry);
    return result;
  }

  /**
   * Runs a large command (an import) without holding the event loop: no other change starts until
   * this one is applied (as with a checkpoint's quiet point, writes wait), and none is in flight
   * while it runs, so the state it reads cannot move or be rolled back under it; reads go on
   * against the state as it was. The command, its events and its WAL record are built a slice at
   * a time, and so is the apply (readers wait for `applying` meanwhile, and large-change
   * listeners catch up before they are let in); it is made durable as one record, as `run` does.
   */
  async runInSlices<R>(actor: Actor, command: SlicedCommand<R>): Promise<R> {
    while (this.barrier) await this.barrier;
    let open!: () => void;
    this.barrier = new Promise<void>((resolve) => (open = resolve));
    let written: Promise<void>;
    let entry: InFlight;
    let rec: StateChange;
    let result: R;
    try {
      while (this.inFlight.length > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
      const slicer = new Slicer();
      const env: CommandEnv = { now: this.clock().toISOString(), newId: this.newId, actor };
      const change = await command(this.state, env, slicer);
      if (change.ops.length === 0 && change.events.length === 0) return change.result;
      result = change.result;
      const events: StoredEvent[] = [];
      const resolved = resolveEvents(this.state, env, change.events);
      for (let i = 0; i < resolved.length; i++) {
        events.push(storeEvent(resolved[i]));
        if (slicer.due()) await slicer.pause();
      }
      const lsn = this.wal.takeLsn();
      rec = { lsn, ops: change.ops, events };
      let bytes: Buffer;
      try {
        bytes = await this.wal.encodeInSlices(rec, slicer);
      } catch (err) {
        this.wal.returnLsn(lsn);
        throw err;
      }
      // Between slices of the apply the state holds part of the change, and then the readers'
      // caches are brought up to date (onLargeChange): readers wait for `applying` meanwhile
      // (the HTTP pipeline does; an SDK poll is answered with its last answer).
      let applied!: () => void;
      this.applyingNow = new Promise<void>((resolve) => (applied = resolve));
      try {
        let undo: Undo;
        try {
          undo = await applyRecordInSlices(this.state, rec, slicer);
        } catch (err) {
          this.wal.returnLsn(lsn);
          throw err;
        }
        for (const l of this.largeChangeListeners) await this.guarded(() => l.read?.(rec, slicer));
        entry = this.track(rec, undo);
        written = this.wal.append(bytes);
        // Handled by durable() below; without this, a failure during the catch-up would count as unhandled.
        written.catch(() => {});
        for (const l of this.largeChangeListeners) await this.guarded(() => l.catchUp?.(slicer));
      } finally {
        this.applyingNow = null;
        applied();
      }
    } finally {
      this.barrier = null;
      open();
    }
    return this.durable(entry, rec, written, result);
  }

  private settle(entry: InFlight): void {
    const at = this.inFlight.indexOf(entry);
    if (at >= 0) this.inFlight.splice(at, 1);
    entry.finish(true);
    this.emit(entry.rec, 'durable');
    this.drained();
    this.afterDurable?.();
  }

  /**
   * Resolves true once every change applied so far is durable, false if one of them is rolled
   * back instead. What a reader built from the state now may be sent after a true: it then holds
   * nothing that could still be undone. Changes applied later are not waited for.
   */
  whenDurable(): Promise<boolean> {
    if (this.inFlight.length === 0) return Promise.resolve(true);
    return Promise.all(this.inFlight.map((e) => e.done)).then((all) => all.every(Boolean));
  }

  private drained(): void {
    if (this.inFlight.length > 0 || this.drainWaiters.length === 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * Runs `fn` at an instant when every applied record is durable and nothing is in flight
   * (new commands wait until it is done), so `fn` sees the state at exactly one LSN. Used to
   * take checkpoints; the pause lasts one fsync plus `fn`.
   */
  async atQuietPoint<T>(fn: () => Promise<T> | T): Promise<T> {
    while (this.barrier) await this.barrier;
    let open!: () => void;
    this.barrier = new Promise<void>((resolve) => (open = resolve));
    try {
      while (this.inFlight.length > 0 || this.wal.busy) {
        if (this.inFlight.length > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
        else await Promise.all([this.wal.idle(), new Promise<void>((resolve) => setImmediate(resolve))]);
      }
      return await fn();
    } finally {
      this.barrier = null;
      open();
    }
  }

  /** Undoes `entry` and everything applied after it, newest first. */
  private rollback(entry: InFlight, rec: StateChange, err: unknown): void {
    if (entry.rolledBack) return;
    const at = this.inFlight.indexOf(entry);
    const undone = this.inFlight.splice(at);
    for (let i = undone.length - 1; i >= 0; i--) {
      undone[i].undo();
      undone[i].rolledBack = true;
      undone[i].finish(false);
    }
    // Only the oldest failed change gives the LSNs back (which also lets the WAL accept appends
    // again). A newer one can fail first, refused while the WAL is still handling the older
    // failure; resetting then would let a change built on the doomed ones be written after them
    // with an LSN gap, acknowledged, and then undone by the older rollback.
    if (at === 0) this.wal.resetLsn(entry.lsn);
    this.drained();
    this.log.warn({ lsn: entry.lsn, rolledBack: undone.length, err: (err as Error).message }, 'rolled back changes that could not be made durable');
    this.emit(rec, 'rolled-back');
  }

  private emit(rec: StateChange, kind: 'applied' | 'durable' | 'rolled-back'): void {
    for (const fn of this.listeners) {
      try {
        fn(rec, kind);
      } catch (err) {
        this.log.error({ err }, 'change listener failed');
      }
    }
  }

  now(): Date {
    return this.clock();
  }
}
