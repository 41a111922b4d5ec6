// The admin console in Debian's Chromium (playwright-core) against a real server: a person signs
// in, creates a flag, gives it a flexibleRollout with two constraints and a segment, switches it
// on in production (the official Node SDK then sees it on for a matching context and off for
// another), edits a variant, revokes a token, finds all of it in the events view; a change made
// through the API shows up without a reload; a token limited to a project or an environment sees
// and does only that. Screenshots of the main pages are saved as artifacts.
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { acceptNextDialog, artifactPath, fillToken, openBrowser, signIn, watchPage } from '../helpers/browser.js';
import { client, serve } from '../helpers/server.js';

const ADMIN = '*:*.console-admin-secret';
const CLIENT = 'default:production.console-client-secret';

t.test('a person manages a flag end to end in the console', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const { problems, elsewhere } = watchPage(page, srv.url);

  // Signing in: a wrong token gets the API's own message, the right one the console.
  await page.goto(srv.url);
  await fillToken(page, '*:*.wrong');
  await page.getByRole('button', { name: 'Sign in with the token' }).click();
  await page.getByRole('alert').waitFor();
  t.match(await page.getByRole('alert').innerText(), /not valid/, 'a wrong token: the API\'s message');
  await signIn(page, srv.url, ADMIN);
  t.ok(await page.getByRole('heading', { name: 'Flags' }).isVisible(), 'signed in: the flags table');

  // A segment, from its page.
  await page.getByRole('link', { name: 'Segments' }).click();
  await page.getByLabel('Segment name').fill('beta-testers');
  await page.getByRole('button', { name: 'Add constraint' }).click();
  await page.getByLabel('Context field').selectOption('userId');
  await page.getByLabel('Values').fill('alice, bob');
  await page.getByRole('button', { name: 'Create segment' }).click();
  await page.getByRole('heading', { name: /beta-testers/ }).waitFor();
  await page.screenshot({ path: artifactPath('console-segments.png') });

  // A flag, from the flags page.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flags' }).click();
  await page.getByRole('button', { name: 'New flag' }).click();
  await page.getByRole('dialog', { name: 'New flag' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill('new-checkout');
  await page.getByLabel('Description').fill('The new checkout');
  await page.getByRole('button', { name: 'Create flag' }).click();
  await page.getByRole('heading', { name: 'new-checkout' }).waitFor();

  // Production: a flexibleRollout at 100% with two constraints and the segment.
  const production = page.getByRole('region', { name: 'production' });
  await production.getByRole('button', { name: 'Add strategy in production' }).click();
  const form = production.getByRole('form', { name: 'Strategy' });
  await form.getByRole('button', { name: 'Add constraint' }).click();
  await form.getByRole('button', { name: 'Add constraint' }).click();
  const first = form.getByRole('group', { name: 'Constraint 1' });
  await first.getByLabel('Context field').selectOption('appName');
  await first.getByLabel('Operator').selectOption('IN');
  await first.getByLabel('Values').fill('shop, web');
  const second = form.getByRole('group', { name: 'Constraint 2' });
  await second.getByLabel('Context field').selectOption('currentTime');
  await second.getByLabel('Operator').selectOption('DATE_AFTER');
  await second.getByLabel('Value', { exact: true }).fill('2020-01-01T00:00:00Z');
  await form.getByLabel('beta-testers').check();
  await form.getByRole('button', { name: 'Add strategy' }).click();
  await page.getByRole('dialog', { name: 'Add a strategy to new-checkout in production?' }).getByRole('button', { name: 'Add in production' }).click();
  await production.getByText('appName is one of shop, web').waitFor();
  await production.getByText('segments beta-testers').waitFor();
  const listed = await production.locator('.constraint-text').allInnerTexts();
  t.ok(listed.some((x) => /^currentTime after \(date\) 2020-01-01/.test(x)), `both constraints are listed: ${listed.join(' | ')}`);
  // A production environment: the switch asks first, naming the flag and the environment.
  await production.getByRole('switch', { name: 'Turn on new-checkout in production' }).click();
  await page.getByRole('dialog', { name: 'Turn on new-checkout in production?' }).getByRole('button', { name: 'Turn on in production' }).click();
  await production.getByRole('switch', { name: 'Turn off new-checkout in production' }).waitFor();
  t.equal(await production.getByRole('switch').getAttribute('aria-checked'), 'true', 'the switch says it is on');
  await page.screenshot({ path: artifactPath('console-flag.png'), fullPage: true });

  // The official Node SDK agrees.
  const stored = await ok('GET', '/api/admin/projects/default/features/new-checkout');
  const prod = stored.environments.find((e: { name: string }) => e.name === 'production');
  t.equal(prod.enabled, true);
  t.equal(prod.strategies[0].constraints.length, 2);
  t.equal(prod.strategies[0].segments.length, 1);
  const sdk = new Unleash({
    url: `${srv.url}/api/`, appName: 'shop', customHeaders: { Authorization: CLIENT }, disableMetrics: true,
    refreshInterval: 60_000, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
  });
  t.teardown(() => sdk.destroy());
  await new Promise((resolve) => sdk.once(UnleashEvents.Synchronized, resolve));
  t.equal(sdk.isEnabled('new-checkout', { userId: 'alice', appName: 'shop' }), true, 'on for alice in the shop app');
  t.equal(sdk.isEnabled('new-checkout', { userId: 'mallory', appName: 'shop' }), false, 'off for someone outside the segment');
  t.equal(sdk.isEnabled('new-checkout', { userId: 'alice', appName: 'admin' }), false, 'off in another app');

  // Variants in production: add one, then edit its payload.
  await production.getByRole('button', { name: 'Edit variants in production' }).click();
  await production.getByRole('button', { name: 'Add variant' }).click();
  const variant = production.getByRole('group', { name: 'Variant 1' });
  await variant.getByLabel('Variant name').fill('blue');
  await variant.getByLabel('Payload type').selectOption('string');
  await variant.getByLabel('Payload', { exact: true }).fill('#0000ff');
  await production.getByRole('button', { name: 'Save variants' }).click();
  await page.getByRole('dialog', { name: 'Change the variants of new-checkout in production?' }).getByRole('button', { name: 'Save in production' }).click();
  await production.getByText('blue 100%').waitFor();
  await production.getByRole('button', { name: 'Edit variants in production' }).click();
  await production.getByRole('group', { name: 'Variant 1' }).getByLabel('Payload', { exact: true }).fill('#0000cc');
  await production.getByRole('button', { name: 'Save variants' }).click();
  await page.getByRole('dialog', { name: 'Change the variants of new-checkout in production?' }).getByRole('button', { name: 'Save in production' }).click();
  await production.getByText('blue 100%').waitFor();
  const variants = (await ok('GET', '/api/admin/projects/default/features/new-checkout/environments/production/variants')).variants;
  t.same(variants.map((v: { name: string; payload: unknown }) => [v.name, v.payload]), [['blue', { type: 'string', value: '#0000cc' }]], 'the edited variant is stored');

  // A change made elsewhere shows up without a reload.
  await ok('PATCH', '/api/admin/projects/default/features/new-checkout', [{ op: 'replace', path: '/description', value: 'Changed by a script' }]);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flags' }).click();
  await page.getByText('Changed by a script').waitFor({ timeout: 6_000 });
  t.pass('an API change appeared within seconds');
  await page.screenshot({ path: artifactPath('console-flags.png') });

  // Tokens: create one (its secret shown once), revoke it.
  await page.getByRole('link', { name: 'API tokens' }).click();
  await page.getByLabel('Token name').fill('short-lived');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = (await page.getByLabel('New token').innerText()).trim();
  t.match(secret, /^\*:development\.[0-9a-f]{64}$/, 'the new secret is shown');
  t.equal((await client(srv.url, { authorization: secret })('GET', '/api/client/features')).status, 200, 'and works');
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  await page.getByRole('button', { name: 'Copied', exact: true }).waitFor();
  t.equal(await page.evaluate('navigator.clipboard.readText()'), secret, 'the copy button puts the secret on the clipboard');
  await page.screenshot({ path: artifactPath('console-tokens.png') });
  acceptNextDialog(page);
  await page.getByRole('button', { name: 'Revoke short-lived' }).click();
  await page.getByRole('button', { name: 'Revoke short-lived' }).waitFor({ state: 'detached' });
  t.equal((await client(srv.url, { authorization: secret })('GET', '/api/client/features')).status, 401, 'revoked: refused at once');
  t.notOk((await page.locator('table').innerText()).includes(secret.slice(-64)), 'the listing never shows a secret');

  // Everything is in the events view, and its filters work.
  await page.getByRole('link', { name: 'Events' }).click();
  await page.getByRole('search').getByLabel('Flag').fill('new-checkout');
  await page.locator('table.events').getByText('feature-strategy-add').first().waitFor();
  const types = await page.locator('table.events tbody tr td:nth-child(3)').allInnerTexts();
  for (const type of ['feature-created', 'feature-strategy-add', 'feature-environment-enabled', 'feature-environment-variants-updated', 'feature-updated']) {
    t.ok(types.includes(type) || (type === 'feature-updated' && types.includes('feature-metadata-updated')), `the events view lists ${type}`);
  }
  await page.getByRole('search').getByLabel('Flag').fill('');
  await page.getByRole('search').getByLabel('Type').selectOption('api-token-deleted');
  await page.locator('table.events').getByText('api-token-deleted').first().waitFor();
  await page.screenshot({ path: artifactPath('console-events.png') });
  // Free text and project, then paging through more than a page (50) of events.
  await page.getByRole('search').getByLabel('Type').selectOption('');
  await page.getByRole('search').getByLabel('Text').fill('short-lived');
  await page.getByText('2 events', { exact: true }).waitFor();
  t.same((await page.locator('table.events tbody tr td:nth-child(3)').allInnerTexts()).sort(), ['api-token-created', 'api-token-deleted'], 'free text finds the token\'s two events');
  await page.getByRole('search').getByLabel('Text').fill('');
  for (let i = 0; i < 60; i++) await ok('POST', '/api/admin/tags', { type: 'simple', value: `bulk-tag-${i}` });
  await page.getByRole('search').getByLabel('Project').selectOption('default');
  const inDefault = await ok('POST', '/api/admin/events/search', { project: 'default', limit: 1 });
  await page.getByText(`${inDefault.totalEvents} events`, { exact: true }).waitFor();
  t.ok((await page.locator('table.events tbody tr td:nth-child(5)').allInnerTexts()).every((p) => p === 'default'), 'the project filter: only default\'s events');
  await page.getByRole('search').getByLabel('Project').selectOption('');
  const all = await ok('POST', '/api/admin/events/search', { limit: 1 });
  await page.getByText(`${all.totalEvents} events`, { exact: true }).waitFor();
  const ids = async () => (await page.locator('table.events tbody tr td:nth-child(1)').allInnerTexts()).map(Number);
  const page1 = await ids();
  t.equal(page1.length, 50, 'a page of 50');
  await page.getByRole('button', { name: 'Older' }).click();
  await page.locator('table.events tbody tr td:nth-child(1)').first().filter({ hasText: new RegExp(`^${page1[49] - 1}$`) }).waitFor();
  const page2 = await ids();
  t.equal(page2[0], page1[49] - 1, 'Older: the next page starts where the first ended');
  await page.getByRole('button', { name: 'Newer' }).click();
  await page.locator('table.events tbody tr td:nth-child(1)').first().filter({ hasText: new RegExp(`^${page1[0]}$`) }).waitFor();
  t.pass('Newer: back to the first page');

  t.same(problems, [], 'no script error');
  t.same(elsewhere, [], 'nothing loaded from another site');
});

t.test('the type picker offers Unleash 8\'s types, sunset included, and says what each is for', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  const page = await browser.newPage();
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);
  await page.getByRole('button', { name: 'New flag' }).click();
  const create = page.getByRole('form', { name: 'Create a flag' });
  await create.getByLabel('Type').locator('option', { hasText: 'Sunset' }).waitFor({ state: 'attached' });
  t.same(await create.getByLabel('Type').locator('option').allInnerTexts(), ['Release', 'Experiment', 'Operational', 'Kill switch', 'Permission', 'Sunset']);
  await create.getByLabel('Type').selectOption('sunset');
  await create.getByText('Expected lifetime: ~90 days').waitFor();
  t.pass('the chosen type\'s purpose and expected lifetime are shown');
  await create.getByLabel('Name', { exact: true }).fill('old-search');
  await page.getByRole('button', { name: 'Create flag' }).click();
  await page.getByRole('heading', { name: 'old-search' }).waitFor();
  t.equal((await ok('GET', '/api/admin/projects/default/features/old-search')).type, 'sunset', 'created as a sunset flag');
  const about = page.getByRole('form', { name: 'Flag details' });
  await about.getByText('Coordinate the planned removal').waitFor();
  await about.getByLabel('Type').selectOption('kill-switch');
  await about.getByRole('button', { name: 'Save details' }).click();
  await about.getByText('Expected lifetime: permanent').waitFor();
  for (let i = 0; i < 50 && (await ok('GET', '/api/admin/projects/default/features/old-search')).type !== 'kill-switch'; i++) await new Promise((r) => setTimeout(r, 100));
  t.equal((await ok('GET', '/api/admin/projects/default/features/old-search')).type, 'kill-switch', 'changed from the flag\'s page');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flags' }).click();
  await page.getByRole('search').getByLabel('Type').selectOption('kill-switch');
  await page.getByText('1 flag', { exact: true }).waitFor();
  t.same(problems, []);
  t.same(elsewhere, []);
});

