// The write-ahead log: segment files of framed, checksummed msgpack records in DATA_DIR.
// `append` resolves only once the record is written and (WAL_SYNC=always) fdatasync'ed.
// Appends that arrive while a flush is in progress are batched into the next single
// write + fdatasync (group commit), so concurrency raises throughput instead of queueing fsyncs.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log.js';
import { allZero, frame, readFrame } from './frame.js';
import { realFiles, type FileLayer } from './file-layer.js';
import { decodeRecord, encodeRecord, type WalRecord } from './record.js';

export class WalCorruptError extends Error {}

const SEGMENT_RE = /^wal-(\d{16})\.log$/;

export function segmentName(firstLsn: number): string {
  return `wal-${String(firstLsn).padStart(16, '0')}.log`;
}

export interface Segment {
  file: string;
  firstLsn: number;
}

export function listSegments(dir: string): Segment[] {
  return fs
    .readdirSync(dir)
    .map((name) => ({ name, m: SEGMENT_RE.exec(name) }))
    .filter((x) => x.m)
    .map((x) => ({ file: path.join(dir, x.name), firstLsn: Number(x.m![1]) }))
    .sort((a, b) => a.firstLsn - b.firstLsn);
}

export interface ScanResult {
  lastLsn: number;
  records: number;
  /** Where the last segment's valid data ends (after cutting a torn tail). */
  validEnd: number;
  truncated: { file: string; offset: number; reason: string } | null;
}

/**
 * Reads every record of the given segments in order. A torn or damaged *last* record is
 * reported as `truncated` (the caller cuts it off); damage anywhere before the end throws
 * WalCorruptError naming the file and offset, because skipping it would silently lose data.
 */
export function scanSegments(
  segments: Segment[],
  onRecord: (rec: WalRecord) => void,
  opts: { afterLsn?: number; expectNextLsn?: number } = {},
): ScanResult {
  let lastLsn = opts.afterLsn ?? 0;
  let expect = opts.expectNextLsn ?? null;
  let records = 0;
  let validEnd = 0;
  let truncated: ScanResult['truncated'] = null;
  segments.forEach((seg, i) => {
    const isLast = i === segments.length - 1;
    const buf = fs.readFileSync(seg.file);
    let offset = 0;
    for (;;) {
      const r = readFrame(buf, offset);
      if (r.kind === 'end') break;
      if (r.kind === 'ok' && r.payload.length > 0) {
        let rec: WalRecord;
        try {
          rec = decodeRecord(r.payload);
        } catch (err) {
          throw new WalCorruptError(`${seg.file}: record at offset ${offset} has a valid checksum but cannot be decoded: ${(err as Error).message}`);
        }
        if (expect !== null && rec.lsn !== expect && rec.lsn > (opts.afterLsn ?? 0)) {
          throw new WalCorruptError(`${seg.file}: record at offset ${offset} has lsn ${rec.lsn}, expected ${expect}`);
        }
        expect = rec.lsn + 1;
        if (rec.lsn > (opts.afterLsn ?? 0)) {
          onRecord(rec);
          records++;
          lastLsn = rec.lsn;
        }
        offset = r.next;
        continue;
      }
      const reason = r.kind === 'ok' ? 'empty record' : r.reason;
      const next = r.kind === 'bad' ? r.next : r.kind === 'ok' ? r.next : null;
      const isTail = r.kind === 'torn' || next === buf.length || allZero(buf, offset) || (next !== null && allZero(buf, next));
      if (isLast && isTail) {
        truncated = { file: seg.file, offset, reason };
        break;
      }
      throw new WalCorruptError(
        `${seg.file}: damaged record at offset ${offset} (${reason}) with data after it; refusing to start rather than lose ` +
          `acknowledged changes. Run "fanion verify" on the data folder and restore from a backup.`,
      );
    }
    if (isLast) validEnd = offset;
  });
  return { lastLsn, records, validEnd, truncated };
}

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

export class Wal {
  private queue: Pending[] = [];
  private flushing = false;
  private closed = false;
  /** Bytes of the current segment known to be written (and synced when sync is on). */
  private durableSize: number;
  /** Set after a failed write: the file may hold a partial batch that must be cut first. */
  private dirty = false;
  private idleWaiters: (() => void)[] = [];
  recordsInSegment = 0;

  private constructor(
    private readonly opts: WalOptions & { files: FileLayer },
    private fd: number,
    public segment: Segment,
    size: number,
    public nextLsn: number,
  ) {
    this.durableSize = size;
  }

  /** Opens the newest segment for appending at `validEnd`, creating the first one if needed. */
  static async open(opts: WalOptions, segments: Segment[], scan: ScanResult): Promise<Wal> {
    const files = opts.files ?? realFiles;
    const nextLsn = scan.lastLsn + 1;
    let seg = segments[segments.length - 1];
    let size = scan.validEnd;
    if (!seg) {
      seg = { file: path.join(opts.dir, segmentName(nextLsn)), firstLsn: nextLsn };
      const fd0 = await files.open(seg.file, 'wx');
      await files.close(fd0);
      await files.syncDir(opts.dir);
      size = 0;
    }
    const fd = await files.open(seg.file, 'r+');
    if (scan.truncated) {
      await files.ftruncate(fd, size);
      await files.fdatasync(fd);
    }
    const wal = new Wal({ ...opts, files }, fd, seg, size, nextLsn);
    wal.recordsInSegment = scan.records;
    return wal;
  }

  get size(): number {
    return this.durableSize;
  }

  /** Assigns the next LSN. Callers encode the record with it and then call `append`. */
  takeLsn(): number {
    return this.nextLsn++;
  }

  /** Gives back an LSN whose record will not be written (its append failed, or it was never sent). */
  resetLsn(lsn: number): void {
    this.nextLsn = lsn;
  }

  appendRecord(rec: WalRecord): Promise<void> {
    return this.append(frame(encodeRecord(rec)));
  }

  append(bytes: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the write-ahead log is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ bytes, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const buf = batch.length === 1 ? batch[0].bytes : Buffer.concat(batch.map((p) => p.bytes));
      try {
        if (this.dirty) {
          await this.opts.files.ftruncate(this.fd, this.durableSize);
          this.dirty = false;
        }
        let written = 0;
        while (written < buf.length) {
          this.dirty = true;
          written += await this.opts.files.write(this.fd, buf.subarray(written), this.durableSize + written);
        }
        if (this.opts.sync) await this.opts.files.fdatasync(this.fd);
        this.dirty = false;
        this.durableSize += buf.length;
        this.recordsInSegment += batch.length;
        for (const p of batch) p.resolve();
      } catch (err) {
        // Everything queued behind the failed batch was computed on top of it, so it fails too.
        const failed = [...batch, ...this.queue];
        this.queue = [];
        const e = err as NodeJS.ErrnoException;
        this.opts.log.error({ code: e.code, err: e.message, records: failed.length }, 'write-ahead log append failed');
        for (const p of failed) p.reject(e);
      }
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

  /**
   * Starts a new segment whose first record is `nextLsn`; used after a checkpoint. Waits for
   * in-flight writes so no record straddles two files.
   */
  async roll(): Promise<Segment> {
    await this.idle();
    const seg = { file: path.join(this.opts.dir, segmentName(this.nextLsn)), firstLsn: this.nextLsn };
    const fd = await this.opts.files.open(seg.file, 'wx');
    await this.opts.files.syncDir(this.opts.dir);
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
    try {
      if (this.opts.sync) await this.opts.files.fdatasync(this.fd);
    } finally {
      await this.opts.files.close(this.fd);
    }
  }
}
