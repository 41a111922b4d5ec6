// What the PostgreSQL log and the in-memory log share: records stored without a frame (the store
// keeps their lengths), appends queued while a write is on its way and written together in the
// next (group commit), each batch written where this writer's applied records end (the store
// refuses it if another writer got there first), and a failed batch taking everything queued
// behind it down with it, since those records were computed on top of it. The write-ahead log
// batches its own way (frames, fdatasync, cutting a partial write).
import type { Slicer } from '../slices.js';
import { encodeRecord, encodeRecordInSlices, type WalRecord } from './record.js';
import { LsnCounter } from './record-log.js';

export interface Pending {
  lsn: number;
  bytes: Buffer;
  resolve: () => void;
  reject: (err: Error) => void;
}

export abstract class GroupCommitLog<F extends Error> extends LsnCounter<F> {
  /** The last record known to be in the store and applied here (written by this writer or followed). */
  durableLsn: number;
  readonly stats = { batches: 0, records: 0, syncs: 0, bytes: 0 };
  onBatch: ((records: number, bytes: number, syncMs: number) => void) | null = null;
  protected closed = false;
  private queue: Pending[] = [];
  private flushing = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    last: number,
    /** Records per write at the most. */
    private readonly maxBatch = Infinity,
  ) {
    super(last + 1);
    this.durableLsn = last;
  }

  get busy(): boolean {
    return this.flushing || this.queue.length > 0 || this.failed !== null;
  }

  /** The record's msgpack, as the WAL frames it. */
  encode(rec: WalRecord): Buffer {
    const bytes = encodeRecord(rec);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async encodeInSlices(rec: WalRecord, slicer: Slicer): Promise<Buffer> {
    return Buffer.concat(await encodeRecordInSlices(rec, slicer));
  }

  /** Why appends are refused before they are queued (the log is closed, the store unusable), or null. */
  protected abstract refusal(): F | null;
  /** Stores the batch, whole, right after `durableLsn`; throws, having stored nothing, if it cannot. */
  protected abstract write(batch: readonly Pending[]): Promise<void>;
  /** What a failed write means, told how many appends it takes down (to count and log it). */
  protected abstract failure(err: unknown, batch: readonly Pending[], rejected: number): F;

  append(bytes: Buffer, lsn: number): Promise<void> {
    const refused = this.refusal();
    if (refused) return Promise.reject(refused);
    // Built on top of records that failed: it cannot take its place either.
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.queue.push({ lsn, bytes, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      const started = performance.now();
      try {
        await this.write(batch);
      } catch (err) {
        const rejected = [...batch, ...this.queue];
        this.queue = [];
        const failure = this.failure(err, batch, rejected.length);
        this.failed = failure;
        for (const p of rejected) p.reject(failure);
        continue;
      }
      const bytes = batch.reduce((n, p) => n + p.bytes.length, 0);
      this.durableLsn = batch[batch.length - 1].lsn;
      this.stats.batches++;
      this.stats.syncs++;
      this.stats.records += batch.length;
      this.stats.bytes += bytes;
      this.onBatch?.(batch.length, bytes, performance.now() - started);
      for (const p of batch) p.resolve();
    }
    this.flushing = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when nothing is queued or being written. */
  idle(): Promise<void> {
    if (!this.flushing && this.queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  async close(): Promise<void> {
    await this.idle();
    this.closed = true;
  }
}
