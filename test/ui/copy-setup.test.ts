// Copying to another environment of the same flag, in Debian's Chromium against a real server,
// each step read back through the admin API: one strategy copied to production (asked, in words,
// then undone); development's whole set-up (its strategies in order, its variants) copied to
// production, then undone; the same set-up copied to an environment with change requests on goes
// into the person's draft there (test/concepts/change-requests/enforcement.test.ts: the copy
// route itself is refused there as a direct change).
import t from 'tap';
import { openBrowser } from '../helpers/browser.js';
import { answer as answerAs, openFlagPage, undo as undoAs, until } from '../helpers/asked.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.copy-setup-admin-secret';
const FLAG = '/api/admin/projects/default/features/checkout';
const env = (name: string) => `${FLAG}/environments/${name}`;

interface Stored { id: string; name: string; title: string | null; parameters: Record<string, string>; constraints: { contextName: string; values: string[] }[] }

t.test('a strategy, and a whole set-up, copied to another environment', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await ok('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
  await ok('PUT', '/api/admin/projects/default/environments/staging/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  await ok('POST', `${env('development')}/strategies`, { name: 'default', title: 'staff', constraints: [{ contextName: 'userId', operator: 'IN', values: ['ann', 'bob'] }] });
  await ok('POST', `${env('development')}/strategies`, { name: 'flexibleRollout', title: 'half', parameters: { rollout: '50', stickiness: 'default', groupId: 'checkout' } });
  await ok('PUT', `${env('development')}/variants`, [{ name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' }, { name: 'red', weight: 500, weightType: 'variable', stickiness: 'default' }]);
  const stored = async (name: string) => ((await ok('GET', `${env(name)}/strategies`)) as Stored[]).map((s) => [s.title, s.name, s.parameters.rollout ?? null, s.constraints.map((c) => `${c.contextName}:${c.values.join('|')}`).join()]);
  const variants = async (name: string) => ((await ok('GET', `${env(name)}/variants`)).variants as { name: string }[]).map((v) => v.name);

  const { page, panel: development, problems, elsewhere } = await openFlagPage(browser, srv.url, ADMIN, 'checkout', 'development', '50% of users');
  const answer = (title: string, button: string) => answerAs(page, title, button);
  const undo = (text: string) => undoAs(page, text);

  t.test('one strategy copied to production asks in words; Undo takes it away', async (t) => {
    await development.locator('ol.strategies > li', { hasText: 'half' }).getByRole('button', { name: 'Copy to…' }).click();
    const form = development.getByRole('form', { name: 'Copy strategy' });
    await form.getByLabel('To environment').selectOption('production');
    await form.getByRole('button', { name: 'Copy', exact: true }).click();
    t.match(await answer('Add a strategy to checkout in production?', 'Add in production'), /^Added in production: 50% of users.*, for everyone\./, 'asked in words');
    await until(async () => (await stored('production')).length === 1);
    t.same(await stored('production'), [['half', 'flexibleRollout', '50', '']], 'the copy is in production, as it was in development');
    await undo('checkout in production: Added');
    await until(async () => (await stored('production')).length === 0);
    t.pass('undone: production has no strategy again');
  });

  t.test("development's set-up copied to production: strategies in order and variants; Undo takes it all back", async (t) => {
    await development.getByRole('button', { name: "Copy development's set-up to…" }).click();
    const form = development.getByRole('form', { name: "Copy development's set-up" });
    await form.getByLabel('To environment').selectOption('production');
    await form.getByRole('button', { name: 'Copy', exact: true }).click();
    const words = await answer("Copy development's set-up to checkout in production?", 'Copy to production');
    t.match(words, /^Added in production: 1\. "staff": .*where userId is one of ann, bob; 2\. "half": 50% of users.*; variants: no variants → blue 50 %, red 50 %\./, `asked in words: ${words}`);
    await until(async () => (await stored('production')).length === 2);
    t.same(await stored('production'), await stored('development'), 'the same strategies, in the same order');
    t.same(await variants('production'), ['blue', 'red'], 'and the variants');
    await page.getByRole('region', { name: 'production' }).getByText('blue 50%').waitFor();
    await undo("checkout in production: Added");
    await until(async () => (await stored('production')).length === 0 && (await variants('production')).length === 0);
    t.pass('undone: no strategy, no variant in production');
  });

  t.test('copied after the strategy production already has, while it is on; Undo leaves that one, and production on', async (t) => {
    await ok('POST', `${env('production')}/on`);
    t.same(await stored('production'), [[null, 'flexibleRollout', '100', '']], 'on, with the 100 % strategy the server adds');
    await page.reload();
    await development.getByRole('button', { name: "Copy development's set-up to…" }).click();
    const form = development.getByRole('form', { name: "Copy development's set-up" });
    await form.getByLabel('To environment').selectOption('production');
    await form.getByRole('button', { name: 'Copy', exact: true }).click();
    t.match(await answer("Copy development's set-up to checkout in production?", 'Copy to production'), /after its 1 strategy: 1\. "staff"/, 'the question counts what is there');
    await until(async () => (await stored('production')).length === 3);
    await undo('checkout in production: Added');
    await until(async () => (await stored('production')).length === 1 && (await variants('production')).length === 0);
    t.same(await stored('production'), [[null, 'flexibleRollout', '100', '']], 'undone: its own strategy only');
    t.equal((await ok('GET', FLAG)).environments.find((e: { name: string }) => e.name === 'production').enabled, true, 'and still on');
    await ok('POST', `${env('production')}/off`);
  });

  t.test('to an environment with change requests on, the copy goes into the draft', async (t) => {
    await development.getByRole('button', { name: "Copy development's set-up to…" }).click();
    const form = development.getByRole('form', { name: "Copy development's set-up" });
    await form.getByLabel('To environment').selectOption('staging');
    await form.getByRole('button', { name: 'Add to change request' }).click();
    await page.getByRole('status').getByText(/Added to your change request #\d+ for staging/).waitFor();
    const drafts = (await ok('GET', '/api/admin/projects/default/change-requests')) as { environment: string; state: string; features: { name: string; changes: { action: string }[] }[] }[];
    const draft = drafts.find((d) => d.environment === 'staging');
    t.equal(draft?.state, 'Draft');
    t.same(draft?.features[0].changes.map((c) => c.action), ['addStrategy', 'addStrategy', 'patchVariant'], 'both strategies and the variants, in order');
    t.same(await stored('staging'), [], 'staging itself is unchanged until the request is applied');
  });

  t.test('no script error, nothing from another site', async (t) => {
    t.same(problems, []);
    t.same(elsewhere, []);
  });
});
