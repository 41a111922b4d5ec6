// The third log: records kept in memory, in a table that outlives the logs writing to it, as a data
// folder outlives a process and the database outlives a node. Engine tests run on it without a disk
// or a database, so it keeps the promises the other two make and nothing less (the contract suite,
// test/core/log/contract.ts, runs all three through the same cases):
//   - an append resolves once the record is in the table (its "durable"), in LSN order; appends
//     that arrive while a write is on its way go together in the next one (group commit);
//   - a batch goes into the table whole or not at all, and only if it follows what its writer
//     applied: several logs may share one table, and a writer that is behind is refused, as the
//     PostgreSQL log fences its nodes (the catch-up and the retry then work the same way);
//   - a write can be held (to put appends in flight) or made to fail (a full disk, a database
//     that refuses the statement), so a test can reach every path the engine has.
// Nothing here survives the process: it is for tests and for trying the engine, never a setting.
import { GroupCommitLog, type Pending } from './group-commit.js';
import type { RecordLog, Recovery } from './record-log.js';

/** A record of the table: its LSN and its bytes (RecordLog.encode's). */
export interface MemoryRow {
  lsn: number;
  bytes: Buffer;
}

/** Why an append to a MemoryTable failed: another writer took the place, or the table refused the write. */
export class MemoryAppendError extends Error {
  constructor(
    readonly kind: 'overtaken' | 'refused',
    message: string,
  ) {
    super(message);
  }
}

/** What every writer of one in-memory log shares: its records, and who is told of new ones. */
export class MemoryTable {
  private readonly rows: Buffer[] = [];
  private readonly watchers = new Set<(last: number) => void>();
  private failure: Error | null = null;
  private gate: Promise<void> | null = null;
  private openGate: (() => void) | null = null;
  /** Writes started (each commits a batch or fails): lets tests see group commit and held writes. */
  writes = 0;

  /** The LSN of the last record (0: none). */
  get last(): number {
    return this.rows.length;
  }

  /** The records after `after`, oldest first, at most `limit` of them. */
  read(after: number, limit = Infinity): MemoryRow[] {
    const out: MemoryRow[] = [];
    for (let lsn = Math.max(after, 0) + 1; lsn <= this.rows.length && out.length < limit; lsn++) out.push({ lsn, bytes: this.rows[lsn - 1] });
    return out;
  }

  /** Told of the last LSN after each commit (what NOTIFY is to the PostgreSQL log): only a wake-up, readers read. */
  watch(fn: (last: number) => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  /** Every write from now on fails with `err` (until `heal`), having stored nothing. */
  fail(err: Error): void {
    this.failure = err;
  }

  heal(): void {
    this.failure = null;
  }

  /** Writes wait (appends stay in flight) until the function returned is called. */
  hold(): () => void {
    if (!this.gate) this.gate = new Promise((resolve) => (this.openGate = resolve));
    return () => {
      this.openGate?.();
      this.gate = null;
      this.openGate = null;
    };
  }

  /**
   * Stores a batch whose writer applied every record up to `after`: all of it, or nothing when
   * another writer got there first (overtaken) or a failure is set (refused). It takes a turn of
   * the event loop, as a write does, so the appends made meanwhile form the next batch.
   */
  async write(after: number, batch: readonly MemoryRow[]): Promise<void> {
    this.writes++;
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.gate) await this.gate;
    if (this.failure) throw new MemoryAppendError('refused', `the in-memory log refused the write (${this.failure.message})`);
    if (this.rows.length !== after) throw new MemoryAppendError('overtaken', `the log goes on past record ${after} (to ${this.rows.length})`);
    batch.forEach((row, i) => {
      if (row.lsn !== after + 1 + i) throw new MemoryAppendError('refused', `record ${row.lsn} does not follow ${after + i}: the log has no gaps`);
    });
    // A copy: what is stored cannot change afterwards, whatever happens to the caller's buffer.
    for (const row of batch) this.rows.push(Buffer.from(row.bytes));
    const last = this.rows.length;
    for (const fn of this.watchers) fn(last);
  }
}

export interface MemoryLogOptions {
  /** How long a command overtaken by other writers of the table keeps being run again (default 0: one writer). */
  retryForMs?: number;
}

/**
 * A writer of a MemoryTable, opened after its last record (as the other logs are opened after
 * replay). With several writers on one table, records the others wrote come in as they do on a
 * cluster: something reads the table, applies them (Engine.applyFollowed) and calls `followed`;
 * set `catchUp` to that, and an overtaken command runs again against the newer state.
 */
export class MemoryLog extends GroupCommitLog<MemoryAppendError> implements RecordLog {
  readonly retryForMs: number;
  /** Reads and applies what other writers appended; resolves true once at the end of the table. */
  catchUp: (() => Promise<boolean>) | null = null;

  constructor(
    readonly table: MemoryTable,
    opts: MemoryLogOptions = {},
  ) {
    super(table.last);
    this.retryForMs = opts.retryForMs ?? 0;
  }

  /** A record another writer stored, now applied here (after Engine.applyFollowed). */
  followed(lsn: number): void {
    if (lsn !== this.durableLsn + 1) throw new Error(`followed record ${lsn} does not follow ${this.durableLsn}`);
    this.durableLsn = lsn;
  }

  protected refusal(): MemoryAppendError | null {
    return this.closed ? new MemoryAppendError('refused', 'the in-memory log is closed') : null;
  }

  /** The table fences the batch: it must start right after the last record this writer applied. */
  protected write(batch: readonly Pending[]): Promise<void> {
    return this.table.write(this.durableLsn, batch);
  }

  protected failure(err: unknown): MemoryAppendError {
    return err instanceof MemoryAppendError ? err : new MemoryAppendError('refused', (err as Error).message);
  }

  routine(err: unknown): boolean {
    return err instanceof MemoryAppendError && err.kind === 'overtaken';
  }

  /**
   * A refused write changed nothing: 503. An overtaken one catches up (when `catchUp` is set) and
   * runs again, unless a record tried is found at its place among those caught up with: another
   * writer stored the very same bytes there (the same change at the same instant by the same
   * person), which no one can tell from this writer's own, and the PostgreSQL log answers the same.
   */
  async recover(err: unknown, tried: readonly { lsn: number; bytes: Buffer }[]): Promise<Recovery> {
    const failure = err instanceof MemoryAppendError ? err : new MemoryAppendError('refused', String(err));
    if (failure.kind === 'refused') return { kind: 'failed', message: `${failure.message}; nothing was changed. Try again later.` };
    const caughtUp = this.catchUp ? await this.catchUp() : false;
    const index = tried.findIndex((t) => t.lsn <= this.durableLsn && this.table.read(t.lsn - 1, 1)[0]?.bytes.equals(t.bytes));
    if (index >= 0) return { kind: 'committed', index };
    if (caughtUp) return { kind: 'retry' };
    return { kind: 'failed', message: 'Another writer of the log took the place of the change, and this one cannot catch up with it; nothing was changed. Try again later.' };
  }
}
