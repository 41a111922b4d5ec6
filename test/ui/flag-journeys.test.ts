// A flag's journeys in Debian's Chromium against a real server, checked through the admin API and
// the official Node SDK: a production switch asks once and can be undone; a rollout moved with the
// slider reaches the SDK and reads "rollout 25 → 50" in the history; a context field made from the
// constraint picker, its legal values chosen, the form kept; the SDK's own counts drawn on the
// flag's page within a flush interval.
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { openBrowser, signIn, watchPage } from '../helpers/browser.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.journeys-admin-secret';
const CLIENT = 'default:production.journeys-client-secret';
const FLAG = '/api/admin/projects/default/features/new-checkout';

function sdk(url: string, extra: Record<string, unknown> = {}): Unleash {
  return new Unleash({
    url: `${url}/api/`, appName: 'journeys', customHeaders: { Authorization: CLIENT }, disableMetrics: true,
    refreshInterval: 60_000, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true, ...extra,
  });
}

/** How many of 1,000 users a fresh SDK finds new-checkout on for. */
async function share(url: string): Promise<number> {
  const client = sdk(url);
  try {
    await new Promise((resolve) => client.once(UnleashEvents.Synchronized, resolve));
    let on = 0;
    for (let i = 0; i < 1000; i++) if (client.isEnabled('new-checkout', { userId: `user-${i}` })) on++;
    return on / 1000;
  } finally {
    client.destroy();
  }
}

