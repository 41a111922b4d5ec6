// Shared set-up for the WAL unit tests: records, segment files, and an engine over a real
// data folder (in-process, so tests can reach the WAL and the checkpointer directly).
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import type { Engine } from '../../../../src/core/engine/engine.js';
import { createFeature, setEnvironmentEnabled } from '../../../../src/concepts/features/logic.js';
import type { Storage } from '../../../../src/core/storage/storage.js';
import { addStrategy } from '../../../../src/concepts/strategies/logic.js';
import type { Checkpointer } from '../../../../src/core/storage/checkpointer.js';
import { openTestFanion, type Fanion } from '../../../helpers/fanion.js';
import type { FileLayer } from '../../../../src/core/log/wal/file-layer.js';
import { frame } from '../../../../src/core/log/wal/frame.js';
import { encodeRecord, type WalRecord } from '../../../../src/core/log/record.js';
import { segmentName } from '../../../../src/core/log/wal/scan.js';
import type { Op } from '../../../../src/core/state/ops.js';
import { storeEvent, type StoredEvent } from '../../../../src/core/state/events/stored.js';

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

/**
 * The first `bytes` bytes of the frame of a record like a large features-batch import's (a flag,
 * its environments, a strategy with a constraint and variants, and their events, over and over),
 * whose header claims more: what a crash in the middle of writing such a record leaves.
 */
export function tornImportFrame(lsn: number, bytes: number): Buffer {
  const ops: Op[] = [];
  const events: StoredEvent[] = [];
  const at = '2026-01-01T00:00:00.000Z';
  // About 1.3 KB of payload per flag; a few more than needed, so the cut falls inside the record.
  for (let i = 0; i < bytes / 1200 + 10; i++) {
    const name = `imported-flag-${i}`;
    ops.push({ o: 'feature.put', feature: { name, project: 'default', type: 'release', description: `Flag ${i} of a large import`, impressionData: false, stale: false, archived: false, archivedAt: null, createdAt: at, lastSeenAt: null, dependencies: [] } });
    for (const environment of ['development', 'production', 'staging']) {
      ops.push({ o: 'featureEnv.put', feature: name, env: { environment, enabled: i % 2 === 0, variants: [], lastSeenAt: null } });
    }
    const strategy = {
      id: `0b5e7c1e-0000-4000-8000-${String(i).padStart(12, '0')}`, featureName: name, projectId: 'default', environment: 'development', name: 'flexibleRollout',
      title: null, disabled: false, sortOrder: 0, constraints: [{ contextName: 'userId', operator: 'IN' as const, values: [`user-${i}`, `user-${i + 1}`], caseInsensitive: false, inverted: false }],
      parameters: { rollout: String(i % 101), stickiness: 'default', groupId: name }, variants: [{ name: 'blue', weight: 1000, weightType: 'variable' as const, stickiness: 'default' }],
      segments: [], createdAt: at, seq: i,
    };
    ops.push({ o: 'strategy.put', strategy });
    const base = { createdAt: at, createdBy: 'admin', createdByUserId: null, environment: null, project: 'default', featureName: name, preData: null, tags: null };
    events.push(storeEvent({ ...base, id: 2 * i + 1, type: 'feature-created', data: { name, type: 'release' } }));
    events.push(storeEvent({ ...base, id: 2 * i + 2, type: 'feature-strategy-add', environment: 'development', data: strategy }));
  }
  const whole = frame(encodeRecord({ lsn, ops, events }));
  if (whole.length <= bytes) throw new Error(`the record is only ${whole.length} bytes`);
  return whole.subarray(0, bytes);
}
