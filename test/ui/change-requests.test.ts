// Four eyes in the console, in Debian's Chromium against a real server, with three people signed
// in at once: Ann (an Editor) switches production on a flag's page, where change requests are on,
// and the switch goes to her draft, not to SDKs; she sends it to review; Mia (a project Member)
// sees Approve disabled with the reason; Bob (another Editor) sees it waiting for him, approves
// and applies it, and only then SDKs see the flag on. Then a strategy Ann adds goes to a draft
// that Bob rejects with a reason (a strategy changed meanwhile shows as a conflict), and nothing of it reaches production. An Admin, who may skip
// change requests, switches directly, or proposes when they tick "Propose as a change request".
// On the flags list, Ann's switches and bulk bar propose too, and archiving a flag that is on in
// production proposes archiveFeature there.
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { openBrowser, signInWithPassword, watchPage } from '../helpers/browser.js';
import { signInAs, STRONG, withSession } from '../helpers/people.js';
import { serve } from '../helpers/server.js';
import { until } from '../helpers/receiver.js';

const ADMIN = '*:*.change-requests-console-admin-secret';
const CLIENT = 'default:production.change-requests-console-client-secret';
const FLAG = '/api/admin/projects/default/features/checkout';
const CR = '/api/admin/projects/default/change-requests';

