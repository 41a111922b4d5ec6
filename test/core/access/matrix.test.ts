// Every admin and client route (taken from the server's own /api/openapi.json, so a new route is
// covered the day it is added) against every kind of bad credential: each gets the right status
// and error name, and nothing is written. The same run then proves no secret reached the logs.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { client, spawnServer, type Res } from '../../helpers/server.js';

const rnd = () => randomBytes(16).toString('hex');
const ADMIN = `*:*.${rnd()}`;
const CLIENT = `default:development.${rnd()}`;
const FRONTEND = `default:development.${rnd()}`;
const KNOWN_CLIENT_ROUTES = ['GET /api/client/features', 'GET /api/client/features/{featureName}', 'POST /api/client/register', 'POST /api/client/metrics'];
/**
 * Listings any admin token may call: they show a limited token only its own events
 * (test/core/access/event-scopes.test.ts) or flags (test/concepts/features/search.test.ts).
 */
const VISIBLE_ONLY_ROUTES = [
  'POST /api/admin/events/search', 'GET /api/admin/events', 'GET /api/admin/events/{featureName}', 'GET /api/admin/search/features', 'GET /api/admin/feature-types', 'GET /api/admin/user',
  'GET /api/admin/event-types', 'POST /api/admin/playground', 'POST /api/admin/playground/advanced',
];
/**
 * Routes any admin token may call, whose reach is named in the body (project, environment) or
 * found in the flags it exports: a limited token is refused there, once the body is valid
 * (test/concepts/features-batch/routes.test.ts).
 */
const BODY_SCOPED_ROUTES: Record<string, unknown> = {
  'POST /api/admin/features-batch/export': { environment: 'development', features: ['f1'] },
  'POST /api/admin/features-batch/import': { project: 'default', environment: 'development', data: { features: [{ name: 'f1' }] } },
  'POST /api/admin/features-batch/validate': { project: 'default', environment: 'development', data: { features: [{ name: 'f1' }] } },
  // A shared segment (no project in the body) acts on the whole server.
  'POST /api/admin/segments': { name: 'seg', constraints: [] },
  // The playground, in the environment the scoped token below reaches.
  'POST /api/admin/playground': { environment: 'development', projects: '*', context: { appName: 'a' } },
  'POST /api/admin/playground/advanced': { environments: ['development'], projects: '*', context: { appName: 'a' } },
};

interface Route {
  method: string;
  path: string;
  hasBody: boolean;
}

function walBytes(dir: string): number {
  return fs.readdirSync(dir).filter((f) => f.startsWith('wal-')).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
}

