// People against a real server process: the first Admin, sign-in and its cookie, sessions that
// survive a restart and end (sign-out, everywhere, deactivation, a password change, idle and
// absolute lifetimes), invitations, personal access tokens acting as their person, Unleash's shapes,
// events that name the person, and no secret in any event or log line.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { printedPassword, sessionCookie, signInAs, STRONG, withSession } from '../../helpers/people.js';
import { client, spawnServer, tempDataDir, type Spawned } from '../../helpers/server.js';

const AUTH = { AUTH_TYPE: 'api-token', LOG_LEVEL: 'debug' };

t.test('the first Admin: generated and printed once, or from the Unleash variables; a weak one stops the start', async (t) => {
  const dataDir = tempDataDir();
  const first = await spawnServer({ dataDir, env: AUTH });
  const password = printedPassword(first.output());
  t.ok(password.length >= 20, 'a long generated password');
  await signInAs(first.url, 'admin', password);
  await first.stop();
  const again = await spawnServer({ dataDir, env: AUTH });
  t.teardown(() => again.stop());
  t.notMatch(again.output(), /FANION FIRST ADMIN \(/, 'not made or printed again');
  await signInAs(again.url, 'admin', password);

  const chosen = await spawnServer({ env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_USERNAME: 'root@example.com', UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG } });
  t.teardown(() => chosen.stop());
  t.notMatch(chosen.output(), /FANION FIRST ADMIN \(/, 'nothing printed when the password was given');
  t.notMatch(chosen.output(), new RegExp(STRONG), 'nor the given password logged');
  const id = await signInAs(chosen.url, 'ROOT@example.com', STRONG);
  const me = await withSession(chosen.url, id)('GET', '/api/admin/user');
  t.equal(me.json.user.email, 'root@example.com', 'a name with @ is an email');
  t.same(me.json.permissions, [{ permission: 'ADMIN' }, { permission: 'APPROVE_CHANGE_REQUEST' }], 'everything, approving change requests listed by itself');

  const weak = await spawnServer({ env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: 'unleash4all' }, expectExit: true });
  t.equal(weak.proc.exitCode, 2, 'a weak default password stops the start');
  t.match(weak.output(), /UNLEASH_DEFAULT_ADMIN_PASSWORD is refused: .*(at least 12|common)/);
});

t.test('sign-in, the session cookie, who am I, sign-out; sessions survive a restart', async (t) => {
  const dataDir = tempDataDir();
  let srv: Spawned = await spawnServer({ dataDir, env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG } });
  t.teardown(() => srv.stop());
  const anon = client(srv.url);
  const res = await anon('POST', '/auth/simple/login', { username: 'admin', password: STRONG });
  t.equal(res.status, 200);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('fanion-session='))!;
  t.match(cookie, /HttpOnly/);
  t.match(cookie, /SameSite=Lax/);
  t.match(cookie, /Path=\//);
  t.notMatch(cookie, /Secure/, 'not Secure over plain HTTP: the browser would never send it back');
  t.equal(res.headers.get('cache-control'), 'no-store');
  t.same({ id: res.json.id, username: res.json.username, rootRole: res.json.rootRole, accountType: res.json.accountType }, { id: 1, username: 'admin', rootRole: 1, accountType: 'User' }, "Unleash's user shape");
  t.notOk('passwordHash' in res.json || 'password' in res.json);
  const id = sessionCookie(res)!;
  t.ok(id.length >= 40, 'the id is long and random');
  const me = withSession(srv.url, id);
  t.equal((await me('GET', '/api/admin/projects')).status, 200, 'the cookie works on admin routes');
  const who = await me('GET', '/api/admin/user');
  t.equal(who.json.authType, 'session');
  t.equal(who.json.user.username, 'admin');

  const tls = await anon('POST', '/auth/simple/login', { username: 'admin', password: STRONG }, { 'x-forwarded-proto': 'https' });
  t.notMatch(tls.headers.getSetCookie()[0], /Secure/, 'X-Forwarded-Proto is not believed without TRUST_PROXY');

  await srv.stop();
  srv = await spawnServer({ dataDir, env: { ...AUTH, TRUST_PROXY: 'true' } });
  t.equal((await withSession(srv.url, id)('GET', '/api/admin/projects')).status, 200, 'the session survived the restart');
  const behind = await client(srv.url)('POST', '/auth/simple/login', { username: 'admin', password: STRONG }, { 'x-forwarded-proto': 'https' });
  t.match(behind.headers.getSetCookie()[0], /; Secure/, 'Secure when a trusted proxy says the browser came over HTTPS');

  const out = await fetch(`${srv.url}/logout`, { method: 'POST', headers: { cookie: `fanion-session=${id}` }, redirect: 'manual' });
  t.equal(out.status, 302);
  t.equal(out.headers.get('location'), '/');
  t.match(out.headers.getSetCookie()[0], /fanion-session=;.*Max-Age=0/, 'the cookie is cleared');
  const after = await withSession(srv.url, id)('GET', '/api/admin/projects');
  t.equal(after.status, 401, 'and the session has ended on the server');
  t.equal(after.json.name, 'AuthenticationRequired');
});

