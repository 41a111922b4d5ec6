// Shared set-up for the WAL unit tests: records, segment files, and an engine over a real
// data folder (in-process, so tests can reach the WAL and the checkpointer directly).
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import type { Engine } from '../../src/engine/engine.js';
import { createFeature, setEnvironmentEnabled } from '../../src/features/logic.js';
import type { Storage } from '../../src/storage/storage.js';
import { addStrategy } from '../../src/strategies/logic.js';
import type { Checkpointer } from '../../src/storage/checkpointer.js';
import { openTestFanion, type Fanion } from '../helpers/fanion.js';
import type { FileLayer } from '../../src/wal/file-layer.js';
import { frame } from '../../src/wal/frame.js';
import { encodeRecord, type WalRecord } from '../../src/wal/record.js';
import { segmentName } from '../../src/wal/scan.js';

export const silent = pino({ level: 'silent' });
export const actor = { name: 'tester', userId: null };

/** A record that sets one project, so replaying it is observable. */
export function record(lsn: number): WalRecord {
  return {
    lsn,
    ops: [{ o: 'project.put', project: { id: `p${lsn}`, name: `Project ${lsn}`, description: null, createdAt: '2026-01-01T00:00:00.000Z' } as any }],
    events: [],
  };
}

export function frames(from: number, to: number): Buffer {
  const out: Buffer[] = [];
  for (let lsn = from; lsn <= to; lsn++) out.push(frame(encodeRecord(record(lsn))));
  return Buffer.concat(out);
}

/** Writes a segment holding records from..to and returns its path. */
export function writeSegment(dir: string, from: number, to: number, extra: Buffer = Buffer.alloc(0)): string {
  const file = path.join(dir, segmentName(from));
  fs.writeFileSync(file, Buffer.concat([frames(from, to), extra]));
  return file;
}

/** Byte offset of the frame of record `lsn` in a segment that starts at `from`. */
export function offsetOf(from: number, lsn: number): number {
  return frames(from, lsn - 1).length;
}

export interface Opened {
  storage: Storage;
  engine: Engine;
  checkpointer: Checkpointer;
  close(): Promise<void>;
}

/** Opens `dataDir` through the composition root, with checkpoints every `everyRecords` records (0: never). */
export async function openEngine(dataDir: string, opts: { sync?: boolean; files?: FileLayer; everyRecords?: number } = {}): Promise<Opened> {
  let n = 0;
  let fanion: Fanion | undefined = undefined;
  fanion = await openTestFanion(
    dataDir,
    { WAL_SYNC: opts.sync ? 'always' : 'none', CHECKPOINT_RECORDS: String(opts.everyRecords ?? 0) },
    { files: opts.files, log: silent, checkpointRetryMs: 0, newId: () => `id-${fanion!.storage.wal.nextLsn}-${++n}` },
  );
  const { storage, engine, checkpointer, close } = fanion;
  return { storage, engine, checkpointer, close };
}

const where = (feature: string, environment = 'development') => ({ project: 'default', feature, environment });

/** A flag with a strategy, switched on: three records, three events. */
export async function addFlag(engine: Engine, name: string): Promise<void> {
  await engine.run(actor, createFeature('default', { name }));
  await engine.run(actor, addStrategy(where(name), { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: name } }));
  await engine.run(actor, setEnvironmentEnabled('default', name, 'development', true));
}
