// The first person: an Admin made at the first start (when no person has ever existed) from
// UNLEASH_DEFAULT_ADMIN_USERNAME and UNLEASH_DEFAULT_ADMIN_PASSWORD, Unleash's names. Unlike
// Unleash there is no built-in default password: without one, a password is generated and printed
// once, as the first admin token is (tokens/seed.ts). Never again after that: deleting every person
// does not bring this one back, and the variables do not reset a password later.
import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from '../../core/config.js';
import type { Change } from '../../core/engine/command.js';
import type { Engine } from '../../core/engine/engine.js';
import type { Logger } from '../../core/logger.js';
import type { Actor } from '../../core/state/types.js';
import { createPerson } from './logic.js';
import type { PasswordHasher } from './password-hasher.js';
import { passwordProblem } from './password-policy.js';

export const FIRST_ADMIN_ACTOR: Actor = { name: 'init-admin-user', userId: null };

/** Refuses a weak UNLEASH_DEFAULT_ADMIN_PASSWORD before anything is started: one line, naming the rule. */
export function checkDefaultAdminPassword(config: Config): void {
  if (config.signIn.defaultAdminPassword === undefined) return;
  const problem = passwordProblem(config.signIn.defaultAdminPassword);
  if (problem) throw new ConfigError(`UNLEASH_DEFAULT_ADMIN_PASSWORD is refused: ${problem.details?.[0]?.message ?? problem.message}`);
}

/**
 * With people in use (AUTH_TYPE=api-token) and no person ever made, makes the first Admin. Called
 * once the server listens, like the first admin token, so a start that fails before that prints
 * no password for a process that then died.
 */
export async function ensureFirstAdmin(opts: { engine: Engine; config: Config; passwords: PasswordHasher; log: Logger; announce?: (line: string) => void }): Promise<void> {
  const { engine, config, passwords, log } = opts;
  if (config.authType !== 'api-token' || engine.state.nextUserId !== 1) return;
  const login = config.signIn.defaultAdminUsername;
  const generated = config.signIn.defaultAdminPassword === undefined;
  const password = config.signIn.defaultAdminPassword ?? randomBytes(18).toString('base64url');
  const asEmail = login.includes('@');
  const create = createPerson({ name: 'Admin', email: asEmail ? login : null, username: asEmail ? null : login, rootRole: 'Admin' }, await passwords.hash(password));
  // Checked again inside the command: on a cluster another node starting at the same time may have
  // made the first person already, and then this one makes none and prints nothing.
  const made = await engine.run(FIRST_ADMIN_ACTOR, (state, env): Change<boolean> =>
    state.nextUserId !== 1 ? { ops: [], events: [], result: false } : { ...create(state, env), result: true },
  );
  if (!made) return;
  if (generated) {
    const announce = opts.announce ?? ((line: string) => void process.stderr.write(line + '\n'));
    // Printed once: otherwise nobody could sign in to a fresh server.
    announce(`FANION FIRST ADMIN (shown only this once, store it now): sign in as "${login}" with the password ${password}`);
    log.warn({ username: login }, 'no person existed: made the first Admin and printed its generated password once on standard error');
  } else {
    log.info({ username: login }, 'made the first Admin from UNLEASH_DEFAULT_ADMIN_USERNAME and UNLEASH_DEFAULT_ADMIN_PASSWORD');
  }
}
