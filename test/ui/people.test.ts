// People in the console, in Debian's Chromium against a real server: an Admin signs in with a
// password and invites someone, who opens the one-time link, chooses a password and signs in; an
// Editor is refused on the tokens page; a project Member changes only their project; a person
// limited to development switches it but not production; a person deactivated while signed in is
// sent back to sign-in; the profile changes a password, makes a personal token and signs out
// everywhere; the events page shows who changed what, before and after (events about people to
// Admins only).
import t from 'tap';
import { acceptNextDialog, artifactPath, openBrowser, signInWithPassword, watchPage } from '../helpers/browser.js';
import { STRONG } from '../helpers/people.js';
import { client, serve } from '../helpers/server.js';

const ADMIN = '*:*.people-console-admin-token';

t.test('people in the console', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000' },
    authorization: ADMIN,
  });
  await ok('POST', '/api/admin/projects', { id: 'alpha', name: 'Alpha' });
  await ok('POST', '/api/admin/projects/alpha/features', { name: 'alpha-flag' });
  await ok('POST', '/api/admin/projects/default/features', { name: 'default-flag' });
  const person = async (username: string, fields: Record<string, unknown>) => (await ok('POST', '/api/admin/user-admin', { username, password: STRONG, ...fields })).id as number;
  await person('eddie', { rootRole: 'Editor' });
  await person('mia', { rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }] });
  await person('devon', { rootRole: 'Editor', environments: ['development'] });
  const leaverId = await person('leaver', { rootRole: 'Editor' });
  const newContext = () => browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });

  t.test('an Admin signs in with a password and invites someone, who sets a password and signs in', async (t) => {
    const context = await newContext();
    t.teardown(() => context.close());
    const page = await context.newPage();
    const { problems, elsewhere } = watchPage(page, srv.url);
    await page.goto(srv.url);
    await page.getByLabel('Email or username').fill('admin');
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    t.match(await page.getByRole('alert').innerText(), /^The combination of password and username you provided is invalid/, 'a wrong password: the API\'s answer, in words (no error name before it)');
    await page.getByLabel('Password', { exact: true }).fill(STRONG);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Flags' }).waitFor();
    t.match(await page.getByRole('navigation', { name: 'Main' }).innerText(), /Signed in as Admin/, 'the nav names who is signed in');

    await page.getByRole('link', { name: 'People' }).click();
    const invite = page.getByRole('form', { name: 'Invite someone' });
    await invite.getByLabel('Email').fill('newcomer@example.com');
    await invite.getByLabel('Name').fill('Newcomer');
    await invite.getByLabel('Root role').selectOption({ label: 'Editor' });
    await invite.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByLabel('One-time link').innerText()).trim();
    t.match(link, new RegExp(`^${srv.url}/#/invite/[A-Za-z0-9_-]{43}$`), 'a one-time link on this server');
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    t.equal(await page.evaluate('navigator.clipboard.readText()'), link, 'copied to the clipboard');
    await page.getByRole('row', { name: /Newcomer/ }).waitFor();
    await page.screenshot({ path: artifactPath('console-people.png'), fullPage: true });

    // The newcomer, in a browser of their own.
    const theirs = await newContext();
    t.teardown(() => theirs.close());
    const them = await theirs.newPage();
    await them.goto(link);
    await them.getByText('admin invited you as Editor.').waitFor();
    await them.getByLabel('New password', { exact: true }).fill('password1234');
    await them.getByLabel('New password again').fill('password1234');
    await them.getByRole('button', { name: 'Set password' }).click();
    t.match(await them.getByRole('alert').innerText(), /most common/, 'a common password is refused with the API\'s reason');
    await them.getByLabel('New password', { exact: true }).fill('my own long passphrase');
    await them.getByLabel('New password again').fill('my own long passphrase');
    await them.getByRole('button', { name: 'Set password' }).click();
    await them.getByLabel('Email or username').waitFor();
    t.equal(await them.getByLabel('Email or username').inputValue(), 'newcomer@example.com', 'back at sign-in, their email filled in');
    await them.getByLabel('Password', { exact: true }).fill('my own long passphrase');
    await them.getByRole('button', { name: 'Sign in', exact: true }).click();
    await them.getByRole('heading', { name: 'Flags' }).waitFor();
    t.pass('the invited person is signed in');
    await them.goto(link);
    await them.getByRole('alert').waitFor();
    t.match(await them.getByRole('alert').innerText(), /used already/, 'the link works once');
    t.same(problems, [], 'no script error');
    t.same(elsewhere, [], 'nothing loaded from another site');
  });

  t.test('an Editor is refused on the tokens page', async (t) => {
    const context = await newContext();
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signInWithPassword(page, srv.url, 'eddie', STRONG);
    t.equal(await page.getByRole('link', { name: 'People' }).count(), 0, 'no People in the nav');
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('note').waitFor();
    t.equal(await page.getByRole('note').innerText(), 'Only Admins may do this; your role is Editor. API tokens are managed by Admins.', 'the reason, in words');
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    t.match(await refusal.innerText(), /^You need permission=ADMIN .*your root role is Editor/, "and the API's 403 in its words");
    t.ok(await page.getByRole('button', { name: 'Create token' }).isDisabled(), 'creating a token is disabled');
    await page.screenshot({ path: artifactPath('console-editor-tokens.png') });
  });

  t.test('a Member of a project changes its flags and only its flags', async (t) => {
    const context = await newContext();
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signInWithPassword(page, srv.url, 'mia', STRONG);
    await page.goto(`${srv.url}/#/projects/alpha/flags/alpha-flag`);
    const dev = page.getByRole('region', { name: 'development' });
    await dev.getByRole('switch', { name: 'Turn on alpha-flag in development' }).click();
    await dev.getByRole('switch', { name: 'Turn off alpha-flag in development' }).waitFor();
    t.pass('switched on in their project');
    await page.goto(`${srv.url}/#/projects/default/flags/default-flag`);
    const other = page.getByRole('region', { name: 'development' });
    const otherSwitch = other.getByRole('switch', { name: 'Turn on default-flag in development' });
    await otherSwitch.waitFor();
    t.ok(await otherSwitch.isDisabled(), 'in another project the switch is disabled');
    t.match(await other.getByRole('note').innerText(), /Your role \(Viewer\) does not allow this in project default/);
    t.ok(await page.getByRole('button', { name: 'Archive' }).isDisabled(), 'and so is archiving');
    // The API refuses it too, whatever a page would send.
    const res = await page.evaluate(async () => (await fetch('/api/admin/projects/default/features/default-flag/environments/development/on', { method: 'POST' })).status);
    t.equal(res, 403, 'a request from the page itself is refused (403)');
    const flags = await ok('GET', '/api/admin/projects/default/features/default-flag');
    t.equal(flags.environments.find((e: { name: string }) => e.name === 'development').enabled, false, 'the other project\'s flag is unchanged');
  });

  t.test('a person limited to development switches it, not production', async (t) => {
    const context = await newContext();
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signInWithPassword(page, srv.url, 'devon', STRONG);
    await page.goto(`${srv.url}/#/projects/default/flags/default-flag`);
    const dev = page.getByRole('region', { name: 'development' });
    await dev.getByRole('switch', { name: 'Turn on default-flag in development' }).click();
    await dev.getByRole('switch', { name: 'Turn off default-flag in development' }).waitFor();
    const prod = page.getByRole('region', { name: 'production' });
    t.ok(await prod.getByRole('switch', { name: 'Turn on default-flag in production' }).isDisabled(), 'production is disabled');
    t.equal(await prod.getByRole('note').innerText(), 'You may change only development.', 'with the reason');
    t.ok(await prod.getByRole('button', { name: 'Add strategy in production' }).isDisabled(), 'and its strategies');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flags' }).click();
    const row = page.getByRole('row', { name: /default-flag/ });
    await row.waitFor();
    const inTable = row.getByRole('switch', { name: 'Turn on default-flag in production' });
    t.equal(await inTable.getAttribute('title'), 'You may change only development.', 'in the table too');
    t.ok(await inTable.isDisabled());
    await page.screenshot({ path: artifactPath('console-environment-limit.png') });
    const stored = await ok('GET', '/api/admin/projects/default/features/default-flag');
    t.same(stored.environments.map((e: { name: string; enabled: boolean }) => [e.name, e.enabled]), [['development', true], ['production', false]]);
  });

  t.test('a person deactivated mid-session is sent back to sign-in', async (t) => {
    const context = await newContext();
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signInWithPassword(page, srv.url, 'leaver', STRONG);
    await page.getByRole('heading', { name: 'Flags' }).waitFor();
    await ok('PUT', `/api/admin/user-admin/${leaverId}`, { active: false });
    // No click: the console's own polling (every 2 s) meets the 401.
    await page.getByLabel('Email or username').waitFor({ timeout: 8_000 });
    t.match(await page.getByRole('alert').innerText(), /session has ended/, 'told why');
    await page.getByLabel('Email or username').fill('leaver');
    await page.getByLabel('Password', { exact: true }).fill(STRONG);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'you provided is invalid' }).waitFor();
    t.pass('and cannot sign in again');
  });

  t.test('the profile: a new password, a personal token, sign out everywhere; the events page shows who and what changed', async (t) => {
    const context = await newContext();
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signInWithPassword(page, srv.url, 'eddie', STRONG);
    const elsewhere = await (await newContext()).newPage();
    await signInWithPassword(elsewhere, srv.url, 'eddie', STRONG);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Your profile' }).click();
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    const form = page.getByRole('form', { name: 'Change your password' });
    await form.getByLabel('Current password').fill(STRONG);
    await form.getByLabel('New password', { exact: true }).fill('eddie new passphrase');
    await form.getByLabel('New password again').fill('eddie new passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Your other sessions have ended.').waitFor();
    await elsewhere.getByLabel('Email or username').waitFor({ timeout: 8_000 });
    t.pass('the other browser was signed out');

    const tokens = page.getByRole('form', { name: 'Create a personal token' });
    await tokens.getByLabel('Description').fill('my script');
    await tokens.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.getByLabel('New token').innerText()).trim();
    t.match(secret, /^user:[0-9a-f]{64}$/);
    const mine = client(srv.url, { authorization: secret });
    t.equal((await mine('POST', '/api/admin/projects/default/features', { name: 'made-by-token' })).status, 201, 'the token acts as eddie');
    await page.getByRole('row', { name: /my script/ }).waitFor();

    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByRole('search').getByLabel('Flag').fill('made-by-token');
    const row = page.getByRole('row', { name: /feature-created.*made-by-token/ });
    await row.waitFor();
    t.match(await row.innerText(), /eddie/, 'the event names the person');
    await page.getByRole('search').getByLabel('Flag').fill('');
    await page.getByRole('search').getByLabel('Type').selectOption('user-updated');
    await page.getByText('No event matches these filters.').waitFor();
    t.equal(await page.getByRole('row', { name: /user-updated/ }).count(), 0, 'an Editor sees no event about people (only Admins may list them)');

    // An Admin does: who changed whom, and what.
    const adminContext = await newContext();
    t.teardown(() => adminContext.close());
    const adminPage = await adminContext.newPage();
    await signInWithPassword(adminPage, srv.url, 'admin', STRONG);
    await adminPage.getByRole('link', { name: 'Events' }).click();
    await adminPage.getByRole('search').getByLabel('Type').selectOption('user-updated');
    const change = adminPage.getByRole('row', { name: /user-updated/ }).first();
    await change.waitFor();
    t.match(await change.locator('ul.diff').innerText(), /active true → false/, 'what changed, in words: the deactivation');
    await adminPage.screenshot({ path: artifactPath('console-events-people.png'), fullPage: true });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Your profile' }).click();
    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByLabel('Email or username').waitFor();
    t.equal((await mine('GET', '/api/admin/projects')).status, 200, 'personal tokens are not sessions: they keep working');
    t.equal((await client(srv.url)('GET', '/api/admin/user-admin', undefined, { authorization: ADMIN })).json.users.find((u: { username: string }) => u.username === 'eddie').activeSessions, 0, 'no session of eddie is left');
  });
});
