// A flag's page in Debian's Chromium against a real server: strategies reordered, edited,
// disabled and deleted; metadata; a dependency the official Node SDK honours; the flag's events;
// the archive with revive and delete. Every step is checked through the admin or client API.
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { acceptNextDialog, artifactPath, openBrowser, signIn, watchPage } from '../helpers/browser.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.flag-page-admin-secret';
const CLIENT = 'default:development.flag-page-client-secret';
const FLAG = '/api/admin/projects/default/features/checkout';

/** What the official Node SDK answers for `flag`, from a fresh instance (no cache between checks). */
async function sdkSays(url: string, flag: string): Promise<boolean> {
  return (await sdkAnswers(url, flag)).enabled;
}

async function sdkAnswers(url: string, flag: string): Promise<{ enabled: boolean; variant: { name: string; payload?: { type: string; value: string } } }> {
  const sdk = new Unleash({
    url: `${url}/api/`, appName: 'flag-page', customHeaders: { Authorization: CLIENT }, disableMetrics: true,
    refreshInterval: 60_000, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
  });
  try {
    await new Promise((resolve) => sdk.once(UnleashEvents.Synchronized, resolve));
    return { enabled: sdk.isEnabled(flag, { userId: 'u1' }), variant: sdk.getVariant(flag, { userId: 'u1' }) };
  } finally {
    sdk.destroy();
  }
}

