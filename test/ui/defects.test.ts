// Defects a person saw in the console, each reproduced in Debian's Chromium against a real server
// and measured: a yes/no bar drawn at the share it says, the "disabled" variant not drawn as "on",
// a segment form emptied once it saved, an invited person not shown as active, the profile link
// not named like an admin section, a project named one way everywhere, a new token's secret on
// screen with its copy button focused, permission notes drawn as notes, a phone's navigation
// behind a menu button, and a sign-in form password managers understand.
import t from 'tap';
import type { Page } from 'playwright-core';
import { openBrowser, signIn, signInWithPassword, watchPage } from '../helpers/browser.js';
import { STRONG } from '../helpers/people.js';
import { client, serve } from '../helpers/server.js';

const ADMIN = '*:*.defects-admin-secret';
const CLIENT = 'default:development.defects-client-secret';

/** The computed value of `prop` on the first element `selector` finds. */
const style = (page: Page, selector: string, prop: string) =>
  page.locator(selector).first().evaluate((el, p) => el.ownerDocument.defaultView!.getComputedStyle(el).getPropertyValue(p), prop);

/** The text of a select's chosen option. */
const selectedText = (s: unknown) => (s as { selectedOptions: { text: string }[] }).selectedOptions[0].text;

t.test('console defects', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '100', UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000' },
    authorization: ADMIN,
  });
  await ok('POST', '/api/admin/projects/default/features', { name: 'banner' });
  await ok('POST', '/api/admin/user-admin', { username: 'eddie', password: STRONG, rootRole: 'Editor' });
  // An SDK's counts, as it sends them: banner on for 36 of 100, and (off) variant "disabled" 50 times.
  const sdk = client(srv.url, { authorization: CLIENT });
  const now = new Date();
  const sent = await sdk('POST', '/api/client/metrics', {
    appName: 'shop', instanceId: 'shop-1', environment: 'development',
    bucket: { start: new Date(now.getTime() - 60_000).toISOString(), stop: now.toISOString(), toggles: { banner: { yes: 36, no: 64, variants: { disabled: 64, blue: 36 } } } },
  });
  t.equal(sent.status, 202, 'metrics accepted');

  const newPage = async (width = 1280, height = 900) => {
    const context = await browser.newContext({ viewport: { width, height }, permissions: ['clipboard-read', 'clipboard-write'] });
    t.teardown(() => context.close());
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    return page;
  };
  const page = await newPage();
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);

  t.test('the applications bar draws 36 % on as 36 % of its width', async (t) => {
    await page.goto(`${srv.url}/#/applications`);
    const bar = page.getByRole('img', { name: '36 yes, 64 no' });
    await bar.waitFor({ timeout: 15_000 });
    const share = await bar.evaluate((svg) => svg.querySelector('.bar-yes')!.getBoundingClientRect().width / svg.getBoundingClientRect().width);
    t.ok(Math.abs(share - 0.36) < 0.01, `the green part is ${(share * 100).toFixed(1)} % of the bar`);
  });

  t.test('the usage chart does not draw the "disabled" variant in the colour of "on"', async (t) => {
    await page.goto(`${srv.url}/#/projects/default/flags/banner`);
    const usage = page.getByRole('region', { name: 'Usage' });
    await usage.getByLabel('Show').selectOption('variants');
    await usage.locator('svg.usage-chart rect').first().waitFor({ timeout: 15_000 });
    const green = (await style(page, '.usage-total .yes', 'color')).trim();
    const key = usage.locator('.key').filter({ hasText: 'disabled' });
    const disabledKey = await key.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el, '::before').color);
    t.not(disabledKey, green, `the key of "disabled" is ${disabledKey}, "yes" is ${green}`);
    // 36 blue and 64 disabled in one hour: the part of the bar counting 64 is the disabled one.
    const disabledBar = await usage.locator('svg.usage-chart rect').filter({ hasText: /: 64$/ }).evaluate((r) => r.ownerDocument.defaultView!.getComputedStyle(r).fill);
    t.equal(disabledBar, disabledKey, `the bar of "disabled" is ${disabledBar}, like its key`);
  });

  t.test('the segment form is empty again once it saved: a second segment is a new one', async (t) => {
    await page.goto(`${srv.url}/#/segments`);
    const form = page.getByRole('form', { name: 'Create segment' });
    await form.getByLabel('Segment name').fill('beta');
    await form.getByLabel('Description').fill('Beta testers');
    await form.getByRole('button', { name: 'Create segment' }).click();
    await page.getByRole('heading', { name: /^beta/ }).waitFor();
    t.equal(await form.getByLabel('Segment name').inputValue(), '', 'the name is empty');
    t.equal(await form.getByLabel('Description').inputValue(), '', 'the description is empty');
    await form.getByLabel('Segment name').fill('gamma');
    await form.getByRole('button', { name: 'Create segment' }).click();
    await page.getByRole('heading', { name: /^gamma/ }).waitFor();
    t.equal(await form.getByRole('alert').count(), 0, 'no error');
    t.same((await ok('GET', '/api/admin/segments')).segments.map((s: { name: string; description: string | null }) => [s.name, s.description]), [['beta', 'Beta testers'], ['gamma', null]], 'two segments, the second without the first\'s description');
  });

  t.test('an invited person shows as invited until they set a password', async (t) => {
    await ok('POST', '/api/admin/user-admin', { email: 'newcomer@example.com', name: 'Newcomer', rootRole: 'Editor', sendEmail: false });
    await page.goto(`${srv.url}/#/people`);
    const row = page.getByRole('row', { name: /Newcomer/ });
    await row.waitFor();
    const status = (await row.locator('td').nth(4).innerText()).trim();
    t.match(status, /^invited/, `Newcomer's status: "${status}"`);
    const eddie = (await page.getByRole('row', { name: /eddie/ }).locator('td').nth(4).innerText()).trim();
    t.match(eddie, /^active/, `a person with a password: "${eddie}"`);
  });

  t.test('the navigation names the profile as the profile, and who is signed in', async (t) => {
    const p = await newPage();
    await signInWithPassword(p, srv.url, 'admin', STRONG);
    const nav = p.getByRole('navigation', { name: 'Main' });
    const names = await nav.locator('a[href="#/profile"]').evaluateAll((as) => as.map((a) => a.textContent?.trim()));
    t.same(names, ['Your profile'], `the link to the profile reads ${JSON.stringify(names)}`);
    t.match(await nav.innerText(), /Signed in as Admin/, 'and says who is signed in');
  });

  t.test('a project is called by its name everywhere', async (t) => {
    await page.goto(`${srv.url}/#/`);
    await page.getByRole('link', { name: 'banner' }).waitFor();
    const chosen = await page.getByRole('main').getByLabel('Project', { exact: true }).evaluate(selectedText);
    await page.getByRole('button', { name: 'New flag' }).click();
    const dialog = page.getByRole('dialog', { name: 'New flag' });
    await dialog.getByLabel('Project').locator('option').first().waitFor({ state: 'attached' });
    const inDialog = await dialog.getByLabel('Project').evaluate(selectedText);
    await page.keyboard.press('Escape');
    await page.goto(`${srv.url}/#/?project=*`);
    const cell = (await page.getByRole('row', { name: /banner/ }).locator('td[data-label="Project"]').innerText()).trim();
    t.same([chosen, inDialog, cell], ['Default', 'Default', 'Default'], `the flags page, the New flag dialog, the flags of every project: ${[chosen, inDialog, cell].join(' / ')}`);
  });

  t.test("a new token's secret is on screen, its copy button focused", async (t) => {
    // Enough tokens that the list pushes the form and what it shows towards the bottom.
    for (let i = 0; i < 12; i++) await ok('POST', '/api/admin/api-tokens', { tokenName: `older-${i}`, type: 'client', environment: 'development', projects: ['*'] });
    await page.goto(`${srv.url}/#/tokens`);
    const create = page.getByRole('form', { name: 'Create a token' });
    await create.getByLabel('Token name').fill('shop-server');
    await create.getByRole('button', { name: 'Create token' }).click();
    const secret = page.getByLabel('New token');
    await secret.waitFor();
    // Scrolling smoothly takes a moment: wait for it to end (or 3 s, for the assertion to show where it is).
    const onScreen = 'document.querySelector(".secret code") && document.querySelector(".secret code").getBoundingClientRect().bottom <= innerHeight && document.querySelector(".secret code").getBoundingClientRect().top >= 0';
    await page.waitForFunction(onScreen, undefined, { timeout: 3_000 }).catch(() => undefined);
    const box = await secret.evaluate((el) => { const b = el.getBoundingClientRect(); return { top: b.top, bottom: b.bottom, height: el.ownerDocument.defaultView!.innerHeight }; });
    t.ok(box.top >= 0 && box.bottom <= box.height, `the secret spans ${Math.round(box.top)}–${Math.round(box.bottom)} px of a ${box.height} px window`);
    t.equal(await page.evaluate('document.activeElement && document.activeElement.textContent'), 'Copy', 'the copy button has the focus');
    await page.keyboard.press('Enter');
    t.equal(await page.evaluate('navigator.clipboard.readText()'), (await secret.innerText()).trim(), 'Enter copies it');
  });

  t.test('a permission note is drawn in the page, as a note, not as a floating dark box', async (t) => {
    const p = await newPage();
    await signInWithPassword(p, srv.url, 'eddie', STRONG);
    await p.goto(`${srv.url}/#/tokens`);
    const note = p.getByRole('note');
    await note.waitFor();
    const [bg, position, shadow] = await Promise.all(['background-color', 'position', 'box-shadow'].map((prop) => style(p, '[role="note"]', prop)));
    const fg = await style(p, 'body', 'color');
    t.not(bg, fg, `its background is ${bg} (the text colour is ${fg})`);
    t.equal(position, 'static', 'in the flow of the page');
    t.equal(shadow, 'none', 'no shadow of a floating box');
  });

  t.test('on a phone the navigation sits behind a menu button', async (t) => {
    const p = await newPage(375, 812);
    await signIn(p, srv.url, ADMIN);
    await p.getByRole('heading', { name: 'Flags' }).waitFor();
    const top = await p.locator('main').evaluate((m) => Math.round(m.getBoundingClientRect().top));
    t.ok(top <= 64, `the page starts ${top} px from the top of a 375 px wide screen`);
    const menu = p.getByRole('button', { name: 'Menu' });
    t.equal(await menu.getAttribute('aria-expanded'), 'false', 'a menu button, closed');
    t.notOk(await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Segments' }).isVisible(), 'the links hidden');
    await menu.click();
    t.equal(await menu.getAttribute('aria-expanded'), 'true', 'opened');
    await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Segments' }).click();
    await p.getByRole('heading', { name: 'Segments' }).waitFor();
    t.equal(await menu.getAttribute('aria-expanded'), 'false', 'closed again once a page is chosen');
    const overflow = Number(await p.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    t.ok(overflow <= 1, `no sideways scrolling (${overflow} px)`);
    // A wide screen has no menu button: the navigation is always there.
    await p.setViewportSize({ width: 1280, height: 900 });
    t.notOk(await menu.isVisible(), 'no menu button on a wide screen');
    t.ok(await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Segments' }).isVisible(), 'the links shown');
  });

  t.test('the sign-in form: the name focused, and hints for password managers', async (t) => {
    const p = await newPage();
    await p.goto(srv.url);
    const name = p.getByLabel('Email or username');
    await name.waitFor();
    await p.waitForFunction('document.activeElement && document.activeElement.tagName === "INPUT"', undefined, { timeout: 2_000 }).catch(() => undefined);
    t.equal(await p.evaluate('document.activeElement && document.activeElement.id'), await name.getAttribute('id'), 'the name field has the focus');
    t.same([await name.getAttribute('autocomplete'), await p.getByLabel('Password', { exact: true }).getAttribute('autocomplete')], ['username', 'current-password'], 'autocomplete hints');
    // A password being chosen (an invitation's link) is a new one.
    const invited = await ok('POST', '/api/admin/user-admin', { email: 'pm@example.com', rootRole: 'Viewer', sendEmail: false });
    await p.goto(new URL(invited.inviteLink, srv.url).href);
    const fields = p.locator('input[type="password"]');
    await fields.first().waitFor();
    t.same(await fields.evaluateAll((fs) => fs.map((f) => f.getAttribute('autocomplete'))), ['new-password', 'new-password'], 'a new password: new-password');
  });

  t.test('no script errors, nothing fetched elsewhere', async (t) => {
    t.same(problems, []);
    t.same(elsewhere, []);
  });
});
