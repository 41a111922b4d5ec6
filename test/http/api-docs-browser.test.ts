// /docs/openapi in a real browser: Swagger UI renders Fanion's document, a person can authorize
// with an admin token and try a route (the live answer shows up), and the page asks nothing of any
// other site.
import t from 'tap';
import { artifactPath, openBrowser } from '../helpers/browser.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.docs-browser-admin';

t.test('Swagger UI at /docs/openapi renders the document and tries a route with a token', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN } });
  const page = await browser.newPage();
  const elsewhere: string[] = [];
  const failures: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(srv.url) && !r.url().startsWith('data:')) elsewhere.push(r.url());
  });
  page.on('pageerror', (e) => failures.push(e.message));
  // The page runs under its Content-Security-Policy: anything it refused would show here.
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) failures.push(m.text());
  });

  await page.goto(`${srv.url}/docs/openapi`);
  await page.locator('.opblock').first().waitFor({ timeout: 20000 });
  t.match(await page.locator('.info .title').innerText(), /Fanion/, 'the document\'s title');
  // Every operation, not "many": swagger-ui-dist 5.33.0 to 5.35.0 render only the first dozen of a
  // document past about 130 operations, silently (hence 5.32.15, package.json).
  const doc = await (await fetch(`${srv.url}/api/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.values(doc.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
  t.ok(operations > 120, `${operations} operations in the document`);
  t.equal(await page.locator('.opblock').count(), operations, 'every operation is listed');

  // Authorize with an admin token, as a person would.
  await page.locator('.btn.authorize').first().click();
  await page.locator('.auth-container input').first().fill(ADMIN);
  await page.locator('.auth-btn-wrapper .authorize').click();
  await page.locator('.auth-btn-wrapper .btn-done').click();

  // Try GET /api/admin/projects: the live answer is the server's.
  const op = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/api/admin/projects"]') });
  await op.locator('.opblock-summary').click();
  await op.locator('.try-out__btn').click();
  await op.locator('.execute').click();
  const live = op.locator('.live-responses-table tbody .response-col_status').first();
  await live.waitFor({ timeout: 10000 });
  t.equal((await live.innerText()).trim(), '200', 'the request went through with the token');
  t.match(await op.locator('.live-responses-table .microlight').first().innerText(), /"id": "default"/, 'and shows the projects');
  await page.screenshot({ path: artifactPath('api-docs.png'), fullPage: false });

  t.same(elsewhere, [], 'nothing requested from another site');
  // Swagger UI skips its online validator badge only for localhost documents; it is off for all.
  t.equal(await page.evaluate(() => (globalThis as any).ui.getConfigs().validatorUrl), null, 'no online validator badge');
  t.same(failures, [], 'no script error');
});
