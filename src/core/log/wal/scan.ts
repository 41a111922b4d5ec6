// Reading the write-ahead log: segment files in order, every frame checked, damage classified
// (a torn end of the newest segment is cut off; damage anywhere else stops start-up).
import fs from 'node:fs';
import { crcOfRanges } from './crc-ranges.js';
import { allZero, FRAME_HEADER, goodFrameEnd, MAX_RECORD, readFrame } from './frame.js';
import { listNumbered } from './numbered-files.js';
import { decodeRecordAt, releaseDecodeCache, type WalRecord } from '../record.js';
import { NewerFormatError } from '../../errors.js';

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
  return listNumbered(dir, SEGMENT_RE).map(({ file, lsn }) => ({ file, firstLsn: lsn }));
}

export interface ScanResult {
  /** The newest LSN the state reaches: the last record applied, or `afterLsn` if none was. */
  lastLsn: number;
  /** Records handed to `onRecord` (those after `afterLsn`). */
  records: number;
  /** Where the last segment's valid data ends (after cutting a torn tail). */
  validEnd: number;
  /** LSN of the last record in the last segment (its firstLsn - 1 when it holds none). */
  tailLsn: number;
  /** The segment appends continue in (null: none yet). */
  active: Segment | null;
  truncated: { file: string; offset: number; reason: string } | null;
}

/** Where damage was found and whether it may be cut off (nothing valid follows it in the last segment). */
export interface Damage {
  file: string;
  offset: number;
  reason: string;
  tail: boolean;
}

/** Below the smallest payload a real record has: version, lsn, events and one op (a packed
 * featureEnv.put with one-letter names takes 14 bytes). */
const MIN_RECORD = 8;

/**
 * The LSN a record payload at `at` starts with, or -1 when its first bytes are not a record's:
 * [2, lsn, …] (0x94 0x02, version 2) or {lsn: …} (0x83 then the key "lsn", version 1, as the
 * engine always built it). Cheap enough to ask at every offset of a damaged tail.
 */
function recordLsnAt(buf: Buffer, at: number, end: number): number {
  let p: number;
  if (buf[at] === 0x94 && buf[at + 1] === 0x02) p = at + 2;
  else if (buf[at] === 0x83 && buf[at + 1] === 0xa3 && buf[at + 2] === 0x6c && buf[at + 3] === 0x73 && buf[at + 4] === 0x6e) p = at + 5;
  else return -1;
  const h = buf[p];
  if (h < 0x80) return h;
  if (h === 0xcc && p + 2 <= end) return buf[p + 1];
  if (h === 0xcd && p + 3 <= end) return buf.readUInt16BE(p + 1);
  if (h === 0xce && p + 5 <= end) return buf.readUInt32BE(p + 1);
  if (h === 0xcf && p + 9 <= end) return buf.readUInt32BE(p + 1) * 4294967296 + buf.readUInt32BE(p + 5);
  return -1;
}

/**
 * Looks for a valid record (checksum and shape) starting anywhere after `from`. Finding one
 * means the damage before it is in the middle of the log, not a torn end: data follows it.
 *
 * Linear in the bytes after `from`, however they look: an offset is a candidate only when its
 * header's length fits in the buffer and its payload starts like a record whose LSN could follow
 * the damage (at least `minLsn`, and no more records than the bytes left could hold); the
 * candidates' checksums are then all computed in one pass (crc-ranges.ts), instead of hashing
 * the length each one claims, which made a torn 70 MB record take minutes.
 */
export function findRecordAfter(buf: Buffer, from: number, minLsn: number): number | null {
  const size = buf.length;
  const maxLsn = minLsn + Math.ceil((size - from) / (FRAME_HEADER + MIN_RECORD));
  const offsets: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (let pos = from + 1; pos + FRAME_HEADER + MIN_RECORD <= size; pos++) {
    const at = pos + FRAME_HEADER;
    // The payload's first byte rules out nearly every offset before anything else is read.
    if (buf[at] !== 0x94 && buf[at] !== 0x83) continue;
    const len = buf.readUInt32LE(pos);
    if (len < MIN_RECORD || len > MAX_RECORD || at + len > size) continue;
    const lsn = recordLsnAt(buf, at, at + len);
    if (lsn < minLsn || lsn > maxLsn) continue;
    offsets.push(pos);
    starts.push(at);
    ends.push(at + len);
  }
  if (offsets.length === 0) return null;
  const sums = crcOfRanges(buf, starts, ends);
  for (let i = 0; i < offsets.length; i++) {
    if (sums[i] !== buf.readUInt32LE(offsets[i] + 4)) continue;
    try {
      if (decodeRecordAt(buf, starts[i], ends[i]).lsn >= minLsn) return offsets[i];
    } catch {
      /* a checksum match on bytes that only look like a record: keep looking */
    }
  }
  return null;
}

