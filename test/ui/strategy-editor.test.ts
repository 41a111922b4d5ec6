// The strategy editor in Debian's Chromium against a real server, each save read back through the
// admin API: a number box beside the rollout slider, kept in step both ways; variant shares
// updated as weights are typed; a JSON payload checked as it is typed (the error under it, save
// disabled until it parses); a filter box on a long list of legal values; and no "None" under
// Variants when a strategy has variants of its own.
import t from 'tap';
import { openBrowser } from '../helpers/browser.js';
import { openFlagPage } from '../helpers/asked.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.strategy-editor-admin-secret';
const STRATEGIES = '/api/admin/projects/default/features/checkout/environments/development/strategies';
const COUNTRIES = ['DE', 'DK', 'ES', 'FI', 'FR', 'IS', 'IT', 'NL', 'NO', 'PL', 'PT', 'SE'];

interface Stored { parameters: Record<string, string>; constraints: { contextName: string; values: string[] }[]; variants: { name: string; weight: number; payload?: { type: string; value: string } }[] }

t.test('a person edits a strategy', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await ok('POST', '/api/admin/context', { name: 'country', legalValues: COUNTRIES.map((value) => ({ value })) });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  await ok('POST', STRATEGIES, {
    name: 'flexibleRollout', title: 'half', parameters: { rollout: '50', stickiness: 'default', groupId: 'checkout' },
    variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }],
  });
  const stored = async () => ((await ok('GET', STRATEGIES)) as Stored[])[0];

  const { page, panel: development, problems, elsewhere } = await openFlagPage(browser, srv.url, ADMIN, 'checkout', 'development', '50% of users');
  const form = development.getByRole('form', { name: 'Strategy' });
  const slider = form.getByRole('slider', { name: 'Rollout' });
  const box = form.getByRole('spinbutton', { name: 'Share in percent' });
  const save = form.getByRole('button', { name: 'Save strategy' });

  t.test("a strategy's own variants: the environment's list does not say None", async (t) => {
    await development.getByText('variants blue 100%').waitFor();
    t.equal(await development.getByText('None.', { exact: true }).count(), 0, 'no "None." under Variants');
    await development.getByText("None of the environment's own: a strategy's variants (listed with it) apply when it matches.").waitFor();
  });

  t.test('typing 37 in the number box moves the slider, the slider moves the box, and 37 is saved', async (t) => {
    await development.getByRole('button', { name: 'Edit', exact: true }).click();
    t.equal(await box.inputValue(), '50', 'the box starts at the stored rollout');
    await box.fill('37');
    await form.locator('[aria-valuetext="37%"]').waitFor();
    t.equal(await slider.inputValue(), '37', 'the slider followed the box');
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await form.locator('[aria-valuetext="38%"]').waitFor();
    t.equal(await box.inputValue(), '38', 'the box followed the slider');
    await box.fill('150');
    t.equal(await slider.inputValue(), '38', 'a number past 100 does not move the slider');
    await box.fill('37');
    await form.locator('[aria-valuetext="37%"]').waitFor();
    await save.click();
    await form.waitFor({ state: 'detached' });
    t.equal((await stored()).parameters.rollout, '37', 'saved: 37 on the server');
  });

  t.test("variant shares change as weights are typed; a JSON payload that does not parse shows why and blocks the save", async (t) => {
    await development.getByRole('button', { name: 'Edit', exact: true }).click();
    await form.getByRole('button', { name: 'Add variant' }).click();
    const share = (name: string) => form.getByRole('status', { name: `Share of ${name}` });
    t.equal(await share('blue').innerText(), '50 %');
    const second = form.getByRole('group', { name: 'Variant 2' });
    await second.getByLabel('Variant name').fill('red');
    await second.getByLabel('Weight', { exact: true }).selectOption('fix');
    await second.getByLabel('Fixed weight (of 1000)').fill('200');
    await share('red').filter({ hasText: '20 %' }).waitFor();
    t.equal(await share('blue').innerText(), '80 %', 'blue takes what the fixed weight leaves');

    await second.getByLabel('Payload type').selectOption('json');
    const payload = second.getByLabel('Payload', { exact: true });
    await payload.fill('{"colour": "red",');
    const error = second.getByRole('alert');
    await error.waitFor();
    t.match(await error.innerText(), /^the payload is not JSON \(/, 'the error, under the payload');
    t.match(await save.getAttribute('title'), /^Variant red: the payload is not JSON/, 'the save button says why');
    t.equal(await payload.getAttribute('aria-invalid'), 'true');
    t.ok(await save.isDisabled(), 'save is disabled while the payload is not JSON');
    await payload.fill('{"colour": "red"}');
    await error.waitFor({ state: 'detached' });
    t.notOk(await save.isDisabled(), 'and enabled once it parses');
    await save.click();
    await form.waitFor({ state: 'detached' });
    const variants = (await stored()).variants;
    t.same(variants.map((v) => [v.name, v.weight]).sort(), [['blue', 800], ['red', 200]], 'the weights as the shares said');
    t.same(variants.find((v) => v.name === 'red')?.payload, { type: 'json', value: '{"colour": "red"}' }, 'the payload as typed');
  });

  t.test('a long list of legal values gets a filter that narrows it', async (t) => {
    await development.getByRole('button', { name: 'Edit', exact: true }).click();
    await form.getByRole('button', { name: 'Add constraint' }).click();
    const constraint = form.getByRole('group', { name: 'Constraint 1' });
    await constraint.getByLabel('Context field').selectOption('country');
    const values = constraint.getByRole('group', { name: 'Values' });
    t.equal(await values.getByRole('checkbox').count(), COUNTRIES.length, 'every legal value, before filtering');
    await constraint.getByRole('searchbox', { name: 'Filter values' }).fill('n');
    await values.getByText(`2 of ${COUNTRIES.length} shown`).waitFor();
    t.same((await values.locator('label').allInnerTexts()).map((x) => x.trim()), ['NL', 'NO'], 'only the values holding "n"');
    await values.getByLabel('NO').check();
    await constraint.getByRole('searchbox', { name: 'Filter values' }).fill('');
    t.equal(await values.getByRole('checkbox').count(), COUNTRIES.length, 'cleared: all of them again');
    await save.click();
    await form.waitFor({ state: 'detached' });
    t.same((await stored()).constraints.map((c) => [c.contextName, c.values]), [['country', ['NO']]], 'the value chosen through the filter is saved');
  });

  t.test('no script error, nothing from another site', async (t) => {
    t.same(problems, []);
    t.same(elsewhere, []);
  });
});
