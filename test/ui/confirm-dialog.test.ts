// The console's own confirmation dialog and its errors, in Debian's Chromium against a real
// server: deleting asks in a styled modal dialog (never the browser's confirm()) that names what
// will be deleted, keeps Tab inside, cancels with Escape and confirms with Enter; an error of the
// API shows in words, under the field it is about, without the error's name (ValidationError,
// NameExistsError, PasswordMismatch).
import t from 'tap';
import { openBrowser, signIn, watchPage } from '../helpers/browser.js';
import { STRONG } from '../helpers/people.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.confirm-admin-secret';
const ERROR_NAMES = /ValidationError|NameExistsError|PasswordMismatch|NoAccessError|Request validation failed/;

t.test('the confirmation dialog and errors in words', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG }, authorization: ADMIN });
  await ok('POST', '/api/admin/segments', { name: 'beta-testers', constraints: [] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(5_000);
  const { problems, elsewhere } = watchPage(page, srv.url);
  // The browser's own dialogs: there must be none (and one left open would block the page: dismiss it).
  const native: string[] = [];
  page.on('dialog', (d) => (native.push(d.message()), void d.dismiss()));
  const segments = async () => (await ok('GET', '/api/admin/segments')).segments.map((s: { name: string }) => s.name);
  const focused = () => page.evaluate('document.activeElement ? (document.activeElement.closest("dialog") ? "dialog: " : "page: ") + document.activeElement.textContent : "none"');

  await signIn(page, srv.url, ADMIN);
  await page.goto(`${srv.url}/#/segments`);

  t.test('deleting asks in the console\'s dialog: named, Tab stays in, Escape cancels, Enter confirms', async (t) => {
    const remove = page.getByRole('button', { name: 'Delete beta-testers' });
    await remove.click();
    const dialog = page.getByRole('dialog', { name: 'Delete segment beta-testers?' });
    await dialog.waitFor().catch(() => undefined);
    t.same(native, [], 'no browser confirm()');
    t.ok(await dialog.isVisible(), 'a dialog that names what is deleted');
    t.ok(await dialog.getByRole('button', { name: 'Yes, delete' }).isVisible(), 'its answer says what it does, not in the words of the button that asked');
    t.equal(await focused(), 'dialog: Yes, delete', 'the answer has the focus');
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      seen.add(String(await focused()));
    }
    t.same([...seen].sort(), ['dialog: Cancel', 'dialog: Yes, delete'], 'Tab goes round inside the dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    t.same(await segments(), ['beta-testers'], 'Escape: nothing deleted');
    t.equal(await focused(), 'page: Delete beta-testers', 'the focus back on the button that asked');

    await remove.click();
    await dialog.waitFor();
    await page.keyboard.press('Enter');
    await page.getByText('No segments yet.').waitFor();
    t.same(await segments(), [], 'Enter: deleted');
    t.same(native, [], 'still no browser confirm()');
  });

  t.test('an API error shows under the field it is about, in words', async (t) => {
    const form = page.getByRole('form', { name: 'Create segment' });
    // Spaces only pass the browser's "required" and reach the API, which refuses them.
    await form.getByLabel('Segment name').fill('   ');
    await form.getByRole('button', { name: 'Create segment' }).click();
    const name = form.getByLabel('Segment name');
    await page.locator('[aria-invalid="true"]').waitFor().catch(() => undefined);
    t.equal(await name.getAttribute('aria-invalid'), 'true', 'the name field is marked');
    const said = await name.evaluate((el) => (el.getAttribute('aria-describedby') ?? '').split(' ').map((id: string) => el.ownerDocument.getElementById(id)?.textContent ?? '').join(' '));
    t.match(said, /^Segment name must be 1 to 100 characters/, `and says why: "${said}"`);
    const text = await form.innerText();
    t.notMatch(text, ERROR_NAMES, 'no error name shown');
    t.equal(await form.locator('p.error').count(), 0, 'nothing repeated under the form');

    await ok('POST', '/api/admin/segments', { name: 'taken', constraints: [] });
    await name.fill('taken');
    await form.getByRole('button', { name: 'Create segment' }).click();
    await form.getByText('A segment named "taken" already exists.').waitFor().catch(() => undefined);
    const taken = await name.evaluate((el) => el.ownerDocument.getElementById((el.getAttribute('aria-describedby') ?? '').split(' ').pop() ?? '')?.textContent ?? '');
    t.equal(taken, 'A segment named "taken" already exists.', 'a name already taken: under the name');
    t.notMatch(await form.innerText(), ERROR_NAMES, 'no error name shown');
  });

  t.test('a refused sign-in says so in words', async (t) => {
    const other = await browser.newPage();
    await other.goto(srv.url);
    await other.getByLabel('Email or username').fill('admin');
    await other.getByLabel('Password', { exact: true }).fill('not the password');
    await other.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = other.getByRole('alert');
    await alert.waitFor();
    const said = await alert.innerText();
    t.match(said, /^The combination of password and username you provided is invalid/, said);
    t.notMatch(said, ERROR_NAMES, 'no error name shown');
    await other.close();
  });

  t.test('no script errors, nothing fetched elsewhere', async (t) => {
    t.same(problems, []);
    t.same(elsewhere, []);
  });
});
