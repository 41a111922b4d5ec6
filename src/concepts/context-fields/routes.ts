// /api/admin/context: context fields.
import type { AppContext, RouteDef } from '../../http/route.js';
import {
  allContextFields, checkFreeName, contextFieldView, createContextField, deleteContextField, requireContextField, updateContextField,
} from './logic.js';
import { contextFieldReplies, contextFieldSchemas, type ContextFieldInput } from './schema.js';

const BASE = '/api/admin/context';
const TAG = 'Context fields';

/** Routes of `/api/admin/context`: list, read, validate a name, create, update, delete. */
export function contextFieldRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(contextFieldSchemas);
  ctx.schemas.describe(contextFieldReplies);
  const { engine } = ctx;
  return [
    {
      method: 'GET', path: BASE, tag: TAG, summary: 'List context fields, built-in and custom', reply: contextFieldReplies.contextFieldsSchema, permission: 'READ',
      handler: () => ({ status: 200, body: allContextFields(engine.state).map(contextFieldView) }),
    },
    {
      method: 'POST', path: `${BASE}/validate`, tag: TAG, summary: 'Check that a context field name is valid and free',
      body: contextFieldSchemas.nameSchema, permission: 'READ', responses: { 200: 'Valid and free', 400: 'Invalid', 409: 'Taken' },
      handler: ({ body }) => {
        checkFreeName(engine.state, (body as { name: string }).name);
        return { status: 200 };
      },
    },
    {
      method: 'GET', path: `${BASE}/:name`, tag: TAG, summary: 'Get a context field', reply: contextFieldReplies.contextFieldSchema, permission: 'READ', responses: { 200: 'The field', 404: 'Unknown' },
      handler: ({ params }) => ({ status: 200, body: contextFieldView(requireContextField(engine.state, params.name)) }),
    },
    {
      method: 'POST', path: BASE, tag: TAG, summary: 'Create a context field', reply: contextFieldReplies.contextFieldSchema, body: contextFieldSchemas.createContextFieldSchema,
      permission: 'CREATE_CONTEXT_FIELD', responses: { 201: 'Created', 400: 'Invalid', 409: 'Name taken' },
      handler: async ({ body, actor }) => {
        const f = await engine.run(actor, createContextField(body as ContextFieldInput & { name: string }));
        return { status: 201, body: contextFieldView(f), headers: { Location: `${BASE}/${encodeURIComponent(f.name)}` } };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:name`, tag: TAG, summary: "Change a custom context field's description, legal values, stickiness or order", reply: contextFieldReplies.contextFieldSchema,
      body: contextFieldSchemas.updateContextFieldSchema, permission: 'UPDATE_CONTEXT_FIELD',
      responses: { 200: 'Updated', 400: 'Invalid', 403: 'Built-in', 404: 'Unknown' },
      handler: async ({ params, body, actor }) => ({ status: 200, body: contextFieldView(await engine.run(actor, updateContextField(params.name, body as ContextFieldInput))) }),
    },
    {
      method: 'DELETE', path: `${BASE}/:name`, tag: TAG, summary: 'Delete a custom context field', permission: 'DELETE_CONTEXT_FIELD',
      responses: { 200: 'Deleted', 403: 'Built-in', 404: 'Unknown' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteContextField(params.name));
        return { status: 200 };
      },
    },
  ];
}
