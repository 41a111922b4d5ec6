// Every change to a production environment asks once, in words, and can be undone, in Debian's
// Chromium against a real server, each step checked through the admin API: a rollout moved
// 30 → 100 % (cancelled, then confirmed, then undone back to 30 %); a strategy disabled, deleted,
// reordered and added; variants changed. Development, not of type production, does not ask.
import t from 'tap';
import { openBrowser, signIn, watchPage } from '../helpers/browser.js';
import { answer as answerAs, undo as undoAs, until } from '../helpers/asked.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.production-changes-admin-secret';
const FLAG = '/api/admin/projects/default/features/checkout';
const PROD = `${FLAG}/environments/production/strategies`;

interface Stored { id: string; title: string | null; disabled: boolean; parameters: Record<string, string> }

t.test('changes in production ask once, in words, and can be undone', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  await ok('POST', PROD, { name: 'flexibleRollout', title: null, parameters: { rollout: '30', stickiness: 'default', groupId: 'checkout' } });
  await ok('POST', `${FLAG}/environments/production/on`);
  const stored = async () => (await ok('GET', PROD)) as Stored[];
  const enabled = async () => (await ok('GET', FLAG)).environments.find((e: { name: string }) => e.name === 'production').enabled as boolean;
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);
  await page.goto(`${srv.url}/#/projects/default/flags/checkout`);
  const production = page.getByRole('region', { name: 'production' });
  await production.getByText('30% of users').waitFor();
  const answer = (title: string, button: string) => answerAs(page, title, button);
  const undo = (text: string) => undoAs(page, text);
  const moveTo = async (share: number) => {
    const form = production.getByRole('form', { name: 'Strategy' });
    const slider = form.getByRole('slider', { name: 'Rollout' });
    await slider.focus();
    const from = Number(await slider.inputValue());
    for (let i = from; i < share; i++) await page.keyboard.press('ArrowRight');
    await form.locator(`[aria-valuetext="${share}%"]`).waitFor();
    await form.getByRole('button', { name: 'Save strategy' }).click();
  };

  t.test('a rollout moved 30 → 100 % asks, in words; cancelled it changes nothing; Undo restores 30 %', async (t) => {
    await production.getByRole('button', { name: 'Edit', exact: true }).click();
    await moveTo(100);
    t.equal(await answer('Change a strategy of checkout in production?', 'Cancel'),
      '30 % → 100 % of users in production, for everyone. Users in production see it within seconds.', 'the question says the change in words');
    t.equal((await stored())[0].parameters.rollout, '30', 'cancelled: still 30 % on the server');
    await production.getByRole('form', { name: 'Strategy' }).getByRole('button', { name: 'Save strategy' }).click();
    await answer('Change a strategy of checkout in production?', 'Save in production');
    await production.getByText('100% of users').waitFor();
    t.equal((await stored())[0].parameters.rollout, '100', 'confirmed: 100 % on the server');
    await undo('checkout in production: 30 % → 100 % of users in production, for everyone.');
    await production.getByText('30% of users').waitFor();
    t.equal((await stored())[0].parameters.rollout, '30', 'undone: 30 % again, without a second question');
  });

  t.test('disabling the only strategy says production goes off; Undo enables it and switches production on again', async (t) => {
    await production.getByRole('button', { name: 'Disable', exact: true }).click();
    t.match(await answer('Disable a strategy of checkout in production?', 'Disable in production'), /checkout then has no strategy left in production, so production is switched off for it: off for everyone there\.$/);
    await production.getByRole('button', { name: 'Enable', exact: true }).waitFor();
    t.equal((await stored())[0].disabled, true, 'disabled on the server');
    t.equal(await enabled(), false, 'and production switched off, as the question said');
    await undo('checkout in production: Disabled');
    await production.getByRole('button', { name: 'Disable', exact: true }).waitFor();
    await production.getByRole('switch', { name: 'Turn off checkout in production' }).waitFor();
    t.equal((await stored())[0].disabled, false, 'undone');
    t.equal(await enabled(), true, 'production on again');
  });

  t.test('a strategy added, reordered, deleted: each asks; Undo puts each back', async (t) => {
    await production.getByRole('button', { name: 'Add strategy in production' }).click();
    const form = production.getByRole('form', { name: 'Strategy' });
    await form.getByLabel('Title').fill('Staff');
    await form.getByRole('button', { name: 'Add strategy' }).click();
    t.match(await answer('Add a strategy to checkout in production?', 'Add in production'), /^Added in production: 100% of users/);
    await production.getByText('Staff', { exact: true }).waitFor();
    t.same((await stored()).map((s) => s.title), [null, 'Staff']);

    await production.getByRole('button', { name: 'Move up' }).nth(1).click();
    t.match(await answer('Reorder the strategies of checkout in production?', 'Move in production'), /^"Staff" moves from place 2 to 1 of 2/);
    await until(async () => (await stored())[0].title === 'Staff');
    t.same((await stored()).map((s) => s.title), ['Staff', null], 'reordered on the server');
    await undo('"Staff" moves');
    await until(async () => (await stored())[0].title === null);
    t.same((await stored()).map((s) => s.title), [null, 'Staff'], 'undone: the order as it was');

    const before = await stored();
    await production.getByRole('button', { name: 'Delete', exact: true }).first().click();
    t.match(await answer('Delete a strategy of checkout in production?', 'Delete in production'), /^Deleted: "30% of users, by userId \(else sessionId, else at random\), for everyone"\. Users in production see it within seconds\.$/);
    await production.getByText('30% of users').waitFor({ state: 'detached' });
    t.same((await stored()).map((s) => s.title), ['Staff'], 'deleted on the server');
    await undo('checkout in production: Deleted');
    await production.getByText('30% of users').waitFor();
    const after = await stored();
    t.same(after.map((s) => [s.title, s.parameters.rollout]), before.map((s) => [s.title, s.parameters.rollout]), 'undone: back, in its place');

    await production.getByRole('button', { name: 'Add strategy in production' }).click();
    t.pass('the last Undo left the page usable');
    await production.getByRole('form', { name: 'Strategy' }).getByRole('button', { name: 'Add strategy' }).click();
    await answer('Add a strategy to checkout in production?', 'Cancel');
    t.equal((await stored()).length, 2, 'a cancelled add adds nothing');
  });

  t.test('variants changed in production ask, in shares; Undo restores them', async (t) => {
    await page.reload();
    await production.getByRole('button', { name: 'Edit variants in production' }).click();
    const form = production.getByRole('form', { name: 'Variants in production' });
    await form.getByRole('button', { name: 'Add variant' }).click();
    await form.getByRole('button', { name: 'Add variant' }).click();
    await form.getByRole('button', { name: 'Save variants' }).click();
    t.equal(await answer('Change the variants of checkout in production?', 'Save in production'),
      'Variants: no variants → variant-1 50 %, variant-2 50 %. Users in production see it within seconds.');
    await production.getByText('variant-2 50%').waitFor();
    t.equal((await ok('GET', `${FLAG}/environments/production/variants`)).variants.length, 2);
    await undo('Variants: no variants');
    await production.getByText('variant-2 50%').waitFor({ state: 'detached' });
    t.equal((await ok('GET', `${FLAG}/environments/production/variants`)).variants.length, 0, 'undone: no variants');
  });

  t.test('development is not production: a change there does not ask', async (t) => {
    const development = page.getByRole('region', { name: 'development' });
    await development.getByRole('button', { name: 'Add strategy in development' }).click();
    await development.getByRole('form', { name: 'Strategy' }).getByRole('button', { name: 'Add strategy' }).click();
    await development.getByText('100% of users').waitFor();
    t.equal(await page.getByRole('dialog').count(), 0, 'no question');
    t.equal(((await ok('GET', `${FLAG}/environments/development/strategies`)) as Stored[]).length, 1, 'added');
  });

  t.test('no script error, nothing from another site', async (t) => {
    t.same(problems, []);
    t.same(elsewhere, []);
  });
});
