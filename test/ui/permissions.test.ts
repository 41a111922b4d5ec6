// What a person may not do is disabled, with the reason, on every page of the console, in
// Debian's Chromium against a real server. Each control that changes something names in the DOM
// the permission it needs (data-permission, data-project, data-environment, data-reaches); on
// every page, for a Viewer, a project Member, an Editor, a person limited to development and an
// Admin, each such control is enabled exactly when the person's permissions (GET /api/admin/user,
// which the server's own check agrees with: test/core/access/permissions.unit.test.ts) allow it,
// and a disabled one says why. Every other enabled control must be one that changes nothing on
// the server (sorting, paging, copying, a form's own rows) or the person's own profile. A few are
// cross-checked by calling the API as that person: 403. Built-in context fields cannot be changed
// by anyone, an Admin included.
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { listedAllows, type PermissionEntry } from '../../src/core/access/permissions.js';
import { artifactPath, openBrowser, signInWithPassword, watchPage } from '../helpers/browser.js';
import { signInAs, STRONG, withSession } from '../helpers/people.js';
import { RECEIVERS_ALLOWED } from '../helpers/receiver.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.permissions-console-admin-token';

/** One button (or switch) on a page, as the DOM has it. */
interface Control { label: string; disabled: boolean; title: string | null; permission: string | null; project: string | null; environment: string | null; reaches: string | null; refused: string | null }

/** Every button on the page: what it says, whether it is disabled (a disabled fieldset counts), what it needs. */
function controls(page: Page): Promise<Control[]> {
  // A string: the test's own compiler knows no DOM.
  return page.evaluate(`[...document.querySelectorAll('button')].map((el) => ({
    label: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().replace(/\\s+/g, ' '),
    disabled: el.matches(':disabled'),
    title: el.getAttribute('title'),
    permission: el.dataset.permission ?? null,
    project: el.dataset.project ?? null,
    environment: el.dataset.environment ?? null,
    reaches: el.dataset.reaches ?? null,
    refused: el.dataset.refused ?? null,
  }))`);
}

/**
 * Enabled controls that need no permission because they change nothing on the server: sorting,
 * paging, copying, opening raw JSON, a form's own rows (added or removed before it is sent), the
 * notes' Undo and Dismiss, a dialog's Close, the phone's Menu, the playground's Try; and the
 * person's own password, personal tokens and sessions, which every person signed in may change.
 */
const HARMLESS = [
  /^Sign out$/, /^Copy\b/, /^Copied$/, /^(Name|Type|Last seen|Created|Project)( [▲▼])?$/, /^(Previous|Next|Newer|Older)$/, /^Clear filters$/,
  /^Add (constraint|variant|parameter)$/, /^Remove (constraint|variant|parameter) \d+$/, /^(Undo|Dismiss|Close)$/,
  /^(Sign out everywhere|Change password|Create token)$/,
  // The phone's navigation, and the playground's "Try" (it reads: evaluates a context, stores nothing).
  /^Menu$/, /^Try$/,
  // Opens "Connect an SDK": code to copy; its own "Create a … token" names what it needs.
  /^Connect an SDK$/,
  // Jumping to a flag reads; a star is the person's own (refused to a token, which is no person).
  /^Jump to a flag\b/, /^(Star|Unstar) /,
];

/** The pages a person goes through, each with what shows once its data has loaded. */
const PAGES: [string, string][] = [
  ['/', 'default-flag'], ['/projects/default/flags/default-flag', '40% of users'], ['/projects/alpha/flags/alpha-flag', '10% of users'],
  ['/projects/default/overview', 'default-flag'], ['/archive', 'old-flag'], ['/segments', 'alpha-beta'], ['/environments', 'production'],
  ['/projects', 'alpha'], ['/strategies', 'region'], ['/context', 'country'], ['/tags', 'team'], ['/tokens', 'API tokens'],
  ['/webhooks', 'Webhooks'], ['/events', 'default-flag'], ['/applications', 'Applications'], ['/profile', 'Change password'],
  ['/people', 'People'], ['/release-templates', 'Gradual rollout'], ['/impact-metrics', 'Impact metrics'],
  ['/change-requests', 'Alpha rollout'], ['/projects/alpha/change-requests/1', 'Alpha rollout'],
];

