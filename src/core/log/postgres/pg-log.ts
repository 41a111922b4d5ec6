// The log of a cluster: the engine's records as rows of fanion_log in PostgreSQL, shared by every
// node. An append is fenced: a batch of records takes seq = last applied + 1, + 2 … in one
// statement, which inserts nothing if another node took any of those places first (see insert:
// no unique violation in the usual race); nothing of the batch is then committed. So a node that is
// behind, or cut off while others write, can never commit (and so never acknowledge) a change
// computed on a state that another write overtook. The engine rolls such a batch back, this log
// catches up with the others (the follower applies what they wrote), and the commands run again.
//
// Appends are batched as the WAL's are (group commit, group-commit.ts): while one statement is on
// its way, the appends that arrive wait and go together in the next. The same statement NOTIFYs the
// other nodes (delivered at commit), which only wakes them: they read seq > what they applied.
import type pg from 'pg';
import type { Logger } from '../../logger.js';
import { GroupCommitLog, type Pending } from '../group-commit.js';
import type { RecordLog, Recovery } from '../record-log.js';
import { describe, isConflict, isServerError, READ_PAGE, withClient } from './connect.js';

/** How fast a large append is expected to reach the database at the least (bytes per ms: 10 MB/s). */
const LARGE_BYTES_PER_MS = 10_000;
/** Records per INSERT: two parameters each, well under PostgreSQL's 65,535. */
const MAX_BATCH = 500;

/** Why an append failed, as far as this node can tell. */
export type AppendFailure = 'overtaken' | 'refused' | 'unreachable' | 'unknown';

/** A record of the log as a statement returns it. */
export interface LogRow {
  seq: string;
  rec: Buffer;
}

export class AppendError extends Error {
  constructor(
    readonly kind: AppendFailure,
    override readonly cause: unknown,
    /** For `overtaken`: the records that took the place, when the refused statement brought them. */
    readonly rows: LogRow[] = [],
  ) {
    super(`${kind}: ${describe(cause)}`);
  }
}

/** The 503's message for a change that is certainly not in the log. */
function notTaken(cause: unknown): string {
  return isServerError(cause)
    ? `The database refused the change (${describe(cause)}); nothing was changed. Try again later.`
    : `The database cannot be reached (${describe(cause)}); nothing was changed. Try again later.`;
}

export interface PgLogOptions {
  pool: pg.Pool;
  nodeId: string;
  log: Logger;
  /** DATABASE_TIMEOUT_MS: each statement's deadline, and how long recovery waits for the database. */
  timeoutMs: number;
  /** The NOTIFY channel of this cluster (ClusterKeys). */
  channel: string;
}

export class PgLog extends GroupCommitLog<AppendError> implements RecordLog {
  /** DATABASE_TIMEOUT_MS: a command overtaken by other nodes keeps being run again this long. */
  readonly retryForMs: number;
  /** Appends refused because another node wrote first, and commands run again for it. */
  readonly counts = { overtaken: 0, unknown: 0, unreachable: 0, committedAfterAll: 0 };
  /**
   * Set by the cluster: reads and applies what other nodes appended (at a quiet point); resolves
   * true once it reached the end of the log, false if the database could not be read in time.
   */
  catchUp: ((rows?: LogRow[]) => Promise<boolean>) | null = null;
  /**
   * Set by the follower when the log holds a record this node cannot read (follower.ts): what it
   * says. No append is tried after it (its place is taken by a record this node cannot apply), and
   * every change is refused with this message rather than a guess about the connection.
   */
  blocked: string | null = null;
  /** Records whose append's outcome could not be known (the connection was lost mid-statement). */
  private readonly unsure = new WeakSet<Buffer>();
  /** Records being looked for while catching up: lsn → bytes tried there. */
  private readonly watched = new Map<number, Buffer[]>();
  /** Of those, the ones found in the log. */
  private readonly found = new Set<Buffer>();

  constructor(private readonly opts: PgLogOptions, last: number) {
    super(last, MAX_BATCH);
    this.retryForMs = opts.timeoutMs;
  }

