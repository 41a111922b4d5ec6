// Decides when to checkpoint and does it, so start-up replays a bounded tail of the WAL:
//   1. at a quiet point (nothing in flight, new commands wait): roll the WAL to a new segment
//      starting at LSN L + 1 and snapshot the state at L — the pause is one segment creation;
//   2. write the checkpoint for L (temp file, fsync, rename, directory fsync), off the pause;
//   3. delete what only older checkpoints need: checkpoints before the previous one, and the
//      segments the previous one covers. The previous checkpoint and its WAL stay, so a
//      damaged newest checkpoint can fall back to them.
// A crash between any two steps leaves a folder that starts (tests/durability/crash-steps).
import type { Engine } from '../engine/engine.js';
import type { Logger } from '../logger.js';
import { CheckpointAbortedError, checkpointName, listCheckpoints, takeSnapshot, writeCheckpoint, type CheckpointFile } from '../log/wal/checkpoint.js';
import { crashPoint } from '../log/wal/crash-points.js';
import type { FileLayer } from '../log/wal/file-layer.js';
import type { Wal } from '../log/wal/wal.js';
import { listSegments } from '../log/wal/scan.js';
import fs from 'node:fs';
import path from 'node:path';
import { SingleFlight } from '../single-flight.js';

export interface CheckpointerOptions {
  engine: Engine;
  /** The engine's log: the checkpointer rolls its segments. */
  wal: Wal;
  dir: string;
  files: FileLayer;
  log: Logger;
  /** Checkpoint when the live segment holds this many records (0: never by count). */
  everyRecords: number;
  /** … or this many bytes (0: never by size). */
  everyBytes: number;
  /** After a failed checkpoint, wait this long before trying again. */
  retryMs?: number;
}

/** What a checkpoint took: the figures metrics and logs show, whichever log it was for. */
export interface CheckpointSummary {
  lsn: number;
  /** How long new commands waited. */
  pauseMs: number;
  totalMs: number;
  /** Size of the checkpoint. */
  bytes: number;
}

export interface CheckpointReport extends CheckpointFile, CheckpointSummary {
  deleted: string[];
}

/**
 * What the rest of Fanion sees of checkpoints: the data folder's (this file) or the cluster's,
 * kept in PostgreSQL (postgres/pg-checkpoints.ts).
 */
