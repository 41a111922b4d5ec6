// Reading the WAL back: what counts as a torn end (cut off, it was never acknowledged) and what
// counts as damage with data after it (refused, naming the file and offset), plus the LSN
// continuity rules across segments and checkpoints.
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { scanSegments, listSegments, segmentName, WalCorruptError, findRecordAfter } from '../../../../src/core/log/wal/scan.js';
import type { WalRecord } from '../../../../src/core/log/record.js';
import { tempDataDir } from '../../../helpers/server.js';
import { frames, offsetOf, record, silent, tornImportFrame, writeSegment } from './helpers.js';
import { frame } from '../../../../src/core/log/wal/frame.js';
import { encodeRecord } from '../../../../src/core/log/record.js';
import { openStorage } from '../../../../src/core/storage/storage.js';

function scan(dir: string, afterLsn = 0) {
  const seen: number[] = [];
  const result = scanSegments(listSegments(dir), (r: WalRecord) => seen.push(r.lsn), { afterLsn });
  return { seen, result };
}

function refuses(t: Test, dir: string, pattern: RegExp, afterLsn = 0): void {
  try {
    scan(dir, afterLsn);
    t.fail('expected the scan to refuse');
  } catch (err) {
    t.type(err, WalCorruptError);
    t.match((err as Error).message, pattern);
  }
}

t.test('a clean log replays every record in order', async (t) => {
  const dir = tempDataDir();
  writeSegment(dir, 1, 10);
  writeSegment(dir, 11, 15);
  const { seen, result } = scan(dir);
  t.same(seen, Array.from({ length: 15 }, (_, i) => i + 1));
  t.equal(result.lastLsn, 15);
  t.equal(result.tailLsn, 15);
  t.equal(result.truncated, null);
  t.equal(result.validEnd, frames(11, 15).length);
});

t.test('records covered by a checkpoint are skipped, later ones replayed', async (t) => {
  const dir = tempDataDir();
  writeSegment(dir, 1, 10);
  const { seen, result } = scan(dir, 6);
  t.same(seen, [7, 8, 9, 10]);
  t.equal(result.records, 4);
  t.equal(result.lastLsn, 10);
});

const tails: [string, (good: Buffer) => Buffer][] = [
  ['the last record cut mid-way', (good) => good.subarray(0, good.length - 7)],
  ['the last record cut inside its header', (good) => Buffer.concat([good, frames(11, 11).subarray(0, 5)])],
  ['garbage appended', (good) => Buffer.concat([good, Buffer.from('this is not a frame at all, just noise \xff\xfe', 'latin1')])],
  ['random bytes appended', (good) => Buffer.concat([good, Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 131 + 7) % 256))])],
  ['zero-filled space appended', (good) => Buffer.concat([good, Buffer.alloc(4096)])],
  ['the last record zeroed', (good) => { const b = Buffer.from(good); b.fill(0, offsetOf(1, 10)); return b; }],
  ['a flipped byte in the last record', (good) => { const b = Buffer.from(good); b[b.length - 3] ^= 0x55; return b; }],
];
for (const [what, damage] of tails) {
  t.test(`a torn end (${what}) is reported for cutting, the records before it replay`, async (t) => {
    const dir = tempDataDir();
    const file = writeSegment(dir, 1, 10);
    fs.writeFileSync(file, damage(fs.readFileSync(file)));
    const { seen, result } = scan(dir);
    t.ok(result.truncated, 'reported as truncated');
    t.equal(result.truncated!.file, file);
    const kept = seen.length;
    t.ok(kept === 9 || kept === 10, `the intact records replay (${kept})`);
    t.same(seen, Array.from({ length: kept }, (_, i) => i + 1));
    t.equal(result.validEnd, offsetOf(1, kept + 1));
  });
}