  /** A record another node wrote, now applied here (the follower calls this after engine.applyFollowed). */
  followed(lsn: number, bytes: Buffer): void {
    this.durableLsn = lsn;
    for (const mine of this.watched.get(lsn) ?? []) if (mine.equals(bytes)) this.found.add(mine);
  }

  protected refusal(): AppendError | null {
    if (this.closed) return new AppendError('refused', new Error('the database log is closed'));
    if (this.blocked) return new AppendError('refused', new Error(this.blocked));
    return null;
  }

  protected async write(batch: readonly Pending[]): Promise<void> {
    if (batch[0].lsn !== this.durableLsn + 1) throw new AppendError('overtaken', new Error(`record ${batch[0].lsn} does not follow ${this.durableLsn}`));
    await this.insert(batch);
  }

  protected failure(err: unknown, batch: readonly Pending[], rejected: number): AppendError {
    const failure = err instanceof AppendError ? err : this.classify(err);
    if (failure.kind === 'unknown') for (const p of batch) this.unsure.add(p.bytes);
    this.counts[failure.kind === 'refused' ? 'unreachable' : failure.kind]++;
    if (failure.kind !== 'overtaken') this.opts.log.warn({ err: describe(failure.cause), records: rejected, kind: failure.kind }, 'could not append to the database log');
    return failure;
  }

  /**
   * One statement: the rows if their places are free, with the NOTIFY that wakes the other nodes
   * when they commit; if the log already goes past what this node applied, nothing is inserted and
   * the statement returns those records instead, so an overtaken node catches up without another
   * round trip (fairer against a node whose next batch is already on its way).
   *
   * Two nodes inserting at once both see free places. They race for the batch's first place only:
   * it is inserted with ON CONFLICT DO NOTHING, and the rest of the batch only if it went in. The
   * loser inserts nothing and gets no marker row (overtaken), without the unique violation that
   * PostgreSQL would log as an ERROR at every routine overtaking. The rest cannot collide: a
   * writer whose first place is free applied every committed record before it, so any other
   * writer's batch either starts at that same place (and lost it) or at a committed record (and
   * inserts nothing). Should the rest collide anyway, the primary key refuses the whole statement,
   * first place included: a batch is in the log whole or not at all.
   */
  private async insert(batch: readonly Pending[]): Promise<void> {
    const values: unknown[] = [this.durableLsn, batch[0].lsn, batch[0].bytes];
    const rows: string[] = [];
    for (const p of batch.slice(1)) {
      values.push(p.lsn, p.bytes);
      rows.push(`($${values.length - 1}::bigint, $${values.length}::bytea)`);
    }
    values.push(`${this.opts.nodeId} ${batch[batch.length - 1].lsn}`);
    const rest = rows.length === 0 ? '' :
      `rest AS (INSERT INTO fanion_log (seq, rec) SELECT v.seq, v.rec FROM (VALUES ${rows.join(', ')}) AS v(seq, rec) WHERE EXISTS (SELECT 1 FROM first) RETURNING seq), `;
    const text =
      `WITH tail AS (SELECT seq, rec FROM fanion_log WHERE seq > $1 ORDER BY seq LIMIT ${READ_PAGE}), ` +
      'first AS (INSERT INTO fanion_log (seq, rec) SELECT $2::bigint, $3::bytea WHERE NOT EXISTS (SELECT 1 FROM tail) ' +
      'ON CONFLICT (seq) DO NOTHING RETURNING seq), ' +
      rest +
      `note AS (SELECT pg_notify('${this.opts.channel}', $${values.length}::text) FROM first) ` +
      'SELECT seq, rec FROM tail UNION ALL SELECT NULL, NULL FROM note';
    let sent = false;
    let res;
    // A large record (an import of tens of MB) takes longer to send and store: its deadlines grow
    // with it, at 10 MB/s on top of DATABASE_TIMEOUT_MS (the server's own statement_timeout too).
    const bytes = batch.reduce((n, p) => n + p.bytes.length, 0);
    const deadline = this.opts.timeoutMs + Math.ceil(bytes / LARGE_BYTES_PER_MS);
    try {
      res = await withClient(this.opts.pool, deadline, async (query) => {
        sent = true;
        if (deadline <= this.opts.timeoutMs) return query(text, values);
        await query(`SET statement_timeout = ${deadline * 2}`);
        try {
          return await query(text, values);
        } finally {
          await query('RESET statement_timeout').catch(() => {});
        }
      });
    } catch (err) {
      // Not even connected: nothing was sent, so nothing can have been committed.
      if (!sent) throw new AppendError('refused', err);
      throw err;
    }
    const rowsBack = res.rows as LogRow[];
    const taken = rowsBack.filter((r) => r.seq !== null);
    if (taken.length > 0) throw new AppendError('overtaken', new Error(`the log goes on past record ${this.durableLsn}`), taken);
    // No marker: another node took the first place between this statement's snapshot and its insert.
    if (rowsBack.length === 0) throw new AppendError('overtaken', new Error(`another node took record ${batch[0].lsn} first`));
  }

