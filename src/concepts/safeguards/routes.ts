import type { AppContext, RouteDef } from '../../http/route.js';
import { requireFeature, requireFeatureEnv } from '../../core/state/lookup.js';
import { requirePlan } from '../release-plans/logic.js';
import { FLAG_ENV, planScope, where } from '../release-plans/routes.js';
import { deleteSafeguard, environmentSafeguards, planSafeguards, putEnvironmentSafeguard, putPlanSafeguard, type SafeguardInput } from './logic.js';
import { safeguardReplies, safeguardSchemas } from './schema.js';

const PLAN = `${FLAG_ENV}/release-plans/:planId`;
const TAG = 'Safeguards';
/** A safeguard acts on its flag's environment: whoever may switch it may set its safeguards (as for plans). */
const scope = planScope;

/**
 * Safeguards on a flag's environment (they switch it off) and on the release plan there (they
 * pause its progressions), on Unleash's routes.
 */
export function safeguardRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(safeguardSchemas);
  ctx.schemas.describe(safeguardReplies);
  const { engine } = ctx;
  const flagEnv = (p: Record<string, string>) => {
    const w = where(p);
    requireFeatureEnv(engine.state, requireFeature(engine.state, w.project, w.feature), w.environment);
    return w;
  };
  const put = { 204: 'Kept', 400: 'Invalid, or over the limit', 404: 'Unknown flag, environment, plan or safeguard' };
  const del = { 204: 'Removed', 404: 'Unknown flag, environment, plan or safeguard' };
  return [
    {
      method: 'GET', path: `${FLAG_ENV}/safeguards`, tag: TAG, summary: "List the safeguards that switch a flag's environment off", reply: safeguardReplies.safeguardsReply, permission: 'READ', scope,
      handler: ({ params }) => ({ status: 200, body: environmentSafeguards(engine.state, flagEnv(params)) }),
    },
    {
      method: 'PUT', path: `${FLAG_ENV}/safeguards`, tag: TAG, summary: "Add (or, with its id, replace) a safeguard that switches the flag's environment off",
      body: safeguardSchemas.safeguardSchema, permission: 'UPDATE_FEATURE_ENVIRONMENT', scope, responses: put,
      handler: async ({ params, body, actor }) => {
        await engine.run(actor, putEnvironmentSafeguard(where(params), body as SafeguardInput));
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${FLAG_ENV}/safeguards/:safeguardId`, tag: TAG, summary: "Remove a safeguard of a flag's environment", permission: 'UPDATE_FEATURE_ENVIRONMENT', scope, responses: del,
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteSafeguard(where(params), null, params.safeguardId));
        return { status: 204 };
      },
    },
    {
      method: 'GET', path: `${PLAN}/safeguards`, tag: TAG, summary: "List the safeguards that pause a release plan's progressions", reply: safeguardReplies.safeguardsReply, permission: 'READ', scope,
      handler: ({ params }) => ({ status: 200, body: planSafeguards(engine.state, requirePlan(engine.state, where(params), params.planId).plan) }),
    },
    {
      method: 'PUT', path: `${PLAN}/safeguards`, tag: TAG, summary: "Add (or, with its id, replace) a safeguard that pauses the release plan's progressions",
      body: safeguardSchemas.safeguardSchema, permission: 'UPDATE_FEATURE_ENVIRONMENT', scope, responses: put,
      handler: async ({ params, body, actor }) => {
        await engine.run(actor, putPlanSafeguard(where(params), params.planId, body as SafeguardInput));
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${PLAN}/safeguards/:safeguardId`, tag: TAG, summary: 'Remove a safeguard of a release plan', permission: 'UPDATE_FEATURE_ENVIRONMENT', scope, responses: del,
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteSafeguard(where(params), params.planId, params.safeguardId));
        return { status: 204 };
      },
    },
  ];
}
