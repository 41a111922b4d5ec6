// Opening a node of a cluster: connect to PostgreSQL (retrying for as long as it takes: a node may
// start before its database; but not for ever when the database refuses the settings), create the tables if this is the first node, rebuild the state from
// the newest checkpoint in the database and the log after it, and hand back the log the engine
// appends to. Once the engine exists, `attach` starts following the log and checkpointing.
// Nothing is written to DATA_DIR: a node's state is the database's.
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import type pg from 'pg';
import { ConfigError, type DatabaseConfig } from '../../config.js';
import type { Engine } from '../../engine/engine.js';
import type { Logger } from '../../logger.js';
import { applyRecord } from '../../state/apply.js';
import { defaultOps } from '../../state/defaults.js';
import { emptyState, type State } from '../../state/state.js';
import { encodeRecord } from '../../log/record.js';
import { CannotStartError } from '../../errors.js';
import { describe, openPool, pause, settingsFix, withClient, type ClusterKeys } from '../../log/postgres/connect.js';
import { LogBarrier } from './barrier.js';
import { Follower } from './follower.js';
import { loadNewestCheckpoint, PgCheckpointer } from './pg-checkpoints.js';
import { PgLog } from '../../log/postgres/pg-log.js';
import { readLogRecord, UnreadableRecordError } from '../../log/postgres/records.js';
import { ensureSchema } from './schema.js';

/** Records read per statement while replaying the log at start-up. */
const REPLAY_PAGE = 5_000;
/** How often a node reads the log when nothing woke it. */
export const FOLLOW_INTERVAL_MS = 1_000;
const HASH_KEY = 'token-hash-key';

export interface ClusterOptions {
  db: DatabaseConfig;
  log: Logger;
  /** TOKEN_HASH_KEY: when set, it wins over the cluster's key (it must then be the same on every node). */
  tokenHashKey: string | undefined;
  clock?: () => Date;
  /** Start-up gives up waiting for the database once this says so (the process is stopping). */
  stopping?: () => boolean;
}

export interface ClusterStorage {
  nodeId: string;
  /** Where the tables are: the role's current schema (search_path). */
  schema: string;
  pool: pg.Pool;
  state: State;
  log: PgLog;
  /** The key that hashes API tokens, the cluster's (kept in the database). */
  hashKey: Buffer;
  /** The cluster's advisory lock keys and NOTIFY channel (by the schema of its tables). */
  keys: ClusterKeys;
  replayed: {
    records: number;
    ms: number;
    replayMs: number;
    checkpoint: { lsn: number; events: number; ms: number } | null;
  };
  /** Starts following the log and checkpointing, for this engine. */
  attach(engine: Engine, opts: { checkpointRecords: number; onFellBehind: (message: string) => void }): { follower: Follower; checkpointer: PgCheckpointer; barrier: LogBarrier };
  close(): Promise<void>;
}

export async function openCluster(opts: ClusterOptions): Promise<ClusterStorage> {
  const { db, log } = opts;
  const nodeId = `${os.hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  const pool = openPool(db, 'fanion', log);
  try {
    const keys = await waitForDatabase(pool, db, log, opts.stopping ?? (() => false));
    const started = performance.now();
    // Loading reads megabytes per statement: a longer deadline than an append's.
    const loadTimeout = Math.max(db.timeoutMs, 60_000);
    const loaded = await withClient(pool, loadTimeout, async (query) => {
      const schema = String((await query('SELECT current_schema() AS schema')).rows[0]?.schema ?? '?');
      const hashKey = await clusterHashKey(query, opts.tokenHashKey);
      const checkpoint = await loadNewestCheckpoint(query, log);
      const state = checkpoint?.state ?? emptyState();
      const from = checkpoint?.lsn ?? 0;
      const t1 = performance.now();
      let last = await replay(query, state, from, keys.logTable);
      if (last === 0) {
        // A new cluster: the defaults are its first record, written by whichever node gets there first.
        const rec = { lsn: 1, ops: defaultOps((opts.clock?.() ?? new Date()).toISOString()), events: [] };
        await query('INSERT INTO fanion_log (seq, rec) VALUES (1, $1) ON CONFLICT (seq) DO NOTHING', [Buffer.from(encodeRecord(rec))]);
        last = await replay(query, state, 0, keys.logTable);
      }
      return { schema, hashKey, checkpoint, state, last, records: last - from, replayMs: performance.now() - t1 };
    });
    const pgLog = new PgLog({ pool, nodeId, log, timeoutMs: db.timeoutMs, channel: keys.channel }, loaded.last);
    const cp = loaded.checkpoint;
    const storage: ClusterStorage = {
      nodeId,
      schema: loaded.schema,
      pool,
      state: loaded.state,
      log: pgLog,
      hashKey: loaded.hashKey,
      keys,
      replayed: {
        records: loaded.records,
        ms: performance.now() - started,
        replayMs: loaded.replayMs,
        checkpoint: cp ? { lsn: cp.lsn, events: cp.events, ms: cp.ms } : null,
      },
      attach(engine, a) {
        const follower = new Follower({ pool, db, engine, log: pgLog, nodeId, logger: log, intervalMs: FOLLOW_INTERVAL_MS, onFellBehind: a.onFellBehind, keys });
        const checkpointer = new PgCheckpointer({
          engine, log: pgLog, pool, nodeId, logger: log, everyRecords: a.checkpointRecords, newest: cp?.lsn ?? 0, timeoutMs: Math.max(db.timeoutMs, 30_000), lockKey: keys.locks.checkpoint,
        });
        follower.start();
        const barrier = new LogBarrier({ pool, log: pgLog, follower, timeoutMs: db.timeoutMs });
        return { follower, checkpointer, barrier };
      },
      close: async () => {
        await pgLog.close();
        await pool.end();
      },
    };
    log.info({ node: nodeId, applied: loaded.last, database: db.label, schema: loaded.schema }, 'joined the cluster: following the database log');
    return storage;
  } catch (err) {
    await pool.end().catch(() => {});
    // A refusal past the wait (reading tables this role may not read): the same one line, exit 2.
    const fix = settingsFix(err);
    if (fix) throw new ConfigError(`the database ${db.label} refuses Fanion's settings (${describe(err)}): ${fix}`);
    throw err;
  }
}

