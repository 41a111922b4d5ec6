import { requireEnvironment } from '../../core/state/lookup.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { createEnvironment, deleteEnvironment, environmentView, sortedEnvironments, updateEnvironment, type EnvironmentInput } from './logic.js';
import { environmentReplies, environmentSchemas } from './schema.js';

const BASE = '/api/admin/environments';
const TAG = 'Environments';
const named = (p: Record<string, string>) => ({ environment: p.name });

/** Routes of `/api/admin/environments`: list, create, update, delete, sort, enable/disable. */
export function environmentRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(environmentSchemas);
  ctx.schemas.describe(environmentReplies);
  const { engine } = ctx;
  return [
    {
      method: 'GET', path: BASE, tag: TAG, summary: 'List environments in sort order', reply: environmentReplies.environmentsSchema, permission: 'READ',
      handler: () => ({ status: 200, body: { version: 1, environments: sortedEnvironments(engine.state).map(environmentView) } }),
    },
    {
      method: 'GET', path: `${BASE}/:name`, tag: TAG, summary: 'Get an environment', reply: environmentReplies.environmentSchema, permission: 'READ', scope: named,
      responses: { 200: 'The environment', 404: 'Unknown environment' },
      handler: ({ params }) => ({ status: 200, body: environmentView(requireEnvironment(engine.state, params.name)) }),
    },
    {
      method: 'POST', path: BASE, tag: TAG, summary: 'Create an environment; every flag gets a disabled configuration there', reply: environmentReplies.environmentSchema,
      body: environmentSchemas.createEnvironmentSchema, permission: 'CREATE_ENVIRONMENT',
      responses: { 201: 'Created', 400: 'Invalid or over the limit of 50', 409: 'Name taken' },
      handler: async ({ body, actor }) => ({ status: 201, body: environmentView(await engine.run(actor, createEnvironment(body as EnvironmentInput))) }),
    },
    {
      method: 'PUT', path: `${BASE}/update/:name`, tag: TAG, summary: "Change an environment's type or sort order", reply: environmentReplies.environmentSchema,
      body: environmentSchemas.updateEnvironmentSchema, permission: 'UPDATE_ENVIRONMENT', scope: named,
      responses: { 200: 'Updated', 400: 'Invalid', 403: 'Protected environment', 404: 'Unknown environment' },
      handler: async ({ params, body, actor }) => ({
        status: 200,
        body: environmentView(await engine.run(actor, updateEnvironment(params.name, body as Partial<EnvironmentInput>))),
      }),
    },
    {
      method: 'DELETE', path: `${BASE}/:name`, tag: TAG, summary: "Delete an environment with every flag's configuration and strategies there",
      permission: 'DELETE_ENVIRONMENT', scope: named,
      responses: { 200: 'Deleted', 403: 'Protected environment', 404: 'Unknown environment' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteEnvironment(params.name));
        return { status: 200 };
      },
    },
  ];
}
