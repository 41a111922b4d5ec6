// The coloured diff in Debian's Chromium against a real server: a person moves a rollout 25 → 50 and
// ticks one more country in a constraint, then reads it back in the flag's history and on the
// events page, each line in words, marked changed or added by its colour and its sign (which
// screen readers read as the kind), in light and in dark mode.
import t, { type Test } from 'tap';
import type { Locator, Page } from 'playwright-core';
import { artifactPath, openBrowser, signIn, watchPage } from '../helpers/browser.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.history-diff-admin';
const FLAG = '/api/admin/projects/default/features/checkout';

/** The sign, the words screen readers get, the class and the colour of the border and the sign of a line. */
async function marked(line: Locator) {
  return line.evaluate((li) => {
    const style = (el: typeof li) => el.ownerDocument.defaultView!.getComputedStyle(el);
    const sign = li.querySelector('.sign')!;
    return {
      sign: sign.textContent, read: li.querySelector('.sr-only')?.textContent, kind: li.className,
      border: style(li).borderLeftColor, signColour: style(sign).color, width: style(li).borderLeftWidth,
    };
  });
}

async function checkLines(t: Test, page: Page, where: Locator, what: string) {
  const rollout = where.locator('ul.diff > li').filter({ hasText: 'rollout 25 → 50' }).first();
  await rollout.getByText('rollout 25 → 50', { exact: true }).waitFor();
  const amber = 'rgb(138, 90, 0)';
  const green = 'rgb(26, 127, 55)';
  t.same(await marked(rollout), { sign: '→', read: 'changed: ', kind: 'changed', border: amber, signColour: amber, width: '3px' }, `${what}: "rollout 25 → 50", marked changed, in amber`);
  const dk = where.locator('ul.diff > li').filter({ hasText: 'constraint country: + DK' }).first();
  t.same(await marked(dk), { sign: '+', read: 'added: ', kind: 'added', border: green, signColour: green, width: '3px' }, `${what}: "constraint country: + DK", marked added, in green`);
  await page.emulateMedia({ colorScheme: 'dark' });
  t.match(await marked(rollout), { border: 'rgb(227, 179, 65)', signColour: 'rgb(227, 179, 65)' }, `${what}: amber for dark mode too`);
  await page.emulateMedia({ colorScheme: 'light' });
}

t.test('a rollout moved and a country added read back as a coloured diff in the history and on the events page', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await ok('POST', '/api/admin/context', { name: 'country', legalValues: [{ value: 'NO' }, { value: 'SE' }, { value: 'DK' }] });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  await ok('POST', `${FLAG}/environments/development/strategies`, {
    name: 'flexibleRollout', parameters: { rollout: '25', stickiness: 'default', groupId: 'checkout' },
    constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }],
  });

  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);
  await page.goto(`${srv.url}/#/projects/default/flags/checkout`);
  const development = page.getByRole('region', { name: 'development' });
  await development.getByRole('button', { name: 'Edit', exact: true }).click();
  const form = development.getByRole('form', { name: 'Strategy' });
  await form.getByRole('slider', { name: 'Rollout' }).focus();
  for (let i = 0; i < 25; i++) await page.keyboard.press('ArrowRight');
  await form.locator('[aria-valuetext="50%"]').waitFor();
  await form.getByRole('group', { name: 'Constraint 1' }).getByRole('group', { name: 'Values' }).getByLabel('DK').check();
  await form.getByRole('button', { name: 'Save strategy' }).click();
  await form.waitFor({ state: 'detached' });
  const stored = (await ok('GET', FLAG)).environments.find((e: { name: string }) => e.name === 'development').strategies[0];
  t.same([stored.parameters.rollout, stored.constraints[0].values], ['50', ['NO', 'SE', 'DK']], 'stored: 50, and DK among the countries');

  const history = page.getByRole('region', { name: 'History' });
  await checkLines(t, page, history.locator('ol.history > li').filter({ hasText: 'feature-strategy-update' }).first(), 'the history');
  const raw = history.locator('ol.history > li').filter({ hasText: 'feature-strategy-update' }).first();
  await raw.getByText('Raw JSON').click();
  t.match(await raw.locator('pre').innerText(), /"rollout": "50"[\s\S]*"rollout": "25"/, 'the raw JSON one click away');
  await page.screenshot({ path: artifactPath('console-history-diff.png'), fullPage: true });

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
  const row = page.getByRole('row', { name: /feature-strategy-update/ }).first();
  await row.waitFor();
  await checkLines(t, page, row, 'the events page');
  t.same(problems, [], 'no script error');
  t.same(elsewhere, []);
});
