// A throwaway PostgreSQL server for cluster tests: Debian's binaries (/usr/lib/postgresql/<v>/bin,
// or PG_BIN), a fresh cluster made with initdb in a temporary folder, served on a free loopback
// port, removed when the test ends. As root (CI), PostgreSQL runs as the `postgres` user (it
// refuses root). Without the binaries a test skips with one line, except under CI=true, where it
// fails: CI installs the `postgresql` package (.ci/run).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Test } from 'tap';
import { freePort } from './ports.js';

export interface Postgres {
  port: number;
  /** The folder of the cluster (data/, its socket and its log). */
  dir: string;
  /** A connection URL for `database` (the superuser, no password: trust on loopback). */
  url(database: string): string;
  /** A new empty database; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs one statement as the superuser in `database`. */
  query(database: string, text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** Stops the server (fast: connections are closed, nothing committed is lost). */
  stop(): void;
  /** Starts it again on the same port. */
  start(): void;
  /** Stops it for good and removes its folder. */
  destroy(): void;
}

/** Where initdb, pg_ctl and postgres are, or null. */
export function findPgBin(): string | null {
  const ok = (d: string) => ['initdb', 'pg_ctl', 'postgres'].every((b) => fs.existsSync(path.join(d, b)));
  if (process.env.PG_BIN) return ok(process.env.PG_BIN) ? process.env.PG_BIN : null;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (ok(path.join(root, v, 'bin'))) return path.join(root, v, 'bin');
  return null;
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL program as the cluster's owner (`postgres` when we are root). */
function asOwner(bin: string, args: string[]): string[] {
  return isRoot() ? ['runuser', '-u', 'postgres', '--', bin, ...args] : [bin, ...args];
}

function run(cmd: string[]): void {
  const r = spawnSync(cmd[0], cmd.slice(1), { cwd: '/', encoding: 'utf8', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' } });
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} failed (${r.status ?? r.error?.message}): ${r.stderr || r.stdout}`);
}


const started = new Set<Postgres>();
/** Stops every server this process started: pg_ctl detaches them, so nothing else would. */
function destroyAll(): void {
  for (const p of started) {
    try {
      p.destroy();
    } catch {
      /* best effort at exit */
    }
  }
}
process.on('exit', destroyAll);
// A test runner's timeout, or Ctrl-C, ends the process by a signal, without 'exit' handlers.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.once(signal, () => {
    destroyAll();
    process.kill(process.pid, signal);
  });
}

/**
 * Starts a fresh cluster, or returns the reason it cannot (no binaries, no `postgres` user).
 * `fsync` off by default: the tests kill nodes, not the machine (set it for benchmarks).
 */
export async function startPostgres(opts: { fsync?: boolean } = {}): Promise<Postgres | string> {
  const bin = findPgBin();
  if (!bin) return 'PostgreSQL is not installed (no initdb/pg_ctl/postgres under /usr/lib/postgresql/*/bin; set PG_BIN, or apt-get install postgresql)';
  let uid = -1;
  let gid = -1;
  if (isRoot()) {
    try {
      uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    } catch {
      return 'running as root but there is no `postgres` user to run PostgreSQL as';
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fanion-pg-'));
  fs.chmodSync(dir, 0o755);
  if (uid >= 0) fs.chownSync(dir, uid, gid);
  const data = path.join(dir, 'data');
  run(asOwner(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '-N']));
  const port = await freePort();
  const settings = [
    `-p ${port}`, '-h 127.0.0.1', `-k ${dir}`, '-c max_connections=200', `-c fsync=${opts.fsync ? 'on' : 'off'}`,
    '-c full_page_writes=off', '-c shared_buffers=32MB',
  ].join(' ');
  const ctl = (args: string[]) => run(asOwner(path.join(bin, 'pg_ctl'), ['-D', data, ...args]));
  const start = () => ctl(['-l', path.join(dir, 'postgres.log'), '-w', '-t', '60', '-o', settings, 'start']);
  const stop = () => ctl(['-m', 'fast', '-w', '-t', '60', 'stop']);
  start();
  let alive = true;
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const query = async (database: string, text: string, values?: unknown[]) => {
    const c = new pg.Client({ connectionString: url(database) });
    await c.connect();
    try {
      return await c.query(text, values);
    } finally {
      await c.end();
    }
  };
  const p: Postgres = {
    port,
    dir,
    url,
    query,
    async createDatabase(name) {
      await query('postgres', `CREATE DATABASE "${name}"`);
      return url(name);
    },
    stop: () => {
      stop();
      alive = false;
    },
    start: () => {
      start();
      alive = true;
    },
    destroy: () => {
      if (!started.has(p)) return;
      started.delete(p);
      if (alive) {
        try {
          ctl(['-m', 'immediate', '-w', 'stop']);
        } catch {
          /* already stopped */
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  started.add(p);
  return p;
}

/**
 * A PostgreSQL server for this test file, destroyed when `t` ends; null (and the test skipped
 * with one line) when there is none, except under CI=true, where the test fails instead.
 */
export async function postgresFor(t: Test, opts: { fsync?: boolean } = {}): Promise<Postgres | null> {
  const p = await startPostgres(opts);
  if (typeof p === 'string') {
    if (process.env.CI === 'true') t.fail(`PostgreSQL is needed under CI: ${p}`);
    else void t.test(p, { skip: p }, () => {});
    return null;
  }
  t.teardown(() => p.destroy());
  return p;
}

