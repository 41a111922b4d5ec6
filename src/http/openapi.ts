// /api/openapi.json, built from the same route table and schema objects the server runs on.
import type { RouteDef } from './route.js';
import type { SchemaRegistry } from './validation.js';

/** An OpenAPI 3 description built from the same route table and schemas the server uses. */
export function openApiDocument(routes: RouteDef[], schemas: SchemaRegistry): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const params = [...r.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      summary: r.summary,
      tags: [r.tag],
      parameters: params,
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemas.nameOf(r.body)}` } } } } } : {}),
      responses: Object.fromEntries(
        Object.entries(r.responses ?? { 200: 'OK' }).map(([code, description]) => [code, { description }]),
      ),
      ...(r.permission ? { 'x-permission': r.permission } : {}),
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Fanion', version: '1', description: 'Unleash-compatible feature toggle server' },
    paths,
    components: { schemas: Object.fromEntries(schemas.schemas) },
  };
}
