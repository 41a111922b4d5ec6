// Data written by the previous release (0.1.0, commit 5f57580) read by this build: the previous
// release's source is taken from git history into a temporary folder and compiled (about 20 s), it
// is started on a data folder (and, as a cluster node, on a throwaway PostgreSQL), flags, a segment
// and an API token are made through HTTP, it is stopped, and this build starts on the same data: all
// of it is there, the token still authenticates, and it takes new writes. Then the previous release
// starts again on what this build wrote (a downgrade, which docs/upgrading.md says is safe).
// Without git history the test cannot build the previous release: it is skipped, except under CI
// (CI=true), whose clone has the history, where that is a failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { clusterFor } from '../helpers/cluster.js';
import { client, ROOT, spawnServer, tempDataDir, type Spawned } from '../helpers/server.js';

const PREVIOUS = '5f57580';
const P = '/api/admin/projects/default/features';
/** This build runs with API tokens, so the client token made before is checked for real. */
const ADMIN = '*:*.upgrade-admin-token-0123456789abcdef';

t.setTimeout(240_000);

/** The previous release, compiled, in a temporary folder; null when git history does not have it. */
function buildPrevious(t: Test): string | null {
  try {
    execFileSync('git', ['-C', ROOT, 'cat-file', '-e', `${PREVIOUS}^{commit}`], { stdio: 'ignore' });
  } catch {
    return null;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fanion-previous-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync('sh', ['-c', `git -C "$1" archive ${PREVIOUS} | tar -x -C "$2"`, 'sh', ROOT, dir]);
  fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'));
  const opts = { cwd: dir, stdio: 'ignore' as const, timeout: 120_000 };
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], opts);
  execFileSync(process.execPath, ['scripts/build-ui.mjs'], opts);
  return dir;
}

let previous: string | null = null;
t.before(() => {
  previous = buildPrevious(t);
});

function startPrevious(env: Record<string, string>, dataDir?: string): Promise<Spawned> {
  return spawnServer({ command: [process.execPath, path.join(previous!, 'dist/src/main.js')], cwd: previous!, env, dataDir });
}

/** Flags (one on in development), a segment and a client token, made through HTTP. */
async function writeSome(t: Test, url: string): Promise<string> {
  const api = client(url);
  for (const name of ['before-a', 'before-b']) t.equal((await api('POST', P, { name })).status, 201);
  t.equal((await api('POST', `${P}/before-a/environments/development/on`)).status, 200);
  t.equal((await api('POST', '/api/admin/segments', { name: 'beta', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2'] }] })).status, 201);
  const token = await api('POST', '/api/admin/api-tokens', { tokenName: 'sdk', type: 'client', environment: 'development', projects: ['*'] });
  t.equal(token.status, 201);
  return token.json.secret as string;
}

/** What this build finds: everything written before, the token authenticating, and a new write. */
async function checkAfter(t: Test, url: string, token: string): Promise<void> {
  const api = client(url, { Authorization: ADMIN });
  const flags = ((await api('GET', P)).json.features as { name: string }[]).map((f) => f.name).sort();
  t.strictSame(flags, ['before-a', 'before-b'], 'the flags written by the previous release');
  t.strictSame(((await api('GET', '/api/admin/segments')).json.segments as { name: string }[]).map((s) => s.name), ['beta'], 'its segment');
  const sdk = await fetch(`${url}/api/client/features`, { headers: { Authorization: token } });
  t.equal(sdk.status, 200, 'its client token authenticates');
  const served = ((await sdk.json()) as { features: { name: string; enabled: boolean }[] }).features;
  t.strictSame(served.map((f) => [f.name, f.enabled]).sort(), [['before-a', true], ['before-b', false]], 'and is served the flags as they were');
  t.equal((await api('POST', P, { name: 'after' })).status, 201, 'a new write is taken');
}

t.test('a data folder written by the previous release starts in this one, whole and writable', async (t) => {
  if (!previous) return fail(t);
  const dataDir = tempDataDir('fanion-upgrade-');
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const old = await startPrevious({ AUTH_TYPE: 'none' }, dataDir);
  const token = await writeSome(t, old.url);
  t.equal(await old.stop(), 0, 'the previous release stops cleanly');
  const now = await spawnServer({ dataDir, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN } });
  t.teardown(() => now.kill());
  await checkAfter(t, now.url, token);
  t.equal(await now.stop(), 0);
  // Back again: this release wrote nothing in a format the previous one cannot read.
  const back = await startPrevious({ AUTH_TYPE: 'none' }, dataDir);
  t.teardown(() => back.kill());
  await checkDowngrade(t, back.url);
});

t.test('a cluster database written by a node of the previous release is read by a node of this one', async (t) => {
  if (!previous) return fail(t);
  const cluster = await clusterFor(t);
  if (!cluster) return;
  const old = await startPrevious({ DATABASE_URL: cluster.url, AUTH_TYPE: 'none' });
  t.teardown(() => old.kill());
  const token = await writeSome(t, old.url);
  t.equal(await old.stop(), 0, 'the previous release stops cleanly');
  const now = await cluster.node({ AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN });
  await checkAfter(t, now.url, token);
  t.equal(await now.stop(), 0);
  const back = await startPrevious({ DATABASE_URL: cluster.url, AUTH_TYPE: 'none' });
  t.teardown(() => back.kill());
  await checkDowngrade(t, back.url);
});

/** The previous release on data this one wrote: everything there, and writable. */
async function checkDowngrade(t: Test, url: string): Promise<void> {
  const api = client(url);
  const flags = ((await api('GET', P)).json.features as { name: string }[]).map((f) => f.name).sort();
  t.strictSame(flags, ['after', 'before-a', 'before-b'], 'the previous release reads what this one wrote (a downgrade)');
  t.equal((await api('POST', P, { name: 'after-downgrade' })).status, 201, 'and writes on');
}

function fail(t: Test): void {
  if (process.env.CI === 'true') t.fail(`the previous release (${PREVIOUS}) is not in this clone's git history`);
  else t.plan(0, `skipped: the previous release (${PREVIOUS}) is not in this clone's git history`);
}
