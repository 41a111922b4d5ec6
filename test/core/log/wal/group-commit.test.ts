// Group commit: concurrent appends share one write + one fdatasync, each resolves only after
// the fdatasync covering it, in the order the appends were made (= their order in the file).
// A failed batch fails everything queued behind it, leaves no partial bytes, and refuses new
// appends until the engine has rolled back (resetLsn).
import fs from 'node:fs';
import t from 'tap';
import { FaultyFiles, realFiles } from '../../../../src/core/log/wal/file-layer.js';
import { frame, readFrame } from '../../../../src/core/log/wal/frame.js';
import { decodeRecord, encodeRecord } from '../../../../src/core/log/record.js';
import { Wal } from '../../../../src/core/log/wal/wal.js';
import { listSegments, scanSegments } from '../../../../src/core/log/wal/scan.js';
import { tempDataDir } from '../../../helpers/server.js';
import { record, silent } from './helpers.js';

/** Counts fdatasyncs and notes which records each one covered (by file size at the time). */
class CountingFiles extends FaultyFiles {
  syncs = 0;
  writes = 0;
  override async write(fd: number, buf: Buffer, pos: number) {
    this.writes++;
    return super.write(fd, buf, pos);
  }
  override async fdatasync(fd: number) {
    this.syncs++;
    await new Promise((r) => setTimeout(r, 2)); // a disk that takes a moment, like a real one
    return super.fdatasync(fd);
  }
}

async function openWal(dir: string, files = new CountingFiles(realFiles)) {
  const segments = listSegments(dir);
  const scan = scanSegments(segments, () => {});
  const wal = await Wal.open({ dir, sync: true, files, log: silent }, scan);
  return { wal, files };
}

function lsnsInFile(file: string): number[] {
  const buf = fs.readFileSync(file);
  const out: number[] = [];
  for (let off = 0; ; ) {
    const r = readFrame(buf, off);
    if (r.kind !== 'ok') break;
    out.push(decodeRecord(r.payload).lsn);
    off = r.next;
  }
  return out;
}

t.test('200 concurrent appends share a handful of fdatasyncs and resolve in log order', async (t) => {
  const dir = tempDataDir();
  const { wal, files } = await openWal(dir);
  const resolved: number[] = [];
  const appends = [];
  for (let i = 0; i < 200; i++) {
    const lsn = wal.takeLsn();
    appends.push(wal.appendRecord(record(lsn)).then(() => resolved.push(lsn)));
  }
  await Promise.all(appends);
  t.same(resolved, Array.from({ length: 200 }, (_, i) => i + 1), 'acknowledged in LSN order');
  t.same(lsnsInFile(wal.segment.file), resolved, 'the file holds them in the same order');
  t.ok(files.syncs <= 3, `one fdatasync per batch, not per record (${files.syncs} for 200)`);
  t.equal(wal.stats.records, 200);
  await wal.close();
});

t.test('an append is acknowledged only after an fdatasync that started after it was queued has returned', async (t) => {
  const dir = tempDataDir();
  const files = new CountingFiles(realFiles);
  let started = 0;
  let completed = 0;
  const orig = files.fdatasync.bind(files);
  files.fdatasync = async (fd: number) => {
    const mine = ++started;
    await orig(fd);
    completed = Math.max(completed, mine);
  };
  const { wal } = await openWal(dir, files);
  let violations = 0;
  const appends = [];
  for (let i = 0; i < 50; i++) {
    const startedAtAppend = started;
    appends.push(wal.appendRecord(record(wal.takeLsn())).then(() => { if (completed <= startedAtAppend) violations++; }));
    if (i % 7 === 0) await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(appends);
  t.equal(violations, 0, 'no append was acknowledged by an fdatasync that began before it');
  t.ok(started >= 2, `several batches were involved (${started})`);
  await wal.close();
});

t.test('a failed batch fails the queue behind it, leaves no partial bytes, and blocks appends until resetLsn', async (t) => {
  const dir = tempDataDir();
  const { wal, files } = await openWal(dir);
  for (let i = 0; i < 3; i++) await wal.appendRecord(record(wal.takeLsn()));
  const sizeBefore = fs.statSync(wal.segment.file).size;
  files.fail('fdatasync', 'EIO');
  const failing = [];
  for (let i = 0; i < 5; i++) failing.push(wal.appendRecord(record(wal.takeLsn())));
  const results = await Promise.allSettled(failing);
  t.ok(results.every((r) => r.status === 'rejected' && (r.reason as NodeJS.ErrnoException).code === 'EIO'), 'all five fail with EIO');
  t.equal(fs.statSync(wal.segment.file).size, sizeBefore, 'the written-but-unsynced batch was cut off');
  files.heal();
  await t.rejects(wal.appendRecord(record(99)), { code: 'EIO' }, 'refused, naming the failure, until the failed LSNs are given back');
  wal.resetLsn(4);
  t.equal(wal.takeLsn(), 4);
  await wal.appendRecord(record(4));
  t.same(lsnsInFile(wal.segment.file), [1, 2, 3, 4], 'the log goes on without a gap');
  await wal.close();
});

t.test('a failed write whose partial bytes cannot be cut at once is cut before the next batch', async (t) => {
  const dir = tempDataDir();
  const { wal, files } = await openWal(dir);
  await wal.appendRecord(record(wal.takeLsn()));
  // One byte of the next record lands, then the disk fails and ftruncate fails too.
  const inner = files.write.bind(files);
  let once = true;
  files.write = async (fd, buf, pos) => {
    if (once) {
      once = false;
      await inner(fd, buf.subarray(0, 1), pos);
      const e = new Error('ENOSPC') as NodeJS.ErrnoException;
      e.code = 'ENOSPC';
      throw e;
    }
    return inner(fd, buf, pos);
  };
  files.fail('ftruncate', 'EIO');
  await t.rejects(wal.appendRecord(record(wal.takeLsn())), { code: 'ENOSPC' });
  t.equal(fs.statSync(wal.segment.file).size, frame(encodeRecord(record(1))).length + 1, 'a stray byte is left');
  files.heal();
  wal.resetLsn(2);
  await wal.appendRecord(record(wal.takeLsn()));
  t.same(lsnsInFile(wal.segment.file), [1, 2], 'cut before the next write, so the log stays readable');
  await wal.close();
});
