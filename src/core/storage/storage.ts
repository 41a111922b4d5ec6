// Opening a data folder: take the lock, rebuild the state (newest readable checkpoint + the
// WAL after it, see wal/recovery.ts) and open the WAL for appending. On a brand-new folder
// the defaults become the first record.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { applyRecord } from '../state/apply.js';
import { defaultOps } from '../state/defaults.js';
import type { State } from '../state/state.js';
import { acquireLock } from './lock.js';
import { DIR_MODE, realFiles, type FileLayer } from '../log/wal/file-layer.js';
import { recover } from './recovery.js';
import { Wal } from '../log/wal/wal.js';

export interface Storage {
  state: State;
  wal: Wal;
  files: FileLayer;
  dataDir: string;
  release: () => void;
  replayed: {
    /** WAL records replayed after the checkpoint. */
    records: number;
    /** Whole rebuild: checkpoint load plus replay. */
    ms: number;
    replayMs: number;
    checkpoint: { lsn: number; events: number; ms: number } | null;
  };
}

export interface StorageOptions {
  dataDir: string;
  sync: boolean;
  log: Logger;
  files?: FileLayer;
  clock?: () => Date;
}

/** A checkpoint left half-written by a crash: never loaded, so it is removed. */
const TEMP_RE = /^checkpoint-\d{16}\.ckpt\.tmp$/;

/** What a folder may hold and still be one no Fanion has used: a checkout's placeholder. */
const PLACEHOLDERS = new Set(['.gitkeep']);

/**
 * A folder Fanion is about to start using is made 0700, whoever created it: `./data` exists in a
 * fresh checkout already (its `.gitkeep` is tracked) with the checkout's mode, usually 0755, and
 * `mkdir` leaves an existing folder as it is. A folder that holds anything else was set up by
 * someone (a volume, a restored backup) and keeps its mode, with a warning if other users may
 * enter it (such as a ./data an older Fanion started using at 0755). One that cannot be changed
 * (owned by another user) is used as it is, with a warning.
 */
function tightenUnused(dir: string, log: Logger): void {
  const mode = fs.statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  if (!fs.readdirSync(dir).every((name) => PLACEHOLDERS.has(name))) {
    log.warn({ dataDir: dir, mode: mode.toString(8) }, 'the data folder is open to other users; it holds token hashes and the hash key (chmod 700 it unless that is meant)');
    return;
  }
  try {
    fs.chmodSync(dir, DIR_MODE);
    log.info({ dataDir: dir, was: mode.toString(8), now: DIR_MODE.toString(8) }, 'the data folder holds nothing yet: made readable by this user only');
  } catch (err) {
    log.warn({ dataDir: dir, mode: mode.toString(8), err: (err as Error).message }, 'the data folder is readable by others and its mode cannot be changed; it will hold token hashes and the hash key');
  }
}

export async function openStorage(opts: StorageOptions): Promise<Storage> {
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: DIR_MODE });
  tightenUnused(opts.dataDir, opts.log);
  const files = opts.files ?? realFiles;
  const release = acquireLock(opts.dataDir);
  try {
    const started = performance.now();
    for (const name of fs.readdirSync(opts.dataDir)) {
      if (TEMP_RE.test(name)) {
        opts.log.warn({ file: name }, 'removing a checkpoint that a crash left unfinished');
        fs.unlinkSync(path.join(opts.dataDir, name));
      }
    }
    const rec0 = recover(opts.dataDir);
    for (const s of rec0.skipped) {
      // Set aside rather than deleted: it may help a post-mortem, and it must not count as the
      // "previous checkpoint" the next checkpoint keeps.
      const aside = `${s.file}.corrupt`;
      fs.renameSync(s.file, aside);
      opts.log.error({ file: s.file, setAsideAs: aside, err: s.error }, 'checkpoint is damaged; started from the previous one and its write-ahead log');
    }
    const { state, scan } = rec0;
    if (scan.truncated) {
      opts.log.warn(scan.truncated, 'cut off a torn or damaged last record in the write-ahead log (it was never acknowledged)');
    }
    const wal = await Wal.open({ dir: opts.dataDir, sync: opts.sync, files, log: opts.log }, scan);
    if (scan.lastLsn === 0) {
      const rec = { lsn: wal.takeLsn(), ops: defaultOps((opts.clock?.() ?? new Date()).toISOString()), events: [] };
      await wal.appendRecord(rec);
      applyRecord(state, rec, false);
    }
    const ms = performance.now() - started;
    const checkpoint = rec0.checkpoint ? { lsn: rec0.checkpoint.lsn, events: rec0.checkpoint.events, ms: rec0.checkpoint.ms } : null;
    return { state, wal, files, dataDir: opts.dataDir, release, replayed: { records: scan.records, ms, replayMs: rec0.replayMs, checkpoint } };
  } catch (err) {
    release();
    throw err;
  }
}
