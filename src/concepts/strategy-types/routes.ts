// /api/admin/strategies: strategy types (built-in and custom).
import type { AppContext, RouteDef } from '../../http/route.js';
import {
  createStrategyType, deleteStrategyType, requireStrategyType, setDeprecated, strategyTypeView, updateStrategyType,
} from './logic.js';
import { strategyTypeReplies, strategyTypeSchemas, type StrategyTypeInput } from './schema.js';

const BASE = '/api/admin/strategies';
const TAG = 'Strategy types';

/** Routes of `/api/admin/strategies`: list, read, create, update, delete, deprecate, reactivate. */
export function strategyTypeRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(strategyTypeSchemas);
  ctx.schemas.describe(strategyTypeReplies);
  const { engine } = ctx;
  const toggle = (deprecated: boolean): RouteDef => ({
    method: 'POST', path: `${BASE}/:name/${deprecated ? 'deprecate' : 'reactivate'}`, tag: TAG, anyContentType: true,
    summary: deprecated ? 'Deprecate a strategy type (flags keep using it)' : 'Reactivate a deprecated strategy type',
    permission: 'UPDATE_STRATEGY', responses: { 200: 'Done', 403: 'The default strategy type', 404: 'Unknown strategy type' },
    handler: async ({ params, actor }) => {
      await engine.run(actor, setDeprecated(params.name, deprecated));
      return { status: 200 };
    },
  });
  return [
    {
      method: 'GET', path: BASE, tag: TAG, summary: 'List strategy types, built-in and custom', reply: strategyTypeReplies.strategyTypesSchema, permission: 'READ',
      handler: () => ({ status: 200, body: { version: 1, strategies: [...engine.state.strategyTypes.values()].map(strategyTypeView) } }),
    },
    {
      method: 'GET', path: `${BASE}/:name`, tag: TAG, summary: 'Get a strategy type', reply: strategyTypeReplies.strategyTypeSchema, permission: 'READ', responses: { 200: 'The type', 404: 'Unknown' },
      handler: ({ params }) => ({ status: 200, body: strategyTypeView(requireStrategyType(engine.state, params.name)) }),
    },
    {
      method: 'POST', path: BASE, tag: TAG, summary: 'Create a custom strategy type', reply: strategyTypeReplies.strategyTypeSchema, body: strategyTypeSchemas.createStrategySchema,
      permission: 'CREATE_STRATEGY', responses: { 201: 'Created', 400: 'Invalid', 409: 'Name taken' },
      handler: async ({ body, actor }) => {
        const t = await engine.run(actor, createStrategyType(body as StrategyTypeInput & { name: string }));
        return { status: 201, body: strategyTypeView(t), headers: { Location: `${BASE}/${encodeURIComponent(t.name)}` } };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:name`, tag: TAG, summary: "Change a custom strategy type's description and parameters", reply: strategyTypeReplies.strategyTypeSchema,
      body: strategyTypeSchemas.updateStrategySchema, permission: 'UPDATE_STRATEGY',
      responses: { 200: 'Updated', 400: 'Invalid', 403: 'Built-in', 404: 'Unknown' },
      handler: async ({ params, body, actor }) => ({ status: 200, body: strategyTypeView(await engine.run(actor, updateStrategyType(params.name, body as StrategyTypeInput))) }),
    },
    {
      method: 'DELETE', path: `${BASE}/:name`, tag: TAG, summary: 'Delete a custom strategy type no flag uses', permission: 'DELETE_STRATEGY',
      responses: { 200: 'Deleted', 403: 'Built-in, or used by a flag', 404: 'Unknown' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteStrategyType(params.name));
        return { status: 200 };
      },
    },
    toggle(true),
    toggle(false),
  ];
}
