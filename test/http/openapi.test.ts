// /api/openapi.json is a valid OpenAPI 3.1 document (checked by a maintained validator), with one
// entry per route the server answers, unique path templates, the error body on error answers and
// a security scheme for the Authorization token.
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { checkReply } from '../helpers/reply-check.js';
import { serve } from '../helpers/server.js';

t.test('the OpenAPI document validates and describes every route', async (t) => {
  const { srv, api } = await serve(t);
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
  let answered = 0;
  for (const [p, methods] of Object.entries<Record<string, any>>(spec.paths)) {
    for (const [m, op] of Object.entries<any>(methods)) {
      operations++;
      for (const [code, r] of Object.entries<any>(op.responses)) {
        if (Number(code) >= 400) {
          const ref = r.content?.['application/json']?.schema?.$ref;
          // OFREP has its own error body, and none on 401/403.
          // /ready's 503 has no body at all, as Unleash's has none.
          if (p === '/ready' && code === '503') t.equal(r.content, undefined, 'get /ready 503 has no body');
          else if (p.startsWith('/ofrep/')) t.ok(ref === '#/components/schemas/ofrepErrorSchema' || (ref === undefined && ['401', '403'].includes(code)) || (code === '405' && ref === '#/components/schemas/ErrorBody'), `${m} ${p} ${code} has OFREP's error body`);
          else t.equal(ref, '#/components/schemas/ErrorBody', `${m} ${p} ${code} has the error body`);
        }
      }
      if (op.requestBody) t.ok(spec.components.schemas[op.requestBody.content['application/json'].schema.$ref.split('/').pop()], `${m} ${p}: its body schema is there`);
      for (const [code, r] of Object.entries<any>(op.responses)) {
        const ref = r.content?.['application/json']?.schema?.$ref;
        if (Number(code) < 300 && ref) {
          answered++;
          t.ok(spec.components.schemas[ref.split('/').pop()], `${m} ${p} ${code}: its answer schema is there`);
        }
      }
    }
  }
  t.ok(operations > 80, `${operations} operations`);
  t.ok(answered >= 60, `${answered} answers with a body have a schema`);

  // Every answer a test gets through client() is checked against these schemas (helpers/reply-check.ts):
  // the check does refuse what a route does not send.
  await t.rejects(checkReply(srv.url, 'GET', '/api/admin/strategies', 200, { version: 1, strategies: [{ name: 'x' }] }), /does not match/);
  await t.rejects(checkReply(srv.url, 'POST', '/api/admin/context/validate', 200, { surprise: true }), /describes none/);
  await t.rejects(checkReply(srv.url, 'GET', '/api/admin/projects', 404, { message: 'no id nor name' }), /ErrorBody/);
  await t.resolves(checkReply(srv.url, 'GET', '/api/admin/projects/default', 404, { id: 'x', name: 'NotFoundError', message: 'gone' }));
  // A route the document describes answers; one it does not is a 404.
  t.equal((await api('GET', '/api/admin/strategies')).status, 200);
});

t.test('interactive documentation at /docs/openapi, from node_modules, nothing else served', async (t) => {
  const { srv, api } = await serve(t);
  const page = await fetch(`${srv.url}/docs/openapi`);
  const html = await page.text();
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.notMatch(html, /https?:\/\//, 'nothing is loaded from another site');
  // A page that takes an admin token: only this server's scripts, and never inside another site's frame.
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'self'/, 'a Content-Security-Policy');
  t.match(csp, /script-src 'self'(;|$)/, 'no inline or foreign script');
  t.match(csp, /frame-ancestors 'none'/, 'not framed (CSP)');
  t.equal(page.headers.get('x-frame-options'), 'DENY', 'not framed (older browsers)');
  const scripts = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  t.same(scripts.sort(), ['/docs/openapi/favicon-32x32.png', '/docs/openapi/init.js', '/docs/openapi/swagger-ui-bundle.js', '/docs/openapi/swagger-ui-standalone-preset.js', '/docs/openapi/swagger-ui.css'].sort());
  for (const s of scripts) {
    const res = await fetch(srv.url + s);
    const body = Buffer.from(await res.arrayBuffer());
    t.equal(res.status, 200, `${s} is served`);
    t.equal(res.headers.get('x-content-type-options'), 'nosniff');
    t.ok(body.length > 20, `${s}: ${body.length} bytes`);
  }
  t.match(await (await fetch(`${srv.url}/docs/openapi/init.js`)).text(), /url: '\/api\/openapi\.json'/, 'it shows this server\'s document');
  for (const other of ['/docs/openapi/package.json', '/docs/openapi/index.html', '/docs/openapi/..%2F..%2Fpackage.json', '/docs/openapi/swagger-ui-bundle.js.map']) {
    t.equal((await api('GET', other)).status, 404, `${other} is not served`);
  }
});
