// The access log, read from a real server process's output: what is logged, what is not, the
// request id shared with the error body, and no secret under any path, query or header.
import { spawn } from 'node:child_process';
import net from 'node:net';
import t from 'tap';
import { client, MAIN, spawnServer, tempDataDir, type Spawned } from '../helpers/server.js';

const ADMIN = '*:*.adm1n5ecret0123456789abcdef0123456789abcdef';
const CLIENT = 'default:development.cl1ent5ecretABCDEFGHIJKLMNOPQRSTUVWX';
const FRONTEND = 'default:development.fr0ntend-secret-with-dashes-0001';
const SECRETS = [ADMIN, CLIENT, FRONTEND];
/** The parts after the scope: what must never be printed, whole or as the token. */
const TAILS = SECRETS.map((s) => s.slice(s.indexOf('.') + 1));

interface Line {
  level: number;
  time: string;
  kind?: string;
  reqId?: string;
  method?: string;
  route?: string | null;
  path?: string;
  status?: number;
  ms?: number;
  token?: string | null;
  msg: string;
}

function lines(srv: Spawned): Line[] {
  return srv.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);
}
const accessLines = (srv: Spawned) => lines(srv).filter((l) => l.kind === 'access');
const settle = () => new Promise((r) => setTimeout(r, 150));

async function start(env: Record<string, string> = {}) {
  return spawnServer({
    env: {
      AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, INIT_FRONTEND_API_TOKENS: FRONTEND, ...env,
    },
  });
}

t.test('admin requests are logged with route template, status, latency and the token name; successful polls are not', async (t) => {
  const srv = await start();
  t.teardown(() => srv.stop());
  const admin = client(srv.url, { authorization: ADMIN });
  const sdk = client(srv.url, { authorization: CLIENT });
  const created = await admin('POST', '/api/admin/projects/default/features', { name: 'logged-flag' });
  t.equal(created.status, 201);
  const shownId = created.headers.get('x-request-id');
  t.match(shownId, /^[0-9a-f-]{36}$/, 'an admin answer names its request id');
  for (let i = 0; i < 5; i++) t.equal((await sdk('GET', '/api/client/features')).status, 200);
  await sdk('POST', '/api/client/register', { appName: 'a', instanceId: 'i', strategies: [], started: new Date().toISOString(), interval: 1000 });
  await settle();
  const access = accessLines(srv);
  const line = access.find((l) => l.reqId === shownId);
  t.ok(line, 'the admin write has a line under the id its answer carried');
  t.match(line, { method: 'POST', route: '/api/admin/projects/:projectId/features', status: 201, token: 'init-admin-token' });
  t.type(line!.ms, 'number');
  t.ok(line!.ms! >= 0 && line!.ms! < 5_000, `latency ${line!.ms} ms`);
  t.match(line!.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'ISO timestamps');
  t.notOk(access.some((l) => l.route === '/api/client/features'), 'successful polls are not logged');
  t.notOk(access.some((l) => l.route === '/api/client/register'), 'successful SDK registrations are not logged');
});

t.test('refusals and failures are logged, and the error body id is the logged request id', async (t) => {
  const srv = await start();
  t.teardown(() => srv.stop());
  const anon = client(srv.url);
  const sdk = client(srv.url, { authorization: CLIENT });
  const admin = client(srv.url, { authorization: ADMIN });
  const refused = await anon('GET', '/api/client/features', undefined, { authorization: 'nope' });
  t.equal(refused.status, 401);
  t.equal(refused.headers.get('x-request-id'), refused.json.id, 'the header and the body carry the same id');
  const forbidden = await sdk('GET', '/api/admin/projects');
  t.equal(forbidden.status, 403);
  const missing = await admin('GET', '/api/admin/projects/default/features/not-there');
  t.equal(missing.status, 404);
  const invalid = await admin('POST', '/api/admin/projects/default/features', { name: '' });
  t.equal(invalid.status, 400);
  const unmatched = await anon('GET', '/no/such/place?q=1');
  t.equal(unmatched.status, 404);
  const wrongMethod = await admin('DELETE', '/api/admin/projects');
  t.equal(wrongMethod.status, 405);
  await settle();
  const byId = new Map(accessLines(srv).map((l) => [l.reqId, l]));
  t.match(byId.get(refused.json.id), { status: 401, route: '/api/client/features', token: null, level: 40 });
  t.match(byId.get(forbidden.json.id), { status: 403, route: '/api/admin/projects' });
  t.match(byId.get(missing.json.id), { status: 404, route: '/api/admin/projects/:projectId/features/:featureName', token: 'init-admin-token' });
  t.match(byId.get(invalid.json.id), { status: 400, method: 'POST', token: 'init-admin-token' });
  t.match(byId.get(unmatched.json.id), { status: 404, route: null, path: '/*/*/*' });
  t.match(byId.get(wrongMethod.json.id), { status: 405, route: null, method: 'DELETE' });
});

