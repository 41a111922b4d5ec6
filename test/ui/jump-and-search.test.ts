// Jump and search, in Debian's Chromium against a real server, as a person who lives in the
// console does it: Ctrl+K, a few letters, Enter lands on the flag; `/` then typing searches the
// table with the matches marked; a star kept across a reload (favourites first); three rows
// selected and switched on in development (checked over the API), two in production asked once
// with their number and undone; the "on in environment" filter kept by a reload; "last seen" in
// words with the exact time as its title.
import t from 'tap';
import { openBrowser, settledOn, signInWithPassword, watchPage } from '../helpers/browser.js';
import { STRONG } from '../helpers/people.js';
import { client, serve } from '../helpers/server.js';

const ADMIN = '*:*.jump-admin-secret';
const CLIENT = 'default:development.jump-client-secret';

t.test('jump and search', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '100', UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG },
    authorization: ADMIN,
  });
  await ok('POST', '/api/admin/projects', { id: 'mobile', name: 'Mobile apps' });
  for (const name of ['checkout-new', 'checkout-old', 'banner', 'search-v2']) await ok('POST', '/api/admin/projects/default/features', { name, description: name === 'banner' ? 'Top of the checkout page' : undefined });
  await ok('POST', '/api/admin/projects/mobile/features', { name: 'app-checkout' });
  const sent = await client(srv.url, { authorization: CLIENT })('POST', '/api/client/metrics', {
    appName: 'shop', instanceId: 'shop-1', environment: 'development',
    bucket: { start: new Date(Date.now() - 60_000).toISOString(), stop: new Date().toISOString(), toggles: { banner: { yes: 1, no: 0, variants: {} } } },
  });
  t.equal(sent.status, 202);
  const onIn = async (name: string, env: string) =>
    (await ok('GET', `/api/admin/projects/default/features/${name}`)).environments.find((e: any) => e.name === env).enabled as boolean;

  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signInWithPassword(page, srv.url, 'admin', STRONG);
  await page.getByText('4 flags', { exact: true }).waitFor();
  const rows = () => page.locator('table.flags tbody tr th a').allInnerTexts();

  t.test('Ctrl+K, a few letters, Enter: the flag of another project; Escape closes', async (t) => {
    await page.keyboard.press('Control+k');
    const box = page.getByRole('combobox', { name: 'Jump to a flag' });
    await box.waitFor();
    await page.keyboard.type('app-check');
    t.equal(await box.inputValue(), 'app-check', 'typed into the box: it had the focus');
    const option = page.getByRole('option', { name: /app-checkout/ });
    await option.waitFor();
    t.same(await settledOn(() => option.locator('mark').allInnerTexts(), ['app-check']), ['app-check'], 'the match is marked');
    t.equal(await option.getAttribute('aria-selected'), 'true', 'the first match is chosen');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'app-checkout' }).waitFor();
    t.match(page.url(), /#\/projects\/mobile\/flags\/app-checkout$/);
    t.equal(await box.count(), 0, 'the box closed');

    await page.keyboard.press('Meta+k');
    await box.waitFor();
    await page.keyboard.type('checkout-');
    await page.getByRole('option', { name: /checkout-old/ }).waitFor();
    t.equal(await settledOn(() => page.getByRole('listbox', { name: 'Flags' }).getByRole('option').count(), 2), 2, 'checkout-new and checkout-old');
    await page.keyboard.press('ArrowDown');
    t.equal(await page.getByRole('option', { name: /checkout-old/ }).getAttribute('aria-selected'), 'true', 'ArrowDown chooses the next');
    await page.keyboard.press('Escape');
    await box.waitFor({ state: 'detached' });
    t.match(page.url(), /app-checkout$/, 'Escape went nowhere');
  });

  t.test('`/` then typing: the table searched, the matches marked; not while typing in a field', async (t) => {
    await page.goto(`${srv.url}/#/`);
    await page.getByText('4 flags', { exact: true }).waitFor();
    await page.locator('h1').click();
    await page.keyboard.press('/');
    await page.keyboard.type('checkout');
    await page.getByText('3 flags', { exact: true }).waitFor();
    const marks = ['checkout', 'checkout', 'checkout'];
    t.same(await settledOn(() => page.locator('table.flags tbody mark').allInnerTexts(), marks), marks, 'in two names and one description (banner)');
    const tag = page.getByRole('search').getByLabel('Tag');
    await tag.click();
    await page.keyboard.type('a/b');
    t.equal(await tag.inputValue(), 'a/b', '`/` typed into a field stays there');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText('4 flags', { exact: true }).waitFor();
  });

  t.test('a star, kept across a reload: favourites come first, on the flag page too', async (t) => {
    await page.getByRole('button', { name: 'Star search-v2' }).click();
    await page.getByRole('button', { name: 'Unstar search-v2' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Unstar search-v2' }).waitFor();
    t.equal((await rows())[0], 'search-v2', 'first in the table');
    await page.getByRole('link', { name: 'search-v2' }).click();
    await page.getByRole('heading', { name: 'search-v2' }).waitFor();
    t.equal(await page.getByRole('button', { name: 'Unstar search-v2' }).count(), 1, 'starred on its page');
    await page.goBack();
  });

  t.test('three flags selected and switched on in development, all at once', async (t) => {
    await page.getByText('4 flags', { exact: true }).waitFor();
    for (const name of ['banner', 'checkout-new', 'checkout-old']) await page.getByRole('checkbox', { name: `Select ${name}` }).check();
    const bar = page.getByRole('group', { name: 'Selected flags' });
    t.equal(await bar.getByText('3 flags selected').count(), 1);
    await bar.getByLabel('Environment').selectOption('development');
    await bar.getByRole('button', { name: 'Turn on in development' }).click();
    await page.getByText('3 flags turned on in development.').waitFor();
    t.same(await Promise.all(['banner', 'checkout-new', 'checkout-old', 'search-v2'].map((n) => onIn(n, 'development'))), [true, true, true, false], 'over the API');
  });

  t.test('two in production: asked once, saying how many, then undone', async (t) => {
    await page.getByRole('checkbox', { name: 'Select banner' }).uncheck();
    const bar = page.getByRole('group', { name: 'Selected flags' });
    await bar.getByLabel('Environment').selectOption('production');
    await bar.getByRole('button', { name: 'Turn on in production' }).click();
    const ask = page.locator('dialog.ask[open]');
    await ask.waitFor();
    t.match(await ask.innerText(), /Turn on 2 flags in production\?[\s\S]*checkout-new, checkout-old/);
    await ask.getByRole('button', { name: 'Turn on 2 flags' }).click();
    await page.getByText('2 flags turned on in production.').waitFor();
    t.same([await onIn('checkout-new', 'production'), await onIn('checkout-old', 'production')], [true, true], 'on after the yes');
    await page.locator('.toast', { hasText: '2 flags turned on in production.' }).getByRole('button', { name: 'Undo' }).click();
    const end = Date.now() + 5000;
    while (Date.now() < end && (await onIn('checkout-old', 'production'))) await new Promise((r) => setTimeout(r, 50));
    t.same([await onIn('checkout-new', 'production'), await onIn('checkout-old', 'production')], [false, false], 'Undo switched both back');
  });

  t.test('"on in development" and a sort: a reload keeps the view', async (t) => {
    await page.getByRole('search').getByLabel('Switched').selectOption('on:development');
    await page.getByText('3 flags', { exact: true }).waitFor();
    await page.getByRole('columnheader', { name: /^Name/ }).getByRole('button').click();
    await page.getByRole('columnheader', { name: 'Name ▼' }).waitFor();
    t.match(page.url(), /switched=on%3Adevelopment/);
    await page.reload();
    await page.getByText('3 flags', { exact: true }).waitFor();
    t.equal(await page.getByRole('search').getByLabel('Switched').inputValue(), 'on:development', 'the filter shown');
    t.same(await rows(), ['checkout-old', 'checkout-new', 'banner'], 'the same rows, sorted as they were');
  });

  t.test('"last seen" in words, with the exact time as its title', async (t) => {
    const cell = page.locator('table.flags tbody tr', { hasText: 'banner' }).locator('td[data-label="Last seen"] time');
    await cell.waitFor({ timeout: 15_000 });
    t.match(await cell.innerText(), /^(just now|\d+ min ago)$/);
    t.match(await cell.getAttribute('title'), /^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    t.equal(await page.locator('table.flags tbody tr', { hasText: 'checkout-new' }).locator('td[data-label="Last seen"]').innerText(), 'never');
  });

  t.test('two flags tagged, then archived, through the bar', async (t) => {
    for (const name of ['checkout-new', 'checkout-old']) await page.getByRole('checkbox', { name: `Select ${name}` }).check();
    const bar = page.getByRole('group', { name: 'Selected flags' });
    await bar.getByRole('button', { name: 'Add tag' }).click();
    const dialog = page.getByRole('dialog', { name: 'Tag 2 flags' });
    await dialog.getByLabel('Tag').fill('simple:bulk-tagged');
    await dialog.getByRole('button', { name: 'Add tag' }).click();
    await dialog.waitFor({ state: 'detached' });
    for (const name of ['checkout-new', 'checkout-old']) {
      t.same((await ok('GET', `/api/admin/features/${name}/tags`)).tags.map((x: any) => `${x.type}:${x.value}`), ['simple:bulk-tagged'], `${name} tagged`);
    }
    await bar.getByRole('button', { name: 'Archive 2 flags' }).click();
    await page.locator('dialog.ask[open] [data-answer="yes"]').click();
    await page.getByText('1 flag', { exact: true }).waitFor();
    const archived = (await ok('GET', '/api/admin/archive/features')).features.map((f: any) => f.name).sort();
    t.same(archived, ['checkout-new', 'checkout-old'], 'both archived');
    t.equal(await bar.count(), 0, 'nothing selected any more');
  });

  t.test('no script error, nothing fetched elsewhere', async (t) => {
    t.same(problems, []);
    t.same(elsewhere, []);
  });
});
