// The PostgreSQL log through the log contract, on a throwaway server: every writer is a node of its
// own (its own pool) on one database per test; the primary key on seq fences them. A refused write
// is the server refusing the statement (a trigger raising an error, as a full disk or a broken
// constraint would); a crash is a node that stops, whose statement on its way commits or not.
import pg from 'pg';
import tap from 'tap';
import { pino } from 'pino';
import { PgLog } from '../../../src/core/log/postgres/pg-log.js';
import { readLogRecord } from '../../../src/core/log/postgres/records.js';
import type { RecordLog } from '../../../src/core/log/record-log.js';
import type { WalRecord } from '../../../src/core/log/record.js';
import { ensureSchema } from '../../../src/core/storage/postgres/schema.js';
import { postgresFor } from '../../helpers/postgres.js';
import { logContract } from './contract.js';

const silent = pino({ level: 'silent' });
const TIMEOUT_MS = 5_000;
const server = await postgresFor(tap);
let databases = 0;

if (server) {
  logContract({
    name: 'PostgreSQL log',
    writers: 'fenced',
    writes: 'atomic',
    async store(t) {
      const url = await server.createDatabase(`log_contract_${++databases}`);
      const reader = new pg.Pool({ connectionString: url, max: 2 });
      const pools: pg.Pool[] = [reader];
      t.teardown(async () => {
        for (const p of pools) await p.end().catch(() => {});
      });
      const keys = await ensureSchema((text, values) => reader.query(text, values));
      const rows = async (after: number) =>
        (await reader.query('SELECT seq, rec FROM fanion_log WHERE seq > $1 ORDER BY seq', [after])).rows as { seq: string; rec: Buffer }[];
      const read = async (after: number): Promise<WalRecord[]> => (await rows(after)).map((r) => readLogRecord(keys.logTable, Number(r.seq), r.rec));
      const nodes = new Map<RecordLog, pg.Pool>();
      return {
        // As a node joins (cluster.ts), without the state: after the last seq in the table.
        async open() {
          const pool = new pg.Pool({ connectionString: url, max: 4 });
          pools.push(pool);
          const last = Number((await pool.query('SELECT coalesce(max(seq), 0) AS last FROM fanion_log')).rows[0].last);
          const log = new PgLog({ pool, nodeId: `node-${pools.length}`, log: silent, timeoutMs: TIMEOUT_MS, channel: keys.channel }, last);
          nodes.set(log, pool);
          return log;
        },
        read: () => read(0),
        // A follower is woken by NOTIFY (sent by the append's own statement) and then reads.
        async follow(after, timeoutMs) {
          const listener = new pg.Client({ connectionString: url });
          await listener.connect();
          try {
            const woken = new Promise<void>((resolve) => {
              listener.on('notification', () => resolve());
              setTimeout(resolve, timeoutMs).unref();
            });
            await listener.query(`LISTEN ${keys.channel}`);
            const now = await read(after);
            if (now.length > 0) return now;
            await woken;
            return await read(after);
          } finally {
            await listener.end();
          }
        },
        async breakWrites() {
          await reader.query("CREATE OR REPLACE FUNCTION refuse_log() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'; END $$");
          await reader.query('CREATE TRIGGER refuse_log BEFORE INSERT ON fanion_log FOR EACH ROW EXECUTE FUNCTION refuse_log()');
          return async () => void (await reader.query('DROP TRIGGER refuse_log ON fanion_log'));
        },
        // The node stops; its statement already on its way commits or not, and it sends no more.
        async crash(log) {
          await log.idle();
          await nodes.get(log)!.end();
        },
        follower(log) {
          const node = log as PgLog;
          node.catchUp = async () => {
            for (const row of await rows(node.durableLsn)) {
              node.takeLsn();
              node.followed(Number(row.seq), row.rec);
            }
            return true;
          };
        },
      };
    },
  });
}
