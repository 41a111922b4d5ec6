// `fanion migrate`, wired: take the data folder (its lock: a Fanion running on it makes this
// refuse), refuse one that already holds data unless told to merge, read the whole Unleash,
// check it with the schemas every import meets, hash the tokens' secrets, and write it all as
// one change, hence one WAL record: a run stopped at any point leaves the folder as it was.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { FanionError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { SchemaRegistry } from '../../http/validation.js';
import { Engine } from '../../core/engine/engine.js';
import { migrateFromUnleash, MIGRATE_ACTOR, type MigrationResult } from './command.js';
import { migrationDocument, whereIs, type MigrationDocument } from './mapping.js';
import { MigrationError, normalizeUrl, readUnleash, type ReadLimits } from './reader.js';
import { unleashAnswers } from './unleash-answers.js';
import { stateSchemas } from '../../concepts/state-io/schema.js';
import type { State } from '../../core/state/state.js';
import { openStorage, type Storage } from '../../core/storage/storage.js';
import { tokenPrefix } from '../../concepts/tokens/format.js';
import { loadHashKey } from '../../concepts/tokens/hash-key.js';
import { TokenHasher } from '../../concepts/tokens/hasher.js';
import { DIR_MODE } from '../../core/log/wal/file-layer.js';

export { MigrationError };

export interface MigrateOptions {
  from: string;
  token: string;
  dataDir: string;
  merge: boolean;
  v2Secrets: string[];
  tokenHashKey: string | undefined;
  sync: boolean;
  log: Logger;
  /** Progress and the report, one line at a time. */
  say: (line: string) => void;
  limits?: Partial<ReadLimits>;
}

export interface MigrationReport {
  counts: Record<string, number>;
  result: MigrationResult;
  left: string[];
  readMs: number;
  totalMs: number;
}

/** Nothing was ever done in it: only Fanion's defaults (a fresh folder, or one whose only run was killed). */
function holdsData(state: State): string | null {
  if (state.events.size === 0 && state.apiTokens.size === 0 && state.revokedTokens.size === 0) return null;
  return `${state.features.size} flag(s), ${state.apiTokens.size} API token(s), ${state.events.size} event(s)`;
}

function counts(doc: MigrationDocument): Record<string, number> {
  const s = doc.state;
  const archived = (s.features ?? []).filter((f) => f.archived).length;
  return {
    projects: s.projects?.length ?? 0,
    environments: s.environments?.length ?? 0,
    flags: (s.features?.length ?? 0) - archived,
    'archived flags': archived,
    strategies: s.featureStrategies?.length ?? 0,
    segments: s.segments?.length ?? 0,
    'strategy types': (s.strategies ?? []).filter((t) => t.editable !== false).length,
    'context fields': doc.contextFields.length,
    'tag types': s.tagTypes?.length ?? 0,
    tags: s.tags?.length ?? 0,
    'API tokens': doc.tokens.length,
  };
}

export async function migrate(opts: MigrateOptions): Promise<MigrationReport> {
  const started = performance.now();
  const { say } = opts;
  const from = normalizeUrl(opts.from);
  // A folder made for this run goes again if the run fails (an unreachable Unleash, a refusal):
  // nothing is left behind that the next try, or the server, would take for a data folder.
  const created = fs.mkdirSync(opts.dataDir, { recursive: true, mode: DIR_MODE });
  let storage: Storage;
  try {
    storage = await openStorage({ dataDir: opts.dataDir, sync: opts.sync, log: opts.log });
  } catch (err) {
    if (created) fs.rmSync(created, { recursive: true, force: true });
    throw err;
  }
  let done = false;
  try {
    const existing = holdsData(storage.state);
    if (existing !== null && !opts.merge) {
      throw new MigrationError(
        `the data folder ${opts.dataDir} already holds data (${existing}); add --merge to bring Unleash's data into it ` +
          "(what both have takes Unleash's version), or give an empty folder with --data",
      );
    }
    const schemas = new SchemaRegistry();
    schemas.addAll(unleashAnswers);
    schemas.addAll(stateSchemas);
    const snapshot = await readUnleash({ url: from, token: opts.token, check: (schema, data) => schemas.check(schema, data), progress: say, limits: opts.limits });
    const readMs = performance.now() - started;
    const doc = migrationDocument(snapshot, { v2Secrets: opts.v2Secrets });
    try {
      schemas.check(stateSchemas.stateSchema, doc.state);
    } catch (err) {
      throw refused(doc, err);
    }
    const hasher = new TokenHasher(await loadHashKey(opts.dataDir, opts.tokenHashKey, opts.log));
    const tokens = doc.tokens.map((t) => ({
      hash: hasher.hash(t.secret), prefix: tokenPrefix(t.projects, t.environment), tokenName: t.tokenName, type: t.type, environment: t.environment,
      projects: t.projects, expiresAt: t.expiresAt, createdAt: t.createdAt,
    }));
    const engine = new Engine({ state: storage.state, log: storage.wal, logger: opts.log });
    say('writing it all as one change…');
    let result: MigrationResult;
    try {
      result = await engine.runInSlices(MIGRATE_ACTOR, migrateFromUnleash({ state: doc.state, contextFields: doc.contextFields, tokens }));
    } catch (err) {
      throw refused(doc, err);
    }
    done = true;
    return { counts: counts(doc), result, left: doc.left, readMs, totalMs: performance.now() - started };
  } finally {
    await storage.wal.close();
    storage.release();
    if (!done && created) fs.rmSync(created, { recursive: true, force: true });
  }
}

/** A refusal of the data (by a schema or the import) as one line naming the Unleash item. */
function refused(doc: MigrationDocument, err: unknown): Error {
  if (!(err instanceof FanionError) || err.status >= 500) return err as Error;
  const detail = err.details?.[0];
  const where = detail?.path ? whereIs(doc, detail.path) : null;
  const what = detail?.message ?? err.message;
  return new MigrationError(`Fanion cannot store what Unleash holds${where ? ` (${where})` : ''}: ${what}; nothing was written`);
}
