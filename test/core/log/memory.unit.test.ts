// The in-memory log through the log contract: writers share a MemoryTable, which fences them as the
// database fences a cluster's nodes, and which a test can make refuse writes or hold them.
import { decodeRecord } from '../../../src/core/log/record.js';
import { MemoryLog, MemoryTable } from '../../../src/core/log/memory.js';
import type { RecordLog } from '../../../src/core/log/record-log.js';
import { logContract } from './contract.js';

logContract({
  name: 'in-memory log',
  writers: 'fenced',
  writes: 'atomic',
  async store() {
    const table = new MemoryTable();
    const read = (after: number) => table.read(after).map((r) => decodeRecord(r.bytes));
    return {
      open: async () => new MemoryLog(table),
      read: async () => read(0),
      follow: (after, timeoutMs) => new Promise((resolve) => {
        if (table.last > after) return resolve(read(after));
        const done = () => {
          stop();
          clearTimeout(timer);
          resolve(read(after));
        };
        const stop = table.watch(done);
        const timer = setTimeout(done, timeoutMs);
      }),
      async breakWrites() {
        table.fail(new Error('ENOSPC'));
        return async () => table.heal();
      },
      // The table outlives its writers: a writer's in-flight write either lands or fails, as a
      // database's statement does when its client dies; the dead writer is never used again.
      crash: (log: RecordLog) => log.idle(),
      follower(log) {
        const m = log as MemoryLog;
        m.catchUp = async () => {
          for (const row of table.read(m.durableLsn)) {
            m.takeLsn();
            m.followed(row.lsn);
          }
          return true;
        };
      },
    };
  },
});
