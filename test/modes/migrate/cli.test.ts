// `fanion migrate` as people run it (the built CLI, its own process) against an Unleash admin API
// served by test/helpers/fake-unleash.ts: several projects and environments, multi-project and v2
// tokens, a folder that holds data, a kill -9 mid-write or mid-read. What lands in the folder is
// read back by a real server, with the tokens Unleash had. (Failures: cli-failures.test.ts.)
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { recover } from '../../../src/core/storage/recovery.js';
import { verifyDataDir } from '../../../src/core/storage/verify.js';
import { CLI, runCli } from '../../helpers/cli.js';
import { contents, EMPTY, FAKE_ADMIN_TOKEN, migrate, richWorld, V2_SECRET, withFake } from '../../helpers/fake-unleash.js';
import { client, spawnServer, tempDataDir } from '../../helpers/server.js';

const token = (world: ReturnType<typeof richWorld>, name: string) => world.tokens.find((x) => x.tokenName === name)!.secret as string;

t.test('a whole Unleash (projects, environments, every kind of token) comes over as one record, and its tokens work unchanged', async (t) => {
  const fake = await withFake(t);
  const dataDir = tempDataDir('fanion-migrate-');
  const secrets = path.join(dataDir, '..', `${path.basename(dataDir)}-v2.txt`);
  fs.writeFileSync(secrets, `# tokens our SDKs use\n${V2_SECRET}\n\n`);
  t.teardown(() => fs.rmSync(secrets, { force: true }));
  const r = await migrate(fake, dataDir, '--v2-secrets', secrets);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, 'projects 2, environments 3, flags 2, archived flags 1, strategies 7, segments 1, strategy types 1, context fields 1, tag types 2, tags 2, API tokens 5');
  t.match(r.stdout, /API tokens: 5 added, 0 updated, 0 already here/);
  t.match(r.stdout, /1 v2 API token\(s\) \("v2-unknown"\): Unleash keeps only a verifier/, 'the v2 token nobody gave the secret of is listed as left behind');
  t.match(r.stdout, /3 user account\(s\)/);
  t.match(r.stdout, /2 addon\(s\) \(webhook, slack\)/);
  t.match(r.stderr, /reading Unleash 8\.2\.0 at http:\/\/127\.0\.0\.1:\d+: 2 project\(s\), 3 environment\(s\)\nflags: 2 listed\n/, 'progress on stderr');
  t.notMatch(r.stdout + r.stderr, /0123456789abcdef0123|fedcba98765|x{43}/, 'no secret is printed');
  const v = verifyDataDir(dataDir);
  t.same(v.segments.map((s) => s.records), [2], "the WAL holds two records: Fanion's defaults and the whole migration");
  const onDisk = fs.readdirSync(dataDir).map((f) => fs.readFileSync(path.join(dataDir, f), 'latin1')).join('');
  t.notOk(onDisk.includes('0123456789abcdef0123456789abcdef') || onDisk.includes('x'.repeat(43)), 'no secret is stored, only hashes');

  const srv = await spawnServer({ dataDir, env: { AUTH_TYPE: 'api-token' } });
  t.teardown(() => srv.stop());
  const as = (tok: string) => client(srv.url, { authorization: tok });

  const prod = await as(token(fake.world, 'shop-prod'))('GET', '/api/client/features');
  t.equal(prod.status, 200, 'a client token of one project');
  const checkout = prod.json.features.find((f: any) => f.name === 'checkout');
  t.same(checkout.strategies.map((s: any) => s.parameters.groupId), ['01J0000000000000000000000B', 'tie', '01J0000000000000000000000C'], 'served by sortOrder, ties by id, disabled left out');
  t.same(checkout.strategies[1].constraints, [], 'the strategy with the segment…');
  t.same(checkout.strategies[0].constraints.map((c: any) => c.contextName), ['userId'], '…has its constraints inlined');
  t.notOk(prod.json.features.some((f: any) => f.name === 'banner'), 'a one-project token sees only its project');

  const staging = await as(token(fake.world, 'both-staging'))('GET', '/api/client/features');
  t.equal(staging.status, 200, 'a multi-project ("[]:staging.…") token with an expiry');
  t.same(staging.json.features.map((f: any) => f.name).sort(), ['banner', 'checkout'], 'sees both its projects');
  t.same(staging.json.features.find((f: any) => f.name === 'checkout').variants[0].overrides, [{ contextName: 'userId', values: ['7'] }], 'environment variants with overrides');

  const v2 = await as(V2_SECRET)('GET', '/api/client/features');
  t.equal(v2.status, 200, 'the v2 token whose secret was given');
  t.same(v2.json.features.map((f: any) => f.name).sort(), ['banner', 'checkout']);
  t.equal((await as(V2_SECRET.slice(0, -1) + 'y')('GET', '/api/client/features')).status, 401, 'one character off is refused');

  t.equal((await as(token(fake.world, 'web'))('GET', '/api/frontend?userId=1')).status, 200, 'the frontend token');
  const admin = as(FAKE_ADMIN_TOKEN);
  t.same((await admin('GET', '/api/admin/projects')).json.projects.map((p: any) => p.id).sort(), ['default', 'shop'], 'the admin token, and both projects');
  t.same((await admin('GET', '/api/admin/environments')).json.environments.map((e: any) => e.name), ['staging', 'development', 'production'], 'environments in their order');
  t.same((await admin('GET', '/api/admin/archive/features')).json.features.map((f: any) => f.name), ['old-promo'], 'the archived flag');
  const banner = (await admin('GET', '/api/admin/projects/default/features/banner')).json;
  t.same(banner.dependencies, [{ feature: 'checkout', enabled: true, variants: ['blue'] }], 'dependencies');
  t.equal(banner.stale, true, 'stale');
  const country = (await admin('GET', '/api/admin/context')).json.find((c: any) => c.name === 'country');
  t.same([country.stickiness, country.legalValues.map((v: any) => v.value)], [true, ['NO', 'SE']], 'context fields with legal values and stickiness');
  t.same((await admin('GET', '/api/admin/features/checkout/tags')).json.tags.map((x: any) => `${x.type}:${x.value}`), ['team:payments'], 'tags');
  const tokens = (await admin('GET', '/api/admin/api-tokens')).json.tokens;
  const staged = tokens.find((x: any) => x.tokenName === 'both-staging');
  t.same([staged.type, staged.projects, staged.environment, staged.expiresAt, staged.prefix], ['client', ['default', 'shop'], 'staging', '2031-01-01T00:00:00.000Z', '[]:staging.'], "a token's name, type, scope and expiry");
});

