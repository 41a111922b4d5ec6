// Releases that watch themselves, in Debian's Chromium against a real server and checked through
// the admin API: an Editor makes a release template of two milestones, applies it to a flag's
// production, sees the first milestone served, sets a progression ("moves to … at HH:MM"), starts
// the second by hand, guards the plan with a safeguard whose chart shows its threshold, sees why it
// fired once the application's errors cross it and resumes the plan, guards the environment, and charts the metric on the flag's page; a Viewer
// sees the plan with every control that would change it disabled, and why.
import t from 'tap';
import { artifactPath, openBrowser, signInWithPassword, watchPage } from '../helpers/browser.js';
import { STRONG } from '../helpers/people.js';
import { serve } from '../helpers/server.js';

const ADMIN = '*:*.release-console-admin-secret';
const CLIENT = 'default:production.release-console-client-secret';
const FLAG = '/api/admin/projects/default/features/new-checkout';
const PROD = `${FLAG}/environments/production`;

t.test('a release plan in the console', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok, api } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '300', SIGN_IN_LIMIT_PER_ADDRESS: '1000' },
    authorization: ADMIN,
  });
  await ok('POST', '/api/admin/projects/default/features', { name: 'new-checkout' });
  await ok('POST', `${PROD}/on`);
  await ok('POST', '/api/admin/user-admin', { username: 'eddie', password: STRONG, rootRole: 'Editor' });
  await ok('POST', '/api/admin/user-admin', { username: 'vera', password: STRONG, rootRole: 'Viewer' });
  // The application reports its failed checkouts, in the body the official SDKs send.
  const report = async (errors: number) => {
    const now = new Date().toISOString();
    const res = await api('POST', '/api/client/metrics', {
      appName: 'shop', instanceId: 'shop-1', bucket: { start: now, stop: now, toggles: {} },
      impactMetrics: [{ name: 'checkout_errors', help: 'Failed checkouts', type: 'counter', samples: [{ labels: { appName: 'shop', environment: 'production' }, value: errors }] }],
    }, { authorization: CLIENT });
    t.equal(res.status, 202, 'the SDK body is accepted');
  };
  await report(3);
  const deadline = Date.now() + 5_000;
  while ((await ok('GET', '/api/admin/impact-metrics/metadata')).metrics.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const { problems, elsewhere } = watchPage(page, srv.url);
  // Every question this journey meets is answered yes: the console's own dialog, whenever it
  // stands in the way of the next step.
  await page.addLocatorHandler(page.locator('dialog.ask[open]'), async (d) => d.locator('[data-answer="yes"]').click());
  await signInWithPassword(page, srv.url, 'eddie', STRONG);
  const plan = async () => (await ok('GET', `${PROD}/release-plans`))[0];

  t.test('an Editor makes a template of two milestones, each with a strategy', async (t) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Release templates' }).click();
    await page.getByRole('heading', { name: 'Gradual rollout' }).waitFor();
    await page.getByRole('button', { name: 'New template' }).click();
    const editor = page.getByRole('region', { name: 'New template' });
    await editor.getByLabel('Template name').fill('Careful rollout');
    await editor.getByLabel('Milestone 1 name').fill('Internal');
    await editor.getByRole('button', { name: 'Add strategy to Internal' }).click();
    await editor.getByLabel('Rollout').fill('25');
    t.equal(await editor.getByLabel('Disabled').count(), 0, "the strategy editor, without a Disabled choice a template's strategy cannot keep");
    await editor.getByRole('button', { name: 'Add to milestone' }).click();
    await editor.getByRole('button', { name: 'Add milestone' }).click();
    await editor.getByLabel('Milestone 2 name').fill('Everyone');
    await editor.getByRole('button', { name: 'Add strategy to Everyone' }).click();
    await editor.getByRole('button', { name: 'Add to milestone' }).click();
    await editor.getByRole('button', { name: 'Save template' }).click();
    await page.getByRole('heading', { name: 'Careful rollout' }).waitFor();
    const saved = (await ok('GET', '/api/admin/release-plan-templates')).find((x: { name: string }) => x.name === 'Careful rollout');
    t.same(saved.milestones.map((m: { name: string; strategies: { strategyName: string; parameters: Record<string, string> }[] }) => [m.name, m.strategies.map((s) => [s.strategyName, s.parameters.rollout, s.parameters.groupId])]),
      [['Internal', [['flexibleRollout', '25', '{{featureName}}']]], ['Everyone', [['flexibleRollout', '100', '{{featureName}}']]]], 'two milestones in order, each with its strategy');
    t.match(await page.getByRole('region', { name: 'Careful rollout' }).innerText(), /Internal\s+25% of users[\s\S]*Everyone\s+100% of users/, 'listed in words');
    // Edited: milestones keep their ids, the order changes as shown.
    await page.getByRole('button', { name: 'Edit Careful rollout' }).click();
    const edit = page.getByRole('region', { name: 'Edit template Careful rollout' });
    await edit.getByLabel('Description').fill('internal first');
    await edit.getByRole('button', { name: 'Move milestone 2 up' }).click();
    await edit.getByRole('button', { name: 'Move milestone 1 down' }).click();
    await edit.getByRole('button', { name: 'Save template' }).click();
    await edit.waitFor({ state: 'detached' });
    const edited = (await ok('GET', `/api/admin/release-plan-templates/${saved.id}`));
    t.equal(edited.description, 'internal first');
    t.same(edited.milestones.map((m: { id: string }) => m.id), saved.milestones.map((m: { id: string }) => m.id), 'same milestones, same order, same ids');
    await page.getByRole('button', { name: 'Archive Gradual rollout' }).click();
    await page.getByRole('region', { name: 'Gradual rollout' }).getByText(/^archived/).waitFor();
    t.ok((await ok('GET', '/api/admin/release-plan-templates')).find((x: { name: string }) => x.name === 'Gradual rollout').archivedAt, 'the built-in template archived');
  });

  const production = page.getByRole('region', { name: 'production' });
  const milestones = production.getByRole('list', { name: 'Milestones of Careful rollout' });

  t.test('applied to production, the first milestone is served; a progression says when it moves on; the second is started by hand', async (t) => {
    await page.goto(`${srv.url}/#/projects/default/flags/new-checkout`);
    await production.getByLabel('Release template for production').selectOption({ label: 'Careful rollout (2 milestones)' });
    await production.getByRole('button', { name: 'Apply template' }).click();
    await milestones.waitFor();
    const current = milestones.locator('[aria-current=step]');
    t.match(await current.innerText(), /Internal[\s\S]*current[\s\S]*25% of users/, 'milestone 1 is the current step');
    let p = await plan();
    t.equal(p.activeMilestoneId, p.milestones[0].id, 'the API agrees: milestone 1 active');

    await milestones.getByRole('button', { name: 'Move on by itself…' }).click();
    await production.getByLabel('Move on to Everyone after (minutes)').fill('30');
    await production.getByRole('button', { name: 'Set progression' }).click();
    const at = new Date(Date.parse(p.milestones[0].startedAt) + 30 * 60_000).toISOString().slice(11, 16);
    await milestones.getByText(`moves to Everyone at ${at} UTC`).waitFor();
    p = await plan();
    t.same(p.milestones[0].transitionCondition, { intervalMinutes: 30 }, 'the progression is kept');

    await milestones.getByRole('button', { name: 'Start Everyone' }).click();
    await milestones.locator('[aria-current=step]', { hasText: 'Everyone' }).waitFor();
    p = await plan();
    t.equal(p.activeMilestoneId, p.milestones[1].id, 'milestone 2 active');
    t.equal(await milestones.locator('[aria-current=step]').count(), 1, 'one current step');
    await milestones.getByText('moves on to Everyone 30 minutes after it starts').waitFor();
    await milestones.getByRole('button', { name: 'Remove progression out of Internal' }).click();
    await milestones.getByText('Moves on to Everyone only when started by hand.').waitFor();
    t.equal((await plan()).milestones[0].transitionCondition, null, 'the progression removed');
    t.same(await production.getByLabel('Release template for production').count(), 0, 'one plan: no second one offered');

    // One set through the API, from the last milestone back to the first: shown where it goes.
    await ok('PUT', `${PROD}/progressions/${p.milestones[1].id}`, { targetMilestone: p.milestones[0].id, transitionCondition: { intervalMinutes: 90 } });
    const back = new Date(Date.parse(p.milestones[1].startedAt) + 90 * 60_000).toISOString().slice(11, 16);
    const backText = milestones.getByText(`moves to Internal at ${back} UTC`);
    await backText.waitFor();
    await ok('DELETE', `${PROD}/progressions/${p.milestones[1].id}`);
    await backText.waitFor({ state: 'detached' });
  });

  t.test("a safeguard on the plan is drawn with its metric and its threshold, and says why it fired", async (t) => {
    const guards = production.getByRole('group', { name: 'Safeguards of the plan in production' });
    await guards.getByRole('button', { name: 'Add a safeguard' }).click();
    await guards.getByLabel('Metric', { exact: true }).selectOption('checkout_errors');
    await guards.getByLabel('Threshold').fill('5');
    await guards.getByRole('button', { name: 'Add safeguard' }).click();
    const chart = guards.getByRole('img', { name: /checkout_errors, count over the last hour.*latest 3; threshold > 5/ });
    await chart.waitFor();
    const p = await plan();
    t.same(p.safeguards.map((s: { triggerCondition: unknown; impactMetric: { metricName: string } }) => [s.impactMetric.metricName, s.triggerCondition]), [['checkout_errors', { operator: '>', threshold: 5 }]]);
    // The dashed level sits above the running total (3 < 5): SVG's y grows downwards.
    const level = Number(await chart.locator('.threshold line').getAttribute('y1'));
    const points = (await chart.locator('polyline').getAttribute('points'))!.trim().split(' ');
    const lastY = Number(points[points.length - 1].split(',')[1]);
    t.ok(level > 0 && level < lastY, `the threshold line (y ${level}) is above the total's end (y ${lastY})`);

    await report(4);
    const paused = production.getByRole('status').filter({ hasText: 'paused: safeguard' });
    await paused.waitFor();
    await production.screenshot({ path: artifactPath('console-release-plan.png') });
    t.match(await paused.innerText(), /checkout_errors, count over the last hour > 5 fired at .*the value was 7, the threshold > 5/, 'why: the value against the threshold');
    t.ok((await plan()).milestones[1].pausedAt, 'the API agrees: paused');
    // Resumed while the window still crosses the line, it would fire again: remove it first, as the guide says.
    await guards.getByRole('button', { name: 'Remove safeguard on checkout_errors' }).click();
    await guards.getByText('No safeguards: nothing pauses the plan by itself.').waitFor();
    await production.getByRole('button', { name: 'Resume' }).click();
    await paused.waitFor({ state: 'detached' });
    t.equal((await plan()).milestones[1].pausedAt, null, 'resumed');

    // One on the environment itself, far above what is reported: it stays quiet.
    const envGuards = production.getByRole('group', { name: 'Safeguards on production' });
    await envGuards.getByRole('button', { name: 'Add a safeguard' }).click();
    await envGuards.getByLabel('Metric', { exact: true }).selectOption('checkout_errors');
    await envGuards.getByLabel('When it goes').selectOption('>');
    await envGuards.getByLabel('Threshold').fill('1000');
    await envGuards.getByRole('button', { name: 'Add safeguard' }).click();
    await envGuards.getByRole('img', { name: /latest 7; threshold > 1000/ }).waitFor();
    t.equal((await ok('GET', `${PROD}/safeguards`)).length, 1, 'kept on the environment');
  });

  t.test("the application's metric charted on the flag's page", async (t) => {
    const impact = page.getByRole('region', { name: 'Impact metrics' });
    await impact.getByRole('button', { name: 'Add a chart' }).click();
    await impact.getByLabel('Metric', { exact: true }).selectOption('checkout_errors');
    await impact.getByLabel('Aggregation').selectOption('count');
    await impact.getByLabel('Chart title').fill('Failed checkouts');
    await impact.getByRole('button', { name: 'Add chart' }).click();
    const chart = impact.getByRole('img', { name: /Failed checkouts; latest/ });
    await chart.waitFor();
    t.ok((await chart.locator('circle').count()) >= 1, 'the reported points are drawn');
    await impact.screenshot({ path: artifactPath('console-impact-metrics.png') });
    const configs = (await ok('GET', `${FLAG}/impact-metrics/config`)).configs;
    t.same(configs.map((c: { title: string; metricName: string; aggregationMode: string }) => [c.title, c.metricName, c.aggregationMode]), [['Failed checkouts', 'checkout_errors', 'count']]);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Impact metrics' }).click();
    t.match(await page.getByRole('table', { name: 'Impact metrics' }).innerText(), /checkout_errors\s+counter\s+Failed checkouts/, 'the metrics page lists it');
    t.same(problems, []);
    t.same(elsewhere, []);
  });

  t.test('a Viewer sees the plan, and no enabled control changes it', async (t) => {
    const viewer = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    t.teardown(() => viewer.close());
    const v = await viewer.newPage();
    await signInWithPassword(v, srv.url, 'vera', STRONG);
    await v.goto(`${srv.url}/#/projects/default/flags/new-checkout`);
    const prod = v.getByRole('region', { name: 'production' });
    await prod.getByRole('list', { name: 'Milestones of Careful rollout' }).locator('[aria-current=step]', { hasText: 'Everyone' }).waitFor();
    await prod.getByRole('img', { name: /threshold > 1000/ }).waitFor();
    const release = v.locator('.release');
    const buttons = await release.getByRole('button').count();
    t.ok(buttons >= 5, `the plan's controls are shown (${buttons})`);
    t.equal(await release.locator('button:not([disabled])').count(), 0, 'none of them enabled');
    t.match(await release.getByRole('button', { name: 'Start Internal' }).getAttribute('title'), /Your role \(Viewer\) does not allow this/, 'each says why');
    t.ok(await v.getByRole('button', { name: 'Add a chart' }).isDisabled(), 'impact charts: read-only too');
    t.ok(await v.getByRole('button', { name: 'Remove chart Failed checkouts' }).isDisabled());
    await v.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Release templates' }).click();
    await v.getByRole('heading', { name: 'Careful rollout' }).waitFor();
    t.ok(await v.getByRole('button', { name: 'New template' }).isDisabled(), 'templates: read-only');
    t.match(await v.getByRole('note').first().innerText(), /Viewer/, 'with the reason');
  });

  t.test('the Editor removes the plan: production serves its own strategies alone again', async (t) => {
    await page.goto(`${srv.url}/#/projects/default/flags/new-checkout`);
    await production.getByRole('button', { name: 'Remove release plan' }).click();
    await production.getByLabel('Release template for production').waitFor();
    t.same(await ok('GET', `${PROD}/release-plans`), [], 'no plan');
  });
});
