// Single sign-on end to end, in Chromium: a real OpenID provider (the certified `oidc-provider`,
// with its development login pages) runs in this test on loopback, and a real Fanion is configured
// to use it, with password sign-in turned off. A person signs in with the provider and lands in
// the console with the role their group maps to; an existing account is bound only when the
// provider vouches for the email; a callback that this browser did not start is refused.
import http from 'node:http';
import net from 'node:net';
import Provider from 'oidc-provider';
import t from 'tap';
import { openBrowser, watchPage } from '../helpers/browser.js';
import { client, serve } from '../helpers/server.js';
import { freePort } from '../helpers/ports.js';

const ADMIN = '*:*.oidc-console-admin-token';
const SECRET = 'a-client-secret-of-forty-characters-xxxx';

const ACCOUNTS: Record<string, Record<string, unknown>> = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Example', groups: ['staff', 'fanion-editors'] },
  bob: { email: 'bob@example.com', email_verified: true, name: 'Bob', groups: [] },
  mallory: { email: 'boss@example.com', email_verified: false, name: 'Not the boss', groups: ['fanion-admins'] },
};


t.test('sign in with an OpenID Connect provider', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const idpServer = http.createServer();
  await new Promise<void>((resolve) => idpServer.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => idpServer.close(() => resolve())));
  const issuer = `http://127.0.0.1:${(idpServer.address() as net.AddressInfo).port}`;
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: 'fanion', client_secret: SECRET, redirect_uris: [`${publicUrl}/auth/oidc/callback`],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post',
    }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    findAccount: (_ctx, id) => (ACCOUNTS[id] ? { accountId: id, claims: () => ({ sub: id, ...ACCOUNTS[id] }) } : undefined),
    cookies: { keys: ['oidc-test-cookie-key'] },
    features: { devInteractions: { enabled: true } },
  });
  idpServer.on('request', provider.callback());

  const { srv, ok } = await serve(t, {
    env: {
      AUTH_TYPE: 'api-token', PORT: String(port), INIT_ADMIN_API_TOKENS: ADMIN, PUBLIC_URL: publicUrl, PASSWORD_SIGN_IN: 'false',
      OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'fanion', OIDC_CLIENT_SECRET: SECRET, OIDC_DISPLAY_NAME: 'Test IdP', OIDC_SCOPES: 'openid email profile groups',
      OIDC_AUTO_CREATE: 'true', OIDC_ROLE_CLAIM: 'groups', OIDC_ROLE_MAP: 'fanion-admins=Admin,fanion-editors=Editor', SIGN_IN_LIMIT_PER_ADDRESS: '1000',
    },
    authorization: ADMIN,
  });
  const bob = await ok('POST', '/api/admin/user-admin', { email: 'bob@example.com', name: 'Bob', rootRole: 'Viewer' });
  const boss = await ok('POST', '/api/admin/user-admin', { email: 'boss@example.com', name: 'The boss', rootRole: 'Admin' });

  /** Signs in through the provider's development login page as `login`; returns where the browser ended. */
  const viaProvider = async (login: string) => {
    const context = await browser.newContext();
    t.teardown(() => context.close());
    const page = await context.newPage();
    const { problems } = watchPage(page, srv.url);
    await page.goto(srv.url);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.waitForURL(`${issuer}/**`);
    await page.locator('input[name=login]').fill(login);
    await page.locator('input[name=password]').fill('anything at all');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${srv.url}/**`);
    return { page, problems };
  };

  t.test('password sign-in is off: the page offers the provider only, and the API refuses a password', async (t) => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(srv.url);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    t.equal(await page.getByLabel('Email or username').count(), 0, 'no password form');
    const res = await client(srv.url)('POST', '/auth/simple/login', { username: 'bob@example.com', password: 'whatever it may be' });
    t.equal(res.status, 403);
    t.match(res.json.message, /turned off.*sign in with Test IdP/);
    await page.context().close();
  });

  t.test('a new person: created at first sign-in, with the role their group maps to', async (t) => {
    const { page, problems } = await viaProvider('alice');
    await page.getByRole('heading', { name: 'Flags' }).waitFor();
    t.match(await page.getByRole('navigation', { name: 'Main' }).innerText(), /Signed in as Alice Example/, 'signed in as Alice');
    const me: any = await page.evaluate(async () => (await fetch('/api/admin/user')).json());
    t.same({ email: me.user.email, role: me.user.rootRole, sso: me.user.sso, via: me.authType }, { email: 'alice@example.com', role: 2, sso: true, via: 'session' }, 'an Editor, through fanion-editors');
    // Cookies are not kept per port: the provider's, on the same host, are listed too.
    const cookies = (await page.context().cookies(srv.url)).filter((c) => c.name.startsWith('fanion-'));
    t.same(cookies.map((c) => [c.name, c.httpOnly, c.sameSite]), [['fanion-session', true, 'Lax']], 'one HttpOnly, SameSite=Lax session cookie (the attempt\'s cookie is gone)');
    const created = (await ok('POST', '/api/admin/events/search', { type: 'user-created', query: 'alice' })).events[0];
    t.same({ by: created.createdBy, sso: created.data.sso, role: created.data.rootRole }, { by: 'single-sign-on', sso: true, role: 2 });
    const flag = await page.evaluate(async () => (await fetch('/api/admin/projects/default/features', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'by-alice' }) })).status);
    t.equal(flag, 201, 'and works as an Editor');
    t.same(problems, []);
  });

  t.test('an existing account is bound when the provider vouches for the email, and refused when it does not', async (t) => {
    const { page } = await viaProvider('bob');
    await page.getByRole('heading', { name: 'Flags' }).waitFor();
    const me: any = await page.evaluate(async () => (await fetch('/api/admin/user')).json());
    t.same({ id: me.user.id, role: me.user.rootRole, sso: me.user.sso }, { id: bob.id, role: 3, sso: true }, "Bob's own account (a group mapping nothing: the default role, Viewer)");

    const { page: m } = await viaProvider('mallory');
    await m.getByRole('alert').waitFor();
    t.match(await m.getByRole('alert').innerText(), /already signs in as "boss@example.com"/, "an unverified email does not take the boss's account");
    const stillBoss = await ok('GET', `/api/admin/user-admin/${boss.id}`);
    t.same({ sso: stillBoss.sso, sessions: stillBoss.activeSessions }, { sso: false, sessions: 0 });
  });

  t.test('a callback this browser did not start is refused (login CSRF)', async (t) => {
    // Another browser starts a sign-in and stops at the provider: its state is in its own cookie only.
    const started = await fetch(`${srv.url}/auth/oidc/login`, { redirect: 'manual' });
    t.equal(started.status, 302);
    const state = new URL(started.headers.get('location')!).searchParams.get('state');
    t.ok(state && started.headers.getSetCookie().some((c) => /^fanion-oidc=[^;]+;.*HttpOnly/.test(c)), 'the attempt is bound to its browser by an HttpOnly cookie');
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${srv.url}/auth/oidc/callback?code=stolen&state=${state}`);
    await page.getByRole('alert').waitFor();
    t.match(await page.getByRole('alert').innerText(), /not started in this browser/);
    t.equal((await page.context().cookies(srv.url)).filter((c) => c.name === 'fanion-session').length, 0, 'no session');
    await page.context().close();
  });
});