t.test('limited tokens: one project\'s sees only that project, one environment\'s changes only that environment; the API\'s 403 is shown as it is', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await ok('POST', '/api/admin/projects/shop/features', { name: 'shop-flag' });
  await ok('POST', '/api/admin/projects/default/features', { name: 'default-flag' });
  const limited = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'shop-admin', type: 'admin', project: 'shop' })).secret;
  const page = await browser.newPage();
  await signIn(page, srv.url, limited);
  await page.getByLabel('Project').first().waitFor().catch(() => undefined);
  await page.goto(`${srv.url}/#/projects/shop`);
  await page.getByRole('link', { name: 'shop-flag' }).waitFor();
  t.equal(await page.getByRole('link', { name: 'default-flag' }).count(), 0, 'the other project\'s flag is not listed');
  await page.goto(`${srv.url}/#/projects/default`);
  await page.waitForTimeout(500);
  t.equal(await page.getByRole('link', { name: 'default-flag' }).count(), 0, 'not even when asked for');
  await page.getByRole('link', { name: 'shop-flag' }).count();
  await page.goto(`${srv.url}/#/environments`);
  // What the token may not do is not offered: disabled, with the reason (test/ui/permissions.test.ts goes through every page).
  const createEnv = page.getByRole('button', { name: 'Create environment' });
  await createEnv.waitFor();
  t.ok(await createEnv.isDisabled(), 'creating an environment is disabled');
  t.equal(await createEnv.getAttribute('title'), 'This API token is limited to shop and every environment.', 'saying why');
  t.equal((await client(srv.url, { authorization: limited })('POST', '/api/admin/environments', { name: 'staging', type: 'test' })).status, 403, 'as the API would refuse it');

  // A token limited to one environment: its switches there work, the others are refused in place.
  // Made in the console by a full admin: an admin token for development only.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(page, srv.url, ADMIN);
  await page.goto(`${srv.url}/#/tokens`);
  const create = page.getByRole('form', { name: 'Create a token' });
  await create.getByLabel('Token name').fill('dev-admin');
  await create.getByLabel('Type').selectOption('admin');
  t.equal(await create.getByLabel('Environment').inputValue(), '*', 'an admin token: every environment unless narrowed');
  await create.getByLabel('Environment').locator('option', { hasText: 'production' }).waitFor({ state: 'attached' });
  t.same(await create.getByLabel('Environment').locator('option').allInnerTexts(), ['All environments', 'development', 'production'], 'the environments to choose from');
  await create.getByLabel('Environment').selectOption('development');
  await create.getByRole('button', { name: 'Create token' }).click();
  const devOnly = (await page.getByLabel('New token').innerText()).trim();
  const listed = ((await ok('GET', '/api/admin/api-tokens')).tokens as { tokenName: string; type: string; environment: string }[]).filter((x) => x.tokenName === 'dev-admin');
  t.same(listed.map((x) => [x.type, x.environment]), [['admin', 'development']], 'stored with its limit');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(page, srv.url, devOnly);
  await page.goto(`${srv.url}/#/projects/default/flags/default-flag`);
  const production = page.getByRole('region', { name: 'production' });
  const prodSwitch = production.getByRole('switch', { name: 'Turn on default-flag in production' });
  await prodSwitch.waitFor();
  t.ok(await prodSwitch.isDisabled(), 'production: the switch is disabled');
  t.match(await production.getByRole('note').innerText(), /limited to every project and development/, 'with the reason beside it');
  const development = page.getByRole('region', { name: 'development' });
  await development.getByRole('switch', { name: 'Turn on default-flag in development' }).click();
  await development.getByRole('switch', { name: 'Turn off default-flag in development' }).waitFor();
  const flag = await ok('GET', '/api/admin/projects/default/features/default-flag');
  t.same(flag.environments.map((e: { name: string; enabled: boolean }) => [e.name, e.enabled]), [['development', true], ['production', false]], 'only development changed');
});

