// A cluster node whose database settings cannot work (a wrong password, a role without the
// privileges Fanion needs, a database that does not exist) does not wait for ever as if the
// database were away: it logs an error naming the fix and exits 2 once
// DATABASE_SETTINGS_RETRY_MS has passed. Real PostgreSQL, with password authentication turned on
// for one role, and real node processes. The node that starts says it is a cluster node, and on
// which database, without the password.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { postgresFor } from '../../../helpers/postgres.js';
import { spawnServer, type Spawned } from '../../../helpers/server.js';

/** How long each node may take to give up: the retry window below, start-up and a loaded machine. */
const BOUND_MS = 15_000;
const RETRY_MS = 2_000;

/** Starts a node on `url` and waits (at most BOUND_MS) for it to exit by itself. */
async function runNode(url: string): Promise<{ node: Spawned; code: number | null | 'still running'; ms: number }> {
  const t0 = performance.now();
  const node = await spawnServer({ env: { DATABASE_URL: url, DATABASE_TIMEOUT_MS: '1000', DATABASE_SETTINGS_RETRY_MS: String(RETRY_MS) }, portOpen: true });
  const exited = node.proc.exitCode !== null ? Promise.resolve(node.proc.exitCode) : new Promise<number | null>((resolve) => node.proc.once('exit', (c) => resolve(c)));
  const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), BOUND_MS))]);
  if (code === 'still running') node.proc.kill('SIGKILL');
  return { node, code, ms: performance.now() - t0 };
}

t.test('a node whose database settings cannot work exits 2, naming the fix', async (t) => {
  const pg = await postgresFor(t);
  if (!pg) return;
  const db = 'fanion_settings';
  await pg.createDatabase(db);
  await pg.query('postgres', "CREATE ROLE pw_user LOGIN PASSWORD 'the-right-one'");
  await pg.query('postgres', 'CREATE ROLE weak LOGIN');
  // PostgreSQL 15: only the database's owner may create tables in `public`; `weak` may connect, no more.
  await pg.query('postgres', `ALTER DATABASE ${db} OWNER TO pw_user`);
  // Password authentication for pw_user over TCP (the throwaway server trusts everyone else).
  const hba = path.join(pg.dir, 'data', 'pg_hba.conf');
  fs.writeFileSync(hba, `host all pw_user 127.0.0.1/32 scram-sha-256\n${fs.readFileSync(hba, 'utf8')}`);
  await pg.query('postgres', 'SELECT pg_reload_conf()');
  const base = `127.0.0.1:${pg.port}`;
  const cases = [
    { what: 'a wrong password', url: `postgres://pw_user:wrong@${base}/${db}`, code: '28P01', fix: /password[^\n]*DATABASE_PASSWORD/ },
    { what: 'a role without privileges', url: `postgres://weak@${base}/${db}`, code: '42501', fix: /GRANT/ },
    { what: 'a database that does not exist', url: `postgres://postgres@${base}/no_such_db`, code: '3D000', fix: /CREATE DATABASE/ },
  ];
  const runs = await Promise.all(cases.map((c) => runNode(c.url)));
  cases.forEach((c, i) => {
    const { node, code, ms } = runs[i];
    const out = node.output();
    t.equal(code, 2, `${c.what}: exit 2 (after ${Math.round(ms)} ms)`);
    t.ok(ms >= RETRY_MS, `${c.what}: not before DATABASE_SETTINGS_RETRY_MS (a setting fixed meanwhile is taken)`);
    const errors = out.split('\n').filter((l) => l.includes('"level":50') || l.includes('"level":60'));
    t.ok(errors.some((l) => l.includes(c.code) && c.fix.test(l)), `${c.what}: an error line with ${c.code} names the fix:\n${errors.join('\n')}`);
    t.notMatch(out, /"level":40[^\n]*waiting for the database/, `${c.what}: not logged as waiting for the database`);
    t.notMatch(out, /the-right-one|wrong@/, `${c.what}: no password in the log`);
  });
  // The control: the right password starts a node at once.
  const good = await spawnServer({ env: { DATABASE_URL: `postgres://pw_user:the-right-one@${base}/${db}`, DATABASE_TIMEOUT_MS: '1000' } });
  t.teardown(() => good.kill());
  t.equal((await fetch(`${good.url}/ready`)).status, 200, 'the right password: the node serves');
  // Its start-up lines say it is a cluster node, and on which database, without the password.
  const lines = good.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; mode?: string; database?: string });
  const where = `${base}/${db} as pw_user`;
  t.match(lines.find((l) => /^port \d+ open/.test(l.msg)), { mode: 'cluster node', database: where, msg: `port ${good.port} open; reaching the database ${where} and applying its log (GET /ready answers 503 until Fanion serves)` });
  t.match(lines.find((l) => /^Fanion listening/.test(l.msg)), { mode: 'cluster node', msg: `Fanion listening on port ${good.port}: a cluster node on the database ${where}, schema public; the console is at http://127.0.0.1:${good.port}/` });
  t.notMatch(good.output(), /replaying the data folder/, 'a cluster node has no data folder to replay');
  t.notMatch(good.output(), /the-right-one/, 'no password in the log');
});
