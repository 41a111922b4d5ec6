// Start-up tokens: INIT_*_API_TOKENS, and a generated first admin token when there is no usable
// one. They go through the engine like any change, so they are in the WAL with their events.
import type { Config } from '../config.js';
import type { Engine } from '../engine/engine.js';
import type { Logger } from '../log.js';
import type { Actor, TokenType } from '../state/types.js';
import { generateToken, parseSeedToken, tokenPrefix } from './format.js';
import type { TokenHasher } from './hasher.js';
import { createToken, hasUsableAdminToken, normalizeProjects, type TokenSpec } from './logic.js';

export const SEED_ACTOR: Actor = { name: 'init-api-tokens', userId: null };

const SOURCES: { type: TokenType; variable: string; list: (c: Config) => string[] }[] = [
  { type: 'admin', variable: 'INIT_ADMIN_API_TOKENS', list: (c) => c.initAdminTokens },
  { type: 'client', variable: 'INIT_CLIENT_API_TOKENS/INIT_BACKEND_API_TOKENS', list: (c) => c.initClientTokens },
  { type: 'frontend', variable: 'INIT_FRONTEND_API_TOKENS', list: (c) => c.initFrontendTokens },
];

export interface SeedOptions {
  engine: Engine;
  config: Config;
  hasher: TokenHasher;
  log: Logger;
  /** Where the generated admin token is shown, once; stderr by default. */
  announce?: (line: string) => void;
}

export async function seedTokens(opts: SeedOptions): Promise<void> {
  const { engine, config, hasher, log } = opts;
  for (const source of SOURCES) {
    const tokens = source.list(config);
    for (let i = 0; i < tokens.length; i++) {
      // Errors name the variable and position, never the token itself.
      const where = `${source.variable} entry ${i + 1}`;
      const parsed = parseSeedToken(tokens[i]);
      if (!parsed) throw new Error(`${where} is not of the form <project>:<environment>.<secret>`);
      if (source.type !== 'admin' && (parsed.environment === '*' || parsed.project === '[]')) {
        throw new Error(`${where}: a ${source.type} token needs one environment and one project or "*"`);
      }
      if (parsed.project === '[]') throw new Error(`${where}: "[]" (several projects) cannot be seeded; use "*" or one project`);
      const hash = hasher.hash(tokens[i]);
      const state = engine.state;
      if (state.apiTokens.has(hash)) continue;
      if (state.revokedTokens.has(hash)) {
        log.warn({ source: where, scope: tokenPrefix([parsed.project], parsed.environment) }, 'a seeded API token was deleted (through the API, or with its project or environment); it stays deleted');
        continue;
      }
      const spec: TokenSpec = {
        tokenName: `init-${source.type}-token`,
        type: source.type,
        environment: parsed.environment,
        projects: normalizeProjects([parsed.project]),
        expiresAt: null,
      };
      try {
        await engine.run(SEED_ACTOR, createToken(spec, hash, tokenPrefix(spec.projects, spec.environment)));
      } catch (err) {
        throw new Error(`${where} could not be created: ${(err as Error).message}`);
      }
      log.info({ source: where, scope: tokenPrefix(spec.projects, spec.environment) }, 'created a seeded API token');
    }
  }
  if (config.authType === 'api-token' && !hasUsableAdminToken(engine.state, engine.now().toISOString())) {
    const secret = generateToken(['*'], '*');
    const spec: TokenSpec = { tokenName: 'generated-admin-token', type: 'admin', environment: '*', projects: ['*'], expiresAt: null };
    await engine.run(SEED_ACTOR, createToken(spec, hasher.hash(secret), tokenPrefix(['*'], '*')));
    const announce = opts.announce ?? ((line: string) => void process.stderr.write(line + '\n'));
    // The one place a secret is ever printed: otherwise a fresh server could not be used at all.
    announce(`FANION FIRST ADMIN TOKEN (shown only this once, store it now): ${secret}`);
    log.warn('no admin API token existed: generated one and printed it once on standard error');
  }
}
