// /api/openapi.json is a valid OpenAPI 3.1 document (checked by a maintained validator), with one
// entry per route the server answers, unique path templates, the error body on error answers and
// a security scheme for the Authorization token.
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { serve } from '../helpers/server.js';

t.test('the OpenAPI document validates and describes every route', async (t) => {
  const { api } = await serve(t);
  const spec = (await api('GET', '/api/openapi.json')).json;
  t.equal(spec.openapi, '3.1.0');
  const result = await new Validator().validate(structuredClone(spec));
  t.ok(result.valid, `valid OpenAPI 3.1${result.valid ? '' : `: ${JSON.stringify(result.errors).slice(0, 600)}`}`);
  const broken = structuredClone(spec);
  broken.paths['/health'].get.responses = 'none';
  t.notOk((await new Validator().validate(broken)).valid, 'the validator does refuse a broken document');

  const templates = Object.keys(spec.paths).map((p) => p.replace(/\{[^}]+\}/g, '{}'));
  t.equal(new Set(templates).size, templates.length, 'no path template appears twice');
  t.ok(spec.paths['/health']?.get, '/health is described');
  t.same(spec.components.securitySchemes.apiToken, { type: 'apiKey', in: 'header', name: 'Authorization', description: spec.components.securitySchemes.apiToken.description });
  let operations = 0;
  for (const [p, methods] of Object.entries<Record<string, any>>(spec.paths)) {
    for (const [m, op] of Object.entries<any>(methods)) {
      operations++;
      for (const [code, r] of Object.entries<any>(op.responses)) {
        if (Number(code) >= 400) t.equal(r.content?.['application/json']?.schema?.$ref, '#/components/schemas/ErrorBody', `${m} ${p} ${code} has the error body`);
      }
      if (op.requestBody) t.ok(spec.components.schemas[op.requestBody.content['application/json'].schema.$ref.split('/').pop()], `${m} ${p}: its body schema is there`);
    }
  }
  t.ok(operations > 80, `${operations} operations`);
  // A route the document describes answers; one it does not is a 404.
  t.equal((await api('GET', '/api/admin/strategies')).status, 200);
});