  routine(err: unknown): boolean {
    return err instanceof AppendError && err.kind === 'overtaken';
  }

  private classify(err: unknown): AppendError {
    if (isConflict(err)) return new AppendError('overtaken', err);
    // The server said no (a timeout it enforced, a full disk): the statement was rolled back.
    if (isServerError(err)) return new AppendError('refused', err);
    // The connection broke or timed out after the statement left: it may have committed.
    return new AppendError('unknown', err);
  }

  async recover(err: unknown, tried: readonly { lsn: number; bytes: Buffer }[]): Promise<Recovery> {
    const failure = err instanceof AppendError ? err : this.classify(err);
    const unsure = tried.some((t) => this.unsure.has(t.bytes));
    if (this.blocked && !unsure) return { kind: 'failed', message: `${this.blocked} Nothing was changed.` };
    if (failure.kind === 'refused' && !unsure) return { kind: 'failed', message: notTaken(failure.cause) };
    for (const t of tried) {
      const list = this.watched.get(t.lsn) ?? [];
      if (!list.includes(t.bytes)) list.push(t.bytes);
      this.watched.set(t.lsn, list);
    }
    try {
      const caughtUp = await this.catchUpWithin(failure.rows);
      const index = tried.findIndex((t) => this.found.has(t.bytes));
      if (index >= 0) {
        this.counts.committedAfterAll++;
        return { kind: 'committed', index };
      }
      // Catching up met a record this node cannot read: its place is not this change's.
      if (this.blocked) return { kind: 'failed', message: `${this.blocked} Nothing was changed.` };
      // Caught up and not there: it was not committed (or may still be, late: the next attempt's
      // append then fails, and this record is found then).
      if (caughtUp) return failure.kind === 'refused' && !unsure ? { kind: 'failed', message: notTaken(failure.cause) } : { kind: 'retry' };
      if (!unsure) return { kind: 'failed', message: notTaken(failure.cause) };
      return {
        kind: 'unknown',
        message: 'The connection to the database was lost while the change was being committed, and the database could not be reached to tell whether it was: ' +
          'it may or may not have been applied. Check before trying again.',
      };
    } finally {
      for (const t of tried) {
        const rest = (this.watched.get(t.lsn) ?? []).filter((b) => b !== t.bytes);
        if (rest.length > 0) this.watched.set(t.lsn, rest);
        else this.watched.delete(t.lsn);
        this.found.delete(t.bytes);
      }
    }
  }

  /** Catches up, waiting at most DATABASE_TIMEOUT_MS for the database; false if it could not. */
  private async catchUpWithin(rows: LogRow[]): Promise<boolean> {
    if (!this.catchUp) return false;
    const deadline = Date.now() + this.opts.timeoutMs;
    for (let first = true; ; first = false) {
      if (await this.catchUp(first && rows.length > 0 ? rows : undefined)) return true;
      if (Date.now() >= deadline || this.closed) return false;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