t.test('a damaged record with valid records after it refuses, naming the file and offset', async (t) => {
  const dir = tempDataDir();
  const file = writeSegment(dir, 1, 10);
  const buf = fs.readFileSync(file);
  const at = offsetOf(1, 4);
  buf[at + 12] ^= 0xff;
  fs.writeFileSync(file, buf);
  refuses(t, dir, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: damaged record at offset ${at} \\(checksum mismatch`));
});

t.test('a damaged length field in the middle is not mistaken for a torn end', async (t) => {
  const dir = tempDataDir();
  const file = writeSegment(dir, 1, 10);
  const buf = fs.readFileSync(file);
  const at = offsetOf(1, 3);
  buf.writeUInt32LE(buf.length, at); // now the frame "runs past the end of the file"
  fs.writeFileSync(file, buf);
  refuses(t, dir, new RegExp(`offset ${at} .*runs past the end.*a valid record follows`));
});

t.test('a 70 MB torn record is recognised as a torn end in linear time', async (t) => {
  // Issue #26: every offset of the torn bytes was checked by hashing the length its header
  // claimed, so a 15 MB torn record took 18 s to classify and 70 MB several minutes.
  const dir = tempDataDir();
  const file = writeSegment(dir, 1, 10, tornImportFrame(11, 70 * 2 ** 20));
  const started = performance.now();
  const { seen, result } = scan(dir);
  const ms = performance.now() - started;
  t.same(seen, Array.from({ length: 10 }, (_, i) => i + 1), 'the records before it replay');
  t.equal(result.truncated?.file, file);
  t.equal(result.truncated?.offset, offsetOf(1, 11), 'cut where the torn record starts');
  t.ok(ms < 5000, `scanned in ${ms.toFixed(0)} ms (about 0.2 s here; minutes before)`);
});

t.test('a damaged length field before a large valid record is still damage in the middle', async (t) => {
  const dir = tempDataDir();
  // Record 3's header claims more than the file holds; a whole record 4 of 1.6 MB and record 5 follow.
  const whole = frame(encodeRecord({ ...record(4), ops: [...record(4).ops, ...Array.from({ length: 20_000 }, (_, i) => record(100 + i).ops[0])] }));
  const file = writeSegment(dir, 1, 3, Buffer.concat([whole, frames(5, 5)]));
  const buf = fs.readFileSync(file);
  const at = offsetOf(1, 3);
  buf.writeUInt32LE(buf.length, at);
  fs.writeFileSync(file, buf);
  refuses(t, dir, new RegExp(`offset ${at} .*runs past the end.*a valid record follows at offset ${offsetOf(1, 4)}`));
});

t.test('a zeroed record in the middle refuses: data follows it', async (t) => {
  const dir = tempDataDir();
  const file = writeSegment(dir, 1, 10);
  const buf = fs.readFileSync(file);
  buf.fill(0, offsetOf(1, 5), offsetOf(1, 6));
  fs.writeFileSync(file, buf);
  refuses(t, dir, new RegExp(`offset ${offsetOf(1, 5)}`));
});

t.test('a torn end in a segment that is not the newest refuses', async (t) => {
  const dir = tempDataDir();
  const file = writeSegment(dir, 1, 10);
  writeSegment(dir, 11, 12);
  fs.writeFileSync(file, fs.readFileSync(file).subarray(0, offsetOf(1, 10) + 3));
  refuses(t, dir, /not the newest/);
});

t.test('a missing segment (a gap in LSNs) refuses unless a checkpoint covers it', async (t) => {
  const dir = tempDataDir();
  writeSegment(dir, 1, 10);
  writeSegment(dir, 16, 20);
  refuses(t, dir, /records 11\.\.15 are missing/);
  const { seen } = scan(dir, 15);
  t.same(seen, [16, 17, 18, 19, 20], 'with a checkpoint at 15 the gap is harmless');
  refuses(t, dir, /records 11\.\.15 are missing/, 14);
});

t.test('a record whose LSN does not follow its predecessor refuses', async (t) => {
  const dir = tempDataDir();
  const file = writeSegment(dir, 1, 5);
  fs.appendFileSync(file, frames(7, 7));
  refuses(t, dir, /has lsn 7, expected 6/);
});

t.test('findRecordAfter finds the next valid frame and ignores noise and zeros', async (t) => {
  const good = frames(1, 3);
  const noise = Buffer.concat([Buffer.alloc(50), Buffer.from('noise'), good]);
  t.equal(findRecordAfter(noise, 0, 1), 55);
  t.equal(findRecordAfter(Buffer.alloc(1000), 0, 1), null);
  t.equal(findRecordAfter(noise, 0, 99), null, 'records older than the expected LSN do not count');
});

t.test('an empty segment left by a failed roll is ignored, wherever it sits', async (t) => {
  const dir = tempDataDir();
  writeSegment(dir, 1, 10);
  fs.writeFileSync(path.join(dir, segmentName(6)), ''); // roll at 5 failed; appends went on in the first file
  const { seen, result } = scan(dir);
  t.same(seen, Array.from({ length: 10 }, (_, i) => i + 1));
  t.equal(result.active?.firstLsn, 1, 'appends continue in the segment with the data');
  t.equal(result.tailLsn, 10);
  writeSegment(dir, 11, 12);
  fs.writeFileSync(path.join(dir, segmentName(13)), ''); // a good roll: the new segment starts right after
  const again = scan(dir);
  t.same(again.seen.slice(-2), [11, 12]);
  t.equal(again.result.active?.firstLsn, 13, 'an empty newest segment that continues the log is used');
});

t.test('a torn end followed only by a leftover empty segment is still a torn end', async (t) => {
  const dir = tempDataDir();
  const file = writeSegment(dir, 1, 10);
  fs.writeFileSync(path.join(dir, segmentName(6)), '');
  fs.appendFileSync(file, Buffer.alloc(100, 0xab));
  const { result } = scan(dir);
  t.ok(result.truncated);
  t.equal(result.active?.firstLsn, 1);
});

t.test('start-up cuts a torn end even when an empty segment after it continues the log', async (t) => {
  const dir = tempDataDir();
  const file = writeSegment(dir, 1, 10);
  fs.appendFileSync(file, Buffer.from([9, 9, 9]));
  fs.writeFileSync(path.join(dir, segmentName(11)), '');
  const first = await openStorage({ dataDir: dir, sync: false, log: silent });
  t.equal(first.wal.segment.firstLsn, 11, 'appends go to the empty segment');
  await first.wal.appendRecord(record(first.wal.takeLsn()));
  await first.wal.close();
  first.release();
  t.equal(fs.statSync(file).size, offsetOf(1, 11), 'the torn bytes were cut from the segment that had them');
  const again = scan(dir);
  t.same(again.seen.slice(-2), [10, 11]);
  t.equal(again.result.truncated, null);
});
