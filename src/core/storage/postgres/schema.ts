// The cluster's tables. Created by whichever node starts first (under an advisory lock, so nodes
// starting together do not race on CREATE TABLE), never altered behind a running node.
//   fanion_log             one row per record: seq = its LSN, rec = its msgpack (wal/record.ts).
//                          The primary key is the fence: a node appends seq = last applied + 1,
//                          so a node that is behind inserts nothing (pg-log.ts) instead of
//                          committing a change computed on an old state.
//   fanion_checkpoint      one row per complete checkpoint (its seq, how many parts, bytes);
//   fanion_checkpoint_part its bytes (wal/checkpoint.ts's format), in parts of a few MB.
//   fanion_setting         the cluster's settings: the key that hashes API tokens, and the
//                          format version of these tables ('tables-format'; none: version 1,
//                          as Fanion 0.1.0 made them). A node refuses tables of a newer format.
import { CannotStartError, NewerFormatError } from '../../errors.js';
import { clusterKeys, type ClusterKeys } from '../../log/postgres/connect.js';

type Query = (text: string, values?: unknown[]) => Promise<{ rows: any[] }>;

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

/** The format of the tables this code makes and reads; raised only when their shapes or meaning change. */
export const TABLES_FORMAT = 1;
const TABLES_FORMAT_KEY = 'tables-format';

/**
 * The columns each table must have, with PostgreSQL's name of their type, and its primary key
 * (on fanion_log, the fence). A table of that name made by something else is refused at start-up,
 * naming what Fanion expects, rather than failing later on a statement that does not fit it.
 */
const SHAPES: Record<string, { columns: [string, string][]; key: string[] }> = {
  fanion_log: { columns: [['seq', 'bigint'], ['rec', 'bytea'], ['written_at', 'timestamp with time zone']], key: ['seq'] },
  fanion_checkpoint: {
    columns: [['seq', 'bigint'], ['parts', 'integer'], ['bytes', 'bigint'], ['written_by', 'text'], ['created_at', 'timestamp with time zone']],
    key: ['seq'],
  },
  fanion_checkpoint_part: { columns: [['seq', 'bigint'], ['part', 'integer'], ['data', 'bytea']], key: ['seq', 'part'] },
  fanion_setting: { columns: [['name', 'text'], ['value', 'text']], key: ['name'] },
};

/**
 * Creates the tables that do not exist yet, one node at a time, and checks that those that did are
 * Fanion's. Returns the cluster's keys (its locks and channel), which depend on the schema.
 */
export async function ensureSchema(query: Query): Promise<ClusterKeys> {
  const current = (await query('SELECT current_schema() AS name')).rows[0]?.name as string | null;
  if (!current) {
    throw new CannotStartError('no schema of the database user\'s search_path exists, so Fanion has nowhere to create its tables: create the schema, or set search_path (e.g. ?options=-c%20search_path%3Dfanion in DATABASE_URL)');
  }
  const keys = clusterKeys(current);
  await query('BEGIN');
  try {
    await query('SELECT pg_advisory_xact_lock($1)', [keys.locks.tables]);
    for (const ddl of SCHEMA) await query(ddl);
    // The format first: a newer Fanion's tables may have other shapes, and saying so is the
    // useful message. Reading it fails on a fanion_setting that is not Fanion's; the shapes then say why.
    await query('SAVEPOINT format');
    let unread: unknown = null;
    try {
      await checkFormat(query, current);
    } catch (err) {
      if (err instanceof CannotStartError) throw err;
      unread = err;
      await query('ROLLBACK TO SAVEPOINT format');
    }
    await checkShapes(query, current);
    if (unread) throw unread;
    await query('COMMIT');
  } catch (err) {
    await query('ROLLBACK').catch(() => {});
    throw err;
  }
  return keys;
}

/** Marks the tables with their format when they have none yet; refuses those of a newer format. */
async function checkFormat(query: Query, schema: string): Promise<void> {
  await query('INSERT INTO fanion_setting (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [TABLES_FORMAT_KEY, String(TABLES_FORMAT)]);
  const text = String((await query('SELECT value FROM fanion_setting WHERE name = $1', [TABLES_FORMAT_KEY])).rows[0]?.value ?? '');
  if (!/^[1-9][0-9]{0,8}$/.test(text)) {
    throw new CannotStartError(`the format version of the tables in ${schema} (fanion_setting '${TABLES_FORMAT_KEY}') is "${text.slice(0, 40)}", not a version number`);
  }
  const found = Number(text);
  if (found > TABLES_FORMAT) throw new NewerFormatError(`the tables in the schema ${schema}`, found, TABLES_FORMAT);
}

async function checkShapes(query: Query, schema: string): Promise<void> {
  const tables = Object.keys(SHAPES);
  const cols = await query(
    'SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2) ORDER BY ordinal_position',
    [schema, tables],
  );
  const keys = await query(
    `SELECT c.relname AS table_name, array_agg(a.attname::text ORDER BY k.ord) AS columns
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE i.indisprimary AND n.nspname = $1 AND c.relname = ANY($2) GROUP BY c.relname`,
    [schema, tables],
  );
  for (const [table, shape] of Object.entries(SHAPES)) {
    const found = cols.rows.filter((r) => r.table_name === table) as { column_name: string; data_type: string; is_nullable: string; column_default: string | null }[];
    const problems: string[] = [];
    for (const [name, type] of shape.columns) {
      const col = found.find((c) => c.column_name === name);
      if (!col) problems.push(`no column ${name}`);
      else if (col.data_type !== type) problems.push(`${name} is ${col.data_type}`);
    }
    // A column of its own that Fanion's INSERTs leave out must be allowed to stay empty.
    for (const c of found) {
      if (!shape.columns.some(([name]) => name === c.column_name) && c.is_nullable === 'NO' && c.column_default === null) problems.push(`an extra column ${c.column_name} that must be set`);
    }
    const key = (keys.rows.find((r) => r.table_name === table)?.columns ?? []) as string[];
    if (key.join(',') !== shape.key.join(',')) problems.push(key.length > 0 ? `its primary key is (${key.join(', ')})` : 'it has no primary key');
    if (problems.length > 0) {
      const expected = shape.columns.map(([name, type]) => `${name} ${type}`).join(', ');
      throw new CannotStartError(
        `the table ${schema}.${table} is not Fanion's (${problems.join('; ')}): Fanion expects the columns ${expected}, with the primary key (${shape.key.join(', ')}). ` +
          'Another program may use this name: give Fanion a schema of its own (search_path in DATABASE_URL) or another database',
      );
    }
  }
}
