// The cluster's tables. Created by whichever node starts first (under an advisory lock, so nodes
// starting together do not race on CREATE TABLE), never altered behind a running node.
//   fanion_log             one row per record: seq = its LSN, rec = its msgpack (wal/record.ts).
//                          The primary key is the fence: a node appends seq = last applied + 1,
//                          so a node that is behind inserts nothing (pg-log.ts) instead of
//                          committing a change computed on an old state.
//   fanion_checkpoint      one row per complete checkpoint (its seq, how many parts, bytes);
//   fanion_checkpoint_part its bytes (wal/checkpoint.ts's format), in parts of a few MB.
//   fanion_setting         the cluster's settings: the key that hashes API tokens.
import { LOCK } from './connect.js';

export const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS fanion_log (
     seq bigint PRIMARY KEY,
     rec bytea NOT NULL,
     written_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE TABLE IF NOT EXISTS fanion_checkpoint (
     seq bigint PRIMARY KEY,
     parts integer NOT NULL,
     bytes bigint NOT NULL,
     written_by text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE TABLE IF NOT EXISTS fanion_checkpoint_part (
     seq bigint NOT NULL,
     part integer NOT NULL,
     data bytea NOT NULL,
     PRIMARY KEY (seq, part))`,
  `CREATE TABLE IF NOT EXISTS fanion_setting (
     name text PRIMARY KEY,
     value text NOT NULL)`,
];

/** Creates the tables that do not exist yet, one node at a time. */
export async function ensureSchema(query: (text: string, values?: unknown[]) => Promise<unknown>): Promise<void> {
  await query('BEGIN');
  try {
    await query('SELECT pg_advisory_xact_lock($1)', [LOCK.schema]);
    for (const ddl of SCHEMA) await query(ddl);
    await query('COMMIT');
  } catch (err) {
    await query('ROLLBACK').catch(() => {});
    throw err;
  }
}
