// An engine over the in-memory log, for engine tests that need neither a disk nor a database: the
// state is the table's records replayed (what start-up does with a data folder or the cluster's
// table), the first record of an empty table is the defaults (as on a new data folder), and the
// clock and ids are fixed, so a replay must rebuild exactly the live state.
import { pino } from 'pino';
import { Engine } from '../../../src/core/engine/engine.js';
import { MemoryLog, MemoryTable } from '../../../src/core/log/memory.js';
import { decodeRecord } from '../../../src/core/log/record.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { defaultOps } from '../../../src/core/state/defaults.js';
import { dumpState } from '../../../src/core/state/dump.js';
import { emptyState, type State } from '../../../src/core/state/state.js';

export const actor = { name: 'tester', userId: null };
const silent = pino({ level: 'silent' });

/** The state the table's records rebuild, as a reopened store would. */
export function replay(table: MemoryTable): State {
  const state = emptyState();
  for (const row of table.read(0)) applyRecord(state, decodeRecord(row.bytes), false);
  return state;
}

export const snap = (state: State) => structuredClone(dumpState(state));

export interface OnMemory {
  engine: Engine;
  log: MemoryLog;
  table: MemoryTable;
}

/**
 * An engine writing to `table` (a new one by default). `follow`: records other writers of the table
 * stored are applied when this one is overtaken, as the cluster's follower does, and overtaken
 * commands are run again for `retryForMs`.
 */
export async function onMemory(opts: { table?: MemoryTable; follow?: boolean; name?: string } = {}): Promise<OnMemory> {
  const table = opts.table ?? new MemoryTable();
  const state = replay(table);
  const log = new MemoryLog(table, { retryForMs: opts.follow ? 2_000 : 0 });
  let ms = Date.parse('2026-01-01T00:00:00Z');
  let n = 0;
  const engine = new Engine({ state, log, logger: silent, clock: () => new Date((ms += 1000)), newId: () => `${opts.name ?? 'id'}-${++n}` });
  if (table.last === 0) {
    const rec = { lsn: log.takeLsn(), ops: defaultOps(new Date(ms).toISOString()), events: [] };
    await log.append(log.encode(rec), rec.lsn);
    applyRecord(state, rec, false);
  }
  if (opts.follow) {
    log.catchUp = () =>
      engine.atQuietPoint(async () => {
        for (const row of table.read(log.durableLsn)) {
          await engine.applyFollowed(decodeRecord(row.bytes));
          log.followed(row.lsn);
        }
        return true;
      });
  }
  return { engine, log, table };
}
