// A release plan against a real Fanion process, with the official Node SDK (unleash-client) as the
// client in polling, delta and streaming mode: the built-in template (25/50/75/100 %) applied to a
// flag that has a strategy of its own; each milestone's rollout is what the SDKs answer, the
// milestone's strategy comes before the flag's own in the client API and stays out of the flag's
// strategy list; server-side evaluation (frontend API, OFREP) agrees; removing the plan takes its
// strategy away; and the plan's events are listed.
import t from 'tap';
import type { Unleash } from 'unleash-client';
import { waitFor } from '../../helpers/relay.js';
import { serve } from '../../helpers/server.js';
import { syncedSdk, type SdkMode } from '../../helpers/unleash-sdk.js';

const ADMIN = '*:*.plans-sdk-admin';
const CLIENT = '*:development.plans-sdk-client';
const FRONTEND = '*:development.plans-sdk-frontend';
const P = '/api/admin/projects/default/features';
const ENV = 'development';
const FLAG = 'checkout';
const PLANS = `${P}/${FLAG}/environments/${ENV}/release-plans`;

const MODES: Record<string, SdkMode> = { polling: { type: 'polling', format: 'full' }, delta: { type: 'polling', format: 'delta' }, streaming: { type: 'streaming' } };
const USERS = Array.from({ length: 1000 }, (_, i) => `user-${i}`);

/** The share of USERS the SDK enables the flag for. */
const share = (u: Unleash) => USERS.filter((userId) => u.isEnabled(FLAG, { userId })).length / USERS.length;

t.test('each milestone of a plan reaches polling, delta and streaming SDKs before the flag\'s own strategy', async (t) => {
  const { srv, api, ok } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, INIT_FRONTEND_API_TOKENS: FRONTEND },
    authorization: ADMIN,
  });
  await ok('POST', P, { name: FLAG });
  const own = await ok('POST', `${P}/${FLAG}/environments/${ENV}/strategies`, { name: 'userWithId', parameters: { userIds: 'vip' } });
  await ok('POST', `${P}/${FLAG}/environments/${ENV}/on`);

  const templates = await ok('GET', '/api/admin/release-plan-templates');
  const builtin = templates.find((x: any) => x.name === 'Gradual rollout');
  t.ok(builtin, 'a new server has the built-in template');
  t.same(builtin.milestones.map((m: any) => m.strategies[0].parameters.rollout), ['25', '50', '75', '100'], 'its milestones roll out 25, 50, 75, 100 %');

  const sdks = Object.fromEntries(await Promise.all(Object.entries(MODES).map(async ([k, mode]) =>
    [k, await syncedSdk(t, srv.url, { token: CLIENT, mode, refreshInterval: 100, appName: `plans-${k}` })] as const)));
  t.ok(Object.values(sdks).every((u) => share(u) === 0 && u.isEnabled(FLAG, { userId: 'vip' })), 'before the plan: only the flag\'s own strategy');

  const plan = await ok('POST', PLANS, { templateId: builtin.id });
  t.equal(plan.discriminator, 'plan', 'the answer is a plan');
  t.equal(plan.activeMilestoneId, plan.milestones[0].id, 'the environment is on: the first milestone started');
  t.equal(plan.milestones[0].strategies[0].parameters.groupId, FLAG, '{{featureName}} became the flag\'s name');
  t.ok(plan.milestones[0].startedAt, 'with its start time');

  const features = (await api('GET', '/api/client/features', undefined, { authorization: CLIENT })).json.features;
  const served = features.find((f: any) => f.name === FLAG).strategies;
  t.same(served.map((s: any) => s.name), ['flexibleRollout', 'userWithId'], 'the client API serves the milestone\'s strategy before the flag\'s own');
  t.same((await ok('GET', `${P}/${FLAG}/environments/${ENV}/strategies`)).map((s: any) => s.id), [own.id], 'the flag\'s strategy list shows only its own');
  const env = (await ok('GET', `${P}/${FLAG}`)).environments.find((e: any) => e.name === ENV);
  t.same(env.strategies.map((s: any) => s.id), [own.id], 'and so does the flag');
  t.same((await ok('GET', PLANS)).map((p: any) => p.id), [plan.id], 'the plan is listed on the flag\'s environment');

  const reach = async (what: string, expected: number) => {
    await waitFor(() => Object.values(sdks).every((u) => Math.abs(share(u) - expected) <= 0.05 && u.isEnabled(FLAG, { userId: 'vip' })), `${what} in every SDK`);
    const shares = Object.entries(sdks).map(([k, u]) => `${k} ${(share(u) * 100).toFixed(1)} %`).join(', ');
    t.pass(`${what}: ${shares}`);
  };
  await reach('milestone 1 (25 %)', 0.25);
  const inFirst = USERS.find((userId) => sdks.polling.isEnabled(FLAG, { userId }))!;
  const outOfFirst = USERS.find((userId) => !sdks.polling.isEnabled(FLAG, { userId }))!;
  const frontend = async (userId: string) =>
    ((await api('GET', `/api/frontend?userId=${userId}`, undefined, { authorization: FRONTEND })).json.toggles as any[]).some((x) => x.name === FLAG && x.enabled);
  const ofrep = async (userId: string) =>
    (await api('POST', `/ofrep/v1/evaluate/flags/${FLAG}`, { context: { targetingKey: userId, userId } }, { authorization: FRONTEND })).json.value;
  t.same([await frontend(inFirst), await frontend(outOfFirst)], [true, false], 'the frontend API evaluates the milestone as the SDK does');
  t.same([await ofrep(inFirst), await ofrep(outOfFirst)], [true, false], 'and so does OFREP');

  for (const [i, expected] of [[1, 0.5], [2, 0.75], [3, 1]] as const) {
    await ok('POST', `${PLANS}/${plan.id}/milestones/${plan.milestones[i].id}/start`);
    await reach(`milestone ${i + 1} (${expected * 100} %)`, expected);
  }
  await ok('POST', `${PLANS}/${plan.id}/milestones/${plan.milestones[0].id}/start`);
  await reach('back to milestone 1 (25 %)', 0.25);
  t.equal((await ok('GET', `${PLANS}/${plan.id}`)).activeMilestoneId, plan.milestones[0].id, 'the plan says so');

  await ok('DELETE', `${PLANS}/${plan.id}`);
  await reach('plan removed (the flag\'s own strategy alone)', 0);
  t.same(await ok('GET', PLANS), [], 'no plan is left');

  const events = (await ok('GET', `/api/admin/events/${FLAG}`)).events.map((e: any) => e.type).reverse();
  t.same(events.filter((x: string) => x.startsWith('release-plan')), [
    'release-plan-added', 'release-plan-milestone-started', 'release-plan-milestone-started', 'release-plan-milestone-started',
    'release-plan-milestone-started', 'release-plan-milestone-started', 'release-plan-removed',
  ], 'the plan\'s events, in order');
});
