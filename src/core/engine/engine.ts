// The engine: the one place mutations go through.
//   command (pure) → resolved change → apply to memory (keeping its inverse) → append to the log
//   → acknowledge when durable. If the append fails, this change and every change applied after
//   it are rolled back; the log then says what to do (record-log.ts): on the embedded WAL their
//   callers get 503; on a log shared with other nodes, a writer that was overtaken catches up and
//   runs the same commands again against the newer state before it answers.
// Records other nodes wrote come in through `applyFollowed`, at a quiet point.
import { randomUUID } from 'node:crypto';
import { ServiceUnavailableError } from '../errors.js';
import { storeEvent, type StoredEvent } from '../state/events/stored.js';
import type { Logger } from '../logger.js';
import { applyRecord, applyRecordInSlices } from '../state/apply.js';
import type { Undo } from '../state/ops.js';
import type { State } from '../state/state.js';
import type { Actor } from '../state/types.js';
import type { StateChange } from '../state/change.js';
import type { RecordLog } from '../log/record-log.js';
import { resolveEvents, type Command, type CommandEnv, type SlicedCommand } from './command.js';
import { Slicer } from '../slices.js';

export interface EngineDeps {
  state: State;
  /** Where records go: the embedded WAL, or a log shared by a cluster. */
  log: RecordLog;
  logger: Logger;
  clock?: () => Date;
  newId?: () => string;
  /**
   * Keep only about this many of the newest events in memory (and so in checkpoints): once the
   * log holds twice as many, the older ones go. For a relay, whose events serve no API; absent:
   * every event is kept.
   */
  keepEvents?: number;
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
/**
 * A command overtaken by other nodes' writes runs again at least this many times, and then for as
 * long as the log's retry budget (RecordLog.retryForMs) lasts, before its caller gets 503. Every
 * round commits someone's write, so the cluster always progresses; this bounds how long one caller
 * can keep losing.
 */
const MIN_ATTEMPTS = 3;

/** A followed record with this many ops and events or more is applied in slices (an import). */
const FOLLOW_IN_SLICES = 20_000;
const NO_UNDO: Undo = () => {};

export class Engine {
  readonly state: State;
  readonly log: RecordLog;
  private readonly logger: Logger;
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
  private readonly keepEvents: number | null;

  constructor(deps: EngineDeps) {
    this.keepEvents = deps.keepEvents ?? null;
    this.state = deps.state;
    this.log = deps.log;
    this.logger = deps.logger;
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
      this.logger.error({ err }, 'a large-change listener failed');
    }
  }

  onChange(fn: ChangeListener): void {
    this.listeners.push(fn);
  }

  /**
   * Runs a command and resolves once its change is durable. On a shared log, a command whose
   * place was taken by another node's write runs again (up to MAX_ATTEMPTS times) against the
   * state that includes it, so what it answers is what was committed.
   */
  async run<R>(actor: Actor, command: Command<R>, opts: { durable?: boolean } = {}): Promise<R> {
    const tried: { lsn: number; bytes: Buffer }[] = [];
    const results: R[] = [];
    const started = performance.now();
    for (;;) {
      while (this.barrier) await this.barrier;
      const env: CommandEnv = { now: this.clock().toISOString(), newId: this.newId, actor };
      const change = command(this.state, env);
      if (change.ops.length === 0 && change.events.length === 0) return change.result;
      const events = resolveEvents(this.state, env, change.events).map(storeEvent);
      const lsn = this.log.takeLsn();
      const rec: StateChange = { lsn, ops: change.ops, events };
      let bytes: Buffer;
      let undo: Undo;
      try {
        bytes = this.log.encode(rec);
        // Throws only on a bug in a command; applyRecord then leaves the state as it was.
        undo = applyRecord(this.state, rec, true)!;
      } catch (err) {
        // Nothing of this change exists anywhere: its LSN goes to the next one.
        this.log.returnLsn(lsn);
        throw err;
      }
      const entry = this.track(rec, undo);
      const written = this.log.append(bytes, lsn);
      if (opts.durable === false) {
        // Metrics bookkeeping: acknowledged without waiting; a crash may lose the last few seconds.
        written.then(() => this.settle(entry), (err) => this.rollback(entry, rec, err));
        return change.result;
      }
      try {
        await written;
      } catch (err) {
        this.rollback(entry, rec, err);
        tried.push({ lsn, bytes });
        results.push(change.result);
        const next = await this.recover(err, tried, started);
        if (next.kind === 'committed') return results[next.index];
        continue;
      }
      this.settle(entry);
      return change.result;
    }
  }

