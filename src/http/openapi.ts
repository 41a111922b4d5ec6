// /api/openapi.json, built from the same route table and schema objects the server runs on: an
// OpenAPI 3.1 document (its schemas are JSON Schema, which 3.1 takes as they are), checked by a
// validator in test/http/openapi.test.ts.
import type { RouteDef } from './route.js';
import type { SchemaRegistry } from './validation.js';

/** Unleash's error body, which every 4xx and 5xx answer has. */
const ERROR_BODY = {
  type: 'object',
  required: ['id', 'name', 'message'],
  properties: {
    id: { type: 'string', description: 'Unique per answer: quote it when reporting a problem' },
    name: { type: 'string', description: 'The kind of error: ValidationError, AuthenticationRequired, NoAccessError, NotFoundError, …' },
    message: { type: 'string' },
    details: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
};

/** What /health answers while the server is up. */
const HEALTH = { type: 'object', required: ['health'], properties: { health: { const: 'GOOD' } } };

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });

/** Statuses every route may answer besides its own, with the error body. */
const COMMON_ERRORS: Record<string, string> = {
  401: 'No API token, or not a valid one',
  403: 'The token may not do this, or a browser on another site sent it',
  405: 'The path does not take this method',
};

/** The routes the server mounts outside the route table, described here by hand. */
const EXTRA_PATHS = {
  '/health': {
    get: {
      summary: 'Whether the server is up', tags: ['Operations'], security: [],
      responses: { 200: { description: 'Up', content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } } } },
    },
  },
  '/ready': {
    get: {
      summary: 'Whether the server is ready to serve: 503 (no body) while it starts (the data folder being replayed)', tags: ['Operations'], security: [],
      responses: {
        200: { description: 'Ready', content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } } },
        503: { description: 'Not ready yet; no body' },
      },
    },
  },
  '/api/openapi.json': {
    get: { summary: 'This document', tags: ['Operations'], security: [], responses: { 200: { description: 'The OpenAPI 3.1 description' } } },
  },
  '/docs/openapi': {
    get: { summary: 'Interactive documentation of this document (Swagger UI)', tags: ['Operations'], security: [], responses: { 200: { description: 'An HTML page' } } },
  },
};

/** A route with its own error bodies (OFREP): those, and 401/403 without a body; null otherwise. */
function protocolError(schemas: SchemaRegistry, r: RouteDef, code: string, description: string): unknown {
  if (!r.errorReply || code === '405') return null;
  if (code === '401' || code === '403') return { description };
  return { description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemas.nameOf(r.errorReply)}` } } } };
}

/** An OpenAPI 3.1 description built from the same route table and schemas the server uses. */
export function openApiDocument(routes: RouteDef[], schemas: SchemaRegistry): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const params = [...r.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const responses: Record<string, unknown> = {};
    for (const [code, description] of Object.entries(r.responses ?? { 200: 'OK' })) {
      if (Number(code) >= 400) responses[code] = protocolError(schemas, r, code, description) ?? errorResponse(description);
      else if (r.reply && Number(code) < 300 && Number(code) !== 204) responses[code] = { description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemas.nameOf(r.reply)}` } } } };
      else responses[code] = { description };
    }
    if (r.body && !responses['400']) responses['400'] = errorResponse('The body is not valid');
    for (const [code, description] of Object.entries(COMMON_ERRORS)) responses[code] ??= protocolError(schemas, r, code, description) ?? errorResponse(description);
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      operationId: `${r.method.toLowerCase()} ${r.path}`,
      summary: r.summary,
      tags: [r.tag],
      parameters: params,
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemas.nameOf(r.body)}` } } } } } : {}),
      responses,
      ...(r.permission ? { 'x-permission': r.permission } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Fanion', version: '1', description: 'Unleash-compatible feature toggle server' },
    // Every route takes an API token in the Authorization header (as is, or after "Bearer ").
    security: [{ apiToken: [] }],
    paths: { ...paths, ...EXTRA_PATHS },
    components: {
      securitySchemes: { apiToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An API token: admin for /api/admin, client for /api/client' } },
      schemas: { ...Object.fromEntries(schemas.schemas), ErrorBody: ERROR_BODY, Health: HEALTH },
    },
  };
}
