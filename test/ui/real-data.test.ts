// The console on real data, in Debian's Chromium: every flag page of a real Unleash 8.2 export
// (constraints with every operator it accepts, segments, variants, dependencies, tags) shows
// every strategy and constraint the API holds, in words; and the console guide's screenshots, taken from
// a team's everyday set of flags, with the jump box, Connect an SDK and a change request under
// review (UPDATE_DOCS_IMAGES=1 writes them to docs/images).
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { artifactPath, openBrowser, signIn, watchPage } from '../helpers/browser.js';
import { ROOT, serve } from '../helpers/server.js';

const ADMIN = '*:*.real-data-admin-secret';
const CLIENT = 'default:production.real-data-client-secret';
const EXAMPLE = path.join(ROOT, 'test', 'fixtures', 'unleash-8.2-export.json');

interface ApiStrategy { name: string; title?: string | null; constraints: unknown[]; segments: number[]; variants: unknown[] }

t.test('every flag of a real Unleash export reads in full on its page', async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  const data = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
  for (const s of data.segments) await ok('POST', '/api/admin/segments', { name: s.name, constraints: s.constraints ?? [] });
  await ok('POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const { problems, elsewhere } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);
  await page.getByText(`${data.features.length} flags`).waitFor();

  let strategies = 0;
  let constraints = 0;
  for (const { name } of data.features as { name: string }[]) {
    const stored = await ok('GET', `/api/admin/projects/default/features/${encodeURIComponent(name)}`);
    const dev = (stored.environments as { name: string; strategies: ApiStrategy[] }[]).find((e) => e.name === 'development')!;
    await page.goto(`${srv.url}/#/projects/default/flags/${encodeURIComponent(name)}`);
    const region = page.getByRole('region', { name: 'development' });
    await region.getByRole('heading', { name: 'Strategies' }).waitFor();
    const shown = region.locator('ol.strategies > li');
    const listed = await shown.count();
    const constraintTexts = await region.locator('ol.strategies .constraint-text').allInnerTexts();
    const expected = dev.strategies.reduce((n, s) => n + s.constraints.length, 0);
    if (listed !== dev.strategies.length || constraintTexts.length !== expected) {
      t.fail(`${name}: ${listed}/${dev.strategies.length} strategies, ${constraintTexts.length}/${expected} constraints shown`);
    }
    const raw = constraintTexts.find((c) => /\b(?:IN|NOT_IN|STR_[A-Z_]+|NUM_[A-Z]+|DATE_[A-Z]+|SEMVER_[A-Z]+|REGEX|IN_CIDR)\b/.test(c));
    if (raw) t.fail(`${name}: an operator shown as its code: ${raw}`);
    const text = await page.locator('main').innerText();
    const odd = /\bundefined\b|\bNaN\b|\[object Object\]/.exec(text);
    if (odd) t.fail(`${name}: the page shows "${odd[0]}"`);
    if (dev.strategies.some((s) => s.segments.length > 0) && !(await region.getByText(/^segments /).count())) t.fail(`${name}: its segments are not shown`);
    strategies += listed;
    constraints += constraintTexts.length;
  }
  t.equal(strategies, data.featureStrategies.length, `all ${strategies} strategies shown`);
  t.ok(constraints > 100, `${constraints} constraints shown, each in words`);
  t.same(problems, [], 'no script error on any page');
  t.same(elsewhere, []);
});

