// Checkpoints of a cluster, kept in PostgreSQL: the whole state at one seq, in wal/checkpoint.ts's
// format, in parts of a few MB (fanion_checkpoint_part), made visible by its row in
// fanion_checkpoint when complete, in the same transaction. A node starts from the newest one
// that reads back whole, plus the log after it.
// Any node may find one due (CHECKPOINT_RECORDS records since the newest); one at a time writes
// it, holding an advisory transaction lock (the others skip). In the same transaction it prunes
// what only older checkpoints need: checkpoints before the previous one, and log records up to
// the previous one. The previous checkpoint and the log after it stay, as in a data folder: a
// damaged newest checkpoint falls back to them, and a node that was away for less than one
// checkpoint interval still finds every record it needs.
import type pg from 'pg';
import type { Engine } from '../../engine/engine.js';
import type { Logger } from '../../logger.js';
import type { State } from '../../state/state.js';
import { CheckpointAbortedError, CheckpointCorruptError, encodeCheckpoint, parseCheckpoint, takeSnapshot } from '../../log/wal/checkpoint.js';
import type { CheckpointSummary, Checkpoints } from '../checkpointer.js';
import { describe, withClient } from '../../log/postgres/connect.js';
import type { PgLog } from '../../log/postgres/pg-log.js';
import { SingleFlight } from '../../single-flight.js';

type Query = (text: string, values?: unknown[]) => Promise<pg.QueryResult>;

export interface LoadedFromDatabase {
  state: State;
  lsn: number;
  events: number;
  bytes: number;
  ms: number;
}

/** The newest checkpoint that reads back whole, or null when there is none (damaged ones are logged and passed over). */
export async function loadNewestCheckpoint(query: Query, log: Logger): Promise<LoadedFromDatabase | null> {
  const list = await query('SELECT seq, parts FROM fanion_checkpoint ORDER BY seq DESC');
  for (const row of list.rows as { seq: string; parts: number }[]) {
    const t0 = performance.now();
    const seq = Number(row.seq);
    const parts = await query('SELECT data FROM fanion_checkpoint_part WHERE seq = $1 ORDER BY part', [seq]);
    const name = `checkpoint ${seq} in the database`;
    try {
      if (parts.rows.length !== row.parts) throw new CheckpointCorruptError(name, 0, `has ${parts.rows.length} of its ${row.parts} parts`);
      const buf = Buffer.concat((parts.rows as { data: Buffer }[]).map((r) => r.data));
      const loaded = parseCheckpoint(buf, name);
      if (loaded.lsn !== seq) throw new CheckpointCorruptError(name, 0, `covers record ${loaded.lsn}`);
      return { state: loaded.state, lsn: seq, events: loaded.events, bytes: loaded.bytes, ms: performance.now() - t0 };
    } catch (err) {
      if (!(err instanceof CheckpointCorruptError)) throw err;
      log.error({ err: err.message }, 'a checkpoint in the database is damaged; starting from the previous one and the log after it');
    }
  }
  return null;
}

export interface PgCheckpointerOptions {
  engine: Engine;
  log: PgLog;
  pool: pg.Pool;
  nodeId: string;
  logger: Logger;
  /** Checkpoint once this many records follow the newest checkpoint (0: never by count). */
  everyRecords: number;
  /** The newest checkpoint's seq when this node started (0: none). */
  newest: number;
  /** Deadline of each statement of a checkpoint (parts of a few MB). */
  timeoutMs: number;
  retryMs?: number;
  /** The advisory lock one checkpoint writer at a time holds (this cluster's: ClusterKeys). */
  lockKey: string;
}

export class PgCheckpointer implements Checkpoints {
  written = 0;
  failed = 0;
  onWritten: ((report: CheckpointSummary) => void) | null = null;
  /** The newest checkpoint this node knows of (its own, or one it found another node had written). */
  newest: number;
  private readonly flight = new SingleFlight(() => this.run());
  private retryAt = 0;
  private closed = false;