t.test('a session id planted before sign-in is worthless after it (no fixation)', async (t) => {
  const srv = await spawnServer({ env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG } });
  t.teardown(() => srv.stop());
  const planted = 'attacker-chosen-session-id-0123456789abcdefghijkl';
  const res = await client(srv.url)('POST', '/auth/simple/login', { username: 'admin', password: STRONG }, { cookie: `fanion-session=${planted}` });
  const fresh = sessionCookie(res)!;
  t.not(fresh, planted, 'sign-in answers with a new id');
  t.equal((await withSession(srv.url, planted)('GET', '/api/admin/projects')).status, 401, 'the planted one gives nothing');
  // A browser already signed in (say, as someone else) that signs in again gets a new session; the old one ends.
  const second = await client(srv.url)('POST', '/auth/simple/login', { username: 'admin', password: STRONG }, { cookie: `fanion-session=${fresh}` });
  t.not(sessionCookie(second), fresh);
  t.equal((await withSession(srv.url, fresh)('GET', '/api/admin/projects')).status, 401, 'the session it replaced has ended');
});

t.test('people managed by an Admin: invitation, roles, deactivation, deletion, and the events', async (t) => {
  const srv = await spawnServer({ env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, PASSWORD_LINK_TTL_MS: '2000' } });
  t.teardown(() => srv.stop());
  const admin = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG));
  const anon = client(srv.url);

  const made = await admin('POST', '/api/admin/user-admin', { email: 'Ed@Example.com', name: 'Ed', rootRole: 'Editor', sendEmail: false });
  t.equal(made.status, 201);
  t.same({ rootRole: made.json.rootRole, emailSent: made.json.emailSent, accountType: made.json.accountType }, { rootRole: 2, emailSent: false, accountType: 'User' });
  t.match(made.json.inviteLink, /^\/#\/invite\/[A-Za-z0-9_-]{43}$/, 'an invitation link (relative: no PUBLIC_URL)');
  const secret = made.json.inviteLink.split('/').pop();
  t.equal((await admin('POST', '/api/admin/user-admin', { email: 'ed@example.COM', rootRole: 3 })).status, 409, 'emails are unique without regard to case');
  t.equal((await admin('POST', '/api/admin/user-admin', { username: 'ed@example.com', rootRole: 3 })).status, 409, "and nobody's username may be another's email");
  const bad = await admin('POST', '/api/admin/user-admin', { email: 'x@example.com', rootRole: 'Owner' });
  t.equal(bad.status, 400);
  t.match(bad.json.message, /root role/);

  const link = await anon('GET', `/auth/reset/validate?token=${secret}`);
  t.equal(link.status, 200);
  t.same({ email: link.json.email, createdBy: link.json.createdBy, role: link.json.role.name }, { email: 'Ed@Example.com', createdBy: 'admin', role: 'Editor' });
  t.equal((await anon('POST', '/auth/reset/password', { token: secret, password: 'Password1234' })).status, 400, 'a common password is refused');
  t.equal((await anon('POST', '/auth/reset/password', { token: secret, password: STRONG })).status, 200);
  t.equal((await anon('POST', '/auth/reset/password', { token: secret, password: `${STRONG} again` })).status, 401, 'the link works once');
  t.equal((await anon('GET', `/auth/reset/validate?token=${secret}`)).status, 401);
  const ed = withSession(srv.url, await signInAs(srv.url, 'ed@example.com', STRONG));
  t.equal((await ed('POST', '/api/admin/projects/default/features', { name: 'by-ed' })).status, 201, 'an Editor creates flags');
  const refused = await ed('GET', '/api/admin/api-tokens');
  t.equal(refused.status, 403, 'but not tokens');
  t.equal(refused.json.message, 'You need permission=ADMIN to perform this action on environment=*: only an Admin may, and your root role is Editor.');

  const reset = await admin('POST', '/api/admin/user-admin/reset-password', { id: 'ed@example.com' });
  const resetSecret = reset.json.resetPasswordUrl.split('/').pop();
  t.match(reset.json.resetPasswordUrl, /^\/#\/reset\//);
  await new Promise((r) => setTimeout(r, 2100));
  t.equal((await anon('POST', '/auth/reset/password', { token: resetSecret, password: STRONG })).status, 401, 'a link past PASSWORD_LINK_TTL_MS is refused');

  const edId = made.json.id;
  const off = await admin('PUT', `/api/admin/user-admin/${edId}`, { active: false });
  t.equal(off.json.active, false);
  const out = await ed('GET', '/api/admin/projects');
  t.equal(out.status, 401, 'a deactivated person is signed out at once');
  t.match(out.json.message, /session has ended/);
  t.equal((await anon('POST', '/auth/simple/login', { username: 'ed@example.com', password: STRONG })).status, 401, 'and cannot sign in');
  t.equal((await admin('PUT', '/api/admin/user-admin/1', { rootRole: 'Viewer' })).status, 400, 'the last active Admin stays Admin');
  t.equal((await admin('DELETE', '/api/admin/user-admin/1')).status, 400, 'and is not deleted');
  t.equal((await admin('DELETE', `/api/admin/user-admin/${edId}`)).status, 200);
  t.equal((await admin('GET', `/api/admin/user-admin/${edId}`)).status, 404);

  const events = (await admin('GET', '/api/admin/events')).json.events;
  const types = events.map((e: any) => e.type);
  t.ok(types.includes('user-created') && types.includes('user-updated') && types.includes('user-deleted'));
  const created = events.find((e: any) => e.type === 'feature-created' && e.featureName === 'by-ed');
  t.same({ by: created.createdBy, id: created.createdByUserId }, { by: 'Ed@Example.com', id: edId }, 'events name the person who acted');
  const updated = events.find((e: any) => e.type === 'user-updated');
  t.same({ before: updated.preData.active, after: updated.data.active, by: updated.createdBy }, { before: true, after: false, by: 'admin' });
  const text = JSON.stringify(events);
  t.notMatch(text, /scrypt|passwordHash|password"/, 'no password or hash in any event');
  t.notOk(text.includes(secret) || text.includes(resetSecret), 'nor a link');
});

t.test('a password change ends the other sessions; sign out everywhere ends them all', async (t) => {
  const srv = await spawnServer({ env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG } });
  t.teardown(() => srv.stop());
  const one = await signInAs(srv.url, 'admin', STRONG);
  const two = await signInAs(srv.url, 'admin', STRONG);
  const me = withSession(srv.url, one);
  t.equal((await me('POST', '/api/admin/user/change-password', { password: `${STRONG} two` })).status, 400, 'the old password is needed');
  const wrong = await me('POST', '/api/admin/user/change-password', { password: `${STRONG} two`, oldPassword: 'not the one' });
  t.equal(wrong.status, 401);
  t.equal((await me('POST', '/api/admin/user/change-password', { password: `${STRONG} two`, oldPassword: STRONG, confirmPassword: 'other' })).status, 400);
  t.equal((await me('POST', '/api/admin/user/change-password', { password: `${STRONG} two`, oldPassword: STRONG })).status, 200);
  t.equal((await me('GET', '/api/admin/projects')).status, 200, 'the session that changed it goes on');
  t.equal((await withSession(srv.url, two)('GET', '/api/admin/projects')).status, 401, 'the other one has ended');
  t.equal((await client(srv.url)('POST', '/auth/simple/login', { username: 'admin', password: STRONG })).status, 401, 'the old password no longer works');
  const three = await signInAs(srv.url, 'admin', `${STRONG} two`);
  t.equal((await me('DELETE', '/api/admin/user/sessions')).status, 200);
  for (const s of [one, three]) t.equal((await withSession(srv.url, s)('GET', '/api/admin/projects')).status, 401, 'signed out everywhere');
});

