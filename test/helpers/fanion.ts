// A server's parts opened in-process through its composition (src/entry/embedded.ts), for tests that
// need the engine, the WAL or the checkpointer at hand: the same wiring as a real server, minus HTTP.
import type { FanionDeps } from '../../src/entry/core.js';
import { openServer, type ServerParts } from '../../src/entry/embedded.js';
import { loadConfig, type Config } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';

/** A server over a data folder: its storage and checkpointer are the folder's. */
export type Fanion = ServerParts;

/**
 * Settings for a test over `dataDir`: no fsync, no automatic checkpoints or metrics flushes, and
 * authentication off, unless `env` says otherwise; a fixed hash key, so no key file appears.
 */
export function testConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    DATA_DIR: dataDir, WAL_SYNC: 'none', AUTH_TYPE: 'none', CHECKPOINT_RECORDS: '0', CHECKPOINT_BYTES: '0', METRICS_FLUSH_MS: '0', PASSWORD_SCRYPT_LOG_N: '10',
    TOKEN_HASH_KEY: 'a-fixed-key-for-tests-only', LOG_LEVEL: 'silent', ...env,
  });
}

/** Opens `dataDir` with testConfig(dataDir, env) and the given edges (files, clock, ids, log). */
export async function openTestFanion(
  dataDir: string,
  env: Record<string, string> = {},
  deps: Partial<Omit<FanionDeps, 'config'>> = {},
): Promise<Fanion> {
  return openServer({ log: createLogger('silent'), ...deps, config: testConfig(dataDir, env) });
}