  constructor(private readonly opts: PgCheckpointerOptions) {
    this.newest = opts.newest;
  }

  private due(): boolean {
    return this.opts.everyRecords > 0 && this.opts.log.durableLsn - this.newest >= this.opts.everyRecords;
  }

  maybeCheckpoint(): void {
    if (this.flight.current || this.closed || !this.due() || Date.now() < this.retryAt) return;
    this.checkpoint().catch(() => {
      /* logged in run() */
    });
  }

  checkpoint(): Promise<CheckpointSummary | null> {
    if (this.closed) return Promise.reject(new Error('the checkpointer is closed'));
    return this.flight.run();
  }

  private async run(): Promise<CheckpointSummary | null> {
    const { engine, log, pool, logger, nodeId, timeoutMs } = this.opts;
    const t0 = performance.now();
    try {
      return await withClient(pool, timeoutMs, async (query) => {
        await query('BEGIN');
        try {
          const got = await query('SELECT pg_try_advisory_xact_lock($1) AS got', [this.opts.lockKey]);
          if (!got.rows[0].got) {
            // Another node is writing one: look again after it has had time to finish.
            this.retryAt = Date.now() + (this.opts.retryMs ?? 5_000);
            await query('ROLLBACK');
            return null;
          }
          const max = await query('SELECT coalesce(max(seq), 0) AS seq FROM fanion_checkpoint');
          this.newest = Math.max(this.newest, Number(max.rows[0].seq));
          let pauseMs = 0;
          const snap = await engine.atQuietPoint(() => {
            const p0 = performance.now();
            const s = takeSnapshot(engine.state, log.durableLsn, engine.now());
            pauseMs = performance.now() - p0;
            return s;
          });
          if (snap.lsn <= this.newest) {
            await query('ROLLBACK');
            return null;
          }
          let parts = 0;
          let bytes = 0;
          await encodeCheckpoint(snap, () => this.closed, async (buf) => {
            await query('INSERT INTO fanion_checkpoint_part (seq, part, data) VALUES ($1, $2, $3)', [snap.lsn, parts++, buf]);
            bytes += buf.length;
          });
          await query('INSERT INTO fanion_checkpoint (seq, parts, bytes, written_by) VALUES ($1, $2, $3, $4)', [snap.lsn, parts, bytes, nodeId]);
          const pruned = await this.prune(query, snap.lsn);
          await query('COMMIT');
          this.newest = snap.lsn;
          this.written++;
          const report = { lsn: snap.lsn, pauseMs, totalMs: performance.now() - t0, bytes };
          this.onWritten?.(report);
          logger.info({ lsn: snap.lsn, parts, bytes, pauseMs: Math.round(pauseMs), ms: Math.round(report.totalMs), prunedRecords: pruned }, 'checkpoint written to the database');
          return report;
        } catch (err) {
          await query('ROLLBACK').catch(() => {});
          throw err;
        }
      });
    } catch (err) {
      if (err instanceof CheckpointAbortedError) throw err;
      this.failed++;
      this.retryAt = Date.now() + (this.opts.retryMs ?? 5_000);
      logger.error({ err: describe(err) }, 'checkpoint failed; the database log keeps everything, will retry');
      throw err;
    }
  }

  /** Removes checkpoints before the previous one, and the log records the previous one covers. */
  private async prune(query: Query, newest: number): Promise<number> {
    const prev = await query('SELECT max(seq) AS seq FROM fanion_checkpoint WHERE seq < $1', [newest]);
    if (prev.rows[0].seq === null) return 0;
    const previous = Number(prev.rows[0].seq);
    await query('DELETE FROM fanion_checkpoint_part WHERE seq < $1', [previous]);
    await query('DELETE FROM fanion_checkpoint WHERE seq < $1', [previous]);
    const gone = await query('DELETE FROM fanion_log WHERE seq <= $1', [previous]);
    return gone.rowCount ?? 0;
  }

  async idle(): Promise<void> {
    await this.flight.current?.catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flight.current?.catch(() => {});
  }
}
