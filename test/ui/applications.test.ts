// The applications view fed by the official Node SDK's own registration and metrics (what the SDK
// says of itself, and the flag names it asked for that do not exist), and the console of a server
// run with AUTH_TYPE=none (no sign-in), in Debian's Chromium.
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { artifactPath, openBrowser, signIn, watchPage } from '../helpers/browser.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.applications-admin-secret';
const CLIENT = 'default:development.applications-client-secret';

t.test('applications: the SDK instances seen and per-flag yes/no counts, with a bar each', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '100' },
    authorization: ADMIN,
  });
  await ok('POST', '/api/admin/projects/default/features', { name: 'banner' });
  await ok('POST', '/api/admin/projects/default/features/banner/environments/development/strategies', { name: 'userWithId', parameters: { userIds: 'u0,u1,u2' } });
  await ok('POST', '/api/admin/projects/default/features/banner/environments/development/on');
  await ok('POST', '/api/admin/projects/default/features', { name: 'beta' });

  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Applications' }).click();
  await page.getByText('No SDK has registered yet.').waitFor();

  // The SDK registers, evaluates (banner: 3 of 8 users on; beta: off for all 4) and sends its counts.
  const sdk = new Unleash({
    url: `${srv.url}/api/`, appName: 'checkout-web', instanceId: 'web-1', environment: 'development', customHeaders: { Authorization: CLIENT },
    sdkFlavor: 'openfeature-node', sdkFlavorVersion: '0.9.1', refreshInterval: 60_000, metricsInterval: 200, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
  });
  t.teardown(() => sdk.destroy());
  await new Promise((resolve) => sdk.once(UnleashEvents.Synchronized, resolve));
  for (let i = 0; i < 8; i++) sdk.isEnabled('banner', { userId: `u${i}` });
  for (let i = 0; i < 4; i++) sdk.isEnabled('beta', { userId: `u${i}` });
  sdk.isEnabled('chekout-banner');

  // No reload: the page looks again by itself.
  const app = page.getByRole('region', { name: 'checkout-web' });
  await app.getByRole('img', { name: '3 yes, 5 no' }).waitFor({ timeout: 15_000 });
  t.pass('banner: 3 yes, 5 no, drawn as a bar');
  const rows = await app.locator('tbody tr').allInnerTexts();
  t.ok(rows.some((r) => /^banner\s+development\s+3\s+5/.test(r)), `banner's counts listed: ${JSON.stringify(rows)}`);
  t.ok(rows.some((r) => /^beta\s+development\s+0\s+4/.test(r)), "beta's counts listed");
  t.match(await app.innerText(), /1 instance · development/, 'one instance, in development');
  await app.getByText('Instances').click();
  const line = await app.getByRole('listitem').first().innerText();
  t.match(line, /^web-1 \(development, unleash-node-sdk:\d/, 'the instance with its SDK version');
  t.match(line, /via openfeature-node 0\.9\.1\) · every 200 ms · .* connection [0-9a-f-]{36}/, 'the integration built on the SDK, its interval and its connection id');
  const unknown = page.getByRole('region', { name: 'Unknown flags' });
  await unknown.getByRole('row', { name: /chekout-banner/ }).waitFor({ timeout: 15_000 });
  t.match(await unknown.getByRole('row', { name: /chekout-banner/ }).innerText(), /^chekout-banner\s+checkout-web\s+development/, 'the misspelt name the SDK asked for is listed as an unknown flag, with who asked where');
  t.equal(await unknown.getByRole('row', { name: /banner\s/ }).count(), 1, 'the real flags are not');
  await page.screenshot({ path: artifactPath('console-applications.png'), fullPage: true });
  t.same(problems, []);
  t.same(elsewhere, []);
});

t.test('with AUTH_TYPE=none the console opens without a sign-in and works', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'none' } });
  const page = await browser.newPage();
  await page.goto(srv.url);
  await page.getByRole('heading', { name: 'Flags' }).waitFor();
  t.equal(await page.getByLabel('Admin API token').count(), 0, 'no sign-in form');
  t.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'nothing to sign out of');
  t.ok(await page.getByText('no sign-in').isVisible(), 'it says the server asks for no sign-in');
  await page.getByRole('button', { name: 'New flag' }).click();
  await page.getByLabel('Name', { exact: true }).fill('open-flag');
  await page.getByRole('button', { name: 'Create flag' }).click();
  await page.getByRole('heading', { name: 'open-flag' }).waitFor();
  t.equal((await ok('GET', '/api/admin/projects/default/features/open-flag')).name, 'open-flag', 'a flag created without a token');
});
