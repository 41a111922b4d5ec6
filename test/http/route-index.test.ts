// Router: polka apps per path length must find exactly what one polka app with every route finds
// (same handlers in the same order, same params), and answer requests the same.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import polka, { type Middleware } from 'polka';
import t from 'tap';
import { Router, segmentsOfPattern, type Routes } from '../../src/http/route-index.js';

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

function table<R extends Routes>(app: R): R {
  PATHS.forEach((p, i) => {
    app.get(p, named(`get ${i}`));
    if (i % 2 === 0) app.post(p, named(`post ${i}`));
  });
  return app;
}

type Finder = { find(method: 'GET' | 'POST' | 'HEAD' | 'PUT', url: string): { params: Record<string, string>; handlers: unknown[] } };
const show = (app: Finder, method: 'GET' | 'POST' | 'HEAD' | 'PUT', url: string) => {
  const found = app.find(method, url);
  return { params: found.params, handlers: found.handlers.map((h) => (h as unknown as { routeName: string }).routeName) };
};

t.test('segment counts: fixed for plain patterns only', async (t) => {
  t.equal(segmentsOfPattern('/'), 0);
  t.equal(segmentsOfPattern('/health'), 1);
  t.equal(segmentsOfPattern('/api/admin/projects/:projectId/features'), 5);
  for (const p of ['/api/openapi.json', '/api/admin/*', '/a/:b?', '/ui/:file.js', 'relative']) t.equal(segmentsOfPattern(p), -1, `${p}: any length`);
});

t.test('the router finds what one polka app finds, for every method and path shape', async (t) => {
  const full = table(polka());
  const indexed = table(new Router({}));
  for (const url of URLS) {
    for (const method of ['GET', 'POST', 'HEAD', 'PUT'] as const) {
      t.same(show(indexed, method, url), show(full, method, url), `${method} ${url}`);
    }
  }
  t.same(show(indexed, 'GET', '/api/admin/projects/p1/features/f1').params, { projectId: 'p1', featureName: 'f1' }, 'params are filled in');
});

t.test('routes added later are found too', async (t) => {
  const app = table(new Router({}));
  t.same(show(app, 'GET', '/late/route').handlers, [], 'not there yet');
  app.get('/late/:name', named('late'));
  t.same(show(app, 'GET', '/late/route'), { params: { name: 'route' }, handlers: ['late'] });
});

t.test('a request reaches the handlers polka would run, or its onNoMatch', async (t) => {
  // Each handler answers with its name, or passes on when its name says so (as middleware would).
  const answering = (name: string): Middleware => (_req, res, next) => {
    if (name.startsWith('pass')) return next();
    res.end(name);
  };
  const build = <R extends Routes>(app: R): R => {
    app.get('/api/admin/*', answering('pass admin'));
    app.get('/api/admin/:thing', answering('admin thing'));
    app.get('/api/openapi.json', answering('openapi'));
    app.post('/a/:b', answering('post a'));
    app.get('/', answering('root'));
    return app;
  };
  const onNoMatch: Middleware = (req, res) => {
    res.end(`no match ${req.method} ${req.path}`);
  };
  const listen = async (listener: unknown) => {
    const server = http.createServer(listener as http.RequestListener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const one = await listen(build(polka({ onNoMatch })).handler);
  const router = build(new Router({ onNoMatch }));
  const split = await listen(router.handler);
  for (const [method, path] of [['GET', '/api/admin/x'], ['GET', '/api/admin/x/'], ['GET', '/api/admin/x/y'], ['GET', '/api/openapi.json?q=1'],
    ['GET', '/api/openapi/json'], ['POST', '/a/b'], ['GET', '/a/b'], ['GET', '/'], ['GET', '/?x'], ['HEAD', '/api/admin/x'], ['GET', '/nothing/at/all']]) {
    const [a, b] = await Promise.all([one, split].map(async (base) => {
      const res = await fetch(base + path, { method });
      return `${res.status} ${await res.text()}`;
    }));
    t.equal(b, a, `${method} ${path}: ${a}`);
  }
});