t.test('10,000 flags: the table pages and filters quickly', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  const batch = Array.from({ length: 10_000 }, (_, i) => ({ name: `bulk-${String(i).padStart(5, '0')}`, type: i % 7 === 0 ? 'experiment' : 'release', stale: i % 1000 === 0 }));
  // One import instead of 10,000 requests (Unleash's features-batch format).
  await ok('POST', '/api/admin/features-batch/import', {
    project: 'default', environment: 'development',
    data: { features: batch.map((f) => ({ ...f, project: 'default' })), featureStrategies: [], featureEnvironments: [], featureTags: [], tagTypes: [], contextFields: [], segments: [], dependencies: [] },
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(page, srv.url, ADMIN);
  await page.getByText('10000 flags').waitFor({ timeout: 10_000 });
  t.equal(await page.locator('table.flags tbody tr').count(), 50, 'one page of 50 rows');
  const t0 = Date.now();
  await page.getByRole('search').getByLabel('Search').fill('bulk-0421');
  await page.getByText('10 flags').waitFor();
  const filterMs = Date.now() - t0;
  t.ok(filterMs < 2_000, `filtered to 10 in ${filterMs} ms`);
  await page.getByRole('search').getByLabel('Search').fill('');
  await page.getByText('10000 flags').waitFor();
  // Sorted by the server: name descending puts the last flag first.
  await page.getByRole('columnheader', { name: /^Name/ }).getByRole('button').click();
  await page.getByRole('columnheader', { name: 'Name ▼' }).waitFor();
  await page.getByRole('link', { name: 'bulk-09999' }).waitFor();
  t.equal(await page.locator('table.flags tbody tr th a').first().innerText(), 'bulk-09999', 'sorted by name, descending');
  await page.getByRole('columnheader', { name: /^Name/ }).getByRole('button').click();
  await page.getByRole('columnheader', { name: 'Name ▲' }).waitFor();
  await page.getByRole('link', { name: 'bulk-00000' }).waitFor();
  t.equal(await page.locator('table.flags tbody tr th a').first().innerText(), 'bulk-00000', 'and ascending again');
  await page.getByRole('search').getByLabel('State').selectOption('stale');
  await page.getByText('10 flags').waitFor();
  t.equal(await page.locator('table.flags .badge.warn').count(), 10, 'the stale filter: ten flags, each marked stale');
  await page.getByRole('search').getByLabel('State').selectOption('');
  await page.getByRole('search').getByLabel('Type').selectOption('experiment');
  await page.getByText('1429 flags').waitFor();
  const t1 = Date.now();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByText('51–100 of 1429').waitFor();
  t.ok(Date.now() - t1 < 2_000, `next page in ${Date.now() - t1} ms`);
  await page.screenshot({ path: artifactPath('console-10000-flags.png') });
});

t.test('with the keyboard alone, and on a phone-sized screen', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const password = 'keyboard-only passphrase';
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: password }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects/default/features', { name: 'keyboard-flag' });
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await page.goto(srv.url);
  await page.getByLabel('Email or username').waitFor();
  // Sign in without the mouse: the name has the focus, one Tab reaches the password, Enter submits.
  await page.waitForFunction('document.activeElement && document.activeElement.tagName === "INPUT"', undefined, { timeout: 5_000 });
  t.equal(await page.evaluate('document.activeElement && document.activeElement.id'), await page.getByLabel('Email or username').getAttribute('id'), 'the name field has the focus');
  await page.keyboard.type('admin');
  await page.keyboard.press('Tab');
  t.equal(await page.evaluate('document.activeElement && document.activeElement.getAttribute("type")'), 'password', 'the next Tab: the password');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: 'keyboard-flag' }).waitFor();
  // Switch the flag on in development by keyboard: focus the switch, press Enter.
  const toggle = page.getByRole('switch', { name: 'Turn on keyboard-flag in development' });
  await toggle.focus();
  await page.keyboard.press('Enter');
  await page.getByRole('switch', { name: 'Turn off keyboard-flag in development' }).waitFor();
  t.equal(await page.evaluate('document.activeElement && document.activeElement.getAttribute("aria-label")'), 'Turn off keyboard-flag in development', 'the focus stays on the switch');
  const stored = await ok('GET', '/api/admin/projects/default/features/keyboard-flag');
  t.equal(stored.environments.find((e: { name: string }) => e.name === 'development').enabled, true, 'switched on with Enter');
  // A phone: no sideways scrolling of the page (wide tables scroll inside their own box).
  const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
  t.ok(overflow <= 1, `the page fits 390 px (overflow ${overflow} px)`);
  // Every form field has a label, in the New flag dialog too.
  await page.getByRole('button', { name: 'New flag' }).click();
  await page.getByRole('dialog', { name: 'New flag' }).waitFor();
  const unlabelled = await page.evaluate('[...document.querySelectorAll("input, select, textarea")].filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label")).length');
  t.equal(unlabelled, 0, 'every field is labelled');
  await page.screenshot({ path: artifactPath('console-phone.png'), fullPage: true });
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: 'New flag' }).waitFor({ state: 'detached' });
  // A flag's page on the phone too: strategies, constraints and forms stay inside the screen.
  await ok('POST', '/api/admin/projects/default/features/keyboard-flag/environments/production/strategies', {
    name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'keyboard-flag' },
    constraints: [{ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2026-01-01T00:00:00.000Z' }],
  });
  await page.getByRole('link', { name: 'keyboard-flag' }).click();
  await page.getByRole('region', { name: 'production' }).getByRole('button', { name: 'Edit', exact: true }).click();
  await page.getByRole('form', { name: 'Strategy' }).waitFor();
  const flagOverflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
  t.ok(flagOverflow <= 1, `a flag's page with a strategy open fits 390 px (overflow ${flagOverflow} px)`);
  await page.screenshot({ path: artifactPath('console-phone-flag.png'), fullPage: true });
});
