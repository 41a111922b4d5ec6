// Start-up tokens: INIT_*_API_TOKENS, and a generated first admin token when there is no usable
// one. They go through the engine like any change, so they are in the WAL with their events.
import { ConfigError, type Config } from '../../core/config.js';
import type { Change } from '../../core/engine/command.js';
import type { Engine } from '../../core/engine/engine.js';
import type { Logger } from '../../core/logger.js';
import type { Actor, TokenType } from '../../core/state/types.js';
import { generateToken, parseSeedToken, tokenPrefix } from './format.js';
import type { TokenHasher } from './hasher.js';
import { createToken, hasUsableAdminToken, normalizeProjects, type TokenSpec } from './logic.js';

export const SEED_ACTOR: Actor = { name: 'init-api-tokens', userId: null };

const SOURCES: { type: TokenType; variable: string; list: (c: Config) => string[] }[] = [
  { type: 'admin', variable: 'INIT_ADMIN_API_TOKENS', list: (c) => c.initTokens.admin },
  { type: 'client', variable: 'INIT_CLIENT_API_TOKENS/INIT_BACKEND_API_TOKENS', list: (c) => c.initTokens.client },
  { type: 'frontend', variable: 'INIT_FRONTEND_API_TOKENS', list: (c) => c.initTokens.frontend },
];

export interface SeedOptions {
  engine: Engine;
  config: Config;
  hasher: TokenHasher;
  log: Logger;
  /** Where the generated admin token is shown, once; stderr by default. */
  announce?: (line: string) => void;
}

/** A seeded token as the environment spells it, checked. */
interface SeedEntry {
  where: string;
  type: TokenType;
  raw: string;
  project: string;
  environment: string;
}

/**
 * Checks every INIT_*_API_TOKENS entry before any is stored, so a bad entry leaves nothing
 * half-seeded. Errors name the variable and position, never the token itself.
 */
export function checkSeedTokens(config: Config): SeedEntry[] {
  const entries: SeedEntry[] = [];
  for (const source of SOURCES) {
    const tokens = source.list(config);
    for (let i = 0; i < tokens.length; i++) {
      const where = `${source.variable} entry ${i + 1}`;
      const parsed = parseSeedToken(tokens[i]);
      if (!parsed) throw new ConfigError(`${where} is not of the form <project>:<environment>.<secret>`);
      if (source.type !== 'admin' && (parsed.environment === '*' || parsed.project === '[]')) {
        throw new ConfigError(`${where}: a ${source.type} token needs one environment and one project or "*"`);
      }
      if (parsed.project === '[]') throw new ConfigError(`${where}: "[]" (several projects) cannot be seeded; use "*" or one project`);
      entries.push({ where, type: source.type, raw: tokens[i], project: parsed.project, environment: parsed.environment });
    }
  }
  return entries;
}

/**
 * Stores the seeded tokens that are new, in one change: either all of them are stored or, if one
 * cannot be (its project or environment does not exist), none is and start-up fails naming it.
 */
export async function seedTokens(opts: SeedOptions): Promise<void> {
  const { engine, config, hasher, log } = opts;
  const state = engine.state;
  const creations: { entry: SeedEntry; spec: TokenSpec; hash: string }[] = [];
  const seen = new Set<string>();
  for (const entry of checkSeedTokens(config)) {
    const hash = hasher.hash(entry.raw);
    if (state.apiTokens.has(hash) || seen.has(hash)) continue;
    seen.add(hash);
    if (state.revokedTokens.has(hash)) {
      log.warn({ source: entry.where, scope: tokenPrefix([entry.project], entry.environment) }, 'a seeded API token was deleted (through the API, or with its project or environment); it stays deleted');
      continue;
    }
    const spec: TokenSpec = {
      tokenName: `init-${entry.type}-token`,
      type: entry.type,
      environment: entry.environment,
      projects: normalizeProjects([entry.project]),
      expiresAt: null,
    };
    creations.push({ entry, spec, hash });
  }
  if (creations.length === 0) return;
  await engine.run(SEED_ACTOR, (s, ctx) => {
    const result: Change<null> = { ops: [], events: [], result: null };
    for (const { entry, spec, hash } of creations) {
      // On a cluster, nodes starting together seed the same tokens: the command runs again on the
      // state another node's seeding made, where those already exist (or were deleted since).
      if (s.apiTokens.has(hash) || s.revokedTokens.has(hash)) continue;
      try {
        const one = createToken(spec, hash, tokenPrefix(spec.projects, spec.environment))(s, ctx);
        result.ops.push(...one.ops);
        result.events.push(...one.events);
      } catch (err) {
        throw new ConfigError(`${entry.where} could not be created: ${(err as Error).message}`);
      }
    }
    return result;
  });
  for (const { entry, spec } of creations) {
    log.info({ source: entry.where, scope: tokenPrefix(spec.projects, spec.environment) }, 'created a seeded API token');
  }
}

/**
 * With token auth and no usable admin token, creates one and prints it once. Called only once
 * the server listens: a start that fails before that (port in use) must not leave a data folder
 * whose only admin token was printed by a process that then died.
 */
export async function ensureFirstAdminToken(opts: SeedOptions): Promise<void> {
  const { engine, config, hasher, log } = opts;
  if (config.authType !== 'api-token' || hasUsableAdminToken(engine.state, engine.now().toISOString())) return;
  const secret = generateToken(['*'], '*');
  const spec: TokenSpec = { tokenName: 'generated-admin-token', type: 'admin', environment: '*', projects: ['*'], expiresAt: null };
  const create = createToken(spec, hasher.hash(secret), tokenPrefix(['*'], '*'));
  // Checked again inside the command: on a cluster another node starting at the same time may
  // have made one first, and then this one makes none and prints nothing.
  const made = await engine.run(SEED_ACTOR, (state, env): Change<boolean> =>
    hasUsableAdminToken(state, env.now) ? { ops: [], events: [], result: false } : { ...create(state, env), result: true },
  );
  if (!made) return;
  const announce = opts.announce ?? ((line: string) => void process.stderr.write(line + '\n'));
  // The one place a secret is ever printed: otherwise a fresh server could not be used at all.
  announce(`FANION FIRST ADMIN TOKEN (shown only this once, store it now): ${secret}`);
  log.warn('no admin API token existed: generated one and printed it once on standard error');
}
