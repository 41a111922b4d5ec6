// Start-up as an operator meets it, against real processes: bad settings fail at once with one
// line, the first admin token exists only once the server listens, seeded tokens are all or
// nothing, the data folder is private, and a server without authentication stays on loopback.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { client, spawnServer, tempDataDir } from '../helpers/server.js';

t.test('a bad setting fails at once, before the data folder is touched, with one line and no stack trace', async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ AUTH_TYPE: 'token' }, /^Fanion cannot start: AUTH_TYPE must be "api-token", "open-source" or "none", got "token"\n$/],
    [{ PORT: '99999' }, /^Fanion cannot start: PORT must be a port number from 0 to 65535, got "99999"\n$/],
    [{ PORT: 'eighty' }, /^Fanion cannot start: PORT must be a non-negative integer, got "eighty"\n$/],
    [{ LOG_LEVEL: 'loud' }, /^Fanion cannot start: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"\n$/],
    [{ TOKEN_HASH_KEY: 'short' }, /^Fanion cannot start: TOKEN_HASH_KEY must be at least 16 characters long\n$/],
    [{ FRONTEND_CACHE_MAX_BYTES: '64MB' }, /^Fanion cannot start: FRONTEND_CACHE_MAX_BYTES must be a non-negative integer, got "64MB"\n$/],
    [{ WEBHOOK_ALLOW_RANGES: '10.0.0.0/8,everything' }, /^Fanion cannot start: WEBHOOK_ALLOW_RANGES must list addresses or CIDR ranges such as 10\.1\.2\.0\/24 or fd00::\/8, got "everything"\n$/],
    [{ WEBHOOK_ALLOW_HOSTS: 'https://hooks.internal' }, /^Fanion cannot start: WEBHOOK_ALLOW_HOSTS must list host names such as hooks\.internal \(no scheme, port or wildcard\), got "https:\/\/hooks\.internal"\n$/],
    [{ WEBHOOK_TEMPLATE_MAX_STEPS: '0' }, /^Fanion cannot start: WEBHOOK_TEMPLATE_MAX_STEPS must be at least 1, got "0"\n$/],
    [{ UNKNOWN_FLAGS_MAX_BYTES: '4M' }, /^Fanion cannot start: UNKNOWN_FLAGS_MAX_BYTES must be a non-negative integer, got "4M"\n$/],
    [{ EDGE_VALIDATE_REQUIRE_TOKEN: 'yes' }, /^Fanion cannot start: EDGE_VALIDATE_REQUIRE_TOKEN must be true or false, got "yes"\n$/],
    // The URL is not echoed: it usually holds the database password.
    [{ DATABASE_URL: 'mysql://fanion:s3cret@db/fanion' }, /^Fanion cannot start: DATABASE_URL must be a URL such as postgres:\/\/user:password@host:5432\/database\n$/],
    [{ DATABASE_HOST: 'db.internal', DATABASE_PORT: '99999' }, /^Fanion cannot start: DATABASE_PORT must be a port number from 0 to 65535, got "99999"\n$/],
    [{ DATABASE_HOST: 'db.internal', DATABASE_SSL: 'maybe' }, /^Fanion cannot start: DATABASE_SSL must be true, false or a JSON object of TLS options such as \{"rejectUnauthorized":false\}\n$/],
    [{ DATABASE_URL: 'postgres://db/fanion', DATABASE_TIMEOUT_MS: '0' }, /^Fanion cannot start: DATABASE_TIMEOUT_MS must be at least 1, got "0"\n$/],
    [{ DATABASE_URL: 'postgres://db/fanion', UPSTREAM_URL: 'http://unleash:4242', AUTH_TYPE: 'api-token' }, /^Fanion cannot start: DATABASE_URL cannot be used with UPSTREAM_URL: a relay keeps its own copy in DATA_DIR; run several relays side by side instead\n$/],
    [{ UPSTREAM_URL: 'unleash:4242', AUTH_TYPE: 'api-token' }, /^Fanion cannot start: UPSTREAM_URL must be an http\(s\) URL such as http:\/\/unleash:4242 \(no query, no credentials\), got "unleash:4242"\n$/],
    [{ UPSTREAM_URL: 'http://unleash:4242/api/', AUTH_TYPE: 'api-token' }, /^Fanion cannot start: UPSTREAM_URL is the upstream's base URL, without \/api: use http:\/\/unleash:4242\n$/],
    [{ TOKENS: 'default:development.secret' }, /^Fanion cannot start: TOKENS is set but UPSTREAM_URL is not: a relay needs the URL of its upstream\n$/],
    [{ UPSTREAM_URL: 'http://unleash:4242' }, /^Fanion cannot start: AUTH_TYPE=none cannot be used with UPSTREAM_URL: a relay serves the tokens its upstream grants\n$/],
    [{ FEATURES_REFRESH_INTERVAL_SECONDS: 'often', UPSTREAM_URL: 'http://unleash:4242', AUTH_TYPE: 'api-token' }, /^Fanion cannot start: FEATURES_REFRESH_INTERVAL_SECONDS must be a number of seconds of at least 0.05, got "often"\n$/],
    [
      { INIT_CLIENT_API_TOKENS: 'default:development.good-secret,not-a-token' },
      /^Fanion cannot start: INIT_CLIENT_API_TOKENS\/INIT_BACKEND_API_TOKENS entry 2 is not of the form <project>:<environment>\.<secret>\n$/,
    ],
  ];
  for (const [env, message] of cases) {
    const dataDir = path.join(tempDataDir('fanion-config-'), 'never-created');
    const started = Date.now();
    const srv = await spawnServer({ dataDir, env, expectExit: true });
    const name = Object.keys(env)[0];
    t.equal(srv.proc.exitCode, 2, `${name}: exit code 2`);
    t.match(srv.output(), message, `${name}: one clear line`);
    t.notMatch(srv.output(), /\n\s+at /, `${name}: no stack trace`);
    t.notOk(fs.existsSync(dataDir), `${name}: the data folder was not even created`);
    t.ok(Date.now() - started < 5_000, `${name}: fails at once`);
  }
});