t.test('sessions end when idle and at their absolute end; ended ones are forgotten by the flush', async (t) => {
  const srv = await spawnServer({ env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SESSION_IDLE_TIMEOUT_MS: '1000', SESSION_MAX_AGE_MS: '2600', METRICS_FLUSH_MS: '300', INIT_ADMIN_API_TOKENS: '*:*.people-routes-admin-token' } });
  t.teardown(() => srv.stop());
  const token = client(srv.url, { authorization: '*:*.people-routes-admin-token' });
  const sessionsNow = async () => (await token('GET', '/api/admin/user-admin/1')).json.activeSessions;
  const idle = await signInAs(srv.url, 'admin', STRONG);
  const busy = await signInAs(srv.url, 'admin', STRONG);
  const admin = withSession(srv.url, busy);
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 300));
    t.equal((await admin('GET', '/api/admin/projects')).status, 200, `a session in use stays (${(i + 1) * 300} ms)`);
  }
  t.equal((await withSession(srv.url, idle)('GET', '/api/admin/projects')).status, 401, 'one unused for SESSION_IDLE_TIMEOUT_MS has ended');
  t.equal(await sessionsNow(), 1, 'and the flush has forgotten it');
  await new Promise((r) => setTimeout(r, 1300));
  t.equal((await admin('GET', '/api/admin/projects')).status, 401, 'and one in use ends at SESSION_MAX_AGE_MS');
  await new Promise((r) => setTimeout(r, 400));
  t.equal(await sessionsNow(), 0, 'forgotten too');
});

