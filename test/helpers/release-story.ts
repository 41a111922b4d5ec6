// The story of a release that watches itself (docs/guides/releasing.md), told to a server or a
// cluster by test/story: the built-in template applied to a flag's production environment, the
// official Node SDK seeing milestone 1, a progression moving the plan to milestone 2 when the
// processes' shared clock (clock.ts) passes its minute, the SDK's error counter crossing a
// safeguard's threshold, and the SDK seeing the flag off. What the story returns is checked by the
// caller: the events and what the webhook receiver got.
import type { Test } from 'tap';
import type { Unleash } from 'unleash-client';
import type { SharedClock } from './clock.js';
import { type Receiver, sleep, until, webhook } from './receiver.js';
import { postedAt } from './safeguard-timing.js';
import { client, succeeding } from './server.js';
import { syncedSdk } from './unleash-sdk.js';

export const STORY_ADMIN = '*:*.story-admin';
export const STORY_CLIENT = '*:production.story-client';
/** The settings every process of the story needs (with RECEIVERS_ALLOWED). */
export const STORY_ENV = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: STORY_ADMIN, INIT_CLIENT_API_TOKENS: STORY_CLIENT };
export const FLAG = 'new-checkout';
const APP = 'checkout-web';
const METRIC = 'checkout_errors';
const ENV = `/api/admin/projects/default/features/${FLAG}/environments/production`;
const MINUTE = 60_000;
/** How long after its interval a due progression may take: the 1 s look, a write, and the SDK's 100 ms poll. */
const DUE_WITHIN_MS = 10_000;
const USERS = Array.from({ length: 1000 }, (_, i) => `user-${i}`);
/** The events the story is about, and that the webhook is asked for. */
export const STORY_EVENTS = ['release-plan-milestone-started', 'safeguard-triggered'];

export interface Stage {
  /** The server or node the admin calls go to now (a cluster's may change after a kill). */
  adminUrl: () => string;
  /** Where the SDK polls and posts its metrics. */
  sdkUrl: string;
  clock: SharedClock;
  receiver: Receiver;
  /** Runs after the plan is applied and the SDK saw milestone 1, before the progression is due. */
  midway?: () => Promise<void>;
}

export interface Told {
  planId: string;
  milestones: string[];
  /** The story's events as GET /api/admin/events lists them, oldest first. */
  events: { id: number; type: string; data: any }[];
}

/** The share of USERS the SDK enables the flag for. */
const share = (u: Unleash) => USERS.filter((userId) => u.isEnabled(FLAG, { userId })).length / USERS.length;

