// The write-ahead log: segment files of framed, checksummed msgpack records in DATA_DIR.
// `append` resolves only once the record is written and (WAL_SYNC=always) fdatasync'ed.
// Appends that arrive while a flush is in progress are batched into the next single
// write + fdatasync (group commit), so concurrency raises throughput instead of queueing fsyncs.
// Reading segments back (scan, damage) is scan.ts.
import path from 'node:path';
import type { Logger } from '../../logger.js';
import { crashDue, crashNow } from './crash-points.js';
import { frame, frameInSlices } from './frame.js';
import { realFiles, wrote, type FileLayer } from './file-layer.js';
import { encodeRecord, encodeRecordInSlices, type WalRecord } from '../record.js';
import { LsnCounter, type RecordLog, type Recovery } from '../record-log.js';
import type { Slicer } from '../../slices.js';
import { segmentName, type ScanResult, type Segment } from './scan.js';

interface Pending {
  bytes: Buffer;
  resolve: () => void;
  reject: (err: Error) => void;
}

export interface WalOptions {
  dir: string;
  sync: boolean;
  files?: FileLayer;
  log: Logger;
}

/**
 * The write-ahead log: appends framed records to the live segment with group commit (one write
 * and one fdatasync for every append waiting), hands out LSNs, and rolls to a new segment at
 * each checkpoint. `append` resolves once the record is durable.
 */
/** Batches from this size on are written off the event loop (FileLayer.writeLarge). */
const LARGE_WRITE = 1024 * 1024;

export class Wal extends LsnCounter<NodeJS.ErrnoException> implements RecordLog {
  private queue: Pending[] = [];
  private flushing = false;
  private closed = false;
  /** Bytes of the current segment known to be written (and synced when sync is on). */
  private durableSize: number;
  /** Set after a failed write: the file may hold a partial batch that must be cut first. */
  private dirty = false;
  private idleWaiters: (() => void)[] = [];
  recordsInSegment = 0;
  /** Batches written and fdatasyncs issued: lets tests and the benchmark see group commit. */
  readonly stats = { batches: 0, records: 0, syncs: 0, bytes: 0 };
  /** Nothing else writes here: nothing overtakes a change. */
  readonly retryForMs = 0;
  /** Told of each durable batch (records, bytes, fdatasync ms): the metrics endpoint's view of group commit. */
  onBatch: ((records: number, bytes: number, syncMs: number) => void) | null = null;

  private constructor(
    private readonly opts: WalOptions & { files: FileLayer },
    private fd: number,
    public segment: Segment,
    size: number,
    nextLsn: number,
  ) {
    super(nextLsn);
    this.durableSize = size;
  }

  /**
   * Opens the segment the scan ended in for appending at `validEnd`, cutting a torn tail. A new segment
   * is started when there is none, or when the newest one does not end right before
   * `scan.lastLsn + 1` (a checkpoint reaches past it), so every file's records stay contiguous.
   */
  static async open(opts: WalOptions, scan: ScanResult): Promise<Wal> {
    const files = opts.files ?? realFiles;
    const nextLsn = scan.lastLsn + 1;
    let seg: Segment | null = scan.active;
    let size = scan.validEnd;
    let records = seg ? scan.tailLsn - seg.firstLsn + 1 : 0;
    if (scan.truncated) {
      // Usually the active segment; an empty segment after the torn one can be active instead.
      const fd = await files.open(scan.truncated.file, 'r+');
      try {
        await files.ftruncate(fd, scan.truncated.offset);
        await files.fdatasync(fd);
      } finally {
        await files.close(fd);
      }
    }
    if (!seg || scan.tailLsn !== nextLsn - 1) {
      seg = { file: path.join(opts.dir, segmentName(nextLsn)), firstLsn: nextLsn };
      const fd0 = await files.open(seg.file, 'w');
      await files.close(fd0);
      await files.syncDir(opts.dir);
      size = 0;
      records = 0;
    }
    const fd = await files.open(seg.file, 'r+');
    const wal = new Wal({ ...opts, files }, fd, seg, size, nextLsn);
    wal.recordsInSegment = records;
    return wal;
  }

  get size(): number {
    return this.durableSize;
  }

  /** True while a failed batch has not been rolled back yet, or appends are queued or being written. */
  get busy(): boolean {
    return this.flushing || this.queue.length > 0 || this.failed !== null;
  }

  /**
   * A record's bytes as `append` takes them (payload encoded, framed, checksummed): the WAL owns
   * both the encoding and the LSNs, and the engine hands it changes, not bytes it built.
   */
  encode(rec: WalRecord): Buffer {
    return frame(encodeRecord(rec));
  }

  /** `encode` for a record of megabytes: the same bytes, built a slice at a time with pauses between. */
  async encodeInSlices(rec: WalRecord, slicer: Slicer): Promise<Buffer> {
    return frameInSlices(await encodeRecordInSlices(rec, slicer), slicer);
  }

  appendRecord(rec: WalRecord): Promise<void> {
    return this.append(this.encode(rec));
  }