t.test('what a person may not do is disabled, with the reason, on every page', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok, api: asAdmin } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000', ...RECEIVERS_ALLOWED },
    authorization: ADMIN,
  });
  // Something of every kind on every page, so that each page has its Edit and Delete buttons.
  await ok('POST', '/api/admin/projects', { id: 'alpha', name: 'Alpha' });
  for (const [project, name, share] of [['default', 'default-flag', '40'], ['alpha', 'alpha-flag', '10']]) {
    const flag = `/api/admin/projects/${project}/features/${name}`;
    await ok('POST', `/api/admin/projects/${project}/features`, { name });
    for (const env of ['development', 'production']) {
      await ok('POST', `${flag}/environments/${env}/strategies`, { name: 'flexibleRollout', parameters: { rollout: share, stickiness: 'default', groupId: name } });
      await ok('POST', `${flag}/environments/${env}/strategies`, { name: 'default', title: 'Staff' });
    }
    await ok('POST', `${flag}/environments/production/on`);
    await ok('POST', `/api/admin/features/${name}/tags`, { type: 'simple', value: 'checkout' });
  }
  await ok('POST', '/api/admin/projects/default/features', { name: 'old-flag' });
  await ok('DELETE', '/api/admin/projects/default/features/old-flag');
  const shared = (await ok('POST', '/api/admin/segments', { name: 'shared-beta', constraints: [] })).id as number;
  const alphaSegment = (await ok('POST', '/api/admin/segments', { name: 'alpha-beta', project: 'alpha', constraints: [] })).id as number;
  await ok('POST', '/api/admin/segments', { name: 'alpha-unused', project: 'alpha', constraints: [] });
  // Used in production: changing it takes effect there.
  await ok('POST', '/api/admin/projects/alpha/features/alpha-flag/environments/production/strategies', { name: 'default', title: 'Beta testers', segments: [alphaSegment] });
  await ok('POST', '/api/admin/context', { name: 'country', legalValues: [{ value: 'NO' }] });
  await ok('POST', '/api/admin/strategies', { name: 'region', parameters: [] });
  await ok('POST', '/api/admin/tag-types', { name: 'team' });
  const hook = (await ok('POST', '/api/admin/addons', { provider: 'webhook', enabled: true, parameters: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] })).id as number;
  await ok('POST', '/api/admin/api-tokens', { tokenName: 'sdk', type: 'client', environment: 'development', projects: ['*'] });
  // Four eyes on alpha's production: its flag page proposes there, and a request waits in review
  // (made by the admin token, so that it is nobody's own) with its Approve, Reject and comment.
  await ok('PUT', '/api/admin/projects/alpha/environments/production/change-requests/config', { changeRequestsEnabled: true });
  await ok('POST', '/api/admin/projects/alpha/environments/production/change-requests', { feature: 'alpha-flag', action: 'updateEnabled', payload: { enabled: false } });
  await ok('PUT', '/api/admin/projects/alpha/change-requests/1/title', { title: 'Alpha rollout' });
  await ok('PUT', '/api/admin/projects/alpha/change-requests/1/state', { state: 'In review' });
  const person = (username: string, fields: Record<string, unknown>) => ok('POST', '/api/admin/user-admin', { username, password: STRONG, ...fields });
  await person('vera', { rootRole: 'Viewer' });
  await person('mia', { rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }] });
  await person('eddie', { rootRole: 'Editor' });
  await person('devon', { rootRole: 'Editor', environments: ['development'] });

  /**
   * Signs `login` in and goes through every page: each control that names a permission is enabled
   * exactly when the person's permissions allow it (disabled ones with the reason as their title),
   * and every other enabled control is harmless. Answers each page's controls.
   */
  const journey = async (t: Test, login: string): Promise<Map<string, Control[]>> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const { problems } = watchPage(page, srv.url);
    await signInWithPassword(page, srv.url, login, STRONG);
    const me = (await withSession(srv.url, await signInAs(srv.url, login, STRONG))('GET', '/api/admin/user')).json as { permissions: PermissionEntry[] };
    const seen = new Map<string, Control[]>();
    const wrong: string[] = [];
    for (const [path, ready] of PAGES) {
      await page.goto(`${srv.url}/#${path}`);
      await page.getByRole('main').getByText(ready).first().waitFor();
      // The page's lists come in one by one: wait until nothing is loading any more.
      while (await page.locator('.loading').count() > 0) await page.waitForTimeout(50);
      await page.waitForTimeout(150);
      const found = await controls(page);
      seen.set(path, found);
      for (const c of found) {
        if (c.permission === null) {
          if (!c.disabled && !HARMLESS.some((h) => h.test(c.label))) wrong.push(`${path}: "${c.label}" is enabled and names no permission`);
          continue;
        }
        const project = c.project ?? undefined;
        const reaches = c.reaches ? c.reaches.split(',') : [];
        const allowed = c.refused === null && listedAllows(me.permissions, c.permission, project, c.environment ?? undefined) &&
          reaches.every((e) => listedAllows(me.permissions, c.permission!, project, e));
        // A control disabled for a reason of its own (the first strategy's Move up) is not the point here.
        if (allowed && c.disabled && !/^Move (up|down)$/.test(c.label)) wrong.push(`${path}: "${c.label}" (${c.permission}) is disabled though allowed`);
        if (!allowed && !c.disabled) wrong.push(`${path}: "${c.label}" (${c.permission} ${c.project ?? '*'}/${c.environment ?? '*'}) is enabled though the server would refuse it`);
        if (!allowed && !c.title) wrong.push(`${path}: "${c.label}" is disabled without a reason`);
      }
    }
    await page.goto(`${srv.url}/#/environments`);
    await page.getByRole('main').getByText('production').first().waitFor();
    await page.screenshot({ path: artifactPath(`console-permissions-${login}.png`), fullPage: true });
    t.same(wrong, [], `${login}: every control enabled exactly when allowed, ${[...seen.values()].flat().filter((c) => c.permission).length} checked`);
    t.same(problems, [], 'no script error');
    return seen;
  };
  const find = (seen: Map<string, Control[]>, path: string, label: string) => {
    const c = seen.get(path)?.find((x) => x.label === label);
    if (!c) throw new Error(`no "${label}" on ${path}`);
    return c;
  };

  t.test('a Viewer is offered nothing the server would refuse', async (t) => {
    const seen = await journey(t, 'vera');
    const marked = [...seen.values()].flat().filter((c) => c.permission);
    t.ok(marked.length > 60, `${marked.length} controls name what they need`);
    t.same(marked.filter((c) => !c.disabled).map((c) => c.label), [], 'none of them enabled');
    const production = find(seen, '/environments', 'Delete production');
    t.same([production.disabled, production.title], [true, 'Only Admins may do this; your role is Viewer.'], 'no "Delete production…" question: disabled, saying why');
    t.equal(find(seen, '/', 'New flag').title, 'Your role (Viewer) does not allow this in project default.');
    t.equal(find(seen, '/segments', 'Delete shared-beta').title, 'Your role (Viewer) does not allow this.');
    // And the server refuses each of them, whatever a page would send.
    const api = withSession(srv.url, await signInAs(srv.url, 'vera', STRONG));
    const refused: [string, string, unknown?][] = [
      ['DELETE', '/api/admin/environments/production'], ['DELETE', `/api/admin/segments/${shared}`], ['POST', '/api/admin/projects', { id: 'beta' }],
      ['DELETE', '/api/admin/context/country'], ['POST', '/api/admin/strategies/region/deprecate'], ['DELETE', '/api/admin/tag-types/team'],
      ['POST', '/api/admin/projects/default/features', { name: 'new-one' }], ['DELETE', `/api/admin/addons/${hook}`],
    ];
    for (const [method, path, body] of refused) {
      const res = await api(method, path, body);
      t.equal(res.status, 403, `${method} ${path} as the Viewer: 403 (${res.json?.name})`);
    }
  });

  t.test('a project Member changes only her project', async (t) => {
    const seen = await journey(t, 'mia');
    t.equal(find(seen, '/projects/alpha/flags/alpha-flag', 'Add strategy in production').disabled, false, 'her project: strategies');
    t.equal(find(seen, '/projects/default/flags/default-flag', 'Add strategy in production').disabled, true, 'another project: not');
    t.equal(find(seen, '/segments', 'Create segment').disabled, false, 'a segment of her project');
    t.same([find(seen, '/segments', 'Edit alpha-beta').disabled, find(seen, '/segments', 'Edit shared-beta').disabled], [false, true], 'hers, not the shared one');
    t.equal(find(seen, '/projects', 'Delete alpha').disabled, true, 'a Member does not delete the project');
    const request = '/projects/alpha/change-requests/1';
    t.same(['Approve', 'Add comment'].map((l) => find(seen, request, l).disabled), [true, false], 'she comments on a change request, she does not approve it');
  });

  t.test('an Editor: no environments, tokens, people or webhooks', async (t) => {
    const seen = await journey(t, 'eddie');
    t.same(['Delete production', 'Create environment'].map((l) => find(seen, '/environments', l).disabled), [true, true]);
    t.equal(find(seen, '/webhooks', 'Create webhook').disabled, true);
    t.equal(find(seen, '/tokens', 'Create token').disabled, true);
    t.same(['Create segment', 'Delete shared-beta'].map((l) => find(seen, '/segments', l).disabled), [false, false], 'segments are an Editor\'s');
    t.same(['Approve', 'Reject'].map((l) => find(seen, '/projects/alpha/change-requests/1', l).disabled), [false, false], 'an Editor reviews change requests');
  });

  t.test('a person limited to development: nothing that takes effect in production', async (t) => {
    const seen = await journey(t, 'devon');
    const flag = '/projects/default/flags/default-flag';
    t.same(['Add strategy in development', 'Add strategy in production'].map((l) => find(seen, flag, l).disabled), [false, true]);
    const archive = find(seen, flag, 'Archive');
    t.same([archive.disabled, archive.title], [true, 'You may change only development. This takes effect in production.'], 'archiving a flag on in production');
    const res = await withSession(srv.url, await signInAs(srv.url, 'devon', STRONG))('DELETE', '/api/admin/projects/default/features/default-flag');
    t.equal(res.status, 403, 'which the server refuses');
    t.equal(find(seen, '/segments', 'Edit shared-beta').disabled, true, 'a shared segment acts everywhere');
    const used = find(seen, '/segments', 'Edit alpha-beta');
    t.same([used.disabled, used.title], [true, 'You may change only development. This takes effect in production.'], 'a segment used in production');
    t.equal(find(seen, '/segments', 'Edit alpha-unused').disabled, false, 'one used nowhere is theirs');
    const devon = withSession(srv.url, await signInAs(srv.url, 'devon', STRONG));
    t.equal((await devon('PUT', `/api/admin/segments/${alphaSegment}`, { name: 'alpha-beta', constraints: [] })).status, 403, 'the server refuses the first');
  });

  t.test('an Admin may do everything but change or delete a built-in context field', async (t) => {
    const seen = await journey(t, 'admin');
    const builtIn = find(seen, '/context', 'Delete userId');
    t.same([builtIn.disabled, builtIn.refused, builtIn.title], [true, 'everyone', 'userId is built in: every SDK fills it in, so nobody may change or delete it.']);
    t.equal(find(seen, '/context', 'Edit appName').disabled, true);
    t.same(['Edit country', 'Delete country'].map((l) => find(seen, '/context', l).disabled), [false, false], 'a custom one may be');
    t.equal((await asAdmin('DELETE', '/api/admin/context/userId')).status, 403, 'the server refuses it even to an Admin');
    t.equal(find(seen, '/strategies', 'Deprecate default').disabled, true, 'nor deprecate the default strategy type');
  });
});
