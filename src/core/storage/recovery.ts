// Rebuilding the state from a data folder: the newest checkpoint that reads back whole, then
// the WAL records after it. A damaged checkpoint is skipped in favour of the previous one
// (whose WAL the checkpointer keeps for exactly this); damage in the WAL itself is not
// skipped, because no older checkpoint can replace records that exist only there.
// Read-only: start-up (storage.ts) and `fanion verify` share it.
import { applyRecord } from '../state/apply.js';
import { emptyState, type State } from '../state/state.js';
import { CheckpointCorruptError, listCheckpoints, readCheckpoint, type CheckpointFile } from '../log/wal/checkpoint.js';
import { listSegments, scanSegments, WalCorruptError, type ScanResult, type Segment } from '../log/wal/scan.js';

export interface Recovered {
  state: State;
  /** The checkpoint the state was loaded from (null: replayed from record 1). */
  checkpoint: (CheckpointFile & { events: number; bytes: number; ms: number }) | null;
  /** Newer checkpoints that could not be read, newest first. */
  skipped: { file: string; lsn: number; error: string }[];
  /** All segments in the folder, and the scan of the ones replayed. */
  segments: Segment[];
  scan: ScanResult;
  replayMs: number;
}

/** The segments holding records after `lsn`: the one containing lsn + 1 and every later one. */
export function segmentsAfter(segments: Segment[], lsn: number): Segment[] {
  let from = 0;
  for (let i = 0; i < segments.length; i++) if (segments[i].firstLsn <= lsn + 1) from = i;
  return segments.slice(from);
}

function replay(state: State, segments: Segment[], afterLsn: number): ScanResult {
  return scanSegments(
    segments,
    (rec) => {
      try {
        applyRecord(state, rec, false);
      } catch (err) {
        throw new WalCorruptError(`record ${rec.lsn} cannot be applied to the state: ${(err as Error).message}`);
      }
    },
    { afterLsn },
  );
}

export function recover(dir: string): Recovered {
  const segments = listSegments(dir);
  const checkpoints = listCheckpoints(dir).reverse();
  const skipped: Recovered['skipped'] = [];
  for (const c of checkpoints) {
    const t0 = performance.now();
    let loaded;
    try {
      loaded = readCheckpoint(c.file);
      if (loaded.lsn !== c.lsn) throw new CheckpointCorruptError(c.file, 0, `covers record ${loaded.lsn}, but its name says ${c.lsn}`);
    } catch (err) {
      if (!(err instanceof CheckpointCorruptError)) throw err;
      skipped.push({ file: c.file, lsn: c.lsn, error: err.message });
      continue;
    }
    const loadMs = performance.now() - t0;
    const t1 = performance.now();
    const scan = replay(loaded.state, segmentsAfter(segments, c.lsn), c.lsn);
    return {
      state: loaded.state,
      checkpoint: { ...c, events: loaded.events, bytes: loaded.bytes, ms: loadMs },
      skipped,
      segments,
      scan,
      replayMs: performance.now() - t1,
    };
  }
  if (checkpoints.length > 0 && segments[0]?.firstLsn !== 1) {
    throw new WalCorruptError(
      `no checkpoint in ${dir} can be read (${skipped.map((s) => s.error).join('; ')}) and the write-ahead log no longer ` +
        `starts at record 1, so the state cannot be rebuilt. Restore the folder from a backup.`,
    );
  }
  const state = emptyState();
  const t1 = performance.now();
  const scan = replay(state, segments, 0);
  return { state, checkpoint: null, skipped, segments, scan, replayMs: performance.now() - t1 };
}