t.test("a person works on one flag's page", async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok, api } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects/default/features', { name: 'payments' });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout', description: 'New checkout' });
  const strategies = `${FLAG}/environments/development/strategies`;
  await ok('POST', strategies, { name: 'default', title: 'everyone' });
  await ok('POST', strategies, { name: 'flexibleRollout', title: 'half', parameters: { rollout: '50', stickiness: 'default', groupId: 'checkout' } });
  const order = async () => ((await ok('GET', strategies)) as { title: string; disabled: boolean }[]).map((s) => `${s.title}${s.disabled ? ' (disabled)' : ''}`);

  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);
  await page.getByRole('link', { name: 'checkout' }).click();
  await page.getByRole('heading', { name: 'checkout' }).waitFor();
  const development = page.getByRole('region', { name: 'development' });
  const strategy = (title: string) => development.locator('ol.strategies > li').filter({ hasText: title });

  t.test('strategies: reorder, edit, disable, delete', async (t) => {
    t.same(await order(), ['everyone', 'half']);
    await strategy('everyone').getByRole('button', { name: 'Move down' }).click();
    await development.locator('ol.strategies > li').first().filter({ hasText: 'half' }).waitFor();
    t.same(await order(), ['half', 'everyone'], 'moved down: the order is stored');
    t.ok(await strategy('half').getByRole('button', { name: 'Move up' }).isDisabled(), 'the first cannot move up');

    await strategy('half').getByRole('button', { name: 'Edit' }).click();
    const form = development.getByRole('form', { name: 'Strategy' });
    // The slider, moved by keyboard to its end.
    await form.getByRole('slider', { name: 'Rollout' }).focus();
    await page.keyboard.press('End');
    await form.locator('[aria-valuetext="100%"]').waitFor();
    // A strategy variant with a JSON payload, in the same form.
    await form.getByRole('button', { name: 'Add variant' }).click();
    const variant = form.getByRole('group', { name: 'Variant 1' });
    await variant.getByLabel('Variant name').fill('blue');
    await variant.getByLabel('Payload type').selectOption('json');
    await variant.getByLabel('Payload', { exact: true }).fill('{"color":"blue"}');
    await form.getByRole('button', { name: 'Save strategy' }).click();
    await form.waitFor({ state: 'detached' });
    await strategy('half').getByText('100% of users, by userId (else sessionId, else at random)').waitFor();
    t.equal(((await ok('GET', strategies)) as { parameters: { rollout: string } }[])[0].parameters.rollout, '100', 'edited: rollout 100');

    await strategy('everyone').getByRole('button', { name: 'Disable' }).click();
    await strategy('everyone').getByText('disabled', { exact: true }).waitFor();
    t.same(await order(), ['half', 'everyone (disabled)'], 'disabled');
    await strategy('everyone').getByRole('button', { name: 'Enable' }).click();
    await strategy('everyone').getByRole('button', { name: 'Disable' }).waitFor();
    t.same(await order(), ['half', 'everyone'], 'enabled again');

    acceptNextDialog(page);
    await strategy('everyone').getByRole('button', { name: 'Delete' }).click();
    await strategy('everyone').waitFor({ state: 'detached' });
    t.same(await order(), ['half'], 'deleted');
  });

  t.test('the constraint editor: every operator, typed key by key, stored as meant', async (t) => {
    const cases: [string, string, string, { negate?: boolean; ignoreCase?: boolean }?][] = [
      ['userId', 'IN', 'shop, web'], ['userId', 'NOT_IN', 'admin'], ['userId', 'STR_CONTAINS', '@corp, @partner', { ignoreCase: true }],
      ['userId', 'STR_STARTS_WITH', 'test-'], ['userId', 'STR_ENDS_WITH', '.no', { negate: true }],
      ['userId', 'NUM_EQ', '5'], ['userId', 'NUM_GT', '1.5'], ['userId', 'NUM_GTE', '0'], ['userId', 'NUM_LT', '100'], ['userId', 'NUM_LTE', '99'],
      ['currentTime', 'DATE_AFTER', '2026-01-01T00:00:00.000Z'], ['currentTime', 'DATE_BEFORE', '2030-01-01T00:00:00.000Z'],
      ['userId', 'SEMVER_EQ', '1.2.3'], ['userId', 'SEMVER_GT', '1.0.0'], ['userId', 'SEMVER_GTE', '2.0.0-beta.1'], ['userId', 'SEMVER_LT', '3.0.0'], ['userId', 'SEMVER_LTE', '3.1.0'],
      ['userId', 'REGEX', '^user-[0-9]+$', { ignoreCase: true }], ['remoteAddress', 'IN_CIDR', '10.0.0.0/8, 192.168.1.1'],
    ];
    const production = page.getByRole('region', { name: 'production' });
    await production.getByRole('button', { name: 'Add strategy in production' }).click();
    const form = production.getByRole('form', { name: 'Strategy' });
    for (const [i, [field, operator, text, flags]] of cases.entries()) {
      await form.getByRole('button', { name: 'Add constraint' }).click();
      const group = form.getByRole('group', { name: `Constraint ${i + 1}` });
      await group.getByLabel('Context field').selectOption(field);
      await group.getByLabel('Operator').selectOption(operator);
      await group.getByLabel(/^Values?$/).pressSequentially(text);
      if (flags?.negate) await group.getByLabel('Negate').check();
      if (flags?.ignoreCase) await group.getByLabel('Ignore case').check();
    }
    await form.getByRole('button', { name: 'Add strategy' }).click();
    await page.getByRole('dialog', { name: 'Add a strategy to checkout in production?' }).getByRole('button', { name: 'Add in production' }).click();
    await form.waitFor({ state: 'detached' });
    const stored = ((await ok('GET', `${FLAG}/environments/production/strategies`)) as { constraints: { contextName: string; operator: string; values?: string[]; value?: string; inverted?: boolean; caseInsensitive?: boolean }[] }[])[0].constraints;
    t.equal(stored.length, cases.length, `${cases.length} constraints stored`);
    for (const [i, [field, operator, text, flags]] of cases.entries()) {
      const c = stored[i];
      const list = ['IN', 'NOT_IN', 'STR_CONTAINS', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'IN_CIDR'].includes(operator);
      const got = [c.contextName, c.operator, list ? c.values : c.value, c.inverted ?? false, c.caseInsensitive ?? false];
      const meant = [field, operator, list ? text.split(', ') : text, flags?.negate ?? false, flags?.ignoreCase ?? false];
      t.same(got, meant, `${operator}: ${JSON.stringify(got)}`);
    }
    // The list is drawn again from the server once the save is acknowledged: wait for it, since
    // allInnerTexts reads whatever is on the page at that instant.
    const listed = production.locator('ol.strategies .constraint-text');
    await listed.nth(cases.length - 1).waitFor();
    const shown = await listed.allInnerTexts();
    t.equal(shown.length, cases.length, 'each listed in words');
    t.match(shown[4], /^userId NOT ends with \.no$/, `negated: ${shown[4]}`);
    t.match(shown[17], /\(any case\)$/, `case ignored: ${shown[17]}`);
  });

  t.test('metadata: type, stale, impression data, description', async (t) => {
    const about = page.getByRole('form', { name: 'Flag details' });
    await about.getByLabel('Description').fill('The new checkout, step 2');
    await about.getByLabel('Type').selectOption('kill-switch');
    await about.getByLabel('Stale').check();
    await about.getByLabel('Impression data').check();
    const reloaded = page.waitForResponse((r) => r.url().endsWith(FLAG) && r.request().method() === 'GET');
    await about.getByRole('button', { name: 'Save details' }).click();
    await reloaded;
    const stored = await ok('GET', FLAG);
    t.same([stored.description, stored.type, stored.stale, stored.impressionData], ['The new checkout, step 2', 'kill-switch', true, true], 'stored');
  });

  t.test('a dependency on another flag: the SDK keeps the flag off until its parent is on', async (t) => {
    await development.getByRole('switch', { name: 'Turn on checkout in development' }).click();
    await development.getByRole('switch', { name: 'Turn off checkout in development' }).waitFor();
    t.equal(await sdkSays(srv.url, 'checkout'), true, 'on, no dependency yet');
    const deps = page.getByRole('form', { name: 'Add a dependency' });
    await deps.getByLabel('Parent flag').fill('payments');
    await deps.getByRole('button', { name: 'Add dependency' }).click();
    await page.getByRole('button', { name: 'Remove dependency on payments' }).waitFor();
    t.same((await ok('GET', FLAG)).dependencies.map((d: { feature: string; enabled: boolean }) => [d.feature, d.enabled]), [['payments', true]], 'stored');
    t.equal(await sdkSays(srv.url, 'checkout'), false, 'the SDK: off while payments is off');
    await deps.getByLabel('Parent flag').fill('no-such-flag');
    await deps.getByRole('button', { name: 'Add dependency' }).click();
    const refusal = deps.getByRole('alert');
    await refusal.waitFor();
    t.match(await refusal.innerText(), /no-such-flag/, `an unknown parent: the API's message under the form: ${await refusal.innerText()}`);

    await page.goto(`${srv.url}/#/projects/default/flags/payments`);
    await page.getByText('Flags that depend on this one: checkout').waitFor();
    await page.getByRole('region', { name: 'development' }).getByRole('switch', { name: 'Turn on payments in development' }).click();
    await page.getByRole('region', { name: 'development' }).getByRole('switch', { name: 'Turn off payments in development' }).waitFor();
    const answer = await sdkAnswers(srv.url, 'checkout');
    t.equal(answer.enabled, true, 'the SDK: on once payments is on');
    t.same([answer.variant.name, answer.variant.payload], ['blue', { type: 'json', value: '{"color":"blue"}' }], 'and gives the strategy\'s variant with its payload');

    await page.goto(`${srv.url}/#/projects/default/flags/checkout`);
    t.equal(await deps.getByLabel('Parent flag').inputValue(), '', 'back on the page: nothing typed before is carried over');
    t.equal(await deps.getByRole('alert').count(), 0, 'nor the old error');
    await page.getByRole('button', { name: 'Remove dependency on payments' }).click();
    await page.getByRole('button', { name: 'Remove dependency on payments' }).waitFor({ state: 'detached' });
    t.same((await ok('GET', FLAG)).dependencies, [], 'removed');
    await page.screenshot({ path: artifactPath('console-flag-page.png'), fullPage: true });
  });

  t.test("the flag's events list what was done", async (t) => {
    await page.reload();
    const events = page.getByRole('region', { name: 'History' });
    await events.getByText('feature-dependency-removed').first().waitFor();
    const types = await events.locator('ol.history code.type').allInnerTexts();
    for (const type of ['feature-strategy-update', 'feature-strategy-remove', 'feature-environment-enabled', 'feature-dependency-added', 'feature-dependency-removed', 'feature-stale-on']) {
      t.ok(types.includes(type), `lists ${type}`);
    }
  });

  t.test('archive, revive, archive again and delete for good', async (t) => {
    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('heading', { name: 'Flags' }).waitFor();
    await page.getByRole('link', { name: 'payments' }).waitFor();
    t.equal(await page.getByRole('link', { name: 'checkout' }).count(), 0, 'gone from the table');
    const archived = async () => ((await ok('GET', '/api/admin/archive/features')).features as { name: string }[]).map((f) => f.name);
    t.same(await archived(), ['checkout'], 'archived');
    await page.getByRole('link', { name: 'Archive' }).click();
    const row = page.getByRole('row', { name: /checkout/ });
    await row.waitFor();
    await page.screenshot({ path: artifactPath('console-archive.png') });
    await row.getByRole('button', { name: 'Revive' }).click();
    await row.waitFor({ state: 'detached' });
    t.same(await archived(), [], 'revived');
    t.equal((await api('GET', FLAG)).status, 200, 'back among the flags');

    await ok('DELETE', FLAG);
    await row.waitFor({ timeout: 6_000 });
    acceptNextDialog(page);
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    t.equal((await api('GET', FLAG)).status, 404, 'deleted for good');
    t.same(await archived(), [], 'the archive is empty');
    await page.getByText('Nothing archived.').waitFor();
  });

  t.test('no script error, nothing from another site', async (t) => {
    t.same(problems, []);
    t.same(elsewhere, []);
  });
});
