// What a server and a cluster node have and a relay has not: the admin API, the people who sign in
// to it, and webhooks. Both compositions call these; a relay neither loads this code nor compiles
// these schemas (a relay's memory is measured against a target: docs/performance.md), which is
// why the concepts below are imported when called.
import type { OidcSignIn } from '../concepts/people/oidc.js';
import type { PasswordHasher } from '../concepts/people/password-hasher.js';
import type { PeopleAuthenticator } from '../concepts/people/people-authenticator.js';
import type { SignInGuard } from '../concepts/people/sign-in-guard.js';
import { ensureFirstAdminToken } from '../concepts/tokens/seed.js';
import type { WebhookDeliverer } from '../concepts/webhooks/deliverer.js';
import type { WebhookLeadership } from '../concepts/webhooks/leadership.js';
import { OpenAuthenticator, type Authenticator } from '../core/access/access.js';
import type { Config } from '../core/config.js';
import type { Engine } from '../core/engine/engine.js';
import type { AppContext, RouteDef } from '../http/route.js';
import type { FanionDeps, Tokens } from './core.js';
import type { ProgressionScheduler } from '../concepts/release-plans/scheduler.js';
import type { SafeguardScheduler } from '../concepts/safeguards/scheduler.js';
import type { ChangeRequestScheduler } from '../concepts/change-requests/scheduler.js';

/**
 * Refuses a weak UNLEASH_DEFAULT_ADMIN_PASSWORD before anything is opened: the one check of the
 * people's settings, run by the compositions that have people.
 */
export async function checkAdminSettings(config: Config): Promise<void> {
  (await import('../concepts/people/seed.js')).checkDefaultAdminPassword(config);
}

/** The admin side's parts. */
/** How often due release plan progressions are looked for: they are counted in whole minutes. */
const PROGRESSION_CHECK_MS = 1_000;

export interface AdminSide {
  /** Who is calling: people (a session or a personal token) and API tokens, or anyone with AUTH_TYPE=none. */
  auth: Authenticator;
  /** Sessions and personal access tokens on top of API tokens (null with AUTH_TYPE=none). */
  people: PeopleAuthenticator | null;
  /** Single sign-on, when OIDC_ISSUER is set. */
  oidc: OidcSignIn | null;
  /** Password hashes, a bounded number at once. */
  passwords: PasswordHasher;
  /** Sign-in attempts per address and per account. */
  guard: SignInGuard;
  /** Webhooks: every durable event to the addons that want it. */
  webhooks: WebhookDeliverer;
  /** Release plan progressions: time as a change source, acted on by one node (the webhook leader). */
  progressions: ProgressionScheduler;
  /** Safeguards: fired by the same node, right after the impact metrics that cross their threshold are written. */
  safeguards: SafeguardScheduler;
  /** Scheduled change requests: applied (or suspended) by the same node, at their time. */
  schedules: ChangeRequestScheduler;
}

/**
 * People, sign-in limits and webhooks, on the engine. Webhooks read durable events from the log and
 * never hold up the change that made them; `leadership`, on a cluster, lets one node deliver.
 */
export async function openAdminSide(deps: FanionDeps, engine: Engine, { hasher, tokens }: Tokens, leadership?: WebhookLeadership): Promise<AdminSide> {
  const { config, log } = deps;
  const [deliverer, logic, sender, passwords, peopleCode, guard, scheduler, guards, crScheduler] = await Promise.all([
    import('../concepts/webhooks/deliverer.js'), import('../concepts/webhooks/logic.js'), import('../concepts/webhooks/sender.js'),
    import('../concepts/people/password-hasher.js'), import('../concepts/people/people-authenticator.js'), import('../concepts/people/sign-in-guard.js'),
    import('../concepts/release-plans/scheduler.js'), import('../concepts/safeguards/scheduler.js'), import('../concepts/change-requests/scheduler.js'),
  ]);
  // People sign in with a session cookie or act through personal tokens, beside API tokens.
  const people = config.authType === 'api-token' ? new peopleCode.PeopleAuthenticator(tokens, () => engine.state, hasher, config.signIn.sessionIdleMs) : null;
  // openid-client is loaded only when single sign-on is configured.
  const oidc = config.signIn.oidc && config.publicUrl ? new (await import('../concepts/people/oidc.js')).OidcSignIn(config.signIn.oidc, config.publicUrl, log) : null;
  const limits = logic.webhookLimits(config);
  const webhooks = new deliverer.WebhookDeliverer({
    engine, log, send: sender.httpSender(config.webhooks.timeoutMs, limits.destinations), leadership,
    options: { retryBaseMs: config.webhooks.retryBaseMs, retryMaxDelayMs: config.webhooks.retryMaxDelayMs, retryForMs: config.webhooks.retryForMs, template: limits.template },
  });
  engine.onChange((change, kind) => webhooks.onChange(change, kind));
  // Time-driven work (due milestones, safeguards, scheduled change requests) is done by the node
  // that delivers webhooks (every node, off a cluster).
  const ticking = { clock: deps.clock ?? (() => new Date()), checkMs: deps.progressionCheckMs ?? PROGRESSION_CHECK_MS, leads: () => !leadership || leadership.leading };
  const progressions = new scheduler.ProgressionScheduler(engine, ticking, log);
  progressions.start();
  const safeguards = new guards.SafeguardScheduler(engine, ticking, log);
  engine.onChange((change, kind) => safeguards.onChange(change, kind));
  safeguards.start();
  const schedules = new crScheduler.ChangeRequestScheduler(engine, ticking, log);
  engine.onChange((change, kind) => schedules.onChange(change, kind));
  schedules.start();
  return {
    progressions,
    safeguards,
    schedules,
    auth: people ?? new OpenAuthenticator(),
    people,
    oidc,
    webhooks,
    passwords: new passwords.PasswordHasher({ logN: config.signIn.passwordScryptLogN, concurrency: config.signIn.passwordHashConcurrency, queue: config.signIn.passwordHashQueue }),
    guard: new guard.SignInGuard({ perAddress: config.signIn.perAddress, perAccount: config.signIn.perAccount, entries: config.signIn.limiterEntries }),
  };
}

