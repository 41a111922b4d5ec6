// The seam between the engine and where its records go. The engine hands out LSNs, encodes a
// change, applies it in memory and appends its bytes here; the log says when they are durable.
// Three logs implement it, all in this folder: the embedded write-ahead log (wal/, a data folder on
// this machine, the default), a PostgreSQL table shared by a cluster of nodes (postgres/pg-log.ts),
// and a table in memory (memory.ts) that engine tests run on. They store the same msgpack records
// (record.ts) and are replayed the same way: nothing above the engine knows which one it has. What
// each promises (append, fencing, recovery, follow) is one suite, test/core/log/contract.ts, that
// all three run; docs/decisions/0030-one-log-seam.md says why.
import type { Slicer } from '../slices.js';
import type { WalRecord } from './record.js';

/** An append the log refused, and what the engine should do about it (see RecordLog.recover). */
export type Recovery =
  /** One of the records tried is in the log after all (index into `tried`): its caller is answered. */
  | { kind: 'committed'; index: number }
  /** Another writer took the place: run the command again against the newer state. */
  | { kind: 'retry' }
  /** Nothing of it is in the log, and trying again now would not help: 503. */
  | { kind: 'failed'; message: string }
  /** The log could not say whether it got the record (a lost connection): 503, saying so. */
  | { kind: 'unknown'; message: string };

export interface RecordLog {
  /** The LSN the next record takes. */
  readonly nextLsn: number;
  /** True while appends are queued or being written, or a failure is not rolled back yet. */
  readonly busy: boolean;
  /** Records and bytes made durable, and batches (group commits) that did it. */
  readonly stats: { batches: number; records: number; syncs: number; bytes: number };
  /** How long a command overtaken by other writers keeps being run again (0: a log with one writer). */
  readonly retryForMs: number;
  /** Told of each durable batch (records, bytes, ms the durability step took). */
  onBatch: ((records: number, bytes: number, syncMs: number) => void) | null;
  takeLsn(): number;
  /** Gives back the LSN just taken, for a record never handed to `append`. */
  returnLsn(lsn: number): void;
  /** Gives back every LSN from `lsn` on: their appends failed and were rolled back. */
  resetLsn(lsn: number): void;
  encode(rec: WalRecord): Buffer;
  encodeInSlices(rec: WalRecord, slicer: Slicer): Promise<Buffer>;
  /** Resolves once the record (taken at `lsn`) is durable; appends resolve in LSN order. */
  append(bytes: Buffer, lsn: number): Promise<void>;
  /**
   * After a failed append has been rolled back (with everything after it): what became of the
   * records this caller tried so far (one per attempt, oldest first). The embedded WAL always
   * says `failed`; a shared log catches up with the other writers first, and may find one of
   * them there (a commit whose answer was lost) or tell the engine to try again.
   */
  recover(err: unknown, tried: readonly { lsn: number; bytes: Buffer }[]): Promise<Recovery>;
  /**
   * Whether a failed append is part of normal operation (a shared log: another writer took the
   * place first, and the command runs again): logged at debug, not as a warning. Absent: never.
   */
  routine?(err: unknown): boolean;
  /** Resolves when nothing is queued or being written. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The LSN bookkeeping every log shares: LSNs are handed out in order, given back when a record is
 * never appended, and reset after a failed append has been rolled back (which also lets appends
 * through again: until then, records built on top of the failed ones must not be written).
 */
export abstract class LsnCounter<F extends Error> {
  /** Set when an append failed, until the engine has rolled back and given the LSNs back. */
  protected failed: F | null = null;

  constructor(public nextLsn: number) {}

  /** Assigns the next LSN. Callers encode the record with it and then call `append`. */
  takeLsn(): number {
    return this.nextLsn++;
  }

  /**
   * Gives back the LSN just taken, for a record that was never handed to `append` (it could not
   * be built). Unlike resetLsn it leaves a failure being rolled back in place.
   */
  returnLsn(lsn: number): void {
    if (this.nextLsn !== lsn + 1) throw new Error(`LSN ${lsn} is not the last one taken (next is ${this.nextLsn})`);
    this.nextLsn = lsn;
  }

  /** Gives back an LSN whose record will not be written (its append failed, or it was never sent). */
  resetLsn(lsn: number): void {
    this.nextLsn = lsn;
    this.failed = null;
  }
}
