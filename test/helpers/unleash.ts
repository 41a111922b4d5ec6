// A real Unleash 8.2 as a test oracle, through the shared scripts (../shared/unleash/start.sh, or
// UNLEASH_START_SCRIPT): idempotent, and locked so test files can call it at once. The instance is
// shared: a test creates only data with names of its own and never resets it. Where it cannot run
// (not root and no PostgreSQL, or no script) a test is skipped with one line, and fails under CI=true.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './server.js';

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

const SCRIPT = process.env.UNLEASH_START_SCRIPT ?? path.join(ROOT, '../shared/unleash/start.sh');

/** Where PostgreSQL's initdb can be found (the scripts install it with apt only as root). */
function hasPostgres(): boolean {
  const onPath = (process.env.PATH ?? '').split(':').some((d) => d && fs.existsSync(path.join(d, 'initdb')));
  const debian = fs.existsSync('/usr/lib/postgresql') && fs.readdirSync('/usr/lib/postgresql').some((v) => fs.existsSync(`/usr/lib/postgresql/${v}/bin/initdb`));
  return onPath || debian;
}

function cannotRun(t: OracleTest, why: string): null {
  if (process.env.CI === 'true') t.fail(`no real Unleash to compare with: ${why}`);
  else t.plan(0, `no real Unleash to compare with: ${why}`);
  return null;
}

/** Starts (or finds running) the real Unleash; null when it cannot run here (the test is then skipped, or failed in CI). */
export async function realUnleash(t: OracleTest): Promise<Oracle | null> {
  if (!fs.existsSync(SCRIPT)) return cannotRun(t, `${SCRIPT} not found (set UNLEASH_START_SCRIPT)`);
  if (process.getuid?.() !== 0 && !hasPostgres()) return cannotRun(t, 'start.sh needs root or an installed PostgreSQL');
  const { stdout } = await promisify(execFile)('bash', [SCRIPT], { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
  const vars = Object.fromEntries([...stdout.matchAll(/^(\w+)='?([^'\n]*)'?$/gm)].map((m) => [m[1], m[2]]));
  return { url: vars.UNLEASH_URL, admin: vars.UNLEASH_ADMIN_TOKEN, client: vars.UNLEASH_CLIENT_TOKEN, clientProd: vars.UNLEASH_CLIENT_PROD_TOKEN, frontend: vars.UNLEASH_FRONTEND_TOKEN };
}