  /** Resolves once `bytes` are written (and fdatasync'ed); appends resolve in the order they were made. */
  append(bytes: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the write-ahead log is closed'));
    if (this.failed) {
      // Same code as the failure itself, so the caller's 503 names the real cause.
      const err = new Error(`an earlier write to the write-ahead log failed (${this.failed.message}) and is being rolled back`) as NodeJS.ErrnoException;
      err.code = this.failed.code;
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ bytes, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      // With fdatasync, the sync's own wait gathers the next batch. Without it (WAL_SYNC=none)
      // each record would be written alone, with its own syscall and wake-up: waiting for the
      // end of this turn of the event loop gathers every append the turn makes into one write.
      if (this.opts.sync) void this.flush();
      else setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    let first = true;
    while (this.queue.length > 0) {
      // After an fdatasync, let the event loop take in the requests that arrived meanwhile before
      // writing the next batch: one more turn makes batches larger and fdatasyncs fewer.
      if (!first && this.opts.sync) await new Promise<void>((resolve) => setImmediate(resolve));
      first = false;
      const batch = this.queue;
      this.queue = [];
      const buf = batch.length === 1 ? batch[0].bytes : Buffer.concat(batch.map((p) => p.bytes));
      try {
        if (this.dirty) {
          await this.opts.files.ftruncate(this.fd, this.durableSize);
          this.dirty = false;
        }
        let written = 0;
        if (crashDue('wal-torn-write')) {
          await this.opts.files.write(this.fd, buf.subarray(0, buf.length >> 1), this.durableSize);
          if (this.opts.sync) await this.opts.files.fdatasync(this.fd);
          crashNow('wal-torn-write');
        }
        while (written < buf.length) {
          this.dirty = true;
          // A batch of megabytes (an import's record) is copied to the page cache by the thread
          // pool: synchronously, 100 MB held the event loop for a quarter of a second.
          const rest = buf.subarray(written);
          const { files } = this.opts;
          const at = this.durableSize + written;
          written += wrote(await (rest.length >= LARGE_WRITE ? files.writeLarge(this.fd, rest, at) : files.write(this.fd, rest, at)));
        }
        let syncMs = 0;
        if (this.opts.sync) {
          this.stats.syncs++;
          const started = this.onBatch ? performance.now() : 0;
          await this.opts.files.fdatasync(this.fd);
          if (this.onBatch) syncMs = performance.now() - started;
        }
        this.dirty = false;
        this.durableSize += buf.length;
        this.recordsInSegment += batch.length;
        this.stats.batches++;
        this.stats.records += batch.length;
        this.stats.bytes += buf.length;
        this.onBatch?.(batch.length, buf.length, syncMs);
        for (const p of batch) p.resolve();
      } catch (err) {
        // Everything queued behind the failed batch was computed on top of it, so it fails too.
        const failed = [...batch, ...this.queue];
        this.queue = [];
        const e = err as NodeJS.ErrnoException;
        this.failed = e;
        this.opts.log.error({ code: e.code, err: e.message, records: failed.length }, 'write-ahead log append failed');
        // Cut the partial batch now rather than at the next write, so a crash before the disk
        // recovers cannot bring back a change that was answered with 503.
        if (this.dirty) {
          try {
            await this.opts.files.ftruncate(this.fd, this.durableSize);
            this.dirty = false;
          } catch {
            /* retried before the next write */
          }
        }
        for (const p of failed) p.reject(e);
      }
    }
    this.flushing = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** A failed write of this disk is never retried by the engine: nothing was changed, 503. */
  recover(err: unknown): Promise<Recovery> {
    const code = (err as NodeJS.ErrnoException).code ?? 'I/O error';
    return Promise.resolve({ kind: 'failed', message: `The change could not be written to disk (${code}); nothing was changed. Try again later.` });
  }

  /** Resolves when nothing is queued or being written. */
  idle(): Promise<void> {
    if (!this.flushing && this.queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /**
   * Starts a new segment whose first record is `nextLsn`; used by checkpoints. The caller
   * makes sure nothing is in flight, so no record straddles two files.
   */
  async roll(): Promise<Segment> {
    await this.idle();
    if (this.closed) throw new Error('the write-ahead log is closed');
    if (this.segment.firstLsn === this.nextLsn && this.durableSize === 0) return this.segment;
    const seg = { file: path.join(this.opts.dir, segmentName(this.nextLsn)), firstLsn: this.nextLsn };
    // 'w', not 'wx': a crash right after creating it leaves an empty file by that name, which
    // start-up reopens as the newest segment; a retry after a failed roll may meet it too.
    const fd = await this.opts.files.open(seg.file, 'w');
    try {
      await this.opts.files.syncDir(this.opts.dir);
    } catch (err) {
      // Appends stay in the current segment; the empty file is removed (start-up ignores it if not).
      await this.opts.files.close(fd).catch(() => {});
      await this.opts.files.unlink(seg.file).catch(() => {});
      throw err;
    }
    const old = this.fd;
    this.fd = fd;
    this.segment = seg;
    this.durableSize = 0;
    this.recordsInSegment = 0;
    this.dirty = false;
    await this.opts.files.close(old).catch(() => {});
    return seg;
  }

  async close(): Promise<void> {
    await this.idle();
    if (this.closed) return;
    this.closed = true;
    this.opts.log.info({ ...this.stats }, 'write-ahead log closed (records written, in batches, with fdatasyncs)');
    try {
      if (this.opts.sync) await this.opts.files.fdatasync(this.fd);
    } finally {
      await this.opts.files.close(this.fd);
    }
  }
}
