// A real Unleash 8.2 for tests (scripts/unleash/: PostgreSQL and unleash-server on loopback,
// installed on first use; UNLEASH_START_SCRIPT points elsewhere). start.sh is idempotent and
// locked, so test files can call it at once. Other tests and people may use the same instance at
// the same time: callers never stop or reset it, and name what they create with a prefix of their
// own. Where it cannot run (not root and no PostgreSQL) a test is skipped with one line, and fails
// under CI=true.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './server.js';

const run = promisify(execFile);
export const UNLEASH_SCRIPTS = path.join(ROOT, 'scripts/unleash');
const SCRIPT = process.env.UNLEASH_START_SCRIPT ?? path.join(UNLEASH_SCRIPTS, 'start.sh');

/** Under CI a test that needs Unleash fails instead of skipping. */
export const MUST_RUN = process.env.CI === 'true' || process.env.CI === '1';

export interface RealUnleash {
  url: string;
  adminToken: string;
  /** Every assignment start.sh printed (UNLEASH_CLIENT_TOKEN, …). */
  vars: Map<string, string>;
}

/** Why start.sh cannot run here (no script, or not root and no PostgreSQL to run as this user), or null. */
export function cannotRunUnleash(): string | null {
  if (!fs.existsSync(SCRIPT)) return `${SCRIPT} not found (set UNLEASH_START_SCRIPT)`;
  if (process.getuid?.() === 0) return null;
  const pgDirs = fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql') : [];
  const hasPg = pgDirs.some((v) => fs.existsSync(`/usr/lib/postgresql/${v}/bin/initdb`)) || (process.env.PATH ?? '').split(':').some((d) => fs.existsSync(path.join(d, 'initdb')));
  return hasPg ? null : 'a real Unleash needs root (to install PostgreSQL) or PostgreSQL already installed; neither is the case here';
}

/** Starts it (or finds it running: about a second) and returns its address and tokens. */
export async function startUnleash(): Promise<RealUnleash> {
  const { stdout } = await run('bash', [SCRIPT], { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
  const vars = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) vars.set(m[1], m[2].replace(/^'(.*)'$/, '$1'));
  }
  const url = vars.get('UNLEASH_URL');
  const adminToken = vars.get('UNLEASH_ADMIN_TOKEN');
  if (!url || !adminToken) throw new Error(`start.sh printed no UNLEASH_URL / UNLEASH_ADMIN_TOKEN:\n${stdout}`);
  return { url, adminToken, vars };
}

/** The oracle's address and the tokens start.sh made, for tests that ask both servers the same. */
export interface Oracle {
  url: string;
  admin: string;
  client: string;
  clientProd: string;
  frontend: string;
}

interface OracleTest {
  plan(n: number, comment?: string): void;
  fail(message: string): void;
}

/** Starts (or finds running) the real Unleash; null when it cannot run here (the test is then skipped, or failed in CI). */
export async function realUnleash(t: OracleTest): Promise<Oracle | null> {
  const why = cannotRunUnleash();
  if (why) {
    if (MUST_RUN) t.fail(`no real Unleash to compare with: ${why}`);
    else t.plan(0, `no real Unleash to compare with: ${why}`);
    return null;
  }
  const { url, adminToken, vars } = await startUnleash();
  return { url, admin: adminToken, client: vars.get('UNLEASH_CLIENT_TOKEN')!, clientProd: vars.get('UNLEASH_CLIENT_PROD_TOKEN')!, frontend: vars.get('UNLEASH_FRONTEND_TOKEN')! };
}
