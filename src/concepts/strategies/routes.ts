import type jsonPatch from 'fast-json-patch';
import { applyPatch } from '../../http/patch.js';
import { requireFeature, requireFeatureEnv } from '../../core/state/lookup.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { strategiesOf } from '../../core/state/state.js';
import {
  addStrategy, copyEnvironment, deleteStrategy, requireStrategy, setSortOrder, strategyView, updateStrategy, type StrategyInput, type Where,
} from './logic.js';
import { strategyReplies, strategySchemas } from './schema.js';
import { jsonPatchSchema } from '../../http/patch.js';

const BASE = '/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies';
const TAG = 'Strategies';

const where = (p: Record<string, string>): Where => ({ project: p.projectId, feature: p.featureName, environment: p.environment });
const scope = (p: Record<string, string>) => ({ project: p.projectId, environment: p.environment });

/** Routes of a flag's strategies in one environment, and of strategy types. */
export function strategyRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(strategySchemas);
  ctx.schemas.describe(strategyReplies);
  ctx.schemas.add('patchesSchema', jsonPatchSchema);
  const { engine } = ctx;
  return [
    {
      method: 'POST', path: BASE, tag: TAG, summary: 'Add a strategy to a flag in an environment', reply: strategyReplies.featureStrategySchema,
      body: strategySchemas.createFeatureStrategySchema, permission: 'CREATE_FEATURE_STRATEGY', scope,
      responses: { 200: 'The created strategy', 400: 'Invalid strategy', 404: 'Unknown project, flag or environment', 415: 'Not JSON' },
      handler: async ({ params, body, actor }) => ({ status: 200, body: await engine.run(actor, addStrategy(where(params), body as StrategyInput)) }),
    },
    {
      method: 'GET', path: BASE, tag: TAG, summary: "List a flag's strategies in an environment", reply: strategyReplies.featureStrategiesSchema, permission: 'READ', scope,
      handler: ({ params }) => {
        const w = where(params);
        const feature = requireFeature(engine.state, w.project, w.feature);
        requireFeatureEnv(engine.state, feature, w.environment);
        return { status: 200, body: strategiesOf(engine.state, w.feature, w.environment).map(strategyView) };
      },
    },
    {
      method: 'POST', path: `${BASE}/set-sort-order`, tag: TAG, summary: 'Set the order of strategies',
      body: strategySchemas.setStrategySortOrderSchema, permission: 'UPDATE_FEATURE_STRATEGY', scope,
      handler: async ({ params, body, actor }) => {
        await engine.run(actor, setSortOrder(where(params), body as { id: string; sortOrder: number }[]));
        return { status: 200 };
      },
    },
    {
      // Path's environment is the target, so the permission, the environment limit and the change-request gate are the target's.
      method: 'POST', path: BASE.replace(/\/strategies$/, '/copy'), tag: TAG, summary: "Copy a flag's strategies (in order) and variants from another environment into this one",
      body: strategySchemas.copyEnvironmentSchema, reply: strategyReplies.copiedEnvironmentSchema, permission: 'CREATE_FEATURE_STRATEGY', scope,
      responses: { 200: 'What was added, and the variants set (null: the source had none)', 400: 'The same environment, nothing to copy, or past the strategy limit', 404: 'Unknown project, flag or environment' },
      handler: async ({ params, body, actor }) => ({ status: 200, body: await engine.run(actor, copyEnvironment(where(params), (body as { from: string }).from)) }),
    },
    {
      method: 'GET', path: `${BASE}/:strategyId`, tag: TAG, summary: 'Get one strategy', reply: strategyReplies.featureStrategySchema, permission: 'READ', scope,
      handler: ({ params }) => {
        const w = where(params);
        const feature = requireFeature(engine.state, w.project, w.feature);
        requireFeatureEnv(engine.state, feature, w.environment);
        return { status: 200, body: strategyView(requireStrategy(engine.state, w, params.strategyId)) };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:strategyId`, tag: TAG, summary: 'Update a strategy', reply: strategyReplies.featureStrategySchema,
      body: strategySchemas.updateFeatureStrategySchema, permission: 'UPDATE_FEATURE_STRATEGY', scope,
      handler: async ({ params, body, actor }) => ({
        status: 200,
        body: await engine.run(actor, updateStrategy(where(params), params.strategyId, body as StrategyInput)),
      }),
    },
    {
      method: 'PATCH', path: `${BASE}/:strategyId`, tag: TAG, summary: 'Change a strategy with JSON Patch', reply: strategyReplies.featureStrategySchema,
      body: jsonPatchSchema, permission: 'UPDATE_FEATURE_STRATEGY', scope,
      handler: async ({ params, body, actor }) => {
        const w = where(params);
        const feature = requireFeature(engine.state, w.project, w.feature);
        requireFeatureEnv(engine.state, feature, w.environment);
        const current = strategyView(requireStrategy(engine.state, w, params.strategyId));
        const patched = applyPatch(current, body as jsonPatch.Operation[]);
        const { id: _id, featureName: _f, ...rest } = patched as Record<string, unknown>;
        const input = ctx.schemas.check<StrategyInput>(strategySchemas.updateFeatureStrategySchema, rest);
        return { status: 200, body: await engine.run(actor, updateStrategy(w, params.strategyId, input)) };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:strategyId`, tag: TAG, summary: 'Delete a strategy', permission: 'DELETE_FEATURE_STRATEGY', scope,
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteStrategy(where(params), params.strategyId));
        return { status: 200 };
      },
    },
  ];
}

