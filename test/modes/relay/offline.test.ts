// Offline mode (BOOTSTRAP_FILE, Unleash Edge's `offline`): a real Fanion process serves a features
// file to the official Node SDK and the Frontend API with the tokens of its settings; a changed file
// reaches the SDK within the reload interval; a bad file keeps the last good flags; a token it was
// not given gets 401.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { spawnServer, tempDataDir } from '../../helpers/server.js';
import { waitFor } from '../../helpers/relay.js';
import { syncedSdk } from '../../helpers/unleash-sdk.js';

const CLIENT = '*:production.offline-client-secret';
const FRONTEND = 'default:production.offline-frontend-secret';

const flag = (name: string, enabled: boolean, rollout = '100') => ({
  name, type: 'release', project: 'default', enabled, stale: false, impressionData: false, description: null,
  strategies: [{ name: 'flexibleRollout', parameters: { rollout, stickiness: 'default', groupId: name }, constraints: [] }], variants: [],
});

function writeFile(file: string, body: unknown) {
  // Written beside, then renamed: the server never reads half a file.
  fs.writeFileSync(`${file}.tmp`, typeof body === 'string' ? body : JSON.stringify(body));
  fs.renameSync(`${file}.tmp`, file);
}

async function startOffline(t: { teardown(fn: () => unknown): void }, file: string, env: Record<string, string> = {}) {
  const server = await spawnServer({
    env: { AUTH_TYPE: 'api-token', BOOTSTRAP_FILE: file, TOKENS: CLIENT, FRONTEND_TOKENS: FRONTEND, RELOAD_INTERVAL: '0.2', ...env },
  });
  t.teardown(() => server.stop());
  await waitFor(async () => (await fetch(`${server.url}/ready`)).status === 200, 'the offline server to be ready');
  return server;
}

t.test('offline mode serves its file to the Node SDK, applies a changed file, keeps the last good one past a bad one', async (t) => {
  const file = path.join(tempDataDir('fanion-offline-'), 'features.json');
  writeFile(file, { version: 2, features: [flag('alpha', true), flag('beta', false)] });
  const server = await startOffline(t, file);

  const sdk = await syncedSdk(t, server.url, { token: CLIENT, refreshInterval: 100 });
  t.equal(sdk.isEnabled('alpha'), true, 'the file\'s enabled flag is on in the SDK');
  t.equal(sdk.isEnabled('beta'), false, 'its disabled flag is off');

  // The file changes: within RELOAD_INTERVAL (0.2 s) + the SDK's poll (0.1 s), bounded at 5 s here.
  const changedAt = Date.now();
  writeFile(file, { version: 2, features: [flag('alpha', false), flag('beta', true), flag('gamma', true)] });
  await waitFor(() => sdk.isEnabled('beta') && !sdk.isEnabled('alpha') && sdk.isEnabled('gamma'), 'the SDK to see the changed file', 5_000);
  t.ok(Date.now() - changedAt < 5_000, `the SDK saw the change in ${Date.now() - changedAt} ms`);

  // A bad file (not JSON, then not a features answer): the last good flags are still served.
  for (const bad of ['{"version": 2, "features": [', { version: 2, features: [{ name: 'x', strategies: 'nope' }] }]) {
    const before = server.output().length;
    writeFile(file, bad);
    await waitFor(() => /BOOTSTRAP_FILE refused[^\n]*last good flags are still served/.test(server.output().slice(before)), 'the refusal line', 5_000);
    const res = await fetch(`${server.url}/api/client/features`, { headers: { authorization: CLIENT } });
    t.equal(res.status, 200, 'the client API still answers');
    const body = (await res.json()) as { features: { name: string; enabled: boolean }[] };
    t.same(body.features.map((f) => [f.name, f.enabled]).sort(), [['alpha', false], ['beta', true], ['gamma', true]], 'with the last good file\'s flags');
  }
  t.equal(sdk.isEnabled('beta'), true, 'the SDK keeps them too');

  // The frontend token of the settings works on the Frontend API; a token not given gets 401.
  const front = await fetch(`${server.url}/api/frontend`, { headers: { authorization: FRONTEND } });
  t.equal(front.status, 200, 'FRONTEND_TOKENS entry: 200 on /api/frontend');
  t.same(((await front.json()) as { toggles: { name: string }[] }).toggles.map((x) => x.name).sort(), ['beta', 'gamma'], 'the enabled flags of the file');
  for (const [p, token] of [['/api/client/features', '*:production.not-given'], ['/api/frontend', 'default:production.not-given']]) {
    t.equal((await fetch(`${server.url}${p}`, { headers: { authorization: token } })).status, 401, `${p} with a token not in its settings: 401`);
  }
  t.equal((await fetch(`${server.url}/api/client/features`, { headers: { authorization: FRONTEND } })).status, 403, 'a frontend token on the client API: 403, as Unleash');
  t.equal((await fetch(`${server.url}/api/admin/features`, { headers: { authorization: CLIENT } })).status, 404, 'no admin API');
});

