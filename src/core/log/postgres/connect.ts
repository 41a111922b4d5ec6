// Connections to the cluster's PostgreSQL, through node-postgres (`pg`): a pool for appends, reads
// and checkpoints, and single sessions where a session matters (LISTEN, the webhook leader's
// advisory lock). Every statement has a deadline (DATABASE_TIMEOUT_MS), so a database that stops
// answering (a cut cable, a half-open connection) turns into a 503 instead of a request that hangs.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { DatabaseConfig } from '../../config.js';
import type { Logger } from '../../logger.js';

/** Records read per statement while following (and returned by an append that was overtaken). */
export const READ_PAGE = 1000;

/**
 * What one cluster shares with no other in the same database. Advisory locks and NOTIFY channels
 * are per database, not per schema: two clusters in one database (one schema each) with fixed keys
 * took each other's locks (the second never led webhooks) and woke each other. So each key is a
 * hash of the schema holding the cluster's tables and of what the lock is for.
 */
export interface ClusterKeys {
  /** The schema of the tables (the first of the search_path that exists), for messages. */
  schema: string;
  /** The advisory lock keys (pg_advisory_*: a signed 64-bit integer, as text). */
  locks: { tables: string; checkpoint: string; webhooks: string };
  /** The channel NOTIFY wakes followers on: payload `<node id> <last seq>`. */
  channel: string;
  /** fanion_log, named with its schema for messages. */
  logTable: string;
}

export function clusterKeys(schema: string): ClusterKeys {
  const digest = (purpose: string) => createHash('sha256').update(`fanion\0${schema}\0${purpose}`).digest();
  const lock = (purpose: string) => digest(purpose).readBigInt64BE(0).toString();
  return {
    schema,
    locks: { tables: lock('tables'), checkpoint: lock('checkpoint'), webhooks: lock('webhooks') },
    // An identifier of at most 63 bytes whatever the schema's name (lower case: LISTEN folds it).
    channel: `fanion_log_${digest('channel').toString('hex').slice(0, 16)}`,
    logTable: `${schema}.fanion_log`,
  };
}

/** node-postgres' settings for `db`, with the deadlines Fanion needs. */
export function clientConfig(db: DatabaseConfig, name: string): pg.ClientConfig {
  return {
    connectionString: db.connectionString,
    host: db.host,
    port: db.port,
    database: db.database,
    user: db.user,
    password: db.password,
    ssl: db.ssl as pg.ClientConfig['ssl'],
    connectionTimeoutMillis: db.timeoutMs,
    // The server gives up on a statement too, so one whose client is gone does not hold locks.
    statement_timeout: db.timeoutMs * 2,
    idle_in_transaction_session_timeout: db.timeoutMs * 4,
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
    application_name: name,
  };
}

export function openPool(db: DatabaseConfig, name: string, log: Logger): pg.Pool {
  const pool = new pg.Pool({ ...clientConfig(db, name), max: db.poolMax, idleTimeoutMillis: 30_000 });
  // An idle connection that breaks emits here; without a listener it would end the process.
  pool.on('error', (err) => log.warn({ err: err.message }, 'a pooled database connection failed; it is replaced'));
  return pool;
}

/** The server answered with an error: the statement did not take effect (it was rolled back). */
export function isServerError(err: unknown): err is pg.DatabaseError {
  return err instanceof pg.DatabaseError;
}

/** Another writer already holds this place in the log (unique violation on the sequence). */
export function isConflict(err: unknown): boolean {
  return isServerError(err) && err.code === '23505';
}

/**
 * PostgreSQL's refusals that waiting does not heal, by SQLSTATE: what the operator must change.
 * (A database that is down, starting or unreachable answers otherwise, and is waited for.)
 */
const SETTINGS_FIXES: Record<string, string> = {
  '28P01': 'the password is wrong: set DATABASE_PASSWORD (or the password in DATABASE_URL) to the role\'s password',
  '28000': 'PostgreSQL does not let this role in from here (no such role, or no pg_hba.conf line for it): check DATABASE_USERNAME (or the user in DATABASE_URL) and pg_hba.conf',
  '3D000': 'the database does not exist: CREATE DATABASE it (owned by the role Fanion uses), or fix DATABASE_NAME (or the database in DATABASE_URL)',
  '42501': 'the role lacks a privilege Fanion needs to create its tables and read and write them: GRANT CREATE, USAGE ON SCHEMA <the schema Fanion uses: the first of the role\'s search_path, public by default> TO the role, and SELECT, INSERT, DELETE on its fanion_ tables (docs/runbooks.md has the statements)',
};

/** The fix for a refusal of the settings (wrong password, missing privilege or database), or null. */
export function settingsFix(err: unknown): string | null {
  return isServerError(err) ? SETTINGS_FIXES[err.code ?? ''] ?? null : null;
}

/** What a person reads of a database error: its code and message, never the connection settings. */
export function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { code?: string };
  if (isServerError(err)) return `${err.code}: ${err.message}`;
  return e.code ? `${e.code}: ${e.message}` : e.message ?? String(err);
}

/**
 * Runs `fn` on a connection of `pool`, with `timeoutMs` as the deadline of each statement it runs
 * through the `query` it is given. A connection whose statement failed other than by a server
 * error is destroyed rather than reused (it may be half-open or mid-statement).
 */
export async function withClient<T>(
  pool: pg.Pool,
  timeoutMs: number,
  fn: (query: (text: string, values?: unknown[]) => Promise<pg.QueryResult>) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A checked-out connection that breaks emits 'error' besides failing its statement: the pool
  // listens only to idle ones, and an 'error' nobody listens to ends the process.
  const onError = (err: Error) => (broken ??= err);
  client.on('error', onError);
  try {
    return await fn(async (text, values) => {
      try {
        return await client.query({ text, values, query_timeout: timeoutMs } as pg.QueryConfig);
      } catch (err) {
        if (!isServerError(err)) broken = err as Error;
        throw err;
      }
    });
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/** Ends a session at once: a half-open connection's end() would wait for an answer that never comes. */
export function destroyClient(c: pg.Client): void {
  (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  c.end().catch(() => {});
}

/** Sleeps `ms`, unless `stop` says to give up first (checked every 100 ms). */
export async function pause(ms: number, stop: () => boolean = () => false): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until && !stop()) await new Promise((r) => setTimeout(r, Math.min(100, until - Date.now())));
}
