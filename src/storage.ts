// Opening a data folder: take the lock, replay the log into a fresh state, and open the WAL
// for appending. On a brand-new folder the defaults become the first record.
import fs from 'node:fs';
import type { Logger } from './log.js';
import { applyRecord } from './state/apply.js';
import { defaultOps } from './state/defaults.js';
import { emptyState, type State } from './state/state.js';
import { acquireLock } from './wal/lock.js';
import { realFiles, type FileLayer } from './wal/file-layer.js';
import { listSegments, scanSegments, Wal } from './wal/wal.js';

export interface Storage {
  state: State;
  wal: Wal;
  release: () => void;
  replayed: { records: number; ms: number };
}

export interface StorageOptions {
  dataDir: string;
  sync: boolean;
  log: Logger;
  files?: FileLayer;
  clock?: () => Date;
}

export async function openStorage(opts: StorageOptions): Promise<Storage> {
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const release = acquireLock(opts.dataDir);
  try {
    const started = performance.now();
    const state = emptyState();
    const segments = listSegments(opts.dataDir);
    const scan = scanSegments(segments, (rec) => applyRecord(state, rec, false));
    if (scan.truncated) {
      opts.log.warn(scan.truncated, 'cut off a torn or damaged last record in the write-ahead log (it was never acknowledged)');
    }
    const wal = await Wal.open({ dir: opts.dataDir, sync: opts.sync, files: opts.files ?? realFiles, log: opts.log }, segments, scan);
    if (scan.lastLsn === 0) {
      const rec = { lsn: wal.takeLsn(), ops: defaultOps((opts.clock?.() ?? new Date()).toISOString()), events: [] };
      await wal.appendRecord(rec);
      applyRecord(state, rec, false);
    }
    const ms = performance.now() - started;
    return { state, wal, release, replayed: { records: scan.records, ms } };
  } catch (err) {
    release();
    throw err;
  }
}