t.test('a folder that holds data is refused unless --merge; again changes nothing; what Unleash deleted goes', async (t) => {
  const fake = await withFake(t);
  const dataDir = tempDataDir('fanion-migrate-merge-');
  t.equal((await migrate(fake, dataDir)).code, 0);
  const before = contents(dataDir);
  const refused = await migrate(fake, dataDir);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /^fanion: the data folder .* already holds data \(3 flag\(s\), 4 API token\(s\), \d+ event\(s\)\); add --merge/m);
  t.same(contents(dataDir), before, 'nothing written');

  const again = await migrate(fake, dataDir, '--merge');
  t.equal(again.code, 0, again.stderr);
  t.match(again.stdout, 'nothing to change: the data folder already holds all of it');
  t.match(again.stdout, 'API tokens: 0 added, 0 updated, 4 already here');
  t.same(verifyDataDir(dataDir).segments.map((s) => s.records), [2], 'and wrote no record');

  // In Unleash meanwhile: a strategy and a tag deleted, a token's expiry changed, a flag added.
  const checkout = fake.world.flags[0];
  checkout.environments[0].strategies = checkout.environments[0].strategies.filter((s) => s.id !== '01J0000000000000000000000C');
  checkout.tags = [];
  fake.world.tokens[1].expiresAt = '2030-01-01T00:00:00.000Z';
  fake.world.flags.push({ name: 'later', project: 'default', environments: [{ name: 'development', enabled: true, strategies: [] }] });
  const merged = await migrate(fake, dataDir, '--merge');
  t.equal(merged.code, 0, merged.stderr);
  t.match(merged.stdout, 'API tokens: 0 added, 1 updated, 3 already here');
  t.match(merged.stdout, 'removed what Unleash no longer has: 1 strategies, 1 flag tags');
  const { state } = recover(dataDir);
  t.notOk(state.strategies.has('01J0000000000000000000000C'), 'the deleted strategy is gone');
  t.same(state.featureTags.get('checkout') ?? [], [], 'and the tag');
  t.ok(state.features.has('later'), 'the new flag is there');
  t.same(verifyDataDir(dataDir).segments.map((s) => s.records), [3], 'as one more record');
});

t.test('a kill -9 in the middle of the write leaves the folder as it was, and the migration can run again', async (t) => {
  const fake = await withFake(t);
  const dataDir = tempDataDir('fanion-migrate-crash-');
  // Record 1 is a new folder's defaults, record 2 the migration: half of it reaches the disk.
  const r = await runCli(['migrate', '--from', fake.url, '--token', FAKE_ADMIN_TOKEN, '--data', dataDir], { env: { FANION_CRASH_AT: 'wal-torn-write:2' } });
  t.equal(r.signal, 'SIGKILL', 'the process died by SIGKILL');
  t.match(r.stderr, 'FANION_CRASH_AT: crashing at wal-torn-write');
  t.ok(verifyDataDir(dataDir).startable, 'fanion verify: the folder starts');
  t.same(contents(dataDir), EMPTY, 'with nothing of the migration: no flag, token or event');
  // Without authentication: a server with tokens would make its first admin token, and data.
  const srv = await spawnServer({ dataDir, env: { AUTH_TYPE: 'none' } });
  t.match(srv.output(), /cut off a torn or damaged last record/, 'the server cuts the half-written record off');
  t.same((await client(srv.url)('GET', '/api/admin/projects/default/features')).json.features, [], 'and serves no flag of it');
  await srv.stop();
  const again = await migrate(fake, dataDir);
  t.equal(again.code, 0, `the folder counts as empty, so it runs again without --merge: ${again.stderr}`);
  t.same(contents(dataDir).flags, 3);
});

t.test('a kill -9 while reading Unleash leaves nothing', async (t) => {
  const fake = await withFake(t);
  const dataDir = tempDataDir('fanion-migrate-kill-');
  let stalled = false;
  // The tags are read after the flags: hold that answer until the process is killed.
  fake.override((_req, _res, p) => {
    if (p !== '/api/admin/tags') return false;
    stalled = true;
    return true;
  });
  const { spawn } = await import('node:child_process');
  const proc = spawn(process.execPath, [CLI, 'migrate', '--from', fake.url, '--token', FAKE_ADMIN_TOKEN, '--data', dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (c) => (err += c));
  const deadline = Date.now() + 30_000;
  while (!stalled && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  t.ok(stalled, 'it got as far as the tags');
  t.match(err, /flags read: 2\/2/, 'after reading every flag');
  const exited = new Promise((resolve) => proc.once('exit', (_c, signal) => resolve(signal)));
  proc.kill('SIGKILL');
  t.equal(await exited, 'SIGKILL');
  t.same(contents(dataDir), EMPTY, 'the folder holds nothing of it');
  fake.override(null);
  t.equal((await migrate(fake, dataDir)).code, 0, 'and it runs again without --merge');
});