t.test('personal access tokens act as their person; deactivation stops them; Admins see and revoke them', async (t) => {
  const srv = await spawnServer({ env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG } });
  t.teardown(() => srv.stop());
  const admin = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG));
  const viewer = (await admin('POST', '/api/admin/user-admin', { username: 'vic', rootRole: 'Viewer', password: STRONG })).json;
  const vic = withSession(srv.url, await signInAs(srv.url, 'vic', STRONG));
  const made = await vic('POST', '/api/admin/user/tokens', { description: 'scripts', expiresAt: '2099-01-01T00:00:00Z' });
  t.equal(made.status, 201);
  t.match(made.json.secret, /^user:[0-9a-f]{64}$/);
  const pat = client(srv.url, { authorization: made.json.secret });
  const who = await pat('GET', '/api/admin/user');
  t.same({ name: who.json.user.username, via: who.json.authType }, { name: 'vic', via: 'personal-token' });
  const refused = await pat('POST', '/api/admin/projects/default/features', { name: 'nope' });
  t.equal(refused.status, 403, "a Viewer's token may not change flags");
  t.match(refused.json.message, /your root role is Viewer/);
  t.equal((await pat('POST', '/api/admin/user/tokens', { description: 'more', expiresAt: '2099-01-01T00:00:00Z' })).status, 403, 'a token cannot mint tokens');
  t.equal((await admin('PUT', `/api/admin/user-admin/${viewer.id}`, { rootRole: 'Editor' })).status, 200);
  t.equal((await pat('POST', '/api/admin/projects/default/features', { name: 'by-token' })).status, 201, 'its person became an Editor: so did the token');
  const listed = await vic('GET', '/api/admin/user/tokens');
  t.same(listed.json.pats.map((p: any) => p.description), ['scripts']);
  t.notOk('secret' in listed.json.pats[0], 'listed without the secret');
  t.same((await admin('GET', `/api/admin/user-admin/${viewer.id}/tokens`)).json.pats.map((p: any) => p.id), [made.json.id], 'an Admin sees them');
  t.equal((await admin('PUT', `/api/admin/user-admin/${viewer.id}`, { active: false })).status, 200);
  t.equal((await pat('GET', '/api/admin/projects')).status, 401, "a deactivated person's token stops working");
  t.equal((await admin('PUT', `/api/admin/user-admin/${viewer.id}`, { active: true })).status, 200);
  t.equal((await pat('GET', '/api/admin/projects')).status, 200, 'and works again once they are back');
  t.equal((await admin('DELETE', `/api/admin/user-admin/${viewer.id}/tokens/${made.json.id}`)).status, 200, 'an Admin revokes it');
  t.equal((await pat('GET', '/api/admin/projects')).status, 401);
  const events = (await admin('GET', '/api/admin/events')).json.events;
  t.ok(events.some((e: any) => e.type === 'pat-created' && e.createdBy === 'vic'));
  t.ok(events.some((e: any) => e.type === 'feature-created' && e.createdBy === 'vic' && e.createdByUserId === viewer.id), 'what the token did is in the person\'s name');
  t.notOk(JSON.stringify(events).includes(made.json.secret.slice(5)), 'the secret is in no event');
});