t.test('every route refuses bad credentials with the right status, and nothing changes', async (t) => {
  // No periodic metrics flush: it writes when valid tokens were last used (those refused with a 403
  // too), which is bookkeeping, not a change any call made; a run longer than its 10 s (a loaded
  // machine) would otherwise see WAL bytes appended.
  const srv = await spawnServer({
    env: { AUTH_TYPE: 'api-token', LOG_LEVEL: 'trace', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, INIT_FRONTEND_API_TOKENS: FRONTEND, METRICS_FLUSH_MS: '0' },
  });
  t.teardown(() => srv.kill());
  const admin = client(srv.url, { authorization: ADMIN });
  const secrets = [ADMIN, CLIENT, FRONTEND];
  const make = async (body: Record<string, unknown>): Promise<string> => {
    const res = await admin('POST', '/api/admin/api-tokens', body);
    if (res.status !== 201) throw new Error(`could not create a token: ${res.text}`);
    secrets.push(res.json.secret);
    return res.json.secret;
  };

  // Something for the routes to point at: a second project, flags, a strategy, a segment.
  const P = '/api/admin/projects/default/features';
  t.equal((await admin('POST', '/api/admin/projects', { id: 'elsewhere', name: 'Elsewhere' })).status, 201);
  t.equal((await admin('POST', P, { name: 'f1' })).status, 201);
  t.equal((await admin('POST', '/api/admin/projects/elsewhere/features', { name: 'hidden' })).status, 201);
  const strategy = await admin('POST', `${P}/f1/environments/production/strategies`, { name: 'default' });
  t.equal(strategy.status, 200);
  const segment = await admin('POST', '/api/admin/segments', { name: 'seg', constraints: [] });
  const values: Record<string, string> = {
    projectId: 'default', featureName: 'f1', environment: 'production', strategyId: strategy.json.id, parent: 'f1',
    name: 'production', id: String(segment.json?.id ?? 1), type: 'simple', value: 'v1', appName: 'app', token: 'x',
  };

  const soon = new Date(Date.now() + 2000).toISOString();
  const expiredAdmin = await make({ tokenName: 'expired-admin', type: 'admin', expiresAt: soon });
  const expiredClient = await make({ tokenName: 'expired-client', type: 'client', expiresAt: soon });
  const revokedAdmin = await make({ tokenName: 'revoked-admin', type: 'admin' });
  const revokedClient = await make({ tokenName: 'revoked-client', type: 'client' });
  const scopedAdmin = await make({ tokenName: 'elsewhere-admin', type: 'admin', project: 'elsewhere', environment: 'development' });
  for (const s of [revokedAdmin, revokedClient]) t.equal((await admin('DELETE', `/api/admin/api-tokens/${encodeURIComponent(s)}`)).status, 200);
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(soon) - Date.now() + 50)));

  const spec = (await admin('GET', '/api/openapi.json')).json;
  const routes: Route[] = [];
  for (const [p, methods] of Object.entries<Record<string, any>>(spec.paths)) {
    for (const [m, op] of Object.entries(methods)) routes.push({ method: m.toUpperCase(), path: p, hasBody: !!op.requestBody });
  }
  const adminRoutes = routes.filter((r) => r.path.startsWith('/api/admin/'));
  const clientRoutes = routes.filter((r) => r.path.startsWith('/api/client/'));
  t.ok(adminRoutes.length >= 40, `${adminRoutes.length} admin routes found`);
  t.same(clientRoutes.map((r) => `${r.method} ${r.path}`).filter((r) => KNOWN_CLIENT_ROUTES.includes(r)).sort(), [...KNOWN_CLIENT_ROUTES].sort(), 'all four client routes exist');

  const call = (r: Route, authorization: string | undefined, project = values.projectId): Promise<Res> => {
    const url = r.path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(k === 'projectId' ? project : values[k] ?? 'x'));
    const body = BODY_SCOPED_ROUTES[`${r.method} ${r.path}`] ?? (r.hasBody ? {} : undefined);
    return client(srv.url)(r.method, url, body, authorization === undefined ? {} : { authorization });
  };

  const walBefore = walBytes(srv.dataDir);
  const eventsBefore = (await admin('GET', '/api/admin/events')).json.totalEvents;

  const unknown = `*:*.${rnd()}`;
  const unauthenticated: [string, string | undefined][] = [
    ['no header', undefined], ['an empty header', ''], ['garbage', 'garbage!! %%'], ['a Bearer with nothing', 'Bearer '], ['an unknown token', unknown],
  ];
  for (const r of adminRoutes) {
    t.test(`${r.method} ${r.path}`, async (t) => {
      const cases: [string, string | undefined, number, string][] = [
        ...unauthenticated.map(([what, h]): [string, string | undefined, number, string] => [what, h, 401, 'AuthenticationRequired']),
        ['an expired admin token', expiredAdmin, 401, 'AuthenticationRequired'],
        ['a revoked admin token', revokedAdmin, 401, 'AuthenticationRequired'],
        ['a client token', CLIENT, 403, 'NoAccessError'],
        ['a frontend token', `Bearer ${FRONTEND}`, 403, 'NoAccessError'],
      ];
      const visibleOnly = VISIBLE_ONLY_ROUTES.includes(`${r.method} ${r.path}`);
      if (!visibleOnly) cases.push(['an admin token scoped to another project', scopedAdmin, 403, 'NoAccessError']);
      for (const [what, h, status, name] of cases) {
        const res = await call(r, h);
        t.equal(res.status, status, `${what} → ${status}`);
        t.equal(res.json?.name, name, `${what} → ${name}`);
        if (status === 403) t.match(res.json?.message, /You need permission=\w+ to perform this action on environment=/);
      }
      if (visibleOnly && r.path === '/api/admin/user') {
        const res = await call(r, scopedAdmin);
        t.equal(res.status, 200, 'an admin token scoped to another project asks who it is');
        t.same(res.json.permissions, [{ permission: 'ADMIN', project: 'elsewhere', environment: 'development' }], 'and is told its limits');
      } else if (visibleOnly && r.path === '/api/admin/search/features') {
        const res = await call(r, scopedAdmin);
        t.equal(res.status, 200, 'an admin token scoped to another project searches flags');
        t.ok(res.json.features.every((f: any) => f.project === 'elsewhere'), 'and finds only those of its project');
        t.equal(res.json.features.length, res.json.total, 'and counts only those');
      } else if (visibleOnly && (r.path === '/api/admin/feature-types' || r.path === '/api/admin/event-types')) {
        const res = await call(r, scopedAdmin);
        t.equal(res.status, 200, 'an admin token scoped to another project reads the flag types (the same for every project)');
      } else if (visibleOnly && r.path.startsWith('/api/admin/playground')) {
        const res = await call(r, scopedAdmin);
        t.equal(res.status, 200, 'an admin token scoped to another project asks the playground');
        const names = res.json.features.map((f: any) => f.name);
        t.same(names, ['hidden'], 'and is answered about the flags of its project only');
      } else if (visibleOnly) {
        const res = await call(r, scopedAdmin);
        t.equal(res.status, 200, 'an admin token scoped to another project lists events');
        t.ok(res.json.events.every((e: any) => e.project === 'elsewhere' && (e.environment === null || e.environment === 'development')), 'only those of its project and environment');
        t.equal(res.json.events.length, res.json.totalEvents, 'and counts only those');
      }
    });
  }
  for (const r of clientRoutes) {
    t.test(`${r.method} ${r.path}`, async (t) => {
      const cases: [string, string | undefined, number, string][] = [
        ...unauthenticated.map(([what, h]): [string, string | undefined, number, string] => [what, h, 401, 'AuthenticationRequired']),
        ['an expired client token', expiredClient, 401, 'AuthenticationRequired'],
        ['a revoked client token', revokedClient, 401, 'AuthenticationRequired'],
        ['an admin token', ADMIN, 403, 'NoAccessError'],
        ['a frontend token', FRONTEND, 403, 'NoAccessError'],
        ['a scoped admin token', scopedAdmin, 403, 'NoAccessError'],
      ];
      for (const [what, h, status, name] of cases) {
        const res = await call(r, h);
        t.equal(res.status, status, `${what} → ${status}`);
        t.equal(res.json?.name, name, `${what} → ${name}`);
      }
    });
  }

  t.test('none of those calls changed anything', async (t) => {
    t.equal(walBytes(srv.dataDir), walBefore, 'not one byte was appended to the write-ahead log');
    t.equal((await admin('GET', '/api/admin/events')).json.totalEvents, eventsBefore);
    t.equal((await admin('GET', `${P}/f1`)).status, 200, 'the flag is still there');
  });

  t.test('a client token sees only its environment and projects', async (t) => {
    const sdk = client(srv.url, { authorization: CLIENT });
    const all = await sdk('GET', '/api/client/features');
    t.same(all.json.features.map((f: any) => f.name), ['f1'], 'the flag of another project is not listed');
    t.same((await sdk('GET', '/api/client/features?project=elsewhere')).json.features, [], 'asking for another project yields nothing');
    t.equal((await sdk('GET', '/api/client/features/hidden')).status, 404);
    t.equal(all.json.features[0].enabled, false, 'development: enabled is that environment’s');
    t.same(all.json.features[0].strategies.map((s: any) => s.name), ['default'], 'the production strategy is not shown in development');
  });

  t.test('the whole log of the run holds no secret', async (t) => {
    // Secrets in paths are hashed before any log line could see them; send some that way too.
    for (const s of secrets) await admin('PUT', `/api/admin/api-tokens/${encodeURIComponent(s)}`, { expiresAt: null });
    await srv.stop();
    const out = srv.output();
    t.ok(out.length > 0 && /"level":10|"level":20|"level":30/.test(out), 'there is log output to search');
    for (const s of [...secrets, unknown]) {
      const random = s.slice(s.indexOf('.') + 1);
      t.notOk(out.includes(random), `secret of ${s.slice(0, s.indexOf('.') + 1)}… not in the log`);
    }
  });
});
