// The console's other pages in Debian's Chromium against a real server: strategy types, context
// fields, tags and tag types, environments and projects are listed, created, edited and deleted
// through the admin API, each change checked there; the API's refusals appear next to the button.
import t from 'tap';
import { acceptNextDialog, artifactPath, openBrowser, signIn, watchPage } from '../helpers/browser.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.definitions-admin-secret';

t.test('a person manages strategy types, context fields, tags, environments and projects', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok, api: call } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);
  const nav = page.getByRole('navigation', { name: 'Main' });

  t.test('strategy types: create with parameters, edit, deprecate, reactivate; deleting one in use is refused', async (t) => {
    await nav.getByRole('link', { name: 'Strategy types' }).click();
    t.equal(await page.getByRole('button', { name: 'Edit default' }).count(), 0, 'a built-in type offers no edit');
    const create = page.getByRole('form', { name: 'Create strategy type' });
    await create.getByLabel('Strategy type name').fill('region-rollout');
    await create.getByLabel('Description', { exact: true }).fill('On in some regions');
    await create.getByRole('button', { name: 'Add parameter' }).click();
    await create.getByRole('button', { name: 'Add parameter' }).click();
    const first = create.getByRole('group', { name: 'Parameter 1' });
    await first.getByLabel('Parameter name').fill('regions');
    await first.getByLabel('Parameter type').selectOption('list');
    await first.getByLabel('Parameter description').fill('Where it is on');
    await first.getByLabel('Required').check();
    const second = create.getByRole('group', { name: 'Parameter 2' });
    await second.getByLabel('Parameter name').fill('share');
    await second.getByLabel('Parameter type').selectOption('percentage');
    await create.getByRole('button', { name: 'Create strategy type' }).click();
    await page.getByRole('row', { name: /region-rollout/ }).waitFor();
    t.equal(await create.getByLabel('Strategy type name').inputValue(), '', 'the create form is empty again');
    let stored = await ok('GET', '/api/admin/strategies/region-rollout');
    t.same(stored.parameters.map((p: { name: string; type: string; required: boolean }) => [p.name, p.type, p.required]), [['regions', 'list', true], ['share', 'percentage', false]], 'created with both parameters');

    await page.getByRole('button', { name: 'Edit region-rollout' }).click();
    const edit = page.getByRole('form', { name: 'Save strategy type' });
    t.equal(await edit.getByRole('group', { name: 'Parameter 1' }).getByLabel('Parameter type').inputValue(), 'list', 'the edit form starts from what is stored');
    await edit.getByLabel('Description', { exact: true }).fill('On in the listed regions');
    await edit.getByRole('button', { name: 'Remove parameter 2' }).click();
    await edit.getByRole('button', { name: 'Save strategy type' }).click();
    await edit.waitFor({ state: 'detached' });
    stored = await ok('GET', '/api/admin/strategies/region-rollout');
    t.equal(stored.description, 'On in the listed regions');
    t.same(stored.parameters.map((p: { name: string }) => p.name), ['regions'], 'the removed parameter is gone');

    await page.getByRole('button', { name: 'Deprecate region-rollout' }).click();
    await page.getByRole('button', { name: 'Reactivate region-rollout' }).waitFor();
    t.equal((await ok('GET', '/api/admin/strategies/region-rollout')).deprecated, true, 'deprecated');
    await page.getByRole('button', { name: 'Reactivate region-rollout' }).click();
    await page.getByRole('button', { name: 'Deprecate region-rollout' }).waitFor();
    t.equal((await ok('GET', '/api/admin/strategies/region-rollout')).deprecated, false, 'reactivated');

    await ok('POST', '/api/admin/projects/default/features/checkout/environments/development/strategies', { name: 'region-rollout', parameters: { regions: 'eu' } });
    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Delete region-rollout' }).click();
    const refusal = page.getByRole('row', { name: /region-rollout/ }).getByRole('alert');
    await refusal.waitFor();
    t.match(await refusal.innerText(), /checkout/, `refused while a flag uses it, in the API's words: ${await refusal.innerText()}`);
    t.equal((await call('GET', '/api/admin/strategies/region-rollout')).status, 200, 'still there');
    await page.screenshot({ path: artifactPath('console-strategy-types.png'), fullPage: true });
  });

  t.test('context fields: create with legal values, edit, offered in the constraint editor, delete', async (t) => {
    await nav.getByRole('link', { name: 'Context fields' }).click();
    const create = page.getByRole('form', { name: 'Create context field' });
    await create.getByLabel('Field name').fill('tier');
    await create.getByLabel('Description').fill('Subscription tier');
    await create.getByLabel('Legal values').fill('free, pro, enterprise');
    await create.getByLabel('Usable as stickiness').check();
    await create.getByRole('button', { name: 'Create context field' }).click();
    await page.getByRole('row', { name: /tier/ }).waitFor();
    let stored = await ok('GET', '/api/admin/context/tier');
    t.same(stored.legalValues.map((v: { value: string }) => v.value), ['free', 'pro', 'enterprise']);
    t.equal(stored.stickiness, true);

    await page.getByRole('button', { name: 'Edit tier' }).click();
    const edit = page.getByRole('form', { name: 'Save context field' });
    t.equal(await edit.getByLabel('Legal values').inputValue(), 'free, pro, enterprise', 'the edit form starts from what is stored');
    await edit.getByLabel('Legal values').fill('free, pro');
    await edit.getByLabel('Usable as stickiness').uncheck();
    await edit.getByRole('button', { name: 'Save context field' }).click();
    await edit.waitFor({ state: 'detached' });
    stored = await ok('GET', '/api/admin/context/tier');
    t.same(stored.legalValues.map((v: { value: string }) => v.value), ['free', 'pro'], 'legal values edited');
    t.equal(stored.stickiness, false, 'stickiness edited');

    await page.goto(`${srv.url}/#/projects/default/flags/checkout`);
    const development = page.getByRole('region', { name: 'development' });
    await development.getByRole('button', { name: 'Add strategy in development' }).click();
    await development.getByRole('button', { name: 'Add constraint' }).click();
    const fields = await development.getByRole('group', { name: 'Constraint 1' }).getByLabel('Context field').locator('option').allInnerTexts();
    t.ok(fields.includes('tier'), `the constraint editor offers the new field (${fields.join(', ')})`);

    await nav.getByRole('link', { name: 'Context fields' }).click();
    const builtIn = page.getByRole('button', { name: 'Delete userId' });
    await builtIn.waitFor();
    t.ok(await builtIn.isDisabled(), 'a built-in field cannot be deleted: not offered');
    t.equal(await builtIn.getAttribute('title'), 'userId is built in: every SDK fills it in, so nobody may change or delete it.', 'saying why');
    t.equal((await call('DELETE', '/api/admin/context/userId')).status, 403, 'as the API refuses it, even to an Admin');
    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Delete tier' }).click();
    await page.getByRole('button', { name: 'Delete tier' }).waitFor({ state: 'detached' });
    t.equal((await call('GET', '/api/admin/context/tier')).status, 404, 'deleted');
  });

  t.test('tags: a tag type created and described, a tag given to a flag and filtered by, the type deleted', async (t) => {
    await nav.getByRole('link', { name: 'Tags' }).click();
    const createType = page.getByRole('form', { name: 'Create a tag type' });
    await createType.getByLabel('Tag type name').fill('team');
    await createType.getByLabel('Description').fill('Who owns it');
    await createType.getByRole('button', { name: 'Create tag type' }).click();
    await page.getByRole('button', { name: 'Edit type team' }).click();
    await page.getByLabel('Description of team').fill('The owning team');
    await page.getByRole('button', { name: 'Save tag type' }).click();
    await page.getByText('The owning team').waitFor();
    t.equal((await ok('GET', '/api/admin/tag-types/team')).tagType.description, 'The owning team', 'described');
    const createTag = page.getByRole('form', { name: 'Create a tag', exact: true });
    await createTag.getByLabel('Tag type').selectOption('team');
    await createTag.getByLabel('Value').fill('payments');
    await createTag.getByRole('button', { name: 'Create tag' }).click();
    await page.getByText('team:payments', { exact: true }).waitFor();
    await page.screenshot({ path: artifactPath('console-tags.png'), fullPage: true });

    await ok('POST', '/api/admin/projects/default/features', { name: 'search-box' });
    await page.goto(`${srv.url}/#/projects/default/flags/checkout`);
    const addTag = page.getByRole('form', { name: 'Add a tag' });
    await addTag.getByLabel('Tag type').selectOption('team');
    await addTag.getByLabel('Tag value').fill('payments');
    await addTag.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('button', { name: 'Remove team:payments' }).waitFor();
    t.same((await ok('GET', '/api/admin/features/checkout/tags')).tags, [{ type: 'team', value: 'payments' }], 'the flag is tagged');

    await nav.getByRole('link', { name: 'Flags' }).click();
    await page.getByRole('link', { name: 'search-box' }).waitFor();
    await page.getByRole('search').getByLabel('Tag').fill('team:payments');
    await page.getByText('1 flag', { exact: true }).waitFor();
    t.equal(await page.getByRole('link', { name: 'search-box' }).count(), 0, 'filtered by tag: only the tagged flag');

    await nav.getByRole('link', { name: 'Tags' }).click();
    await ok('POST', '/api/admin/tags', { type: 'simple', value: 'short-lived' });
    await page.getByRole('button', { name: 'Delete simple:short-lived' }).click({ timeout: 6_000 });
    await page.getByRole('button', { name: 'Delete simple:short-lived' }).waitFor({ state: 'detached' });
    t.equal((await call('GET', '/api/admin/tags/simple/short-lived')).status, 404, 'a tag deleted');
    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Delete type team' }).click();
    await page.getByRole('button', { name: 'Delete type team' }).waitFor({ state: 'detached' });
    t.same((await ok('GET', '/api/admin/features/checkout/tags')).tags, [], 'deleting the type untagged the flag');
  });

  t.test('environments: created (a column in the flags table), edited, deleted', async (t) => {
    await nav.getByRole('link', { name: 'Environments' }).click();
    const create = page.getByRole('form', { name: 'Create environment' });
    await create.getByLabel('Environment name').fill('staging');
    await create.getByLabel('Type').selectOption('test');
    await create.getByRole('button', { name: 'Create environment' }).click();
    await page.getByRole('row', { name: /staging/ }).waitFor();
    t.equal((await ok('GET', '/api/admin/environments/staging')).type, 'test');
    await page.getByRole('button', { name: 'Edit staging' }).click();
    const edit = page.getByRole('form', { name: 'Save environment' });
    await edit.getByLabel('Type').selectOption('preproduction');
    await edit.getByLabel('Sort order').fill('1');
    await edit.getByRole('button', { name: 'Save environment' }).click();
    await edit.waitFor({ state: 'detached' });
    const stored = await ok('GET', '/api/admin/environments/staging');
    t.same([stored.type, stored.sortOrder], ['preproduction', 1], 'type and order edited');
    await page.getByRole('button', { name: 'Edit staging' }).click();
    await page.getByRole('form', { name: 'Save environment' }).getByLabel('Sort order').fill('-5000000');
    await page.getByRole('form', { name: 'Save environment' }).getByRole('button', { name: 'Save environment' }).click();
    const invalid = page.getByRole('form', { name: 'Save environment' }).getByRole('alert');
    await invalid.waitFor();
    t.match(await invalid.innerText(), /sortOrder/, `an invalid order: the API's message under the form: ${await invalid.innerText()}`);
    await page.getByRole('button', { name: 'Edit staging' }).click();
    await page.screenshot({ path: artifactPath('console-environments.png'), fullPage: true });

    await nav.getByRole('link', { name: 'Flags' }).click();
    await page.getByRole('columnheader', { name: 'staging' }).waitFor();
    t.pass('the flags table has a staging column');
    await page.getByRole('switch', { name: 'Turn on checkout in staging' }).click();
    await page.getByRole('switch', { name: 'Turn off checkout in staging' }).waitFor();
    const flag = await ok('GET', '/api/admin/projects/default/features/checkout');
    t.equal(flag.environments.find((e: { name: string }) => e.name === 'staging').enabled, true, 'switched on in staging from the table');

    await nav.getByRole('link', { name: 'Environments' }).click();
    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Delete staging' }).click();
    await page.getByRole('button', { name: 'Delete staging' }).waitFor({ state: 'detached' });
    t.equal((await call('GET', '/api/admin/environments/staging')).status, 404, 'deleted');
  });

  t.test('projects: created, edited, given a flag; deleting one that holds flags is refused', async (t) => {
    await nav.getByRole('link', { name: 'Projects' }).click();
    const create = page.getByRole('form', { name: 'Create project' });
    await create.getByLabel('Project id').fill('mobile');
    await create.getByLabel('Name').fill('Mobile apps');
    await create.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('row', { name: /mobile/ }).waitFor();
    t.equal((await ok('GET', '/api/admin/projects/mobile')).name, 'Mobile apps');
    await page.getByRole('button', { name: 'Edit mobile' }).click();
    const edit = page.getByRole('form', { name: 'Save project' });
    await edit.getByLabel('Name').fill('Mobile');
    await edit.getByLabel('Description').fill('iOS and Android');
    await edit.getByRole('button', { name: 'Save project' }).click();
    await edit.waitFor({ state: 'detached' });
    const stored = await ok('GET', '/api/admin/projects/mobile');
    t.same([stored.name, stored.description], ['Mobile', 'iOS and Android'], 'edited');

    await page.getByRole('link', { name: 'mobile', exact: true }).click();
    await page.getByText('No flags in this project yet.').waitFor();
    await page.getByRole('button', { name: 'Create the first flag' }).click();
    await page.getByLabel('Name', { exact: true }).fill('dark-mode');
    await page.getByRole('button', { name: 'Create flag' }).click();
    await page.getByRole('heading', { name: 'dark-mode' }).waitFor();
    t.equal((await ok('GET', '/api/admin/projects/mobile/features/dark-mode')).project, 'mobile', 'a flag created in the project');

    await nav.getByRole('link', { name: 'Projects' }).click();
    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Delete mobile' }).click();
    const refusal = page.getByRole('row', { name: /mobile/ }).getByRole('alert');
    await refusal.waitFor();
    t.pass(`refused while it holds a flag: ${await refusal.innerText()}`);
    await page.screenshot({ path: artifactPath('console-projects.png'), fullPage: true });
    await ok('POST', '/api/admin/projects', { id: 'empty', name: 'Empty' });
    await page.getByRole('row', { name: /empty/ }).waitFor({ timeout: 6_000 });
    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Delete empty' }).click();
    await page.getByRole('button', { name: 'Delete empty' }).waitFor({ state: 'detached' });
    t.equal((await call('GET', '/api/admin/projects/empty')).status, 404, 'an empty project deleted');
  });

  t.test('segments: edited, deleting one in use is refused, an unused one deleted', async (t) => {
    const inUse = await ok('POST', '/api/admin/segments', { name: 'used-segment', constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'] }] });
    await ok('POST', '/api/admin/projects/default/features/checkout/environments/production/strategies', { name: 'default', segments: [inUse.id] });
    await ok('POST', '/api/admin/segments', { name: 'spare-segment', constraints: [] });
    await nav.getByRole('link', { name: 'Segments' }).click();
    await page.getByRole('button', { name: 'Edit used-segment' }).click();
    const edit = page.getByRole('form', { name: 'Save segment' });
    await edit.getByLabel('Description').fill('People who asked for early access');
    await edit.getByLabel('Values').press('End');
    await edit.getByLabel('Values').pressSequentially(', b, c');
    await edit.getByRole('button', { name: 'Save segment' }).click();
    await edit.waitFor({ state: 'detached' });
    const stored = await ok('GET', `/api/admin/segments/${inUse.id}`);
    t.same([stored.description, stored.constraints[0].values], ['People who asked for early access', ['a', 'b', 'c']], 'edited');
    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Delete used-segment' }).click();
    const refusal = page.getByRole('listitem').filter({ hasText: 'used-segment' }).getByRole('alert');
    await refusal.waitFor();
    t.pass(`refused while a strategy uses it: ${await refusal.innerText()}`);
    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Delete spare-segment' }).click();
    await page.getByRole('button', { name: 'Delete spare-segment' }).waitFor({ state: 'detached' });
    t.same(((await ok('GET', '/api/admin/segments')).segments as { name: string }[]).map((x) => x.name), ['used-segment'], 'the unused one deleted');
  });

  t.test('no script error, nothing from another site', async (t) => {
    t.same(problems, []);
    t.same(elsewhere, []);
  });
});