t.test('cookie-carrying requests from another site are refused; the log holds no secret', async (t) => {
  const srv = await spawnServer({ env: { ...AUTH, LOG_LEVEL: 'trace', UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG } });
  const id = await signInAs(srv.url, 'admin', STRONG);
  const me = withSession(srv.url, id);
  const evil = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
  const csrf = await me('POST', '/api/admin/projects/default/features', { name: 'csrf' }, evil);
  t.equal(csrf.status, 403, 'a cross-site request carrying the cookie changes nothing');
  t.match(csrf.json.message, /Cross-origin request refused/);
  t.equal((await me('POST', '/logout', undefined, evil)).status, 403, 'nor signs out');
  t.equal((await client(srv.url)('POST', '/auth/simple/login', { username: 'admin', password: STRONG }, evil)).status, 403, 'nor signs in (login CSRF)');
  t.equal((await me('GET', '/api/admin/projects/default/features/csrf')).status, 404);
  t.equal((await me('POST', '/api/admin/projects/default/features', { name: 'same-site' }, { origin: srv.url, 'sec-fetch-site': 'same-origin' })).status, 201, 'the console itself may');
  const made = await me('POST', '/api/admin/user-admin', { email: 'x@example.com', rootRole: 'Viewer' });
  const link = made.json.inviteLink.split('/').pop();
  await client(srv.url)('GET', `/auth/reset/validate?token=${link}`);
  await client(srv.url)('POST', '/auth/simple/login', { username: 'admin', password: 'a wrong password here' });
  const pat = (await me('POST', '/api/admin/user/tokens', { description: 'x', expiresAt: '2099-01-01T00:00:00Z' })).json.secret;
  await client(srv.url, { authorization: pat })('GET', '/api/admin/projects');
  await srv.stop();
  const out = srv.output();
  t.ok(out.includes('"route":"/auth/simple/login"'), 'there are access lines to search');
  for (const [what, secret] of [['password', STRONG], ['session id', id], ['invitation link', link], ['personal token', pat.slice(5)], ['wrong password', 'a wrong password here']]) {
    t.notOk(out.includes(secret), `no ${what} in the log`);
  }
  const wal = fs.readdirSync(srv.dataDir).filter((f) => f.startsWith('wal-')).map((f) => fs.readFileSync(path.join(srv.dataDir, f)).toString('latin1')).join('');
  for (const [what, secret] of [['password', STRONG], ['session id', id], ['invitation link', link], ['personal token', pat]]) {
    t.notOk(wal.includes(secret), `no ${what} in the WAL (only keyed hashes)`);
  }
});

t.test('a password hashed with weaker parameters is hashed again at sign-in, and no session ends', async (t) => {
  const dataDir = tempDataDir();
  const weak = await spawnServer({ dataDir, env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, PASSWORD_SCRYPT_LOG_N: '10' } });
  const before = await signInAs(weak.url, 'admin', STRONG);
  await weak.stop();
  const wal = () => fs.readdirSync(dataDir).filter((f) => f.startsWith('wal-')).map((f) => fs.readFileSync(path.join(dataDir, f)).toString('latin1')).join('');
  t.notOk(wal().includes('$scrypt$ln=11,'), 'hashed at 2^10 first');
  const stronger = await spawnServer({ dataDir, env: { ...AUTH, PASSWORD_SCRYPT_LOG_N: '11' } });
  t.teardown(() => stronger.stop());
  await signInAs(stronger.url, 'admin', STRONG);
  t.ok(wal().includes('$scrypt$ln=11,r=8,p=3$'), 'hashed again at 2^11 once the password was at hand');
  t.equal((await withSession(stronger.url, before)('GET', '/api/admin/projects')).status, 200, 'the session opened before goes on');
  await signInAs(stronger.url, 'admin', STRONG);
});