t.test('a switch in production goes through a change request: proposed, approved by another, applied', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok, api } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000' },
    authorization: ADMIN,
  });
  await ok('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  await ok('PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 });
  await ok('POST', '/api/admin/user-admin', { username: 'ann', password: STRONG, rootRole: 'Editor' });
  await ok('POST', '/api/admin/user-admin', { username: 'bob', password: STRONG, rootRole: 'Editor' });
  await ok('POST', '/api/admin/user-admin', { username: 'mia', password: STRONG, rootRole: 'Viewer', projects: [{ project: 'default', role: 'Member' }] });
  /** Whether production serves checkout on, as an SDK sees it. */
  const sdkSeesOn = async () => ((await api('GET', '/api/client/features', undefined, { authorization: CLIENT })).json.features as { name: string; enabled: boolean }[])
    .find((f) => f.name === 'checkout')?.enabled;
  const prod = async () => (await ok('GET', FLAG)).environments.find((e: { name: string }) => e.name === 'production') as { enabled: boolean; strategies: unknown[] };
  const watched: { problems: string[] }[] = [];
  const as = async (b: Browser, login: string): Promise<Page> => {
    const context = await b.newContext({ viewport: { width: 1280, height: 1000 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    watched.push(watchPage(page, srv.url));
    await page.addLocatorHandler(page.locator('dialog.ask[open]'), async (d) => d.locator('[data-answer="yes"]').click());
    await signInWithPassword(page, srv.url, login, STRONG);
    return page;
  };
  const ann = await as(browser, 'ann');
  const bob = await as(browser, 'bob');
  const mia = await as(browser, 'mia');
  let id = 0;

  t.test("Ann's switch goes to her draft: SDKs see nothing", async (t) => {
    await ann.goto(`${srv.url}/#/projects/default/flags/checkout`);
    const production = ann.getByRole('region', { name: 'production' });
    await production.getByText('Changes here need 1 approval.').waitFor();
    t.equal(await ann.getByRole('region', { name: 'development' }).getByText('Changes here need').count(), 0, 'development is direct: no banner');
    await production.getByRole('switch', { name: /checkout in production/ }).click();
    const note = ann.getByRole('status').locator('.toast', { hasText: 'Added to your change request' });
    await note.waitFor();
    id = Number(/#(\d+)/.exec(await note.innerText())![1]);
    t.match(await note.innerText(), /Turn on checkout in production/, 'the note says what was added');
    t.equal((await prod()).enabled, false, 'the flag is still off in production');
    t.equal(await sdkSeesOn(), false, 'and SDKs see it off');
    // A draft is its author's alone: asked as Ann.
    const asAnn = withSession(srv.url, await signInAs(srv.url, 'ann', STRONG));
    t.equal((await asAnn('GET', `${CR}/${id}`)).json.state, 'Draft', 'a draft on the server');
    // The banner links to the draft.
    await production.getByRole('link', { name: `Your draft #${id} (Draft, 1 change)` }).click();
    await ann.getByRole('heading', { name: `Change request #${id}` }).waitFor();
  });

  t.test('Ann titles it and sends it to review; the change reads off → on', async (t) => {
    // "?" until the flag's state, read after the request, has arrived.
    await ann.locator('.diff del', { hasNotText: '?' }).first().waitFor();
    t.equal(await ann.locator('.diff del').first().innerText(), 'off');
    t.equal(await ann.locator('.diff ins').first().innerText(), 'on');
    t.equal(await ann.getByRole('button', { name: 'Approve' }).count(), 0, 'no Approve for the author');
    await ann.getByRole('textbox', { name: 'Title' }).fill('Open checkout');
    await ann.getByRole('button', { name: 'Save title' }).click();
    await ann.getByRole('heading', { name: 'Open checkout' }).waitFor();
    await ann.getByRole('button', { name: 'Send to review' }).click();
    await ann.locator('.page-head .badge', { hasText: 'In review' }).waitFor();
    t.equal((await ok('GET', `${CR}/${id}`)).title, 'Open checkout');
    t.equal(await sdkSeesOn(), false, 'in review: SDKs still see it off');
  });

  t.test('Mia, who may not approve, sees Approve disabled with the reason', async (t) => {
    await mia.goto(`${srv.url}/#/projects/default/change-requests/${id}`);
    const approve = mia.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    t.ok(await approve.isDisabled(), 'disabled');
    t.match(await approve.getAttribute('title'), /does not allow this in project default/, 'says why');
  });

  t.test('Bob sees it waiting for him, approves and applies it: then SDKs see the flag on', async (t) => {
    await bob.goto(`${srv.url}/#/`);
    await bob.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Change requests 1' }).click();
    await bob.getByRole('link', { name: new RegExp(`#${id} Open checkout`) }).click();
    await bob.getByRole('button', { name: 'Approve' }).click();
    await bob.getByRole('button', { name: 'Apply' }).click();
    await bob.locator('.page-head .badge', { hasText: 'Applied' }).waitFor();
    t.equal((await prod()).enabled, true, 'the flag is on in production');
    t.equal(await sdkSeesOn(), true, 'and SDKs see it on');
  });

  t.test('an Admin, who may skip them, changes directly, or proposes when they tick the box', async (t) => {
    const admin = await as(browser, 'admin');
    await admin.goto(`${srv.url}/#/projects/default/flags/checkout`);
    const production = admin.getByRole('region', { name: 'production' });
    await production.getByText('You may change it directly.').waitFor();
    await production.getByRole('checkbox', { name: 'Propose as a change request' }).check();
    await production.getByRole('switch', { name: /checkout in production/ }).click();
    await admin.getByRole('status').locator('.toast', { hasText: 'Turn off checkout in production' }).waitFor();
    t.equal((await prod()).enabled, true, 'proposed, not made: production still on');
    await production.getByRole('checkbox', { name: 'Propose as a change request' }).uncheck();
    await production.getByRole('switch', { name: /checkout in production/ }).click();
    await admin.getByRole('status').locator('.toast', { hasText: 'checkout turned off in production.' }).waitFor();
    t.equal((await prod()).enabled, false, 'unticked: switched off directly (after the production question)');
    await ok('POST', `${FLAG}/environments/production/on`);
  });

  t.test("a strategy Ann adds goes to a new draft; Bob rejects it with a reason; nothing is added in production", async (t) => {
    // Switched on with none, production got the default strategy, as a direct switch gives it.
    const strategies = (await prod()).strategies.length;
    await ann.goto(`${srv.url}/#/projects/default/flags/checkout`);
    const production = ann.getByRole('region', { name: 'production' });
    await production.getByRole('button', { name: 'Add strategy in production' }).click();
    await production.getByRole('form', { name: 'Strategy' }).getByRole('button', { name: 'Add strategy' }).click();
    const note = ann.getByRole('status').locator('.toast', { hasText: 'checkout in production: Added in production: 100% of users' });
    await note.waitFor();
    const next = Number(/#(\d+)/.exec(await note.innerText())![1]);
    t.not(next, id, 'a new draft');
    // A second change, to the strategy production has; then someone changes that strategy directly.
    await production.getByRole('button', { name: 'Disable', exact: true }).click();
    await ann.getByRole('status').locator('.toast', { hasText: `Added to your change request #${next} (2 changes)` }).waitFor();
    const [strategy] = (await prod()).strategies as { id: string; name: string }[];
    await ok('PUT', `${FLAG}/environments/production/strategies/${strategy.id}`, { name: strategy.name, title: 'Staff', parameters: {}, constraints: [], segments: [], variants: [] });
    t.equal((await prod()).strategies.length, strategies, 'no strategy added in production');
    await production.getByRole('link', { name: new RegExp(`Your draft #${next}`) }).click();
    await ann.getByRole('button', { name: 'Send to review' }).click();
    await ann.locator('.page-head .badge', { hasText: 'In review' }).waitFor();
    await bob.goto(`${srv.url}/#/projects/default/change-requests/${next}`);
    t.match(await bob.locator('.diff ins').first().innerText(), /^strategy 100% of users/, 'the strategy in words');
    t.match(await bob.locator('.diff ins').nth(1).innerText(), /\(disabled\)$/, 'the disabled strategy in words');
    t.match(await bob.getByRole('alert').first().innerText(), /^Conflict: The strategy this change was made against has been changed since/, 'the conflict shown');
    await bob.getByRole('textbox', { name: 'Why it is rejected' }).fill('not this week');
    await bob.getByRole('form', { name: 'Reject' }).getByRole('button', { name: 'Reject' }).click();
    await bob.locator('.page-head .badge', { hasText: 'Rejected' }).waitFor();
    const rejected = await ok('GET', `${CR}/${next}`);
    t.equal(rejected.state, 'Rejected');
    t.ok(rejected.comments.some((c: { text: string }) => c.text === 'not this week'), 'the reason is kept');
    t.equal((await prod()).strategies.length, strategies, 'rejected: still none added');
    t.equal(await sdkSeesOn(), true, 'SDKs still see the flag as Bob applied it');
  });

  t.test('Bob schedules an approved request, reschedules it, then applies it now', async (t) => {
    await ann.goto(`${srv.url}/#/projects/default/flags/checkout`);
    const production = ann.getByRole('region', { name: 'production' });
    await production.getByRole('switch', { name: /checkout in production/ }).click();
    const note = ann.getByRole('status').locator('.toast', { hasText: 'Turn off checkout in production' });
    await note.waitFor();
    const later = Number(/#(\d+)/.exec(await note.innerText())![1]);
    await ann.goto(`${srv.url}/#/projects/default/change-requests/${later}`);
    await ann.getByRole('button', { name: 'Send to review' }).click();
    await ann.locator('.page-head .badge', { hasText: 'In review' }).waitFor();
    await bob.goto(`${srv.url}/#/projects/default/change-requests/${later}`);
    await bob.getByRole('button', { name: 'Approve' }).click();
    await bob.locator('.page-head .badge', { hasText: 'Approved' }).waitFor();
    // The field is the person's own time; Chromium and this test share the machine's zone.
    const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const schedule = bob.getByRole('form', { name: 'Schedule' });
    await schedule.getByLabel('Apply at (your time)').fill(`${day(1)}T09:00`);
    await schedule.getByRole('button', { name: 'Schedule' }).click();
    await bob.getByRole('status').filter({ hasText: /^Scheduled for/ }).waitFor();
    let stored = await ok('GET', `${CR}/${later}`);
    t.same([stored.state, stored.schedule.status, stored.schedule.scheduledAt], ['Scheduled', 'pending', new Date(`${day(1)}T09:00`).toISOString()], 'scheduled for 09:00 tomorrow, in the person\'s time');
    t.equal(await sdkSeesOn(), true, 'scheduled: SDKs still see it on');
    await schedule.getByLabel('Apply at (your time)').fill(`${day(2)}T17:30`);
    await schedule.getByRole('button', { name: 'Reschedule' }).click();
    await bob.getByRole('status').filter({ hasText: /^Scheduled for/ }).waitFor();
    await until('the new time stored', async () => (await ok('GET', `${CR}/${later}`)).schedule.scheduledAt === new Date(`${day(2)}T17:30`).toISOString());
    t.pass('rescheduled');
    await bob.getByRole('button', { name: 'Apply now' }).click();
    await bob.locator('.page-head .badge', { hasText: 'Applied' }).waitFor();
    stored = await ok('GET', `${CR}/${later}`);
    t.equal(stored.state, 'Applied', 'applied now, before its time');
    t.equal(await sdkSeesOn(), false, 'and SDKs see the flag off');
  });

  t.test("the flags list and its bulk bar propose in production; archiving a flag on there proposes archiveFeature, on in two is refused", async (t) => {
    for (const name of ['list-a', 'list-b', 'list-c']) await ok('POST', '/api/admin/projects/default/features', { name });
    const asAnn = withSession(srv.url, await signInAs(srv.url, 'ann', STRONG));
    const onInProduction = async (name: string) => ((await ok('GET', `/api/admin/projects/default/features/${name}`)).environments as { name: string; enabled: boolean }[])
      .find((e) => e.name === 'production')!.enabled;
    /** The changes of Ann's draft #n, as `flag action payload` lines. */
    const changes = async (n: number) => ((await asAnn('GET', `${CR}/${n}`)).json.features as { name: string; changes: { action: string; payload: unknown }[] }[])
      .flatMap((f) => f.changes.map((c) => `${f.name} ${c.action} ${JSON.stringify(c.payload ?? {})}`)).sort();
    await ann.goto(`${srv.url}/#/projects/default?query=list-`);
    await ann.getByText('3 flags', { exact: true }).waitFor();
    await ann.getByRole('switch', { name: 'Turn on list-a in production' }).click();
    const note = ann.getByRole('status').locator('.toast', { hasText: 'list-a' });
    await note.waitFor();
    const draft = Number(/#(\d+)/.exec(await note.innerText())![1]);
    t.match(await note.innerText(), /Added to your change request #\d+ \(1 change\)/, 'the note says it was proposed');
    t.equal(await note.getByRole('link').getAttribute('href'), `#/projects/default/change-requests/${draft}`, 'and links the draft');
    t.equal(await onInProduction('list-a'), false, 'list-a still off in production');
    t.same(await changes(draft), ['list-a updateEnabled {"enabled":true}'], 'the draft has the switch');

    for (const name of ['list-b', 'list-c']) await ann.getByRole('checkbox', { name: `Select ${name}` }).check();
    const bar = ann.getByRole('group', { name: 'Selected flags' });
    await bar.getByLabel('Environment').selectOption('production');
    await bar.getByRole('button', { name: 'Turn on in production' }).click();
    await ann.getByRole('status').locator('.toast', { hasText: `#${draft} (3 changes)` }).waitFor();
    t.same([await onInProduction('list-b'), await onInProduction('list-c')], [false, false], 'both still off in production');
    t.same(await changes(draft), ['list-a updateEnabled {"enabled":true}', 'list-b updateEnabled {"enabled":true}', 'list-c updateEnabled {"enabled":true}'], 'two more changes, in the same draft');

    // On in production (an Admin may skip): archiving it takes it out of production, so it is proposed there.
    await ok('POST', '/api/admin/projects/default/features/list-a/environments/production/on');
    await ann.goto(`${srv.url}/#/projects/default/flags/list-a`);
    await ann.locator('.page-head').getByRole('button', { name: 'Archive' }).click();
    await ann.getByRole('status').locator('.toast', { hasText: `#${draft} (4 changes)` }).waitFor();
    t.notOk(((await ok('GET', '/api/admin/archive/features')).features as { name: string }[]).some((f) => f.name === 'list-a'), 'list-a not archived');
    t.ok((await changes(draft)).includes('list-a archiveFeature {}'), 'the draft has archiveFeature');

    // Archived together: list-b, on in production, is proposed; list-c, off there, is archived at once.
    await ok('POST', '/api/admin/projects/default/features/list-b/environments/production/on');
    await ann.goto(`${srv.url}/#/projects/default?query=list-`);
    await ann.getByText('3 flags', { exact: true }).waitFor();
    for (const name of ['list-b', 'list-c']) await ann.getByRole('checkbox', { name: `Select ${name}` }).check();
    await bar.getByRole('button', { name: 'Archive 2 flags' }).click();
    await ann.getByRole('status').locator('.toast', { hasText: `#${draft} (5 changes): Archive list-b` }).waitFor();
    const archived = async () => ((await ok('GET', '/api/admin/archive/features')).features as { name: string }[]).map((f) => f.name).filter((n) => n.startsWith('list-'));
    await until('list-c archived', async () => (await archived()).length > 0);
    t.same(await archived(), ['list-c'], 'list-c archived, list-b not');
    t.ok((await changes(draft)).includes('list-b archiveFeature {}'), 'list-b proposed');

    // On in two protected environments: refused in words before anything is done.
    await ok('PUT', '/api/admin/projects/default/environments/development/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 });
    await ok('POST', '/api/admin/projects/default/features/list-b/environments/development/on');
    const before = await changes(draft);
    await ann.goto(`${srv.url}/#/projects/default/flags/list-b`);
    await ann.locator('.page-head').getByRole('button', { name: 'Archive' }).click();
    await ann.locator('.page-head').getByRole('alert').waitFor();
    t.match(await ann.locator('.page-head').getByRole('alert').innerText(), /^Archiving list-b takes it out of development and production, each with change requests on/, 'says why, naming both');
    t.same(await changes(draft), before, 'nothing proposed in production');
    t.same(((await asAnn('GET', `${CR}/open`)).json as { environment: string }[]).filter((r) => r.environment === 'development'), [], 'nor in development');
    t.same(await archived(), ['list-c'], 'nor archived');
    await ok('PUT', '/api/admin/projects/default/environments/development/change-requests/config', { changeRequestsEnabled: false, requiredApprovals: 1 });
  });

  t.test('no script errors', async (t) => {
    t.same(watched.flatMap((w) => w.problems), []);
  });
});