/**
 * Waits for the database to answer (and creates the tables), logging while it does not; returns
 * the cluster's keys. Tables that are not Fanion's stop start-up at once: waiting would not help. A
 * database that answers but refuses the settings (settingsFix) is not waited for as if it were
 * away: that is logged as an error naming the fix, and after DATABASE_SETTINGS_RETRY_MS (a
 * grant or a database being created meanwhile is taken) start-up fails with a ConfigError (exit 2).
 */
async function waitForDatabase(pool: pg.Pool, db: DatabaseConfig, log: Logger, stopping: () => boolean): Promise<ClusterKeys> {
  let lastLogged = 0;
  let refusedSince: number | null = null;
  for (let attempt = 1; ; attempt++) {
    try {
      const keys = await withClient(pool, db.timeoutMs, (query) => ensureSchema(query));
      if (attempt > 1) log.info({ attempts: attempt }, 'the database answers');
      return keys;
    } catch (err) {
      if (err instanceof CannotStartError) throw err;
      if (stopping()) throw new Error(`stopped while waiting for the database (${describe(err)})`);
      const fix = settingsFix(err);
      if (fix) {
        refusedSince ??= Date.now();
        const left = refusedSince + db.settingsRetryMs - Date.now();
        if (left <= 0) throw new ConfigError(`the database ${db.label} refuses Fanion's settings (${describe(err)}): ${fix}`);
        if (lastLogged < refusedSince || Date.now() - lastLogged > 10_000) {
          lastLogged = Date.now();
          log.error({ err: describe(err), attempt, database: db.label, exitInMs: left }, `the database refuses Fanion's settings: ${fix}. Fanion exits (status 2) if this lasts DATABASE_SETTINGS_RETRY_MS`);
        }
        await pause(Math.min(5_000, 250 * attempt, left), stopping);
        continue;
      }
      refusedSince = null;
      if (Date.now() - lastLogged > 10_000) {
        lastLogged = Date.now();
        log.warn({ err: describe(err), attempt, database: db.label }, 'waiting for the database before starting (GET /ready answers 503 meanwhile)');
      }
      await pause(Math.min(5_000, 250 * attempt), stopping);
    }
  }
}

/** Applies the log after `from` to `state`, page by page; returns the last seq applied. */
async function replay(query: (text: string, values?: unknown[]) => Promise<pg.QueryResult>, state: State, from: number, table: string): Promise<number> {
  let last = from;
  for (;;) {
    const res = await query('SELECT seq, rec FROM fanion_log WHERE seq > $1 ORDER BY seq LIMIT $2', [last, REPLAY_PAGE]);
    for (const row of res.rows as { seq: string; rec: Buffer }[]) {
      const seq = Number(row.seq);
      if (seq !== last + 1) {
        throw new Error(`the database log jumps from record ${last} to ${seq}: the records between were pruned and no checkpoint covers them`);
      }
      const rec = readLogRecord(table, seq, row.rec);
      try {
        applyRecord(state, rec, false);
      } catch (err) {
        throw new UnreadableRecordError(seq, `record ${seq} in ${table} is not a Fanion record this version can apply: ${(err as Error).message}`);
      }
      last = seq;
    }
    if (res.rows.length < REPLAY_PAGE) return last;
  }
}

/** TOKEN_HASH_KEY when set; else the cluster's key, made by the first node that needs one. */
async function clusterHashKey(query: (text: string, values?: unknown[]) => Promise<pg.QueryResult>, configured: string | undefined): Promise<Buffer> {
  if (configured !== undefined) return Buffer.from(configured, 'utf8');
  await query('INSERT INTO fanion_setting (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [HASH_KEY, randomBytes(32).toString('hex')]);
  const res = await query('SELECT value FROM fanion_setting WHERE name = $1', [HASH_KEY]);
  const text = String(res.rows[0]?.value ?? '');
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error('the token hash key in the database (fanion_setting) is not a 64-digit hex key');
  return Buffer.from(text, 'hex');
}
