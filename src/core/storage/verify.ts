// `fanion verify`: reads a data folder without changing it and says whether it would start,
// what start-up would have to repair, and where the first damaged record is.
import fs from 'node:fs';
import { CheckpointCorruptError, listCheckpoints, readCheckpoint } from '../log/wal/checkpoint.js';
import { NewerFormatError } from '../errors.js';
import { readFrame } from '../log/wal/frame.js';
import { decodeRecord } from '../log/record.js';
import { recover } from './recovery.js';
import { classifyDamage, listSegments, type Damage } from '../log/wal/scan.js';

export interface SegmentReport {
  file: string;
  firstLsn: number;
  records: number;
  bytes: number;
  damage: Damage | null;
}

export interface VerifyReport {
  checkpoints: { file: string; lsn: number; ok: boolean; events?: number; bytes?: number; error?: string }[];
  segments: SegmentReport[];
  /** Holes between segments: records that exist in no file. */
  gaps: { from: number; to: number; before: string }[];
  /** The first damaged record in the write-ahead log, if any. */
  firstDamage: Damage | null;
  startable: boolean;
  /** What start-up would do, or why it would refuse. */
  startup: string;
}

function checkSegment(file: string, firstLsn: number, isLast: boolean): SegmentReport {
  const buf = fs.readFileSync(file);
  let offset = 0;
  let lsn = firstLsn;
  for (;;) {
    const r = readFrame(buf, offset);
    if (r.kind === 'end') break;
    if (r.kind === 'ok' && r.payload.length > 0) {
      let reason: string | null = null;
      try {
        const rec = decodeRecord(r.payload);
        if (rec.lsn !== lsn) reason = `record has lsn ${rec.lsn}, expected ${lsn}`;
      } catch (err) {
        reason = `valid checksum but cannot be decoded: ${(err as Error).message}`;
      }
      if (reason) return { file, firstLsn, records: lsn - firstLsn, bytes: buf.length, damage: { file, offset, reason, tail: false } };
      lsn++;
      offset = r.next;
      continue;
    }
    return { file, firstLsn, records: lsn - firstLsn, bytes: buf.length, damage: classifyDamage(file, buf, offset, r, isLast, lsn) };
  }
  return { file, firstLsn, records: lsn - firstLsn, bytes: buf.length, damage: null };
}

export function verifyDataDir(dir: string): VerifyReport {
  if (!fs.existsSync(dir)) throw new Error(`${dir} does not exist`);
  const checkpoints: VerifyReport['checkpoints'] = listCheckpoints(dir).map((c) => {
    try {
      const loaded = readCheckpoint(c.file);
      if (loaded.lsn !== c.lsn) return { ...c, ok: false, error: `covers record ${loaded.lsn}, but its name says ${c.lsn}` };
      return { ...c, ok: true, events: loaded.events, bytes: loaded.bytes };
    } catch (err) {
      // A newer Fanion's checkpoint is listed as not readable; start-up (below) says it refuses.
      if (err instanceof CheckpointCorruptError || err instanceof NewerFormatError) return { ...c, ok: false, error: err.message };
      throw err;
    }
  });
  const list = listSegments(dir);
  const segments = list.map((s, i) => checkSegment(s.file, s.firstLsn, i === list.length - 1));
  const gaps: VerifyReport['gaps'] = [];
  // Empty files (a failed roll's leftovers) hold nothing and are skipped, as start-up does.
  let end: number | null = null;
  for (const s of segments) {
    if (s.records === 0 && s.bytes === 0) continue;
    if (end !== null && s.firstLsn > end) gaps.push({ from: end, to: s.firstLsn - 1, before: s.file });
    end = s.firstLsn + s.records;
  }
  const firstDamage = segments.find((s) => s.damage)?.damage ?? null;
  let startable = true;
  let startup: string;
  try {
    const r = recover(dir);
    const parts = [
      r.checkpoint ? `load ${r.checkpoint.file} (record ${r.checkpoint.lsn}, ${r.checkpoint.events} events)` : 'replay the log from record 1',
      `replay ${r.scan.records} records up to ${r.scan.lastLsn}`,
    ];
    for (const s of r.skipped) parts.push(`skip the damaged checkpoint ${s.file}`);
    if (r.scan.truncated) parts.push(`cut off the torn end of ${r.scan.truncated.file} at offset ${r.scan.truncated.offset} (${r.scan.truncated.reason})`);
    startup = `start-up would ${parts.join(', ')}`;
  } catch (err) {
    startable = false;
    startup = `start-up would refuse: ${(err as Error).message}`;
  }
  return { checkpoints, segments, gaps, firstDamage, startable, startup };
}