t.test("a person's journeys on a flag's page", async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects/default/features', { name: 'new-checkout', description: 'The one-page checkout' });
  await ok('POST', `${FLAG}/environments/production/strategies`, { name: 'flexibleRollout', parameters: { rollout: '25', stickiness: 'userId', groupId: 'new-checkout' } });
  const enabledIn = async (env: string) => (await ok('GET', FLAG)).environments.find((e: { name: string }) => e.name === env).enabled as boolean;
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);

  t.test('a production switch asks once, naming the flag and the environment, and can be undone', async (t) => {
    const row = page.getByRole('row', { name: /new-checkout/ });
    const on = row.getByRole('switch', { name: 'Turn on new-checkout in production' });
    t.equal(await on.getAttribute('aria-checked'), 'false', 'a switch, off');
    await on.click();
    const question = page.getByRole('dialog', { name: 'Turn on new-checkout in production?' });
    await question.waitFor();
    t.match(await question.innerText(), /production is a production environment/, 'it says why it asks');
    t.equal(await page.evaluate('document.activeElement && document.activeElement.textContent'), 'Cancel', 'Cancel has the focus');
    await question.getByRole('button', { name: 'Cancel' }).click();
    await question.waitFor({ state: 'detached' });
    t.equal(await enabledIn('production'), false, 'cancelled: nothing changed');

    await on.click();
    await question.getByRole('button', { name: 'Turn on in production' }).click();
    await row.getByRole('switch', { name: 'Turn off new-checkout in production' }).waitFor();
    t.equal(await enabledIn('production'), true, 'confirmed: on');
    const note = page.getByRole('status').filter({ hasText: 'new-checkout turned on in production.' });
    await note.getByRole('button', { name: 'Undo' }).click();
    await row.getByRole('switch', { name: 'Turn on new-checkout in production' }).waitFor();
    t.equal(await enabledIn('production'), false, 'undone: off again, without a second question');

    // Development is not of type production: no question, undo all the same.
    await row.getByRole('switch', { name: 'Turn on new-checkout in development' }).click();
    await row.getByRole('switch', { name: 'Turn off new-checkout in development' }).waitFor();
    t.equal(await page.getByRole('dialog').count(), 0, 'no question outside production');
    t.equal(await enabledIn('development'), true);
    await page.getByRole('status').filter({ hasText: 'new-checkout turned on in development.' }).getByRole('button', { name: 'Undo' }).click();
    await row.getByRole('switch', { name: 'Turn on new-checkout in development' }).waitFor();
    t.equal(await enabledIn('development'), false, 'undone');
  });

  t.test('a rollout moved with the slider reaches the official Node SDK, and the history reads "rollout 25 → 50"', async (t) => {
    await page.getByRole('link', { name: 'new-checkout' }).click();
    const production = page.getByRole('region', { name: 'production' });
    await production.getByRole('switch', { name: 'Turn on new-checkout in production' }).click();
    await page.getByRole('dialog', { name: 'Turn on new-checkout in production?' }).getByRole('button', { name: 'Turn on in production' }).click();
    await production.getByRole('switch', { name: 'Turn off new-checkout in production' }).waitFor();
    await production.getByText('25% of users, by userId').waitFor();
    const before = await share(srv.url);
    t.ok(before > 0.2 && before < 0.3, `at 25%: on for ${before * 100}% of 1,000 users`);

    await production.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = production.getByRole('form', { name: 'Strategy' });
    const slider = form.getByRole('slider', { name: 'Rollout' });
    t.equal(await slider.inputValue(), '25', 'the slider starts at the stored rollout');
    await slider.focus();
    for (let i = 0; i < 25; i++) await page.keyboard.press('ArrowRight');
    await form.locator('[aria-valuetext="50%"]').waitFor();
    await form.getByRole('button', { name: 'Save strategy' }).click();
    // Production: the change asks first, in words (test/ui/production-changes.test.ts has the rest).
    const question = page.getByRole('dialog', { name: 'Change a strategy of new-checkout in production?' });
    t.match(await question.innerText(), /25 % → 50 % of users in production, for everyone/, 'asked in words');
    await question.getByRole('button', { name: 'Save in production' }).click();
    await production.getByText('50% of users, by userId').waitFor();
    t.equal((await ok('GET', FLAG)).environments.find((e: { name: string }) => e.name === 'production').strategies[0].parameters.rollout, '50', 'stored: 50');
    const after = await share(srv.url);
    t.ok(after > 0.45 && after < 0.55, `at 50%: the SDK finds it on for ${after * 100}% of the same users`);

    const history = page.getByRole('region', { name: 'History' });
    const change = history.locator('ol.history > li').filter({ hasText: 'feature-strategy-update' }).first();
    await change.getByText('rollout 25 → 50', { exact: true }).waitFor();
    t.pass('the history says what changed: rollout 25 → 50');
    t.match(await change.innerText(), /init-admin-token/, 'and who did it');
    await change.getByText('Raw JSON').click();
    t.match(await change.locator('pre').innerText(), /"rollout": "50"[\s\S]*"rollout": "25"/, 'the raw JSON, one click away: data, then preData');
  });

  t.test('a context field made from the picker without losing the form; its legal values and stickiness as choices', async (t) => {
    const production = page.getByRole('region', { name: 'production' });
    await production.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = production.getByRole('form', { name: 'Strategy' });
    await form.getByLabel('Title').fill('Nordics');
    await form.getByRole('button', { name: 'Add constraint' }).click();
    const constraint = form.getByRole('group', { name: 'Constraint 1' });
    await constraint.getByLabel('Context field').selectOption({ label: 'New context field…' });
    const dialog = page.getByRole('dialog', { name: 'New context field' });
    await dialog.getByLabel('Field name').fill('country');
    await dialog.getByLabel('Legal values').fill('NO, SE, DK');
    await dialog.getByLabel('Usable as stickiness').check();
    await dialog.getByRole('button', { name: 'Create context field' }).click();
    await dialog.waitFor({ state: 'detached' });
    t.equal(await constraint.getByLabel('Context field').inputValue(), 'country', 'the constraint now uses it');
    t.equal(await form.getByLabel('Title').inputValue(), 'Nordics', 'what was typed before is still there');
    t.equal(await form.getByRole('slider', { name: 'Rollout' }).inputValue(), '50', 'and the rollout');
    const values = constraint.getByRole('group', { name: 'Values' });
    // The field's legal values come with the choices, loaded again once the field is made.
    await values.getByLabel('DK').waitFor();
    t.same(await values.locator('label').allInnerTexts(), ['NO', 'SE', 'DK'], 'its legal values, to tick');
    await values.getByLabel('NO').check();
    await values.getByLabel('SE').check();
    await form.getByLabel('Stickiness').locator('option', { hasText: 'country' }).waitFor({ state: 'attached' });
    t.same(await form.getByLabel('Stickiness').locator('option').allInnerTexts(), ['default', 'userId', 'sessionId', 'random', 'country'], 'stickiness: the built-in choices and the field just made');
    await form.getByLabel('Stickiness').selectOption('country');
    await form.getByRole('button', { name: 'Save strategy' }).click();
    await page.getByRole('dialog', { name: 'Change a strategy of new-checkout in production?' }).getByRole('button', { name: 'Save in production' }).click();
    await form.waitFor({ state: 'detached' });
    const stored = (await ok('GET', FLAG)).environments.find((e: { name: string }) => e.name === 'production').strategies[0];
    t.same([stored.title, stored.parameters.stickiness, stored.parameters.rollout, stored.constraints.map((c: { contextName: string; operator: string; values: string[] }) => [c.contextName, c.operator, c.values])],
      ['Nordics', 'country', '50', [['country', 'IN', ['NO', 'SE']]]], 'stored as chosen');
    await production.getByText('Nordics', { exact: true }).waitFor();
    t.match(await production.locator('ol.strategies').innerText(), /50% of users, by country[\s\S]*where[\s\S]*country is one of NO, SE/, 'the strategy in words');
    const history = page.getByRole('region', { name: 'History' });
    const change = history.locator('ol.history > li').filter({ hasText: 'constraint added' }).first();
    await change.waitFor();
    t.match(await change.innerText(), /title "" → Nordics[\s\S]*stickiness userId → country[\s\S]*constraint added: country is one of NO, SE/, `in words: ${(await change.innerText()).replace(/\s+/g, ' ')}`);
  });

  t.test("usage counts made by the Node SDK appear on the flag's page within a flush interval", async (t) => {
    const usage = page.getByRole('region', { name: 'Usage' });
    await usage.getByText(/No SDK has evaluated new-checkout/).waitFor();
    // Staff see it whatever their country.
    await ok('POST', `${FLAG}/environments/production/strategies`, { name: 'default', title: 'Staff', constraints: [{ contextName: 'userId', operator: 'STR_STARTS_WITH', values: ['staff-'] }] });
    const client = sdk(srv.url, { appName: 'checkout-web', disableMetrics: false, metricsInterval: 1_000, metricsJitter: 0 });
    t.teardown(() => client.destroy());
    await new Promise((resolve) => client.once(UnleashEvents.Synchronized, resolve));
    let yes = 0;
    for (let i = 0; i < 40; i++) if (client.isEnabled('new-checkout', { userId: i % 4 ? `u${i}` : `staff-${i}`, properties: { country: ['NO', 'SE', 'DK'][i % 3] } })) yes++;
    t.ok(yes >= 10 && yes < 40, `${yes} yes: the staff at least`);
    const started = Date.now();
    // The SDK sends every second; the page asks every 5 s: both within a flush interval and its margin.
    await usage.getByText(`40 evaluations: ${yes} yes, ${40 - yes} no`).waitFor({ timeout: 20_000 });
    t.pass(`the page shows the SDK's 40 evaluations (${yes} yes) ${Date.now() - started} ms after them`);
    t.same(await usage.getByLabel('Application', { exact: true }).locator('option').allInnerTexts(), ['All applications', 'checkout-web'], 'the application that evaluated it, to choose');
    t.match(await usage.getByRole('img').getAttribute('aria-label'), new RegExp(`${yes} yes, ${40 - yes} no`), 'the chart says its numbers to screen readers');
    await usage.getByLabel('Environment', { exact: true }).selectOption('development');
    await usage.getByText(/No SDK has evaluated new-checkout in development/).waitFor();
    await usage.getByLabel('Environment', { exact: true }).selectOption('production');
    await usage.getByText('Numbers').click();
    const rows = (await usage.locator('table.usage tbody tr').allInnerTexts()).map((r) => /^(\d{4}-\d\d-\d\d \d\d:00)\s+(\d+)\s+(\d+)/.exec(r));
    t.ok(rows.length > 0 && rows.every(Boolean), 'the numbers, by the hour');
    t.same(rows.reduce((sum, r) => [sum[0] + Number(r![2]), sum[1] + Number(r![3])], [0, 0]), [yes, 40 - yes], 'adding up to the SDK\'s counts');
  });

  t.test('no script error, nothing from another site', async (t) => {
    t.same(problems, []);
    t.same(elsewhere, []);
  });
});