export interface Checkpoints {
  /** Written by this process. */
  written: number;
  /** Failed (tests, logs and metrics). */
  failed: number;
  onWritten: ((report: CheckpointSummary) => void) | null;
  /** The engine's afterDurable hook: cheap when nothing is due. */
  maybeCheckpoint(): void;
  /** Takes one now (null: another node is taking one). */
  checkpoint(): Promise<CheckpointSummary | null>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export class Checkpointer implements Checkpoints {
  private readonly flight = new SingleFlight(() => this.run());
  private retryAt = 0;
  private closed = false;
  /** Checkpoints written by this process (tests and logs). */
  written = 0;
  /** Checkpoints that failed (tests and logs). */
  failed = 0;
  /** After a failed checkpoint, wait this long before trying again. */
  retryMs: number;
  /** Told of every checkpoint written (metrics). */
  onWritten: ((report: CheckpointSummary) => void) | null = null;

  constructor(private readonly opts: CheckpointerOptions) {
    this.retryMs = opts.retryMs ?? 5_000;
  }

  private due(): boolean {
    const { wal } = this.opts;
    return (this.opts.everyRecords > 0 && wal.recordsInSegment >= this.opts.everyRecords) ||
      (this.opts.everyBytes > 0 && wal.size >= this.opts.everyBytes);
  }

  /** The engine's afterDurable hook: cheap when nothing is due. */
  maybeCheckpoint(): void {
    if (this.flight.current || this.closed || !this.due() || Date.now() < this.retryAt) return;
    this.checkpoint().catch(() => {
      /* logged in run(); the next due record retries after retryMs */
    });
  }

  /** Takes a checkpoint now (or joins the one being taken). */
  checkpoint(): Promise<CheckpointReport> {
    if (this.closed) return Promise.reject(new Error('the checkpointer is closed'));
    return this.flight.run();
  }

  private async run(): Promise<CheckpointReport> {
    const { engine, wal, dir, files, log } = this.opts;
    const t0 = performance.now();
    let pauseMs = 0;
    try {
      const snap = await engine.atQuietPoint(async () => {
        const p0 = performance.now();
        const lsn = wal.nextLsn - 1;
        await wal.roll();
        crashPoint('checkpoint-after-roll');
        const s = takeSnapshot(engine.state, lsn, engine.now());
        pauseMs = performance.now() - p0;
        return s;
      });
      let written: CheckpointFile;
      const existing = path.join(dir, checkpointName(snap.lsn));
      if (fs.existsSync(existing)) {
        written = { file: existing, lsn: snap.lsn }; // nothing changed since it was written
      } else {
        written = await writeCheckpoint(files, dir, snap, () => this.closed);
      }
      crashPoint('checkpoint-before-delete');
      const deleted = await this.prune(written);
      this.written++;
      const bytes = fs.statSync(written.file, { throwIfNoEntry: false })?.size ?? 0;
      const report = { ...written, pauseMs, totalMs: performance.now() - t0, bytes, deleted };
      this.onWritten?.(report);
      log.info(
        { lsn: written.lsn, events: snap.lastEventId - snap.firstEventId + 1, pauseMs: Math.round(pauseMs), ms: Math.round(report.totalMs), bytes, deleted: deleted.length },
        'checkpoint written',
      );
      return report;
    } catch (err) {
      if (err instanceof CheckpointAbortedError) {
        log.info('checkpoint abandoned for shutdown; the write-ahead log holds everything');
        throw err;
      }
      this.failed++;
      this.retryAt = Date.now() + this.retryMs;
      const e = err as NodeJS.ErrnoException;
      log.error({ code: e.code, err: e.message }, 'checkpoint failed; the write-ahead log keeps everything, will retry');
      throw err;
    }
  }

  /** Deletes what only checkpoints older than the previous one need. */
  private async prune(newest: CheckpointFile): Promise<string[]> {
    const { dir, files, log } = this.opts;
    const previous = listCheckpoints(dir).filter((c) => c.lsn < newest.lsn).pop();
    // Without a previous checkpoint the fallback is a full replay, which needs every segment.
    if (!previous) return [];
    const doomed: string[] = listCheckpoints(dir).filter((c) => c.lsn < previous.lsn).map((c) => c.file);
    // Checkpoints go first: a segment without a checkpoint needing it is harmless, the reverse is not.
    // Empty files other than the live segment are leftovers of failed rolls: they hold nothing, and
    // must not count as "the next segment" when deciding what a checkpoint covers.
    const live = this.opts.wal.segment.file;
    const segments = listSegments(dir).filter((s) => {
      const empty = s.file !== live && fs.statSync(s.file, { throwIfNoEntry: false })?.size === 0;
      if (empty) doomed.push(s.file);
      return !empty;
    });
    for (let i = 0; i + 1 < segments.length; i++) {
      if (segments[i + 1].firstLsn <= previous.lsn + 1) doomed.push(segments[i].file);
    }
    const deleted: string[] = [];
    try {
      for (const file of doomed) {
        await files.unlink(file);
        deleted.push(file);
        crashPoint('checkpoint-mid-delete');
      }
      if (deleted.length > 0) await files.syncDir(dir);
    } catch (err) {
      log.warn({ err: (err as Error).message, file: doomed[deleted.length] }, 'could not delete a file the checkpoints no longer need; will retry at the next checkpoint');
    }
    return deleted;
  }

  /** Resolves when no checkpoint is being taken. */
  async idle(): Promise<void> {
    await this.flight.current?.catch(() => {});
  }

  /** Refuses new checkpoints and abandons one being written (its temporary file is removed). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flight.current?.catch(() => {});
  }
}