/** Tells the story; each step is asserted on `t`. */
export async function tellReleaseStory(t: Test, stage: Stage): Promise<Told> {
  const ok = succeeding(() => client(stage.adminUrl(), { authorization: STORY_ADMIN }));
  await ok('POST', '/api/admin/addons', webhook(stage.receiver.url, { events: STORY_EVENTS }));
  await ok('POST', '/api/admin/projects/default/features', { name: FLAG });

  const builtin = (await ok('GET', '/api/admin/release-plan-templates')).find((x: any) => x.name === 'Gradual rollout');
  t.ok(builtin, 'the built-in template is there');
  const plan = await ok('POST', `${ENV}/release-plans`, { templateId: builtin.id });
  const milestones: string[] = plan.milestones.map((m: any) => m.id);
  const [m1, m2, m3] = milestones;
  t.equal(plan.activeMilestoneId, null, 'applied while production is off: nothing started yet');
  await ok('PUT', `${ENV}/progressions/${m1}`, { targetMilestone: m2, transitionCondition: { intervalMinutes: 1 } });
  // Milestone 2 hands over to 3 after an hour: nothing in the story may reach it.
  await ok('PUT', `${ENV}/progressions/${m2}`, { targetMilestone: m3, transitionCondition: { intervalMinutes: 60 } });
  await ok('PUT', `${ENV}/safeguards`, {
    impactMetric: { metricName: METRIC, timeRange: 'hour', aggregationMode: 'count', labelSelectors: { appName: [APP] } },
    triggerCondition: { operator: '>', threshold: 5 },
  });
  const current = () => ok('GET', `${ENV}/release-plans/${plan.id}`);
  const active = async () => (await current()).activeMilestoneId as string;
  // Switched on with a plan, production serves milestone 1 and no 100 % default strategy beside it.
  await ok('POST', `${ENV}/on`);
  const started = await current();
  t.equal(started.activeMilestoneId, m1, 'production switched on: milestone 1 started');

  const sdk = await syncedSdk(t, stage.sdkUrl, { token: STORY_CLIENT, refreshInterval: 100, metricsInterval: 200, appName: APP });
  sdk.impactMetrics.defineCounter(METRIC, 'Failed checkouts');
  const sees = (what: string, expected: number) =>
    until(`the SDK to see ${what}`, () => Math.abs(share(sdk) - expected) <= 0.05, DUE_WITHIN_MS).then(() => t.pass(`the SDK sees ${what} (${(share(sdk) * 100).toFixed(1)} %)`));
  await sees('milestone 1 (25 %)', 0.25);

  if (stage.midway) await stage.midway();

  // Ten seconds short of the interval (on the processes' clock), nothing moves after a look or
  // two (every second); past it, milestone 2 starts. The margin holds on a loaded machine.
  const startedAt = Date.parse(started.milestones[0].startedAt);
  await stage.clock.advance(startedAt + MINUTE - 10_000 - (Date.now() + stage.clock.offsetMs));
  await sleep(1_500);
  t.equal(await active(), m1, 'seconds before the interval is up, milestone 1 is still active');
  t.ok(Math.abs(share(sdk) - 0.25) <= 0.05, 'and the SDK still sees 25 %');
  await stage.clock.advance(10_000);
  await sees('milestone 2 (50 %) after the progression', 0.5);
  t.equal(await active(), m2, 'the plan is at milestone 2');

  // Errors under the threshold change nothing; the post that crosses it turns the flag off.
  const under = postedAt(sdk, METRIC, 3);
  sdk.impactMetrics.incrementCounter(METRIC, 3);
  await under;
  await sleep(1_500);
  t.ok(share(sdk) > 0.4, '3 errors (threshold 5): the flag stays on for the SDK');
  const over = postedAt(sdk, METRIC, 3);
  sdk.impactMetrics.incrementCounter(METRIC, 3);
  const postAnswered = await over;
  await until('the SDK to see the flag off', () => share(sdk) === 0, DUE_WITHIN_MS);
  t.pass(`the SDK sees the flag off for everyone ${Date.now() - postAnswered} ms after its post carried 6 errors`);

  // Long enough for a second actor, or a second look, to have written anything twice.
  await sleep(3_000);
  const listed = (await ok('GET', '/api/admin/events')).events as any[];
  const events = listed.filter((e) => e.featureName === FLAG && STORY_EVENTS.includes(e.type)).reverse();
  t.same(events.map((e) => [e.type, e.data.milestoneId ?? e.data.metricName]), [
    ['release-plan-milestone-started', m1], ['release-plan-milestone-started', m2], ['safeguard-triggered', METRIC],
  ], 'milestone 1 started, milestone 2 started, the safeguard fired: each once');
  t.match(events[2], { createdBy: 'fanion', environment: 'production', data: { metricName: METRIC, value: 6, threshold: 5, operator: '>' } }, 'the safeguard names its metric, value and threshold');
  t.match(events[1], { createdBy: 'fanion', data: { releasePlanId: plan.id, milestoneId: m2, progression: true } }, 'milestone 2 was started by the progression');
  const after = await ok('GET', `/api/admin/projects/default/features/${FLAG}`);
  t.equal(after.environments.find((e: any) => e.name === 'production').enabled, false, 'production is off');
  const end = await current();
  t.equal(end.activeMilestoneId, m2, 'the plan stays at milestone 2');
  t.type(end.milestones[1].pausedAt, 'string', 'paused with its environment: its next progression does not count on');
  return { planId: plan.id, milestones, events };
}

/** The bodies the receiver got, each with its delivery id. */
export function deliveries(receiver: Receiver): { id: number; type: string; delivery: string }[] {
  return receiver.received.map((r) => {
    const body = JSON.parse(r.body);
    return { id: body.id as number, type: body.type as string, delivery: String(r.headers['x-fanion-delivery']) };
  });
}