t.test('seeded tokens are all or nothing: an entry whose project does not exist stores none of them', async (t) => {
  const dataDir = tempDataDir('fanion-seed-');
  const bad = await spawnServer({
    dataDir,
    expectExit: true,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: '*:*.admin-secret-one', INIT_CLIENT_API_TOKENS: 'default:development.ok-client,nope:development.bad-client' },
  });
  t.not(bad.proc.exitCode, 0);
  t.match(bad.output(), /entry 2 could not be created/);
  t.notMatch(bad.output(), /bad-client|ok-client|admin-secret-one/, 'no secret in the output');
  t.notMatch(bad.output(), /FIRST ADMIN TOKEN/, 'no admin token generated by a start that failed');
  const good = await spawnServer({ dataDir, env: { AUTH_TYPE: 'api-token' } });
  t.teardown(() => good.kill());
  t.match(good.output(), /FIRST ADMIN TOKEN/, 'the admin entry of the failed start was not stored, so one is generated now');
  const res = await client(good.url, { authorization: '*:*.admin-secret-one' })('GET', '/api/admin/projects');
  t.equal(res.status, 401, 'the seeded admin token of the failed start does not exist');
});

t.test('the first admin token is created only once the server listens', async (t) => {
  const busy = net.createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => busy.close());
  const port = String((busy.address() as net.AddressInfo).port);
  const dataDir = tempDataDir('fanion-first-token-');
  const failed = await spawnServer({ dataDir, expectExit: true, env: { AUTH_TYPE: 'api-token', PORT: port } });
  t.equal(failed.proc.exitCode, 1);
  t.match(failed.output(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
  t.notMatch(failed.output(), /FIRST ADMIN TOKEN/, 'a start that could not listen prints no token');
  const ok = await spawnServer({ dataDir, env: { AUTH_TYPE: 'api-token' } });
  t.teardown(() => ok.kill());
  const m = /FIRST ADMIN TOKEN[^\n]*: (\*:\*\.[0-9a-f]{64})\n/.exec(ok.output());
  t.ok(m, 'the next start that listens prints one');
  const res = await client(ok.url, { authorization: m?.[1] ?? '' })('GET', '/api/admin/projects');
  t.equal(res.status, 200, 'and it works');
});

t.test('a data folder Fanion creates is 0700 and its files 0600', async (t) => {
  const dataDir = path.join(tempDataDir('fanion-modes-'), 'data');
  const srv = await spawnServer({ dataDir, env: { AUTH_TYPE: 'api-token', CHECKPOINT_RECORDS: '5', INIT_ADMIN_API_TOKENS: '*:*.modes-admin-secret' } });
  const api = client(srv.url, { authorization: '*:*.modes-admin-secret' });
  for (let i = 0; i < 12; i++) t.equal((await api('POST', '/api/admin/projects/default/features', { name: `m${i}` })).status, 201);
  await srv.stop();
  t.equal(fs.statSync(dataDir).mode & 0o777, 0o700, 'folder 0700');
  const names = fs.readdirSync(dataDir);
  t.ok(names.some((n) => n.endsWith('.ckpt')) && names.some((n) => n.endsWith('.log')) && names.includes('token-hash.key') && names.includes('fanion.lock'), `a checkpoint, segments, the key and the lock: ${names.join(', ')}`);
  for (const n of names) t.equal(fs.statSync(path.join(dataDir, n)).mode & 0o777, 0o600, `${n} is 0600`);
  fs.chmodSync(dataDir, 0o750);
  const again = await spawnServer({ dataDir });
  await again.stop();
  t.equal(fs.statSync(dataDir).mode & 0o777, 0o750, 'a folder that holds data keeps the mode it was given');
  t.match(again.output(), /"mode":"750"[^\n]*the data folder is open to other users/, 'with a warning');
});

t.test('the default ./data is 0700 when Fanion makes it, and when a checkout made it (only .gitkeep in it)', async (t) => {
  // No DATA_DIR: the default, ./data, in the folder Fanion is started from.
  const fresh = tempDataDir('fanion-default-data-');
  const first = await spawnServer({ cwd: fresh, env: { DATA_DIR: undefined } });
  await first.stop();
  t.equal(fs.statSync(path.join(fresh, 'data')).mode & 0o777, 0o700, 'no data folder: made 0700');
  t.ok(fs.readdirSync(path.join(fresh, 'data')).some((n) => n.endsWith('.log')), 'and used');
  // A fresh clone: data/ exists with .gitkeep, at the checkout's mode.
  const clone = tempDataDir('fanion-clone-');
  fs.mkdirSync(path.join(clone, 'data'), { mode: 0o755 });
  fs.chmodSync(path.join(clone, 'data'), 0o755);
  fs.writeFileSync(path.join(clone, 'data', '.gitkeep'), '');
  const second = await spawnServer({ cwd: clone, env: { DATA_DIR: undefined } });
  await second.stop();
  t.equal(fs.statSync(path.join(clone, 'data')).mode & 0o777, 0o700, "a checkout's data/ with only .gitkeep: made 0700 at start");
  t.match(second.output(), /"was":"755","now":"700"[^\n]*the data folder holds nothing yet/, 'and logged');
  t.ok(fs.existsSync(path.join(clone, 'data', '.gitkeep')), '.gitkeep stays');
});

t.test('without authentication Fanion listens on 127.0.0.1 unless HOST says otherwise, and then warns loudly', async (t) => {
  const local = await spawnServer({ env: { AUTH_TYPE: 'none', HOST: '' } });
  t.teardown(() => local.kill());
  t.match(local.output(), /"host":"127\.0\.0\.1"[^\n]*Fanion listening/, 'bound to loopback');
  t.match(local.output(), /authentication is OFF, so Fanion listens on 127\.0\.0\.1 only/);
  const open = await spawnServer({ env: { AUTH_TYPE: 'none', HOST: '0.0.0.0' } });
  t.teardown(() => open.kill());
  t.match(open.output(), /"level":40[^\n]*DANGER: AUTH_TYPE=none and HOST=0\.0\.0\.0/, 'a loud warning');
  const withAuth = await spawnServer({ env: { AUTH_TYPE: 'api-token', HOST: '', INIT_ADMIN_API_TOKENS: '*:*.bind-admin-secret' } });
  t.teardown(() => withAuth.kill());
  t.match(withAuth.output(), /"host":"0\.0\.0\.0"[^\n]*Fanion listening/, 'with tokens the default stays 0.0.0.0');
});