t.test('using a session writes nothing per request: its last use goes out with the metrics flush', async (t) => {
  const dataDir = tempDataDir();
  const srv = await spawnServer({ dataDir, env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, METRICS_FLUSH_MS: '600000' } });
  const id = await signInAs(srv.url, 'admin', STRONG);
  const me = withSession(srv.url, id);
  const bytes = () => fs.readdirSync(dataDir).filter((f) => f.startsWith('wal-')).reduce((n, f) => n + fs.statSync(path.join(dataDir, f)).size, 0);
  await me('GET', '/api/admin/projects');
  const before = bytes();
  for (let i = 0; i < 200; i++) await me('GET', '/api/admin/projects');
  t.equal(bytes(), before, '200 requests with the cookie appended nothing to the WAL');
  await srv.stop();
  t.ok(bytes() > before, 'the clean stop wrote the last use (one record)');
  const again = await spawnServer({ dataDir, env: { ...AUTH, SESSION_IDLE_TIMEOUT_MS: '600000' } });
  t.teardown(() => again.stop());
  t.equal((await withSession(again.url, id)('GET', '/api/admin/projects')).status, 200, 'and the session goes on after the restart');
});

t.test('deactivating a person ends their reset and invitation links: reactivating them does not bring a link back', async (t) => {
  const srv = await spawnServer({ env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG } });
  t.teardown(() => srv.stop());
  const admin = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG));
  const anon = client(srv.url);
  const sam = (await admin('POST', '/api/admin/user-admin', { email: 'sam@example.com', rootRole: 'Viewer', password: STRONG })).json;
  const reset = (await admin('POST', '/api/admin/user-admin/reset-password', { id: 'sam@example.com' })).json.resetPasswordUrl.split('/').pop();
  const invited = (await admin('POST', '/api/admin/user-admin', { email: 'ivy@example.com', rootRole: 'Viewer' })).json;
  const invite = invited.inviteLink.split('/').pop();
  for (const who of [sam, invited]) {
    t.equal((await admin('PUT', `/api/admin/user-admin/${who.id}`, { active: false })).status, 200);
    t.equal((await admin('PUT', `/api/admin/user-admin/${who.id}`, { active: true })).status, 200);
  }
  const used = await anon('POST', '/auth/reset/password', { token: reset, password: `${STRONG} chosen by whoever held the link` });
  t.comment(`measured: a reset link made before a deactivation, used after the reactivation: ${used.status}`);
  t.equal(used.status, 401, 'the reset link made before the deactivation is refused');
  t.equal((await anon('GET', `/auth/reset/validate?token=${invite}`)).status, 401, 'so is the invitation');
  t.equal((await anon('POST', '/auth/reset/password', { token: invite, password: STRONG })).status, 401);
  await signInAs(srv.url, 'sam@example.com', STRONG);
  const fresh = (await admin('POST', '/api/admin/user-admin/reset-password', { id: 'ivy@example.com' })).json.resetPasswordUrl.split('/').pop();
  t.equal((await anon('POST', '/auth/reset/password', { token: fresh, password: STRONG })).status, 200, 'a link made after the reactivation works');
});

t.test('an API token for a project named "user" is an API token, not a personal one; personal tokens still work', async (t) => {
  const srv = await spawnServer({ env: { ...AUTH, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG } });
  t.teardown(() => srv.stop());
  const admin = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG));
  t.equal((await admin('POST', '/api/admin/projects', { id: 'user', name: 'User' })).status, 201);
  const made = await admin('POST', '/api/admin/api-tokens', { tokenName: 'for-user', type: 'admin', projects: ['user'] });
  t.equal(made.status, 201, made.text);
  t.match(made.json.secret, /^user:/, 'it starts with "user:", like a personal token');
  const token = client(srv.url, { authorization: made.json.secret });
  const features = await token('GET', '/api/admin/projects/user/features');
  t.comment(`measured: the project "user" admin token on GET /api/admin/projects/user/features: ${features.status}`);
  t.equal(features.status, 200, 'it authenticates as the API token it is');
  t.equal((await token('POST', '/api/admin/projects/user/features', { name: 'by-token' })).status, 201);
  const who = await token('GET', '/api/admin/user');
  t.equal(who.json.authType, 'token');
  const pat = (await admin('POST', '/api/admin/user/tokens', { description: 'mine', expiresAt: '2099-01-01T00:00:00Z' })).json.secret;
  t.equal((await client(srv.url, { authorization: pat })('GET', '/api/admin/user')).json.authType, 'personal-token', 'a personal token is still one');
  t.equal((await client(srv.url, { authorization: `${pat.slice(0, -1)}.` })('GET', '/api/admin/projects')).status, 401, 'and a near miss is no token');
});