/**
 * The admin API (every route module that changes flags, and tokens, webhooks, people), before and
 * after the SDK-facing routes, in mounting order.
 */
export async function adminRoutes(ctx: AppContext, { hasher }: Tokens, side: AdminSide): Promise<{ before: RouteDef[]; after: RouteDef[] }> {
  const [features, strategies, strategyTypes, contextFields, projects, environments, segments, tags, variants, events, state, featuresBatch, tokens, addons, people, releasePlans, safeguards,
    playground, changeRequestConfig, changeRequests] =
    await Promise.all([
      import('../concepts/features/routes.js'), import('../concepts/strategies/routes.js'), import('../concepts/strategy-types/routes.js'), import('../concepts/context-fields/routes.js'),
      import('../concepts/projects/routes.js'), import('../concepts/environments/routes.js'), import('../concepts/segments/routes.js'), import('../concepts/tags/routes.js'),
      import('../concepts/variants/routes.js'), import('../concepts/events/routes.js'), import('../concepts/state-io/routes.js'), import('../concepts/features-batch/routes.js'),
      import('../concepts/tokens/routes.js'), import('../concepts/webhooks/routes.js'), import('../concepts/people/routes.js'),
      import('../concepts/release-plans/routes.js'), import('../concepts/safeguards/routes.js'), import('../concepts/playground/routes.js'),
      import('../concepts/change-requests/routes.js'), import('../concepts/change-requests/workflow-routes.js'),
    ]);
  const modules: ((ctx: AppContext) => RouteDef[])[] = [
    features.featureRoutes, strategies.strategyRoutes, strategyTypes.strategyTypeRoutes, contextFields.contextFieldRoutes, projects.projectRoutes,
    environments.environmentRoutes, segments.segmentRoutes, tags.tagRoutes, variants.variantRoutes, events.eventRoutes, state.stateRoutes,
    featuresBatch.featuresBatchRoutes, releasePlans.releasePlanRoutes, safeguards.safeguardRoutes, playground.playgroundRoutes,
    changeRequestConfig.changeRequestConfigRoutes,
    // After every other module: its `…/change-requests/:id` must not take their fixed paths.
    (c) => changeRequests.changeRequestWorkflowRoutes(c, changeRequests.workflowDeps(c.config)),
  ];
  return {
    before: [...modules.flatMap((m) => m(ctx)), ...tokens.tokenRoutes(hasher)(ctx)],
    after: [
      ...addons.addonRoutes(ctx, side.webhooks),
      // Sign-in and people.
      ...people.peopleRoutes(ctx, { people: side.people, passwords: side.passwords, hasher, guard: side.guard, oidc: side.oidc }),
    ],
  };
}

/**
 * The first admin token and the first Admin person, when none is usable yet. Called once the
 * routes are mounted, so a start that fails before that prints no secret for a process that died.
 */
export async function ensureFirstAdmins(deps: FanionDeps, engine: Engine, { hasher }: Tokens, side: AdminSide): Promise<void> {
  const { config, log } = deps;
  await ensureFirstAdminToken({ engine, config, hasher, log });
  await (await import('../concepts/people/seed.js')).ensureFirstAdmin({ engine, config, passwords: side.passwords, log });
}
