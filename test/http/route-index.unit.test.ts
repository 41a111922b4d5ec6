// indexRoutes: polka's route lookup restricted to the routes that can match must find exactly
// what the full lookup finds (same handlers in the same order, same params).
import polka from 'polka';
import t from 'tap';
import { indexRoutes } from '../../src/http/route-index.js';

const PATHS = [
  '/',
  '/ui/:file',
  '/health',
  '/api/openapi.json',
  '/api/admin/projects/:projectId/features',
  '/api/admin/projects/:projectId/features/:featureName',
  '/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies',
  '/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId',
  '/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/set-sort-order',
  '/api/admin/a-b_c/:x',
  '/api/admin/:a/:b/:c',
];
const URLS = [
  '/health', '/health/', '/HEALTH', '/api/openapi.json', '/api/openapi/json', '/api/openapiXjson',
  '/api/admin/projects/default/features', '/api/admin/projects/default/features/', '/API/Admin/projects/default/FEATURES',
  '/api/admin/projects/default/features/x', '/api/admin/projects/default/features/x/environments/dev/strategies',
  '/api/admin/projects/default/features/x/environments/dev/strategies/abc',
  '/api/admin/projects/default/features/x/environments/dev/strategies/set-sort-order',
  '/api/admin/projects//features', '/', '//', '/ui/app.js', '/ui/', '/ui', '/api/admin/a-b_c/%41', '/nothing/here', '/api/admin/a/b/c/', '/api/admin/a/b/c//',
];

/** A handler that says which route it belongs to. */
const named = (name: string) => Object.assign(() => {}, { routeName: name });

function table() {
  const app = polka();
  PATHS.forEach((p, i) => {
    app.get(p, named(`get ${i}`));
    if (i % 2 === 0) app.post(p, named(`post ${i}`));
  });
  return app;
}

const show = (app: ReturnType<typeof polka>, method: 'GET' | 'POST' | 'HEAD' | 'PUT', url: string) => {
  const found = app.find(method, url);
  return { params: found.params, handlers: found.handlers.map((h) => (h as unknown as { routeName: string }).routeName) };
};

t.test('the indexed lookup finds what the full lookup finds, for every method and path shape', async (t) => {
  const full = table();
  const indexed = table();
  indexRoutes(indexed);
  for (const url of URLS) {
    for (const method of ['GET', 'POST', 'HEAD', 'PUT'] as const) {
      t.same(show(indexed, method, url), show(full, method, url), `${method} ${url}`);
    }
  }
  t.same(show(indexed, 'GET', '/api/admin/projects/p1/features/f1').params, { projectId: 'p1', featureName: 'f1' }, 'params are filled in');
});

t.test('routes added after indexing are found too', async (t) => {
  const app = table();
  indexRoutes(app);
  t.same(show(app, 'GET', '/late/route').handlers, [], 'not there yet');
  app.get('/late/:name', named('late'));
  t.same(show(app, 'GET', '/late/route'), { params: { name: 'route' }, handlers: ['late'] });
});
