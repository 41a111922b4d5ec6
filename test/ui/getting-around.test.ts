// Getting around the console in Debian's Chromium against a real server: a filtered and sorted
// view is a URL (reopened, it shows the same rows; Back keeps it), breadcrumbs, a project's
// overview and empty states that say what to do next, a new token's SDK snippet that runs as it is
// copied, webhooks created and delivered, a flag's name copied; dark mode and a phone; the keyboard
// alone and labels for screen readers; and the console's own polling writes no access-log line.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { acceptNextDialog, artifactPath, fillToken, openBrowser, settledOn, signIn, watchPage } from '../helpers/browser.js';
import { receiverFor, RECEIVERS_ALLOWED, until } from '../helpers/receiver.js';
import { ROOT, serve } from '../helpers/server.js';

const ADMIN = '*:*.around-admin-secret';

/** Fields without a label or an aria-label on the page: each should be none. */
const UNLABELLED = '[...document.querySelectorAll("input, select, textarea")].filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label")).map((el) => el.outerHTML.slice(0, 80))';

t.test('getting around the console', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const receiver = await receiverFor(t);
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, ...RECEIVERS_ALLOWED }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects', { id: 'mobile', name: 'Mobile apps' });
  await ok('POST', '/api/admin/tag-types', { name: 'team', description: 'The owning team' });
  const flags: [string, string, string][] = [
    ['pay-by-card', 'release', 'payments'], ['pay-by-invoice', 'release', 'payments'], ['pay-later', 'experiment', 'payments'], ['pay-wallet', 'experiment', 'payments'],
    ['pay-kill', 'kill-switch', 'payments'], ['search-v2', 'experiment', 'search'], ['search-typo', 'release', 'search'], ['banner', 'release', 'web'],
  ];
  for (const [name, type, team] of flags) await ok('POST', '/api/admin/projects/default/features', { name, type, tags: [{ type: 'team', value: team }] });
  await ok('POST', '/api/admin/projects/default/features/banner/environments/development/on');
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);
  const rows = () => page.locator('table.flags tbody tr th a').allInnerTexts();

  t.test('a filtered, sorted view is a URL: reopened it shows the same rows, and Back keeps it', async (t) => {
    const search = page.getByRole('search');
    await search.getByLabel('Search').fill('pay');
    await search.getByLabel('Type').selectOption('experiment');
    await page.getByText('2 flags', { exact: true }).waitFor();
    await page.getByRole('columnheader', { name: /^Name/ }).getByRole('button').click();
    await page.getByRole('columnheader', { name: 'Name ▼' }).waitFor();
    const shown = ['pay-wallet', 'pay-later'];
    t.same(await settledOn(rows, shown), shown, 'filtered and sorted');
    const url = page.url();
    t.match(url, /#\/\?(?=.*query=pay)(?=.*type=experiment)(?=.*sortOrder=desc)/, `the view is in the URL: ${url}`);

    // Another tab (its own sign-in: the token is kept per tab) opened on the URL.
    const other = await browser.newPage();
    await other.goto(url);
    await fillToken(other, ADMIN);
    await other.getByRole('button', { name: 'Sign in with the token' }).click();
    await other.getByText('2 flags', { exact: true }).waitFor();
    t.same(await settledOn(() => other.locator('table.flags tbody tr th a').allInnerTexts(), shown), shown, 'the same rows, in the same order');
    t.equal(await other.getByRole('search').getByLabel('Search').inputValue(), 'pay', 'with the same filters shown');
    await other.close();

    await page.getByRole('link', { name: 'pay-later' }).click();
    await page.getByRole('heading', { name: 'pay-later' }).waitFor();
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
    t.same(await crumbs.getByRole('listitem').allInnerTexts(), ['Projects', 'default', 'Flags', 'pay-later'], 'breadcrumbs: where the flag sits');
    await page.goBack();
    await page.getByText('2 flags', { exact: true }).waitFor();
    t.same(await settledOn(rows, shown), shown, 'Back: the same view');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText(`${flags.length} flags`, { exact: true }).waitFor();
  });

  t.test("a project's overview, and empty pages that say what to do next", async (t) => {
    await page.getByRole('link', { name: 'Project overview' }).click();
    await page.getByRole('heading', { name: 'Default', exact: true }).waitFor();
    const types = page.getByRole('region', { name: `${flags.length} flags by type` });
    await types.getByRole('link', { name: 'Kill switch' }).waitFor();
    t.match(await types.innerText(), /Release\s+4[\s\S]*Experiment\s+3[\s\S]*Kill switch\s+1/, `flags by type: ${await types.innerText()}`);
    const unused = page.getByRole('region', { name: 'On but never evaluated' });
    t.match(await unused.innerText(), /banner\s+in development/, 'banner is on in development and no SDK asked for it');
    await page.getByRole('region', { name: 'Recent changes' }).getByText('turned on in development').first().waitFor();
    t.pass('recent changes, in words');
    await page.getByRole('region', { name: /^Health/ }).getByRole('link', { name: '0 stale' }).click();
    await page.getByText('0 flags', { exact: true }).waitFor();
    await page.getByText('No flag matches these filters.').waitFor();
    t.pass('the stale link opens the table filtered, and an empty result says so');

    await page.goto(`${srv.url}/#/projects/mobile/overview`);
    await page.getByText('No flags in this project yet.').waitFor();
    await page.goto(`${srv.url}/#/projects/mobile`);
    const empty = page.getByText('No flags in Mobile apps yet.');
    await empty.waitFor();
    await page.getByRole('button', { name: 'Create the first flag' }).click();
    const dialog = page.getByRole('dialog', { name: 'New flag' });
    t.equal(await dialog.getByLabel('Project').inputValue(), 'mobile', 'the New flag dialog starts in this project');
    await dialog.getByLabel('Name', { exact: true }).fill('offline-mode');
    await dialog.getByRole('button', { name: 'Create flag' }).click();
    await page.getByRole('heading', { name: 'offline-mode' }).waitFor();
    t.equal((await ok('GET', '/api/admin/projects/mobile/features/offline-mode')).project, 'mobile');
    await page.getByRole('button', { name: 'Copy name' }).click();
    t.equal(await page.evaluate('navigator.clipboard.readText()'), 'offline-mode', '"Copy name" puts the flag\'s name on the clipboard');
  });

  t.test("a new token's Node snippet runs as copied", async (t) => {
    await ok('POST', '/api/admin/projects/default/features', { name: 'my-flag' });
    await ok('POST', '/api/admin/projects/default/features/my-flag/environments/production/on');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens' }).click();
    const create = page.getByRole('form', { name: 'Create a token' });
    await create.getByLabel('Token name').fill('checkout-server');
    await create.getByLabel('Environment').locator('option', { hasText: 'production' }).waitFor({ state: 'attached' });
    t.same(await create.getByLabel('Environment').locator('option').allInnerTexts(), ['development', 'production'], 'an SDK token: one environment, chosen');
    await create.getByLabel('Environment').selectOption('production');
    await create.getByLabel('All projects').uncheck();
    await create.getByLabel('Default (default)').check();
    await create.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.getByLabel('New token').innerText()).trim();
    t.match(secret, /^default:production\./, 'for default, in production');
    const connect = page.getByRole('region', { name: 'Connect an SDK' });
    await connect.getByLabel('SDK', { exact: true }).waitFor();
    t.same(await connect.getByLabel('SDK', { exact: true }).locator('option').allInnerTexts(), ['Node.js', 'Java', 'Go', 'Python', '.NET', 'Ruby', 'PHP', 'OpenFeature (server)'],
      'a client token: the server-side SDKs, in "Connect an SDK" with the token filled in');
    await page.getByRole('button', { name: 'Copy Node.js snippet' }).click();
    const snippet = String(await page.evaluate('navigator.clipboard.readText()'));
    t.ok(snippet.includes(secret) && snippet.includes(`${srv.url}/api/`), 'the snippet holds the token and this server');
    // Run as copied, beside this repository's node_modules (where unleash-client is).
    const file = path.join(ROOT, `.snippet-${process.pid}.mjs`);
    fs.writeFileSync(file, snippet);
    t.teardown(() => fs.rmSync(file, { force: true }));
    const out = await new Promise<string>((resolve) => {
      const child = execFile(process.execPath, [file], { timeout: 15_000 }, (_err, stdout, stderr) => resolve(stdout + stderr));
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('my-flag:') && setTimeout(() => child.kill(), 100));
    });
    t.match(out, /my-flag is on/, `it prints what the flag is: ${out.trim()}`);

    await page.getByRole('form', { name: 'Create a token' }).getByLabel('Type').selectOption('frontend');
    await create.getByLabel('Token name').fill('web-shop');
    await create.getByRole('button', { name: 'Create token' }).click();
    const web = await page.getByLabel('Browser (JavaScript) snippet').innerText();
    t.match(web, /unleash-proxy-client[\s\S]*\/api\/frontend/, 'a frontend token: the browser SDK first');
    t.ok(web.includes((await page.getByLabel('New token').innerText()).trim()), 'with the new token');
    await connect.getByLabel('SDK', { exact: true }).selectOption('openfeature-web');
    t.match(await page.getByLabel('OpenFeature (web) snippet').innerText(), /OFREPWebProvider/, 'and OpenFeature for the web');
  });

  t.test('webhooks: created from choices, delivered, switched off, edited, deleted', async (t) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No webhooks yet.').waitFor();
    const create = page.getByRole('form', { name: 'Create webhook' });
    await create.getByLabel('URL').fill(receiver.url);
    await create.getByLabel('Description').fill('Chat room');
    await create.getByLabel('All events').uncheck();
    await create.getByLabel('feature-environment-enabled').check();
    await create.getByRole('button', { name: 'Create webhook' }).click();
    const secret = (await page.getByLabel('Signing secret').innerText()).trim();
    t.match(secret, /^[0-9a-f]{32,}$/, 'its signing secret, shown once');
    const row = page.getByRole('row', { name: new RegExp(receiver.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
    await row.waitFor();
    const [addon] = (await ok('GET', '/api/admin/addons')).addons;
    t.same([addon.description, addon.events, addon.enabled], ['Chat room', ['feature-environment-enabled'], true], 'stored as chosen');

    await ok('POST', '/api/admin/projects/default/features/pay-later/environments/development/on');
    const [sent] = await receiver.waitFor(1);
    t.equal(JSON.parse(sent.body).type, 'feature-environment-enabled', 'an event it asked for is delivered');
    // A delivery is counted after the receiver has it and changes no configuration: the page,
    // left open, asks again on its own while a webhook is on.
    await row.getByText(/1 delivered/).waitFor({ timeout: 10_000 });
    t.pass('the page says so');

    await row.getByRole('switch', { name: `Disable webhook ${receiver.url}` }).click();
    await row.getByRole('switch', { name: `Enable webhook ${receiver.url}` }).waitFor();
    t.equal((await ok('GET', '/api/admin/addons')).addons[0].enabled, false, 'switched off');

    await row.getByRole('button', { name: `Edit ${receiver.url}` }).click();
    const edit = page.getByRole('form', { name: 'Save webhook' });
    await edit.getByLabel('Description').fill('Chat room, #releases');
    await edit.getByRole('button', { name: 'Save webhook' }).click();
    await edit.waitFor({ state: 'detached' });
    const saved = (await ok('GET', '/api/admin/addons')).addons[0];
    t.same([saved.description, saved.enabled, saved.events], ['Chat room, #releases', false, ['feature-environment-enabled']], 'edited, the rest kept');
    acceptNextDialog(page);
    await row.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await page.getByText('No webhooks yet.').waitFor();
    t.same((await ok('GET', '/api/admin/addons')).addons, [], 'deleted');
  });

  t.test('with the keyboard alone: a production switch asks, Escape keeps it as it was; every field is labelled', async (t) => {
    await page.goto(`${srv.url}/#/projects/default/flags/banner`);
    const production = page.getByRole('region', { name: 'production' });
    const toggle = production.getByRole('switch', { name: 'Turn on banner in production' });
    await toggle.focus();
    await page.keyboard.press('Space');
    const question = page.getByRole('dialog', { name: 'Turn on banner in production?' });
    await question.waitFor();
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    t.equal((await ok('GET', '/api/admin/projects/default/features/banner')).environments.find((e: { name: string }) => e.name === 'production').enabled, false, 'Escape: unchanged');
    await toggle.focus();
    await page.keyboard.press('Space');
    await question.waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await production.getByRole('switch', { name: 'Turn off banner in production' }).waitFor();
    t.equal((await ok('GET', '/api/admin/projects/default/features/banner')).environments.find((e: { name: string }) => e.name === 'production').enabled, true, 'Tab to the confirmation, Enter: on');

    await production.getByRole('button', { name: 'Add strategy in production' }).click();
    await production.getByRole('button', { name: 'Add constraint' }).click();
    t.same(await page.evaluate(UNLABELLED), [], "the flag's page with a strategy open: every field labelled");
    await production.getByRole('group', { name: 'Constraint 1' }).getByLabel('Context field').selectOption({ label: 'New context field…' });
    await page.getByRole('dialog', { name: 'New context field' }).waitFor();
    t.same(await page.evaluate(UNLABELLED), [], 'the new context field dialog too');
    await page.keyboard.press('Escape');
    for (const where of ['tokens', 'webhooks', 'events', 'segments']) {
      await page.goto(`${srv.url}/#/${where}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForTimeout(200);
      t.same(await page.evaluate(UNLABELLED), [], `${where}: every field labelled`);
    }
  });

  t.test('dark mode from the system, and a phone: screenshots', async (t) => {
    const dark = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    await signIn(dark, srv.url, ADMIN);
    await dark.goto(`${srv.url}/#/projects/default/flags/banner`);
    await dark.getByRole('heading', { name: 'Usage' }).waitFor();
    const bg = String(await dark.evaluate('getComputedStyle(document.body).backgroundColor'));
    const [r, g, b] = (bg.match(/\d+/g) ?? []).map(Number);
    t.ok(r + g + b < 3 * 60, `a dark page: ${bg}`);
    const text = String(await dark.evaluate('getComputedStyle(document.querySelector("h1")).color'));
    t.ok((text.match(/\d+/g) ?? []).map(Number).slice(0, 3).reduce((x, y) => x + y, 0) > 3 * 180, `light text on it: ${text}`);
    await dark.screenshot({ path: artifactPath('console-dark-flag.png'), fullPage: true });
    await dark.close();

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone, srv.url, ADMIN);
    await phone.getByRole('link', { name: 'banner' }).waitFor();
    const switches = phone.locator('table.flags').getByRole('switch');
    t.equal(await switches.count(), (flags.length + 1) * 2, 'a switch per flag and environment');
    const boxes = await switches.evaluateAll((els) => els.map((e) => { const r = e.getBoundingClientRect(); return [r.left, r.right]; }));
    t.ok(boxes.every(([left, right]) => left >= 0 && right <= 390), `every switch is on screen (rightmost edge ${Math.max(...boxes.map((x) => x[1]))} px)`);
    t.ok(Number(await phone.evaluate('document.documentElement.scrollWidth - window.innerWidth')) <= 1, 'no sideways scrolling');
    await phone.getByRole('switch', { name: 'Turn on pay-wallet in development' }).click();
    await phone.getByRole('switch', { name: 'Turn off pay-wallet in development' }).waitFor();
    t.pass('switched from a phone');
    await phone.screenshot({ path: artifactPath('console-phone-flags.png'), fullPage: true });
    await phone.close();
  });

  t.test("the console's own polling writes no access-log line", async (t) => {
    const polls: string[] = [];
    const listen = (r: { url(): string }) => r.url().includes('/api/admin/events?limit=1') && polls.push(r.url());
    page.on('request', listen);
    const lines = () => srv.output().split('\n').filter((l) => l.includes('"kind":"access"') && /"route":"\/api\/admin\/(events|client-metrics[^"]*)"/.test(l)).length;
    const before = lines();
    await page.goto(`${srv.url}/#/projects/default/flags/banner`);
    await until('three polls', () => polls.length >= 3, 10_000);
    page.off('request', listen);
    await page.waitForTimeout(200);
    t.equal(lines(), before, `${polls.length} polls of the event cursor (and the flag's usage), no access-log line`);
  });

  t.test('no script error, nothing from another site', async (t) => {
    t.same(problems, []);
    t.same(elsewhere, []);
  });
});
