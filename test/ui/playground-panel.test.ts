// "Try it" on a flag's page, in Debian's Chromium against a real server: a person types a context
// (userId and two context fields picked from the list), tries it in every environment, and reads
// which strategy matched, which constraint failed with the value it was given, and the variant;
// what the panel says agrees with the official Node SDK for the same context. A change to the flag
// made elsewhere is tried again without a click.
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { artifactPath, openBrowser, signIn, watchPage } from '../helpers/browser.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.try-it-admin-secret';
const CLIENT = 'default:development.try-it-client-secret';
const FLAG = '/api/admin/projects/default/features/checkout';

/** What the official Node SDK says for the flag and context, from a fresh instance. */
async function sdkSays(url: string, context: { userId: string; properties: Record<string, string> }): Promise<{ enabled: boolean; variant: string }> {
  const sdk = new Unleash({
    url: `${url}/api/`, appName: 'try-it', customHeaders: { Authorization: CLIENT }, disableMetrics: true,
    refreshInterval: 60_000, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
  });
  try {
    await new Promise((resolve) => sdk.once(UnleashEvents.Synchronized, resolve));
    return { enabled: sdk.isEnabled('checkout', context), variant: sdk.getVariant('checkout', context).name };
  } finally {
    sdk.destroy();
  }
}

t.test('a person tries a context on a flag\'s page', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
  await ok('POST', '/api/admin/context', { name: 'country', legalValues: [{ value: 'NO' }, { value: 'SE' }, { value: 'DK' }] });
  await ok('POST', '/api/admin/context', { name: 'plan' });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  const strategies = `${FLAG}/environments/development/strategies`;
  await ok('POST', strategies, { name: 'default', title: 'Nordics', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }] });
  await ok('POST', strategies, {
    name: 'flexibleRollout', title: 'Gold plans', parameters: { rollout: '100', stickiness: 'userId', groupId: 'checkout' },
    constraints: [{ contextName: 'plan', operator: 'STR_STARTS_WITH', values: ['GOLD'], caseInsensitive: true }],
    variants: [{ name: 'fast', weight: 1000, weightType: 'variable', stickiness: 'userId', payload: { type: 'string', value: 'express' } }],
  });
  await ok('POST', `${FLAG}/environments/development/on`);
  await ok('POST', `${FLAG}/environments/production/strategies`, { name: 'default', title: 'Everyone' });

  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);
  await page.goto(`${srv.url}/#/projects/default/flags/checkout`);
  await page.getByRole('heading', { name: 'checkout', level: 1 }).waitFor();
  const panel = page.getByRole('region', { name: 'Try it' });
  const form = panel.getByRole('form', { name: 'Try a context' });

  await t.test('a context typed in: the strategy that matched, the constraint that failed with its value, the variant', async (t) => {
    await form.getByLabel('userId').fill('7');
    await form.getByLabel('Add a context field').selectOption('country');
    await form.getByLabel('country', { exact: true }).fill('DK');
    await form.getByLabel('Add a context field').selectOption('plan');
    await form.getByLabel('plan', { exact: true }).fill('gold-yearly');
    await form.getByRole('button', { name: 'Try', exact: true }).click();
    const development = panel.getByRole('region', { name: 'Result in development' });
    await development.getByText('On: strategy 2 (Gold plans) matched.').waitFor();
    t.ok(await development.getByText('country is one of NO, SE').isVisible(), 'the failed constraint in words');
    t.ok(await development.locator('li.fail', { hasText: 'country is one of NO, SE' }).getByText('(country is "DK")').isVisible(), 'with the value the context gave it');
    t.ok(await development.locator('li.pass', { hasText: 'plan starts with GOLD' }).isVisible(), 'the constraint that held');
    t.match(await development.locator('.try-variant').innerText(), /Variant: fast \(string: express\)/);
    const production = panel.getByRole('region', { name: 'Result in production' });
    t.match(await production.locator('.try-why').innerText(), /Off: the flag is switched off in production; switched on, strategy 1 \(Everyone\) would match\./);
    const sdk = await sdkSays(srv.url, { userId: '7', properties: { country: 'DK', plan: 'gold-yearly' } });
    t.same(sdk, { enabled: true, variant: 'fast' }, 'the official Node SDK says the same for this context');
    await page.screenshot({ path: artifactPath('console-try-it.png'), fullPage: true });
  });

  await t.test('values with commas are tried one by one; one environment only', async (t) => {
    await form.getByLabel('country', { exact: true }).fill('NO,DK');
    await form.getByLabel('plan', { exact: true }).fill('free');
    await form.getByLabel('Environment').selectOption('development');
    await form.getByRole('button', { name: 'Try', exact: true }).click();
    const development = panel.getByRole('region', { name: 'Result in development' });
    await development.getByText('For userId=7, country=DK, plan=free').waitFor();
    const results = development.locator('.try-result');
    t.equal(await results.count(), 2, 'one result per value');
    t.match(await results.nth(0).locator('.try-why').innerText(), /On: strategy 1 \(Nordics\) matched\./);
    t.match(await results.nth(1).locator('.try-why').innerText(), /Off: no strategy matched\./);
    t.match(await results.nth(1).locator('.try-variant').innerText(), /Variant: none/);
    t.equal(await panel.getByRole('region', { name: 'Result in production' }).count(), 0, 'production not asked about');
  });

  await t.test('a change made elsewhere is tried again without a click', async (t) => {
    await ok('POST', strategies, { name: 'default', title: 'Free plans', constraints: [{ contextName: 'plan', operator: 'IN', values: ['free'] }] });
    const second = panel.getByRole('region', { name: 'Result in development' }).locator('.try-result').nth(1);
    await second.getByText('On: strategy 3 (Free plans) matched.').waitFor({ timeout: 10_000 });
    t.pass('the new strategy matches the context already typed');
  });

  t.same(problems, [], 'no script errors');
  t.same(elsewhere, [], 'no requests to other sites');
});
