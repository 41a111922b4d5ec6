// "Connect an SDK" on a flag's page, in Debian's Chromium against a real server: a person opens it,
// keeps Node.js, creates the client token from the panel, and the snippet, copied as shown and run
// with node (the official unleash-client from this repository's node_modules), prints the flag and
// turns the panel green with the application's name and SDK version. Then the browser SDK: a
// frontend token made from the panel, the snippet run in the same page (its one import pointed at
// unleash-proxy-client's own ES module build, as a bundler would), and green again. A Viewer sees
// the snippet with a placeholder naming the token's kind, and the button disabled with the reason.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { artifactPath, openBrowser, signIn, signInWithPassword, watchPage } from '../helpers/browser.js';
import { STRONG } from '../helpers/people.js';
import { ROOT, serve } from '../helpers/server.js';

const ADMIN = '*:*.connect-sdk-admin-secret';

t.test('connect an SDK from a flag\'s page: the Node and browser snippets run as copied, and the panel turns green', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  await ok('POST', '/api/admin/projects/default/features/checkout/environments/development/on');

  // The browser SDK's snippet is run as a module script of this page: the console's policy allows
  // only its own files, so this page is opened with that policy set aside (the test's script only).
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  const { problems, elsewhere } = watchPage(page, srv.url);
  const logged: string[] = [];
  page.on('console', (m) => logged.push(m.text()));
  await signIn(page, srv.url, ADMIN);
  await page.goto(`${srv.url}/#/projects/default/flags/checkout`);
  const panel = page.getByRole('region', { name: 'Connect an SDK' });
  await panel.getByRole('button', { name: 'Connect an SDK' }).click();
  const sdk = panel.getByLabel('SDK', { exact: true });
  await sdk.waitFor();
  t.same(await sdk.locator('option').allInnerTexts(),
    ['Node.js', 'Java', 'Go', 'Python', '.NET', 'Ruby', 'PHP', 'Browser (JavaScript)', 'React', 'iOS (Swift)', 'Android (Kotlin)', 'OpenFeature (server)', 'OpenFeature (web)'], 'the SDKs offered');
  t.equal(await sdk.inputValue(), 'node', 'Node.js first');
  t.match(await panel.getByLabel('Node.js snippet').innerText(), /<client token for development>/, 'no token yet: a placeholder naming the kind');

  // Node: a client token made from the panel, the code run as shown.
  await panel.getByRole('button', { name: 'Create a client token for development' }).click();
  await panel.getByRole('button', { name: 'Create a client token for development' }).waitFor({ state: 'detached' });
  const node = await panel.getByLabel('Node.js snippet').locator('code').innerText();
  t.match(node, /Authorization: 'default:development\.[0-9a-f]+'/, 'the new client token, for this project and environment');
  t.match(node, new RegExp(`url: '${srv.url}/api/'`), 'this server\'s client API');
  t.match(node, /isEnabled\('checkout'/, 'the flag\'s real name');
  const tokens = (await ok('GET', '/api/admin/api-tokens')).tokens as { type: string; environment: string; projects: string[] }[];
  t.ok(tokens.some((x) => x.type === 'client' && x.environment === 'development' && x.projects.join() === 'default'), 'the token exists on the server');
  await panel.getByText('Waiting for an application to connect in development…').waitFor();

  // Run as copied, beside this repository's node_modules (where unleash-client is).
  const file = path.join(ROOT, `.connect-sdk-${process.pid}.mjs`);
  fs.writeFileSync(file, node);
  t.teardown(() => fs.rmSync(file, { force: true }));
  const started = Date.now();
  let out = '';
  const child = execFile(process.execPath, [file], { timeout: 30_000 });
  t.teardown(() => child.kill());
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const green = panel.getByRole('status').filter({ hasText: /^Connected: my-app, unleash-node-sdk:\d/ });
  await green.waitFor({ timeout: 15_000 });
  t.pass(`green ${Date.now() - started} ms after the snippet started: ${await green.innerText()}`);
  t.match(await green.getAttribute('class'), /\bconnected\b/, 'drawn green');
  await new Promise<void>((resolve) => {
    const check = () => (out.includes('checkout is') ? resolve() : setTimeout(check, 50));
    check();
  });
  t.match(out, /checkout is on/, `the snippet prints the flag: ${out.trim()}`);
  child.kill();

  // The browser: a frontend token from the panel, the code run in this very page.
  await sdk.selectOption('browser');
  await panel.getByText('Waiting for an application to connect in development…').waitFor();
  await panel.getByRole('button', { name: 'Create a frontend token for development' }).click();
  await panel.getByRole('button', { name: 'Create a frontend token for development' }).waitFor({ state: 'detached' });
  const web = await panel.getByLabel('Browser (JavaScript) snippet').locator('code').innerText();
  t.match(web, new RegExp(`url: '${srv.url}/api/frontend'`), 'this server\'s Frontend API');
  t.match(web, /clientKey: 'default:development\.[0-9a-f]+'/, 'the new frontend token');
  const esm = fs.readFileSync(path.join(ROOT, 'node_modules/unleash-proxy-client/build/main.esm.js'));
  const runnable = web.replace("from 'unleash-proxy-client'", `from 'data:text/javascript;base64,${esm.toString('base64')}'`);
  t.not(runnable, web, 'the one import, pointed at the package\'s module build');
  await page.addScriptTag({ type: 'module', content: runnable });
  const webGreen = panel.getByRole('status').filter({ hasText: /^Connected: my-web-app/ });
  await webGreen.waitFor({ timeout: 15_000 });
  t.pass(`green again: ${await webGreen.innerText()}`);
  await panel.screenshot({ path: artifactPath('console-connect-sdk.png') });
  t.ok(logged.some((l) => l === 'checkout is on'), `the browser snippet logged the flag: ${JSON.stringify(logged.filter((l) => l.startsWith('checkout')))}`);
  t.same(problems, []);
  t.same(elsewhere, []);
});

t.test('a Viewer: the code with a placeholder for the token, the button disabled with the reason', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  await ok('POST', '/api/admin/user-admin', { username: 'vera', password: STRONG, rootRole: 'Viewer' });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signInWithPassword(page, srv.url, 'vera', STRONG);
  await page.goto(`${srv.url}/#/projects/default/flags/checkout`);
  const panel = page.getByRole('region', { name: 'Connect an SDK' });
  await panel.getByRole('button', { name: 'Connect an SDK' }).click();
  await panel.getByLabel('SDK', { exact: true }).selectOption('react');
  t.match(await panel.getByLabel('React snippet').innerText(), /clientKey: '<frontend token for development>'[\s\S]*useFlag\('checkout'\)/, 'a placeholder saying which kind, and the flag');
  const create = panel.getByRole('button', { name: 'Create a frontend token for development' });
  t.ok(await create.isDisabled(), 'she may not create one');
  t.match(await create.getAttribute('title'), /Admin/, `with the reason: ${await create.getAttribute('title')}`);
  await panel.getByLabel('SDK', { exact: true }).selectOption('openfeature-web');
  t.match(await panel.getByRole('status').innerText(), /never announces itself, so this panel cannot see it connect/, 'OpenFeature: no wait that could never end');
});
