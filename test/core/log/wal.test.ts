// The embedded write-ahead log through the log contract: one writer per data folder (the lock is its
// fencing), and a crash may tear the last record, which reopening cuts off. Each writer's file
// operations can be failed (a full disk) or frozen (its process died mid-write).
import fs from 'node:fs';
import type { Test } from 'tap';
import { pino } from 'pino';
import { acquireLock } from '../../../src/core/storage/lock.js';
import { FaultyFiles, realFiles, type FileLayer } from '../../../src/core/log/wal/file-layer.js';
import { frame } from '../../../src/core/log/wal/frame.js';
import { encodeRecord, type WalRecord } from '../../../src/core/log/record.js';
import { listSegments, scanSegments } from '../../../src/core/log/wal/scan.js';
import { Wal } from '../../../src/core/log/wal/wal.js';
import type { RecordLog } from '../../../src/core/log/record-log.js';
import { tempDataDir } from '../../helpers/server.js';
import { logContract, record } from './contract.js';

const silent = pino({ level: 'silent' });

/** FaultyFiles that can also stop for good: every operation after `freeze` never completes. */
class FreezableFiles extends FaultyFiles {
  private frozen = false;
  constructor(inner: FileLayer = realFiles) {
    super(inner);
    for (const step of ['open', 'write', 'writeLarge', 'fdatasync', 'fsync', 'ftruncate', 'close', 'rename', 'unlink', 'syncDir'] as const) {
      const op = (this[step] as (...a: unknown[]) => Promise<unknown>).bind(this);
      (this as Record<string, unknown>)[step] = (...args: unknown[]) => (this.frozen ? new Promise(() => {}) : op(...args));
    }
  }
  freeze(): void {
    this.frozen = true;
  }
}

function readAll(dir: string): WalRecord[] {
  const out: WalRecord[] = [];
  scanSegments(listSegments(dir), (rec) => void out.push(rec));
  return out;
}

logContract({
  name: 'write-ahead log',
  writers: 'exclusive',
  writes: 'may-tear',
  async store(t: Test) {
    const dir = tempDataDir();
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const writers = new Map<RecordLog, { files: FreezableFiles; release: () => void }>();
    let current: FreezableFiles | null = null;
    return {
      // As start-up opens a data folder (storage.ts), without the state: the lock, the scan, the WAL.
      async open() {
        const release = acquireLock(dir);
        const files = new FreezableFiles();
        const wal = await Wal.open({ dir, sync: true, files, log: silent }, scanSegments(listSegments(dir), () => {}));
        const close = wal.close.bind(wal);
        wal.close = async () => {
          await close();
          release();
        };
        writers.set(wal, { files, release });
        current = files;
        return wal;
      },
      read: async () => readAll(dir),
      // Nothing wakes a reader of a folder: it reads again until there is more.
      async follow(after, timeoutMs) {
        const until = Date.now() + timeoutMs;
        for (;;) {
          const found = readAll(dir).filter((r) => r.lsn > after);
          if (found.length > 0 || Date.now() >= until) return found;
          await new Promise((r) => setTimeout(r, 5));
        }
      },
      async breakWrites() {
        const files = current!;
        files.fail('write', 'ENOSPC');
        return async () => files.heal();
      },
      async crash(log) {
        const w = writers.get(log)!;
        w.files.freeze();
        // The kernel drops a dead process's lock.
        w.release();
      },
      async tear(lsn) {
        const segments = listSegments(dir);
        const whole = frame(encodeRecord(record(lsn, 'torn')));
        fs.appendFileSync(segments[segments.length - 1].file, whole.subarray(0, whole.length >> 1));
      },
    };
  },
});