/**
 * Reads every record of the given segments in order. Records up to `afterLsn` (covered by a
 * checkpoint) are checked but not decoded; later ones go to `onRecord`. LSNs must run without
 * gaps from `afterLsn + 1`. A torn or damaged end of the *last* segment, with no valid record
 * after it, is reported as `truncated` (the caller cuts it off: it was never acknowledged);
 * damage anywhere else throws WalCorruptError naming the file and offset, because skipping it
 * would silently lose acknowledged changes.
 */
export function scanSegments(
  segments: Segment[],
  onRecord: (rec: WalRecord) => void,
  opts: { afterLsn?: number } = {},
): ScanResult {
  const afterLsn = opts.afterLsn ?? 0;
  let expect = afterLsn + 1;
  let records = 0;
  let validEnd = 0;
  let tailLsn = afterLsn;
  let truncated: ScanResult['truncated'] = null;
  let active: Segment | null = null;
  // Empty segment files hold nothing; one can be left by a roll that failed after creating it,
  // while appends went on in the previous segment. The "newest" segment, whose end may be torn,
  // is therefore the last one with data.
  const sizes = segments.map((s) => fs.statSync(s.file).size);
  let lastIdx = segments.length - 1;
  while (lastIdx > 0 && sizes[lastIdx] === 0) lastIdx--;
  try {
    segments.forEach((seg, i) => scanOne(seg, i));
  } finally {
    // Replay is where nearly every record is decoded; what follows decodes one now and then.
    releaseDecodeCache();
  }
  return { lastLsn: Math.max(afterLsn, expect - 1), records, validEnd, tailLsn, truncated, active };

  function scanOne(seg: Segment, i: number): void {
    const isLast = i === lastIdx;
    if (sizes[i] === 0 && !isLast) {
      // The final empty file continues the log if it starts right after it; otherwise it is a leftover.
      if (i === segments.length - 1 && seg.firstLsn === expect) {
        active = seg;
        validEnd = 0;
        tailLsn = expect - 1;
      }
      return;
    }
    if (seg.firstLsn !== expect) {
      // A gap or overlap is harmless only where the checkpoint already covers it.
      if (seg.firstLsn > afterLsn + 1) {
        const what = seg.firstLsn > expect
          ? `records ${expect}..${seg.firstLsn - 1} are missing`
          : `it overlaps the segment before it, which reaches ${expect - 1}`;
        throw new WalCorruptError(
          `${seg.file}: starts at record ${seg.firstLsn} but the log before it ends at ${expect - 1}; ` +
            `${what}. Run "fanion verify" and restore from a backup.`,
        );
      }
      expect = seg.firstLsn;
    }
    const buf = fs.readFileSync(seg.file);
    let offset = 0;
    for (;;) {
      // The common case: a good frame, decoded in place.
      const stop = goodFrameEnd(buf, offset);
      if (stop >= 0) {
        const lsn = expect;
        if (lsn > afterLsn) {
          let rec: WalRecord;
          try {
            rec = decodeRecordAt(buf, offset + FRAME_HEADER, stop);
          } catch (err) {
            if (err instanceof NewerFormatError) throw err.at(seg.file);
            throw new WalCorruptError(`${seg.file}: record at offset ${offset} has a valid checksum but cannot be decoded: ${(err as Error).message}`);
          }
          if (rec.lsn !== lsn) {
            throw new WalCorruptError(`${seg.file}: record at offset ${offset} has lsn ${rec.lsn}, expected ${lsn}`);
          }
          onRecord(rec);
          records++;
        }
        expect++;
        offset = stop;
        continue;
      }
      // Everything else (the end, an empty, torn or damaged frame) the careful way.
      const r = readFrame(buf, offset);
      if (r.kind === 'end') break;
      const damage = classifyDamage(seg.file, buf, offset, r, isLast, expect);
      if (damage.tail) {
        truncated = { file: seg.file, offset, reason: damage.reason };
        break;
      }
      throw new WalCorruptError(
        `${seg.file}: damaged record at offset ${offset} (${damage.reason}) with data after it; refusing to start rather than lose ` +
          `acknowledged changes. Run "fanion verify" on the data folder and restore from a backup.`,
      );
    }
    if (isLast) {
      active = seg;
      validEnd = offset;
      tailLsn = expect - 1;
    }
  }
}

/** Decides whether damage at `offset` is a torn end (cut it) or damage with data after it. */
export function classifyDamage(
  file: string,
  buf: Buffer,
  offset: number,
  r: Exclude<ReturnType<typeof readFrame>, { kind: 'end' }>,
  isLastSegment: boolean,
  nextLsn: number,
): Damage {
  const reason = r.kind === 'ok' ? 'empty record' : r.reason;
  if (!isLastSegment) return { file, offset, reason: `${reason} in a segment that is not the newest`, tail: false };
  // A torn frame is checked for data after it too: a damaged length field in the middle of
  // the log also looks like a frame that runs past the end.
  if (allZero(buf, offset)) return { file, offset, reason, tail: true };
  const after = findRecordAfter(buf, offset, nextLsn);
  if (after === null) return { file, offset, reason, tail: true };
  return { file, offset, reason: `${reason}; a valid record follows at offset ${after}`, tail: false };
}