t.test('/internal-backstage/features and /tokens: what offline mode holds, for a client token, without secrets', async (t) => {
  const file = path.join(tempDataDir('fanion-offline-'), 'features.json');
  writeFile(file, { version: 2, features: [flag('alpha', true), { ...flag('other', false), project: 'other' }] });
  const server = await startOffline(t, file, { TOKENS: `${CLIENT},default:staging.offline-staging-client` });
  const get = async (p: string, token?: string) => {
    const res = await fetch(`${server.url}${p}`, { headers: token ? { authorization: token } : {} });
    return { status: res.status, text: await res.text() };
  };
  const features = await get('/internal-backstage/features', CLIENT);
  t.equal(features.status, 200);
  t.same(JSON.parse(features.text), { production: { features: [{ name: 'alpha', project: 'default', enabled: true, strategies: 1 }, { name: 'other', project: 'other', enabled: false, strategies: 1 }] } }, 'the flags of the token\'s environment');
  const narrow = JSON.parse((await get('/internal-backstage/features', 'default:staging.offline-staging-client')).text) as Record<string, { features: { name: string }[] }>;
  t.same(Object.keys(narrow), ['staging'], 'a token of another environment sees that one');
  t.same(narrow.staging.features.map((f) => f.name), ['alpha'], 'and only its projects');

  const tokens = await get('/internal-backstage/tokens', CLIENT);
  t.equal(tokens.status, 200);
  const list = (JSON.parse(tokens.text) as { tokens: { token: string; type: string; environment: string; status: string }[] }).tokens;
  t.same(list.map((x) => [x.type, x.environment, x.status]).sort(), [['client', 'production', 'validated'], ['client', 'staging', 'validated'], ['frontend', 'production', 'validated']], 'every token of the settings, validated');
  t.ok(list.every((x) => /^[^.]+\.\*{4}[0-9a-f]{8}$/.test(x.token)), `shown by scope and fingerprint (${list[0].token})`);
  for (const secret of ['offline-client-secret', 'offline-frontend-secret', 'offline-staging-client']) t.notOk(tokens.text.includes(secret), `no secret in the answer (${secret})`);

  for (const p of ['/internal-backstage/features', '/internal-backstage/tokens']) {
    t.equal((await get(p)).status, 401, `${p} without a token: 401`);
    t.equal((await get(p, '*:production.not-given')).status, 401, `${p} with a token not held: 401`);
    t.equal((await get(p, FRONTEND)).status, 403, `${p} with a frontend token: 403`);
  }
});

t.test('offline mode started with a bad file is not ready and serves nothing until the file is fixed', async (t) => {
  const file = path.join(tempDataDir('fanion-offline-'), 'features.json');
  writeFile(file, { features: 'not a list' });
  const server = await spawnServer({ env: { AUTH_TYPE: 'api-token', BOOTSTRAP_FILE: file, TOKENS: CLIENT, RELOAD_INTERVAL: '0.2' } });
  t.teardown(() => server.stop());
  await waitFor(() => /BOOTSTRAP_FILE refused[^\n]*nothing is served until a good file is read/.test(server.output()), 'the refusal line', 5_000);
  t.equal((await fetch(`${server.url}/ready`)).status, 503, '/ready: 503 while the file is bad');
  const early = await fetch(`${server.url}/api/client/features`, { headers: { authorization: CLIENT } });
  t.same([early.status, Number(early.headers.get('retry-after')) >= 1], [503, true], 'its configured token: 503 with Retry-After (SDKs retry), not 401');
  t.equal((await fetch(`${server.url}/api/client/features`, { headers: { authorization: '*:production.not-given' } })).status, 401, 'a token not given: 401');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.equal(server.output().match(/BOOTSTRAP_FILE refused/g)?.length, 1, 'said once, not at every read (5 reads in that second)');
  writeFile(file, { version: 2, features: [flag('alpha', true)] });
  await waitFor(async () => (await fetch(`${server.url}/ready`)).status === 200, 'ready once fixed', 5_000);
  const sdk = await syncedSdk(t, server.url, { token: CLIENT });
  t.equal(sdk.isEnabled('alpha'), true, 'the fixed file\'s flag reaches the SDK');
});

t.test('a file larger than IMPORT_BODY_LIMIT_BYTES is refused, the last good flags kept', async (t) => {
  const file = path.join(tempDataDir('fanion-offline-'), 'features.json');
  writeFile(file, { version: 2, features: [flag('alpha', true)] });
  const server = await startOffline(t, file, { IMPORT_BODY_LIMIT_BYTES: '20000' });
  const before = server.output().length;
  writeFile(file, { version: 2, features: Array.from({ length: 200 }, (_, i) => flag(`big-${i}`, true)) });
  await waitFor(() => /BOOTSTRAP_FILE refused[^\n]*more than IMPORT_BODY_LIMIT_BYTES/.test(server.output().slice(before)), 'the refusal line', 5_000);
  const body = (await (await fetch(`${server.url}/api/client/features`, { headers: { authorization: CLIENT } })).json()) as { features: { name: string }[] };
  t.same(body.features.map((f) => f.name), ['alpha'], 'still the last good file');
});

t.test('offline settings that cannot work are refused at start, naming the setting', async (t) => {
  const file = path.join(tempDataDir('fanion-offline-'), 'features.json');
  writeFile(file, { version: 2, features: [] });
  for (const [env, want] of [
    [{ TOKENS: 'no-scope-secret' }, /TOKENS must list tokens such as/],
    [{ TOKENS: CLIENT, UPSTREAM_URL: 'http://127.0.0.1:1' }, /BOOTSTRAP_FILE and UPSTREAM_URL cannot both be set/],
    [{}, /no token is/],
  ] as const) {
    const s = await spawnServer({ expectExit: true, env: { AUTH_TYPE: 'api-token', BOOTSTRAP_FILE: file, ...env } });
    t.not(await s.stop(), 0, 'it exits with an error');
    t.match(s.output(), want, `and says why: ${String(want)}`);
  }
});