  /** After a rolled-back append: go on (retry or committed after all), or throw the 503. */
  private async recover(err: unknown, tried: { lsn: number; bytes: Buffer }[], started: number): Promise<{ kind: 'committed'; index: number } | { kind: 'retry' }> {
    const r = await this.log.recover(err, tried);
    if (r.kind === 'committed') return r;
    if (r.kind === 'retry') {
      if (tried.length < MIN_ATTEMPTS || performance.now() - started < this.log.retryForMs) return r;
      throw new ServiceUnavailableError(
        `The change was overtaken by other nodes' writes ${tried.length} times in ${Math.round(performance.now() - started)} ms; nothing was changed. Try again.`,
      );
    }
    throw new ServiceUnavailableError(r.message);
  }

  /** An applied change, in flight until its append settles; listeners hear it was applied. */
  private track(rec: StateChange, undo: Undo): InFlight {
    let finish!: (durable: boolean) => void;
    const done = new Promise<boolean>((resolve) => (finish = resolve));
    const entry: InFlight = { lsn: rec.lsn, rec, undo, rolledBack: false, done, finish };
    this.inFlight.push(entry);
    this.emit(rec, 'applied');
    return entry;
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
    const tried: { lsn: number; bytes: Buffer }[] = [];
    const results: R[] = [];
    const started = performance.now();
    for (;;) {
      const attempt = await this.sliced(actor, command);
      if (!attempt.written) return attempt.result;
      try {
        await attempt.written;
      } catch (err) {
        this.rollback(attempt.entry!, attempt.entry!.rec, err);
        tried.push({ lsn: attempt.entry!.lsn, bytes: attempt.bytes! });
        results.push(attempt.result);
        const next = await this.recover(err, tried, started);
        if (next.kind === 'committed') return results[next.index];
        continue;
      }
      this.settle(attempt.entry!);
      return attempt.result;
    }
  }

