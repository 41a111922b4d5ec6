// A real Unleash 8.2 for tests (scripts/unleash/: PostgreSQL and unleash-server on loopback,
// installed on first use). Other tests and people may use the same instance at the same time:
// callers never stop or reset it, and name what they create with a prefix of their own.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './server.js';

const run = promisify(execFile);
export const UNLEASH_SCRIPTS = path.join(ROOT, 'scripts/unleash');

export interface RealUnleash {
  url: string;
  adminToken: string;
}

/** Why start.sh cannot run here (not root and no PostgreSQL to run as this user), or null. */
export function cannotRunUnleash(): string | null {
  if (process.getuid?.() === 0) return null;
  const pgDirs = fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql') : [];
  const hasPg = pgDirs.some((v) => fs.existsSync(`/usr/lib/postgresql/${v}/bin/initdb`)) || (process.env.PATH ?? '').split(':').some((d) => fs.existsSync(path.join(d, 'initdb')));
  return hasPg ? null : 'a real Unleash needs root (to install PostgreSQL) or PostgreSQL already installed; neither is the case here';
}

/** Starts it (or finds it running: about a second) and returns its address and admin token. */
export async function startUnleash(): Promise<RealUnleash> {
  const { stdout } = await run('bash', [path.join(UNLEASH_SCRIPTS, 'start.sh')], { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
  const vars = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) vars.set(m[1], m[2].replace(/^'(.*)'$/, '$1'));
  }
  const url = vars.get('UNLEASH_URL');
  const adminToken = vars.get('UNLEASH_ADMIN_TOKEN');
  if (!url || !adminToken) throw new Error(`start.sh printed no UNLEASH_URL / UNLEASH_ADMIN_TOKEN:\n${stdout}`);
  return { url, adminToken };
}

/** Under CI a test that needs Unleash fails instead of skipping. */
export const MUST_RUN = process.env.CI === 'true' || process.env.CI === '1';
