// Cross-origin protection: a page on another site cannot change Fanion through a visitor's
// browser, in any auth mode. Every state-changing route (from the server's own OpenAPI document)
// refuses a cross-site request before doing anything; same-origin browser requests, allow-listed
// origins, and programs that send no Origin (curl, SDKs, proxies) pass.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { client, spawnServer } from '../helpers/server.js';

const ADMIN = '*:*.origin-admin-secret';
const CLIENT = 'default:development.origin-client-secret';
const P = '/api/admin/projects/default/features';
const EVIL = 'https://evil.example';

function walBytes(dir: string): number {
  return fs.readdirSync(dir).filter((f) => f.startsWith('wal-')).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
}

t.test('AUTH_TYPE=none: the no-cors POST a web page can send is refused, and the flag stays off', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'none' } });
  t.teardown(() => srv.stop());
  const api = client(srv.url);
  t.equal((await api('POST', P, { name: 'target' })).status, 201);
  const on = `${P}/target/environments/development/on`;

  // What fetch(url, {method: 'POST', mode: 'no-cors'}) sends from https://evil.example.
  const attack = await api('POST', on, undefined, { origin: EVIL, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' });
  t.equal(attack.status, 403);
  t.equal(attack.json.name, 'NoAccessError');
  t.match(attack.json.message, /Cross-origin request refused: a page at https:\/\/evil\.example may not change Fanion \(Sec-Fetch-Site: cross-site\)/);
  t.match(attack.json.message, /CORS_ORIGINS/, 'says how to allow an origin');
  // An older browser sends Origin only.
  t.equal((await api('POST', on, undefined, { origin: EVIL })).status, 403, 'Origin of another site without Sec-Fetch-Site');
  t.equal((await api('POST', on, undefined, { origin: 'null' })).status, 403, 'an opaque origin (sandboxed frame, file: page)');
  t.equal((await api('POST', on, undefined, { origin: EVIL, 'sec-fetch-site': 'same-site' })).status, 403, 'same-site is not same-origin');
  const flag = await api('GET', `${P}/target`);
  t.equal(flag.json.environments.find((e: any) => e.name === 'development').enabled, false, 'the flag is still off');

  // A form post would be 415 anyway, and still is, after the origin check.
  const form = await api('POST', P, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
  t.equal(form.status, 415, 'a same-origin form post is still 415');

  // What passes: the server's own pages, a typed-in request, programs without Origin.
  t.equal((await api('POST', on, undefined, { origin: srv.url, 'sec-fetch-site': 'same-origin' })).status, 200, 'same-origin');
  t.equal((await api('POST', `${P}/target/environments/development/off`, undefined, { 'sec-fetch-site': 'none' })).status, 200, 'Sec-Fetch-Site: none (typed in, bookmarks)');
  t.equal((await api('POST', on, undefined, { origin: srv.url })).status, 200, 'Origin equal to the Host, no Sec-Fetch-Site');
  t.equal((await api('POST', `${P}/target/environments/development/off`)).status, 200, 'no Origin at all (curl, SDKs)');
  t.equal((await api('GET', `${P}/target`, undefined, { origin: EVIL, 'sec-fetch-site': 'cross-site' })).status, 200, 'reads are not state-changing');
});

t.test('with tokens too, every state-changing route refuses a cross-site request and nothing is written', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, CORS_ORIGINS: 'https://console.example.com, http://localhost:3000' } });
  t.teardown(() => srv.stop());
  const admin = client(srv.url, { authorization: ADMIN });
  t.equal((await admin('POST', P, { name: 'f1' })).status, 201);

  const spec = (await admin('GET', '/api/openapi.json')).json;
  const routes: { method: string; path: string }[] = [];
  for (const [p, methods] of Object.entries<Record<string, unknown>>(spec.paths)) {
    // The Frontend API and OFREP are for browsers on other sites (CORS, test/concepts/frontend/routes.test.ts).
    if (p.startsWith('/api/frontend') || p.startsWith('/ofrep/')) continue;
    for (const m of Object.keys(methods)) if (!['get', 'head', 'options'].includes(m)) routes.push({ method: m.toUpperCase(), path: p });
  }
  t.ok(routes.length >= 40, `${routes.length} state-changing routes found`);

  const walBefore = walBytes(srv.dataDir);
  const eventsBefore = (await admin('GET', '/api/admin/events')).json.totalEvents;
  const wrong: string[] = [];
  for (const r of routes) {
    const url = r.path.replace(/\{(\w+)\}/g, (_, k: string) => (k === 'projectId' ? 'default' : k === 'featureName' ? 'f1' : k === 'environment' ? 'development' : 'x'));
    const token = r.path.startsWith('/api/client/') ? CLIENT : ADMIN;
    const res = await client(srv.url)(r.method, url, {}, { authorization: token, origin: EVIL, 'sec-fetch-site': 'cross-site' });
    if (res.status !== 403 || !/^Cross-origin request refused/.test(res.json?.message ?? '')) wrong.push(`${r.method} ${r.path} → ${res.status} ${res.text.slice(0, 100)}`);
  }
  t.same(wrong, [], 'each is 403 with the cross-origin message, whatever token it carries');
  t.equal(walBytes(srv.dataDir), walBefore, 'nothing reached the WAL');
  t.equal((await admin('GET', '/api/admin/events')).json.totalEvents, eventsBefore, 'no event');

  // Allow-listed origins pass, as cross-site requests and as plain Origin ones.
  const allowed = await admin('POST', P, { name: 'from-console' }, { origin: 'https://console.example.com', 'sec-fetch-site': 'cross-site' });
  t.equal(allowed.status, 201, 'an origin in CORS_ORIGINS may write');
  t.equal((await admin('POST', P, { name: 'from-dev' }, { origin: 'http://localhost:3000' })).status, 201, 'another allow-listed origin');
  t.equal((await admin('POST', P, { name: 'from-lookalike' }, { origin: 'https://console.example.com.evil.example' })).status, 403, 'a look-alike is not');
  // SDKs send no Origin: register and metrics pass.
  const register = await client(srv.url, { authorization: CLIENT })('POST', '/api/client/register', { appName: 'a', instanceId: 'i', strategies: [], started: new Date().toISOString(), interval: 1000 });
  t.equal(register.status, 202, 'an SDK registers');
});

t.test('CORS_ORIGINS that are not origins stop start-up with one line', async (t) => {
  for (const bad of ['*', 'https://ok.example/path', 'ftp://x.example', 'not a url']) {
    const srv = await spawnServer({ env: { CORS_ORIGINS: bad }, expectExit: true });
    t.equal(srv.proc.exitCode, 2, `exit 2 for ${bad}`);
    t.match(srv.output(), /Fanion cannot start: CORS_ORIGINS must list origins such as https:\/\/console\.example\.com/);
  }
});