t.test('the console\'s background polls are not logged when they succeed; a poll header hides no change, refusal or other read', async (t) => {
  const srv = await start();
  t.teardown(() => srv.stop());
  const admin = client(srv.url, { authorization: ADMIN });
  const poll = { 'x-fanion-background': 'poll' };
  await admin('POST', '/api/admin/projects/default/features', { name: 'polled' });
  await settle();
  const before = accessLines(srv).length;
  for (let i = 0; i < 5; i++) {
    t.equal((await admin('GET', '/api/admin/events?limit=1', undefined, poll)).status, 200);
    t.equal((await admin('GET', '/api/admin/client-metrics/features/polled/raw?hoursBack=48', undefined, poll)).status, 200);
    t.equal((await admin('GET', '/api/admin/metrics/applications', undefined, poll)).status, 200);
  }
  await settle();
  t.equal(accessLines(srv).length, before, '15 background polls: no line');

  const shown = [
    await admin('GET', '/api/admin/events?limit=1'),
    await admin('GET', '/api/admin/events?limit=0', undefined, poll),
    await admin('GET', '/api/admin/events?limit=1', undefined, { ...poll, authorization: 'wrong' }),
    await admin('POST', '/api/admin/projects/default/features', { name: 'made-while-polling' }, poll),
    await admin('POST', '/api/admin/projects/default/features/polled/environments/development/on', undefined, poll),
    await admin('GET', '/api/admin/api-tokens', undefined, poll),
    await admin('GET', '/api/admin/state/export', undefined, poll),
    await admin('GET', '/api/admin/events?limit=1', undefined, { 'x-fanion-background': 'yes' }),
  ];
  t.same(shown.map((r) => r.status), [200, 400, 401, 201, 200, 200, 200, 200]);
  await settle();
  const lines = accessLines(srv).slice(before);
  t.same(lines.map((l) => `${l.method} ${l.route} ${l.status}`), [
    'GET /api/admin/events 200',
    'GET /api/admin/events 400',
    'GET /api/admin/events 401',
    'POST /api/admin/projects/:projectId/features 201',
    'POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/on 200',
    'GET /api/admin/api-tokens 200',
    'GET /api/admin/state/export 200',
    'GET /api/admin/events 200',
  ], 'logged: the same poll unmarked, a refused and an unauthorized poll, changes and other reads however marked');
});

t.test('a request Node refuses to parse is logged with the id of its error body', async (t) => {
  const srv = await start();
  t.teardown(() => srv.stop());
  const answer = await new Promise<string>((resolve, reject) => {
    const sock = net.connect(srv.port, '127.0.0.1', () => sock.write(`GET /api/admin/projects HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN}\r\nBad Header\r\n\r\n`));
    let got = '';
    sock.on('data', (d) => (got += d.toString()));
    sock.on('end', () => resolve(got));
    sock.on('error', reject);
  });
  t.match(answer, /^HTTP\/1\.1 400/);
  const id = /"id":"([^"]+)"/.exec(answer)![1];
  await settle();
  t.match(accessLines(srv).find((l) => l.reqId === id), { status: 400, route: null });
  t.notOk(srv.output().includes(TAILS[0]), 'the token in the refused request is not printed');
});

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
}

t.test('fuzz: no token secret appears in the log, whatever path, query or header carries it', async (t) => {
  const srv = await start();
  t.teardown(() => srv.stop());
  const rand = rng(20261125);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const prefixes = ['/api/admin/features/', '/api/admin/projects/default/features/', '/api/admin/api-tokens/', '/api/client/features/', '/api/frontend/features/', '/ofrep/v1/evaluate/flags/', '/', '/x/y/', '/api/admin/segments/', '/api/client/'];
  const encodings = [(s: string) => s, encodeURIComponent, (s: string) => s.replace(':', '%3a'), (s: string) => s.slice(s.indexOf('.') + 1)];
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
  let sent = 0;
  for (let i = 0; i < 300; i++) {
    const secret = pick(SECRETS);
    const enc = pick(encodings);
    const where = Math.floor(rand() * 4);
    const path = where === 0 ? pick(prefixes) + enc(secret) + (rand() < 0.5 ? '/variants' : '') : pick(prefixes) + 'flag' + i;
    const query = where === 1 ? `?token=${enc(secret)}&q=${i}` : '';
    const headers: Record<string, string> = {};
    const auth = pick([ADMIN, CLIENT, FRONTEND, `Bearer ${pick(SECRETS)}`, 'wrong', '']);
    if (auth) headers.authorization = auth;
    if (where === 2) headers['x-api-key'] = secret;
    if (where === 3) headers[pick(['referer', 'user-agent', 'x-forwarded-for', 'unleash-appname', 'cookie', 'origin'])] = secret;
    const method = pick(methods);
    const body = method === 'POST' || method === 'PUT' || method === 'PATCH' ? JSON.stringify({ name: secret, token: secret }) : undefined;
    if (body) headers['content-type'] = 'application/json';
    const res = await fetch(srv.url + path + query, { method, headers, body }).catch(() => null);
    await res?.arrayBuffer().catch(() => null);
    sent++;
  }
  await settle();
  const out = srv.output();
  for (const tail of TAILS) {
    const leaked = out.split('\n').filter((l) => l.includes(tail));
    t.same(leaked, [], `the secret ${tail.slice(0, 6)}… is not printed`);
  }
  const access = accessLines(srv);
  t.ok(access.length > sent / 2, `${access.length} access lines for ${sent} requests`);
  t.ok(access.every((l) => typeof l.reqId === 'string' && typeof l.status === 'number'), 'every line names its request and status');
});

t.test('LOG_FORMAT=pretty prints lines for people; an unknown format refuses to start', async (t) => {
  const dataDir = tempDataDir();
  const proc = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_TYPE: 'none', WAL_SYNC: 'none', LOG_FORMAT: 'pretty' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => proc.kill('SIGKILL'));
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Fanion listening on port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', () => reject(new Error(`exited: ${out}`)));
  });
  const res = await fetch(`http://127.0.0.1:${port}/api/admin/projects`);
  t.equal(res.status, 200);
  await settle();
  const line = out.split('\n').find((l) => l.includes('GET /api/admin/projects 200'));
  t.ok(line, 'the access line is there');
  t.notOk(line!.trimStart().startsWith('{'), 'as text, not JSON');
  t.match(line, /INFO/);
  const bad = await spawnServer({ env: { LOG_FORMAT: 'xml' }, expectExit: true });
  t.match(bad.output(), /LOG_FORMAT must be "json" or "pretty"/);
});
