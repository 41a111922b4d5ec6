// `fanion migrate` when it cannot do its job: an unreachable, refusing or broken Unleash, data
// Fanion cannot store, a Fanion running on the folder, usage mistakes. Each is one clear line and
// an exit status, with nothing written.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { runCli } from '../../helpers/cli.js';
import { contents, EMPTY, FAKE_ADMIN_TOKEN, migrate, withFake, type FakeUnleash } from '../../helpers/fake-unleash.js';
import { spawnServer, tempDataDir } from '../../helpers/server.js';

/** A loopback port nothing listens on (not one of the ports fetch refuses outright, such as 9). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

t.test('an unreachable or refusing or broken Unleash: one clear line, exit status 1, nothing written', async (t) => {
  const fake = await withFake(t);
  const closed = await closedPort();
  const cases: [string, string[], RegExp, ((f: FakeUnleash) => void)?][] = [
    ['nothing listens there', ['--from', `http://127.0.0.1:${closed}`, '--token', FAKE_ADMIN_TOKEN], new RegExp(`^fanion: cannot reach Unleash at http://127\\.0\\.0\\.1:${closed} \\(GET /api/admin/ui-config: ECONNREFUSED\\)$`)],
    ['a wrong token', ['--from', fake.url, '--token', '*:*.wrong'], /^fanion: Unleash at http:\/\/127\.0\.0\.1:\d+ refused the token \(401 on GET \/api\/admin\/ui-config\): give an admin API token/],
    ['an SDK token', ['--from', fake.url, '--token', FAKE_ADMIN_TOKEN], /^fanion: the token may not read GET \/api\/admin\/projects \(403: invalid token: expected a different token type for this endpoint\); the migration needs an admin token$/, (f) =>
      f.override((_q, res, p) => p === '/api/admin/projects' && (res.writeHead(403, { 'content-type': 'application/json' }), res.end('{"message":"invalid token: expected a different token type for this endpoint"}'), true))],
    ['a web page, not Unleash', ['--from', fake.url, '--token', FAKE_ADMIN_TOKEN], /^fanion: GET \/api\/admin\/projects: the answer is not JSON \(text\/html: "<html><body>Welcome <\/body><\/html>"\); is --from the address of an Unleash server\?$/, (f) =>
      f.override((_q, res, p) => p === '/api/admin/projects' && (res.writeHead(200, { 'content-type': 'text/html' }), res.end('<html><body>Welcome\u0007</body></html>'), true))],
    ['an answer of the wrong shape', ['--from', fake.url, '--token', FAKE_ADMIN_TOKEN], /^fanion: GET \/api\/admin\/projects\/default\/features: the answer is not what Unleash sends \("features" must be array\); nothing was written$/, (f) =>
      f.override((_q, res, p) => p === '/api/admin/projects/default/features' && (res.writeHead(200, { 'content-type': 'application/json' }), res.end('{"features":{"name":"x"}}'), true))],
    ['a redirect elsewhere', ['--from', fake.url, '--token', FAKE_ADMIN_TOKEN], /^fanion: GET \/api\/admin\/ui-config was redirected \(302 to https:\/\/login\.example\.com\/\); give the final address with --from$/, (f) =>
      f.override((_q, res) => (res.writeHead(302, { location: 'https://login.example.com/' }), res.end(), true))],
    ['a server error', ['--from', fake.url, '--token', FAKE_ADMIN_TOKEN], /^fanion: GET \/api\/admin\/environments answered 500 \(db down\)$/, (f) =>
      f.override((_q, res, p) => p === '/api/admin/environments' && (res.writeHead(500), res.end('{"message":"db down"}'), true))],
    ['data Fanion cannot store', ['--from', fake.url, '--token', FAKE_ADMIN_TOKEN], /^fanion: Fanion cannot store what Unleash holds \(flag "banner", environment "development", strategy 01J0000000000000000000000D\): .*segment 99 does not exist.*; nothing was written$/, (f) => {
      f.world.flags[1].environments[0].strategies[0].segments = [99];
    }],
  ];
  for (const [what, args, message, arrange] of cases) {
    arrange?.(fake);
    const dataDir = tempDataDir('fanion-migrate-fail-');
    const r = await runCli(['migrate', ...args, '--data', dataDir]);
    t.equal(r.code, 1, `${what}: exit status 1`);
    const last = r.stderr.trim().split('\n').pop()!;
    t.match(last, message, `${what}: ${last}`);
    t.notMatch(r.stderr, /\n\s+at /, `${what}: no stack trace`);
    t.same(contents(dataDir), EMPTY, `${what}: nothing written`);
    fake.override(null);
  }
});

t.test('a Fanion running on the folder makes migrate refuse; usage mistakes exit 2', async (t) => {
  const fake = await withFake(t);
  const srv = await spawnServer({ dataDir: tempDataDir('fanion-migrate-busy-') });
  t.teardown(() => srv.stop());
  const r = await migrate(fake, srv.dataDir);
  t.equal(r.code, 1);
  t.match(r.stderr, /^fanion: data folder .* is in use by another Fanion process \(pid \d+\); stop it first/);
  t.notOk(fake.hits.length, 'before a single request to Unleash');

  const noFrom = await runCli(['migrate', '--token', 'x']);
  t.equal(noFrom.code, 2);
  t.match(noFrom.stderr, /^fanion: fanion migrate needs --from <the Unleash address>\nusage:/);
  const unknown = await runCli(['migrate', '--from', fake.url, '--token', 'x', '--drop']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /Unknown option '--drop'/);
  const badUrl = await runCli(['migrate', '--from', 'ftp://x', '--token', 'x', '--data', tempDataDir()]);
  t.equal(badUrl.code, 1);
  t.match(badUrl.stderr.trim(), /^fanion: --from must be an http:\/\/ or https:\/\/ address, got "ftp:"$/);
});

t.test('a failed run into a folder it created leaves no folder behind; one that existed stays', async (t) => {
  const fake = await withFake(t);
  const parent = tempDataDir('fanion-migrate-new-');
  const fresh = path.join(parent, 'new', 'data');
  const unreachable = await runCli(['migrate', '--from', `http://127.0.0.1:${await closedPort()}`, '--token', FAKE_ADMIN_TOKEN, '--data', fresh]);
  t.equal(unreachable.code, 1);
  t.match(unreachable.stderr, /cannot reach Unleash at/);
  t.same(fs.readdirSync(parent), [], 'an unreachable Unleash: neither the folder nor the parent it made is left');
  fake.world.flags[1].environments[0].strategies[0].segments = [99];
  const refused = await runCli(['migrate', '--from', fake.url, '--token', FAKE_ADMIN_TOKEN, '--data', fresh]);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /Fanion cannot store what Unleash holds/);
  t.same(fs.readdirSync(parent), [], 'data Fanion refuses: nothing left either');
  const existing = tempDataDir('fanion-migrate-existing-');
  t.equal((await runCli(['migrate', '--from', fake.url, '--token', FAKE_ADMIN_TOKEN, '--data', existing])).code, 1);
  t.ok(fs.existsSync(existing), 'a folder that was there before the run is not removed');
  t.same(contents(existing), EMPTY);
  fake.world.flags[1].environments[0].strategies[0].segments = [];
  t.equal((await runCli(['migrate', '--from', fake.url, '--token', FAKE_ADMIN_TOKEN, '--data', fresh])).code, 0, 'a run that succeeds keeps the folder it made');
  t.equal(contents(fresh).flags, 3);
  t.equal(fs.statSync(fresh).mode & 0o777, 0o700);
});