/** A team's flags, as a person would see them on an ordinary day. */
async function everydayFlags(ok: (method: string, p: string, body?: unknown) => Promise<any>): Promise<void> {
  await ok('POST', '/api/admin/tag-types', { name: 'team', description: 'The owning team' });
  await ok('POST', '/api/admin/projects', { id: 'mobile', name: 'Mobile apps' });
  const beta = await ok('POST', '/api/admin/segments', { name: 'beta-testers', constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice', 'bob', 'carol'] }] });
  const flags: [string, string, string, string[], string[], boolean?][] = [
    ['new-checkout', 'release', 'The one-page checkout', ['team:payments'], ['development', 'production']],
    ['dark-mode', 'release', 'Dark colour scheme in the web app', ['team:web'], ['development']],
    ['search-v2', 'experiment', 'Ranking by the new model, A/B', ['team:search'], ['development', 'production']],
    ['payments-kill-switch', 'kill-switch', 'Stop taking card payments', ['team:payments'], []],
    ['recommendations', 'experiment', 'Show "you may also like"', ['team:growth'], ['development']],
    ['bulk-export', 'permission', 'CSV export for enterprise accounts', ['team:web'], ['production']],
    ['legacy-cart', 'release', 'The old cart page', ['team:payments'], ['production'], true],
    ['rate-limit-relaxed', 'operational', 'Higher API limits during the sale', ['team:platform'], []],
    ['onboarding-tour', 'experiment', 'Guided tour for new sign-ups', ['team:growth'], ['development', 'production']],
    ['gift-cards', 'release', 'Buy and redeem gift cards', ['team:payments'], ['development']],
  ];
  for (const [name, type, description, tags, , stale] of flags) {
    await ok('POST', '/api/admin/projects/default/features', { name, type, description });
    for (const tag of tags) await ok('POST', `/api/admin/features/${name}/tags`, { type: tag.split(':')[0], value: tag.split(':')[1] });
    if (stale) await ok('PATCH', `/api/admin/projects/default/features/${name}`, [{ op: 'replace', path: '/stale', value: true }]);
  }
  const checkout = '/api/admin/projects/default/features/new-checkout/environments';
  await ok('POST', `${checkout}/production/strategies`, {
    name: 'flexibleRollout', title: 'Web shop, 25%', parameters: { rollout: '25', stickiness: 'default', groupId: 'new-checkout' },
    constraints: [{ contextName: 'appName', operator: 'IN', values: ['web-shop'] }, { contextName: 'currentTime', operator: 'DATE_AFTER', value: '2026-11-01T00:00:00.000Z' }],
  });
  await ok('POST', `${checkout}/production/strategies`, { name: 'flexibleRollout', title: 'Beta testers', parameters: { rollout: '100', stickiness: 'default', groupId: 'new-checkout' }, segments: [beta.id] });
  await ok('POST', `${checkout}/development/strategies`, { name: 'default', title: 'Everyone' });
  await ok('PUT', `${checkout}/production/variants`, [
    { name: 'one-page', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"steps":1}' } },
    { name: 'two-step', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"steps":2}' } },
  ]);
  await ok('POST', '/api/admin/projects/default/features/gift-cards/dependencies', { feature: 'new-checkout', enabled: true });
  // Switched on last: switching on a flag with no strategy there gives it a 100% rollout.
  for (const [name, , , , on] of flags) for (const env of on) await ok('POST', `/api/admin/projects/default/features/${name}/environments/${env}/on`);
  for (const name of ['push-reminders', 'offline-mode']) await ok('POST', '/api/admin/projects/mobile/features', { name });
}

t.test("the README's screenshots: the flags table and a flag's page", async (t) => {
  const browser = await openBrowser(t);
  if (!browser) return;
  const { srv, ok, api } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '100' }, authorization: ADMIN });
  await everydayFlags(ok);
  // An hour of a shop's evaluations, as its SDKs report them (the flag's usage chart).
  const now = new Date().toISOString();
  for (const [appName, yes, no] of [['web-shop', 1840, 5530], ['checkout-api', 610, 1790]] as const) {
    const variants = { 'one-page': Math.round(yes / 2), 'two-step': yes - Math.round(yes / 2) };
    await api('POST', '/api/client/metrics', { appName, bucket: { start: now, stop: now, toggles: { 'new-checkout': { yes, no, variants } } } }, { authorization: CLIENT });
  }
  // Their "last evaluated" time, written by the next metrics flush.
  for (let i = 0; i < 50 && !(await ok('GET', '/api/admin/projects/default/features/new-checkout')).lastSeenAt; i++) await new Promise((r) => setTimeout(r, 100));
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  const { problems } = watchPage(page, srv.url);
  await signIn(page, srv.url, ADMIN);
  await page.getByText('10 flags').waitFor();
  t.equal(await page.locator('table.flags tbody tr').count(), 10, 'the default project\'s ten flags');
  const shots = [artifactPath('console-readme-flags.png'), artifactPath('console-readme-flag.png')];
  await page.screenshot({ path: shots[0] });
  await page.getByRole('link', { name: 'new-checkout' }).click();
  await page.getByRole('region', { name: 'production' }).getByText('segments beta-testers').waitFor();
  // The flag's page down to its usage: environments first, the strategies in words, the chart.
  const usage = page.getByRole('region', { name: 'Usage' });
  await usage.getByText('9,770 evaluations').waitFor();
  const box = await usage.boundingBox();
  const bottom = (box?.y ?? 1200) + (box?.height ?? 0) + 16;
  await page.setViewportSize({ width: 1280, height: Math.ceil(bottom) });
  await page.screenshot({ path: shots[1] });

  // The README's newer screens: Ctrl+K, Connect an SDK, and a change request under review.
  await page.setViewportSize({ width: 1280, height: 760 });
  await page.keyboard.press('Control+k');
  await page.getByRole('combobox', { name: 'Jump to a flag' }).pressSequentially('check');
  await page.getByRole('option', { name: /new-checkout/ }).waitFor();
  const more = [artifactPath('console-readme-jump.png'), artifactPath('console-readme-connect.png'), artifactPath('console-readme-review.png')];
  await page.screenshot({ path: more[0] });
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Connect an SDK' }).click();
  const connect = page.locator('section.connect-sdk');
  await connect.locator('code').first().waitFor();
  await connect.scrollIntoViewIfNeeded();
  await connect.screenshot({ path: more[1] });
  await ok('PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 2 });
  const flag = await ok('GET', '/api/admin/projects/default/features/new-checkout');
  const [rollout] = flag.environments.find((e: { name: string }) => e.name === 'production').strategies;
  const cr = (await ok('POST', '/api/admin/projects/default/environments/production/change-requests', [
    { feature: 'new-checkout', action: 'updateStrategy', payload: { ...rollout, parameters: { ...rollout.parameters, rollout: '50' } } },
    { feature: 'new-checkout', action: 'patchVariant', payload: { variants: [] } },
  ])) as { id: number };
  await ok('PUT', `/api/admin/projects/default/change-requests/${cr.id}/title`, { title: 'Half of the shop on the new checkout' });
  await ok('PUT', `/api/admin/projects/default/change-requests/${cr.id}/state`, { state: 'In review' });
  await page.goto(`${srv.url}/#/projects/default/change-requests/${cr.id}`);
  await page.getByRole('heading', { name: 'Half of the shop on the new checkout' }).waitFor();
  await page.screenshot({ path: more[2] });
  t.same(problems, []);
  if (process.env.UPDATE_DOCS_IMAGES === '1') {
    fs.copyFileSync(shots[0], path.join(ROOT, 'docs/images/console-flags.png'));
    fs.copyFileSync(shots[1], path.join(ROOT, 'docs/images/console-flag.png'));
    for (const [from, to] of [[more[0], 'console-jump.png'], [more[1], 'console-connect-sdk.png'], [more[2], 'console-change-request.png']]) fs.copyFileSync(from, path.join(ROOT, 'docs/images', to));
    t.pass('docs/images updated');
  }
});