  /** One attempt of runInSlices: the change built and applied, its append started (none if it changes nothing). */
  private async sliced<R>(actor: Actor, command: SlicedCommand<R>): Promise<{ result: R; written?: Promise<void>; entry?: InFlight; bytes?: Buffer }> {
    while (this.barrier) await this.barrier;
    let open!: () => void;
    this.barrier = new Promise<void>((resolve) => (open = resolve));
    try {
      while (this.inFlight.length > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
      const slicer = new Slicer();
      const env: CommandEnv = { now: this.clock().toISOString(), newId: this.newId, actor };
      const change = await command(this.state, env, slicer);
      if (change.ops.length === 0 && change.events.length === 0) return { result: change.result };
      const events: StoredEvent[] = [];
      const resolved = resolveEvents(this.state, env, change.events);
      for (let i = 0; i < resolved.length; i++) {
        events.push(storeEvent(resolved[i]));
        if (slicer.due()) await slicer.pause();
      }
      const lsn = this.log.takeLsn();
      const rec: StateChange = { lsn, ops: change.ops, events };
      let bytes: Buffer;
      try {
        bytes = await this.log.encodeInSlices(rec, slicer);
      } catch (err) {
        this.log.returnLsn(lsn);
        throw err;
      }
      // An op that cannot apply (a bug in the command) leaves nothing applied: its LSN goes back.
      const apply = () =>
        applyRecordInSlices(this.state, rec, slicer).catch((err) => {
          this.log.returnLsn(lsn);
          throw err;
        });
      const { entry, written } = await this.applyInSlices(rec, slicer, apply, (e) => this.log.append(bytes, e.lsn));
      return { result: change.result, written, entry, bytes };
    } finally {
      this.barrier = null;
      open();
    }
  }

  /**
   * Applies a large record a slice at a time with readers held off (`applying`), lets the
   * large-change listeners read it, tracks it, starts its append (`start`), and lets the listeners
   * catch up before readers are let back in.
   */
  private async applyInSlices(
    rec: StateChange,
    slicer: Slicer,
    apply: () => Promise<Undo>,
    start: (entry: InFlight) => Promise<void>,
  ): Promise<{ entry: InFlight; written: Promise<void> }> {
    // Between slices of the apply the state holds part of the change, and then the readers'
    // caches are brought up to date (onLargeChange): readers wait for `applying` meanwhile
    // (the HTTP pipeline does; an SDK poll is answered with its last answer).
    let applied!: () => void;
    this.applyingNow = new Promise<void>((resolve) => (applied = resolve));
    try {
      const undo = await apply();
      for (const l of this.largeChangeListeners) await this.guarded(() => l.read?.(rec, slicer));
      const entry = this.track(rec, undo);
      const written = start(entry);
      // Handled by the caller; without this, a failure during the catch-up would count as unhandled.
      written.catch(() => {});
      for (const l of this.largeChangeListeners) await this.guarded(() => l.catchUp?.(slicer));
      return { entry, written };
    } finally {
      this.applyingNow = null;
      applied();
    }
  }

  /**
   * A record another node wrote, the next in the shared log: applied and durable at once (change
   * listeners hear both), as if this node had written it. Only at a quiet point (atQuietPoint):
   * nothing of this node's may be in flight, and the record must take exactly the next LSN.
   * A large one (an import) is applied a slice at a time, readers held off meanwhile.
   */
  async applyFollowed(rec: StateChange): Promise<void> {
    if (this.inFlight.length > 0) throw new Error('applyFollowed: changes of this node are in flight');
    if (rec.lsn !== this.log.nextLsn) throw new Error(`applyFollowed: record ${rec.lsn} is not the next one (${this.log.nextLsn})`);
    this.log.takeLsn();
    if (rec.ops.length + rec.events.length < FOLLOW_IN_SLICES) {
      applyRecord(this.state, rec, false);
      const entry = this.track(rec, NO_UNDO);
      this.settle(entry);
      return;
    }
    const slicer = new Slicer();
    const { entry } = await this.applyInSlices(rec, slicer, () => applyRecordInSlices(this.state, rec, slicer), () => Promise.resolve());
    this.settle(entry);
  }

  /**
   * With keepEvents: past twice that many events, a log of the newest only (the events of changes
   * still in flight included, so that undoing one finds its events). The old log object is left
   * whole: a checkpoint being written from it goes on.
   */
  private trimEvents(): void {
    const events = this.state.events;
    if (this.keepEvents === null || events.size <= 2 * this.keepEvents) return;
    let from = events.lastId - this.keepEvents + 1;
    for (const e of this.inFlight) if (e.rec.events.length > 0) from = Math.min(from, e.rec.events[0][0]);
    this.state.events = events.keepNewest(events.lastId - from + 1);
  }

  private settle(entry: InFlight): void {
    const at = this.inFlight.indexOf(entry);
    if (at >= 0) this.inFlight.splice(at, 1);
    entry.finish(true);
    this.emit(entry.rec, 'durable');
    this.trimEvents();
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
      while (this.inFlight.length > 0 || this.log.busy) {
        if (this.inFlight.length > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
        else await Promise.all([this.log.idle(), new Promise<void>((resolve) => setImmediate(resolve))]);
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
    if (at === 0) this.log.resetLsn(entry.lsn);
    this.drained();
    // Overtaken by another node on a cluster is routine (the command runs again): a warning for
    // each would fill the log, and alerts on it, under normal write contention (a metric counts them).
    const level = this.log.routine?.(err) ? 'debug' : 'warn';
    this.logger[level]({ lsn: entry.lsn, rolledBack: undone.length, err: (err as Error).message }, 'rolled back changes that could not be made durable');
    this.emit(rec, 'rolled-back');
  }

  private emit(rec: StateChange, kind: 'applied' | 'durable' | 'rolled-back'): void {
    for (const fn of this.listeners) {
      try {
        fn(rec, kind);
      } catch (err) {
        this.logger.error({ err }, 'change listener failed');
      }
    }
  }

  now(): Date {
    return this.clock();
  }
}
