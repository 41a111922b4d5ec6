// A known path with the wrong method is a 405 with an Allow header and the usual error body;
// an unknown path stays a 404. Every path of the OpenAPI document is tried with a method it lacks.
import t from 'tap';
import { serve } from '../helpers/server.js';

t.test('wrong method on a known path: 405, Allow, {id, name, message}', async (t) => {
  const { api } = await serve(t);
  const spec = (await api('GET', '/api/openapi.json')).json;
  const templates = Object.entries<Record<string, unknown>>(spec.paths).map(([p, methods]) => ({
    re: new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}$`),
    methods: Object.keys(methods).map((m) => m.toUpperCase()),
  }));
  const wrong: string[] = [];
  let tried = 0;
  for (const p of Object.keys(spec.paths)) {
    const url = p.replace(/\{(\w+)\}/g, 'x');
    // Every method some route answers on this URL (a literal segment may also fit a parameter).
    const has = [...new Set(templates.filter((tpl) => tpl.re.test(url)).flatMap((tpl) => tpl.methods))];
    const missing = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => !has.includes(m));
    if (!missing) continue;
    tried++;
    const res = await api(missing, url);
    const allow = (res.headers.get('allow') ?? '').split(', ');
    const fine = res.status === 405 && res.json?.name === 'MethodNotAllowedError' && typeof res.json.id === 'string' && has.every((m) => allow.includes(m));
    if (!fine) wrong.push(`${missing} ${url} → ${res.status} allow=${res.headers.get('allow')} ${res.text.slice(0, 80)}`);
  }
  t.ok(tried > 40, `${tried} paths tried`);
  t.same(wrong, [], 'each is a 405 whose Allow lists every method the path has');

  const health = await api('PUT', '/health');
  t.same([health.status, health.headers.get('allow')], [405, 'GET, HEAD']);
  t.match(health.json.message, /PUT is not allowed on \/health; use GET, HEAD/);
  t.equal((await api('GET', '/no/such/path')).status, 404, 'an unknown path is still a 404');
  const secret = await api('PATCH', '/api/admin/api-tokens/some-secret-value');
  t.equal(secret.status, 405);
  t.notMatch(secret.text, /some-secret-value/, 'a secret in the path is not echoed');
});
