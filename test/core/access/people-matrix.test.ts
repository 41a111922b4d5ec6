// Every admin route (from the server's own /api/openapi.json, so a route is covered the day it is
// added) × every kind of person: root roles, project roles, environment limits, personal tokens
// acting as their person, and an unlimited admin token. What each may do is written here, in this
// test's own words (not read from src/auth), route by route; the server must refuse exactly the
// others with 403 naming the permission, and nothing may change while it is asked.
//
// Every request is one that would fail after the permission check (an unknown id, an invalid
// body, a flag that is not archived, a segment in use…): a permitted caller gets that answer, a
// refused one gets the refusal, and the state never changes. A route this test cannot place in
// one of its kinds fails it: its author must say who may call it.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { signInAs, STRONG } from '../../helpers/people.js';
import { client, spawnServer, type Res } from '../../helpers/server.js';

const ADMIN_TOKEN = '*:*.people-matrix-admin-token-0123456789';

type Kind =
  | 'read' // any person, any admin token
  | 'me' // anyone: who am I
  | 'person' // a person, through a session or a personal token: their own personal tokens, sign out everywhere
  | 'me-session' // a person through a session only (a password change, a new personal token)
  | 'admin' // Admins only: tokens, people, environments, webhooks, state import/export
  | 'global' // Admins and Editors not limited to some environments: what acts on the whole server
  | 'project' // flags and what belongs to them, in the project (and environment) the request names
  | 'project-owner' // a project's own settings: Admins, Editors, the project's Owner
  | 'project-owner-env'; // a project's setting for one environment (change requests): as above, within an environment limit

interface Subject {
  name: string;
  /** `Authorization` or `Cookie` header. */
  headers: Record<string, string>;
  role: 'Admin' | 'Editor' | 'Viewer' | 'token';
  /** alpha's role for this person. */
  alpha?: 'Owner' | 'Member' | 'Viewer';
  environments?: string[];
  session: boolean;
}

/** Whether `s` may call a route of `kind` on `project` and `environment` (this test's own rules, in Unleash's terms). */
function allowed(s: Subject, kind: Kind, project: string | undefined, environment: string | undefined): boolean {
  if (kind === 'read') return true;
  if (kind === 'me') return true;
  if (kind === 'person') return s.role !== 'token';
  if (kind === 'me-session') return s.session;
  if (s.role === 'token' || s.role === 'Admin') return true;
  if (kind === 'admin') return false;
  const envOk = (e: string | undefined) => s.environments === undefined || (project !== undefined && (e === undefined || s.environments.includes(e)));
  if (kind === 'global') return s.role === 'Editor' && s.environments === undefined;
  if (project === undefined) return false;
  if (s.role === 'Editor') return kind === 'project-owner' ? s.environments === undefined : envOk(environment);
  if (project !== 'alpha') return false;
  // A project's own settings belong to every environment: no environment limit may change them.
  if (kind === 'project-owner') return s.alpha === 'Owner' && s.environments === undefined;
  // Whether one environment needs change requests: the Owner, within their environments.
  if (kind === 'project-owner-env') return s.alpha === 'Owner' && envOk(environment);
  return (s.alpha === 'Owner' || s.alpha === 'Member') && envOk(environment);
}

/** Which kind a route is, by its method and path; the test fails on a route none of these describes. */
function kindOf(method: string, p: string): Kind | null {
  const r = `${method} ${p}`;
  if (r === 'GET /api/admin/user') return 'me';
  if (p.startsWith('/api/admin/user-admin')) return 'admin';
  if (r === 'POST /api/admin/user/change-password' || r === 'POST /api/admin/user/tokens') return 'me-session';
  if (p.startsWith('/api/admin/user/')) return 'person';
  // Starring a flag is the person's own: anyone who may read it, never a token.
  if (p === '/api/admin/projects/{projectId}/features/{featureName}/favorites') return 'person';
  if (/^\/api\/admin\/(api-tokens|addons|state)\b/.test(p)) return 'admin';
  if (p.startsWith('/api/admin/environments')) return method === 'GET' ? 'read' : 'admin';
  if (method === 'GET') return 'read';
  // The impact metrics page's charts are the whole server's: Admins only (a flag's charts are under its project).
  if (p.startsWith('/api/admin/impact-metrics/config')) return 'admin';
  if (['POST /api/admin/features/validate', 'POST /api/admin/context/validate', 'POST /api/admin/tag-types/validate', 'POST /api/admin/events/search', 'POST /api/admin/features-batch/export', 'POST /api/admin/playground', 'POST /api/admin/playground/advanced'].includes(r)) return 'read';
  if (/^\/api\/admin\/(strategies|context|tag-types|tags|release-plan-templates)\b/.test(p) || r === 'POST /api/admin/projects') return 'global';
  // A segment is created in the project its body names (or shared: global, see requests()).
  if (r === 'POST /api/admin/segments') return 'project';
  if (/^(PUT|DELETE) \/api\/admin\/projects\/\{projectId\}$/.test(r)) return 'project-owner';
  if (r === 'PUT /api/admin/projects/{projectId}/environments/{environment}/change-requests/config') return 'project-owner-env';
  // Adding an environment to a project (named in the body) and taking one out: the project's setting for that environment.
  if (r === 'POST /api/admin/projects/{projectId}/environments' || r === 'DELETE /api/admin/projects/{projectId}/environments/{environment}') return 'project-owner-env';
  if (p.startsWith('/api/admin/projects/{projectId}/') || p.startsWith('/api/admin/features/{featureName}/') || p.startsWith('/api/admin/archive/')) return 'project';
  if (p.startsWith('/api/admin/segments/{id}') || p.startsWith('/api/admin/features-batch/')) return 'project';
  return null;
}

function walBytes(dir: string): number {
  return fs.readdirSync(dir).filter((f) => f.startsWith('wal-')).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
}

t.test('every admin route × every kind of person: allowed exactly as the roles say, refused with 403 otherwise, nothing changed', async (t) => {
  const srv = await spawnServer({
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN_TOKEN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, METRICS_FLUSH_MS: '0', SIGN_IN_LIMIT_PER_ADDRESS: '1000' },
  });
  t.teardown(() => srv.stop());
  const api = client(srv.url, { authorization: ADMIN_TOKEN });
  const ok = async (method: string, p: string, body?: unknown): Promise<any> => {
    const res = await api(method, p, body);
    if (res.status >= 300) throw new Error(`${method} ${p} → ${res.status} ${res.text}`);
    return res.json;
  };

  // Two projects, a live flag in each, a strategy on alpha's that uses alpha's segment and a shared
  // one (so neither can be deleted), a tag type and a tag.
  await ok('POST', '/api/admin/projects', { id: 'alpha', name: 'Alpha' });
  await ok('POST', '/api/admin/projects', { id: 'beta', name: 'Beta' });
  await ok('POST', '/api/admin/projects/alpha/features', { name: 'fa' });
  await ok('POST', '/api/admin/projects/beta/features', { name: 'fb' });
  const segA = await ok('POST', '/api/admin/segments', { name: 'seg-alpha', project: 'alpha', constraints: [] });
  const segG = await ok('POST', '/api/admin/segments', { name: 'seg-shared', constraints: [] });
  await ok('POST', '/api/admin/projects/alpha/features/fa/environments/development/strategies', { name: 'default', segments: [segA.id, segG.id] });
  await ok('POST', '/api/admin/projects/beta/features/fb/environments/development/strategies', { name: 'default', segments: [segG.id] });

  const people: [string, Record<string, unknown>][] = [
    ['editor', { rootRole: 'Editor' }],
    ['viewer', { rootRole: 'Viewer' }],
    ['owner-alpha', { rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Owner' }] }],
    ['member-alpha', { rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }, { project: 'beta', role: 'Viewer' }] }],
    ['viewer-alpha', { rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Viewer' }] }],
    ['editor-dev', { rootRole: 'Editor', environments: ['development'] }],
    ['member-alpha-dev', { rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }], environments: ['development'] }],
  ];
  for (const [username, fields] of people) await ok('POST', '/api/admin/user-admin', { username, password: STRONG, ...fields });
  const cookie = async (username: string) => ({ cookie: `fanion-session=${await signInAs(srv.url, username, STRONG)}` });
  const pat = async (username: string) => {
    const id = await signInAs(srv.url, username, STRONG);
    const made = await client(srv.url, { cookie: `fanion-session=${id}` })('POST', '/api/admin/user/tokens', { description: 'matrix', expiresAt: '2099-01-01T00:00:00Z' });
    return { authorization: made.json.secret };
  };
  const subjects: Subject[] = [
    { name: 'Admin', headers: await cookie('admin'), role: 'Admin', session: true },
    { name: 'Editor', headers: await cookie('editor'), role: 'Editor', session: true },
    { name: 'Viewer', headers: await cookie('viewer'), role: 'Viewer', session: true },
    { name: 'Owner of alpha', headers: await cookie('owner-alpha'), role: 'Viewer', alpha: 'Owner', session: true },
    { name: 'Member of alpha (Viewer of beta)', headers: await cookie('member-alpha'), role: 'Viewer', alpha: 'Member', session: true },
    { name: 'Viewer of alpha', headers: await cookie('viewer-alpha'), role: 'Viewer', alpha: 'Viewer', session: true },
    { name: 'Editor limited to development', headers: await cookie('editor-dev'), role: 'Editor', environments: ['development'], session: true },
    { name: 'Member of alpha limited to development', headers: await cookie('member-alpha-dev'), role: 'Viewer', alpha: 'Member', environments: ['development'], session: true },
    { name: "Editor's personal token", headers: await pat('editor'), role: 'Editor', session: false },
    { name: "Member of alpha's personal token", headers: await pat('member-alpha'), role: 'Viewer', alpha: 'Member', session: false },
    { name: 'unlimited admin token', headers: { authorization: ADMIN_TOKEN }, role: 'token', session: false },
  ];

  const spec = (await api('GET', '/api/openapi.json')).json;
  const routes: { method: string; path: string; hasBody: boolean }[] = [];
  for (const [p, methods] of Object.entries<Record<string, any>>(spec.paths)) {
    for (const [m, op] of Object.entries(methods)) if (p.startsWith('/api/admin/')) routes.push({ method: m.toUpperCase(), path: p, hasBody: !!op.requestBody });
  }
  const unplaced = routes.filter((r) => kindOf(r.method, r.path) === null).map((r) => `${r.method} ${r.path}`);
  t.same(unplaced, [], 'every admin route is of a kind this test knows');
  t.ok(routes.length >= 100, `${routes.length} admin routes`);

  /** Bodies that pass the schema (and any body scope) but fail after the check, for routes that need one. */
  const BODIES: Record<string, unknown> = {
    'POST /api/admin/features-batch/import': { project: 'alpha', environment: 'production', data: { features: [{ name: 'imp', project: 'alpha' }], featureStrategies: [{ featureName: 'imp', name: 'no-such-strategy-type' }] } },
    'POST /api/admin/features-batch/validate': { project: 'alpha', environment: 'production', data: { features: [{ name: 'imp', project: 'alpha' }] } },
    // An export records an event (features-exported), so this one names no environment that exists.
    'POST /api/admin/features-batch/export': { environment: 'no-such-environment', features: ['fa'] },
    'POST /api/admin/user/change-password': { password: 'short' },
    'POST /api/admin/user/tokens': { description: 'x', expiresAt: '2000-01-01T00:00:00Z' },
    'PUT /api/admin/segments/{id}': { name: 'seg-shared-or-alpha-taken', constraints: [] },
  };
  /** Concrete requests for a route: each project and environment it can name, and the scope that request has. */
  const requests = (r: { method: string; path: string; hasBody: boolean }) => {
    const out: { url: string; project?: string; environment?: string; body?: unknown; shared?: boolean }[] = [];
    const projects = r.path.includes('{projectId}') ? ['alpha', 'beta'] : r.path.includes('{featureName}') && !r.path.startsWith('/api/admin/events') ? ['alpha', 'beta'] : [undefined];
    // Taking an environment out of a project would succeed: it names one that does not exist (a 404 once allowed).
    const environments = `${r.method} ${r.path}` === 'DELETE /api/admin/projects/{projectId}/environments/{environment}' ? ['no-such-environment']
      : r.path.includes('{environment}') ? ['development', 'production'] : [undefined];
    if (`${r.method} ${r.path}` === 'POST /api/admin/segments') {
      // Names taken (409 once allowed): in alpha, in beta, and shared by every project.
      return [
        { url: r.path, body: { name: 'seg-alpha', project: 'alpha', constraints: [] }, project: 'alpha' },
        { url: r.path, body: { name: 'seg-alpha', project: 'beta', constraints: [] }, project: 'beta' },
        { url: r.path, body: { name: 'seg-shared', constraints: [] }, shared: true },
      ];
    }
    const segments = r.path.includes('/segments/{id}') ? [['alpha', segA.id], [undefined, segG.id]] as const : [[undefined, undefined]] as const;
    for (const project of projects) {
      for (const environment of environments) {
        for (const [segProject, segId] of segments) {
          // A flag named by the path alone (tags, archive) is the live fa or fb; under a project, an unknown one.
          const flag = r.path.startsWith('/api/admin/projects/') ? 'no-such-flag' : project === 'beta' ? 'fb' : 'fa';
          const url = r.path.replace(/\{(\w+)\}/g, (_, k: string) => {
            if (k === 'projectId') return project!;
            if (k === 'environment') return environment!;
            if (k === 'featureName') return flag;
            if (k === 'id') return String(segId ?? 987654);
            return k === 'type' ? 'simple' : 'no-such-thing';
          });
          const key = `${r.method} ${r.path}`;
          let body: unknown = r.hasBody ? 'not an object' : undefined;
          if (key in BODIES) body = BODIES[key];
          if (key === 'PUT /api/admin/segments/{id}') body = { name: segProject ? 'seg-shared' : 'seg-alpha', project: segProject, constraints: [] };
          // A features import names its project and environment in the body.
          const inBody = r.path.startsWith('/api/admin/features-batch/') && typeof body === 'object' && body !== null ? body as { project?: string; environment?: string } : null;
          out.push({
            url, body, shared: segId !== undefined && segProject === undefined,
            project: inBody ? inBody.project : segId !== undefined ? segProject : project,
            environment: inBody ? inBody.environment : environment,
          });
        }
      }
    }
    return out;
  };

  const walBefore = walBytes(srv.dataDir);
  const eventsBefore = (await api('GET', '/api/admin/events')).json.totalEvents;
  const isRefusal = (res: Res) => res.status === 403 && /^You need permission=\w+ to perform this action on environment=|needs a signed-in session|is for a signed-in person/.test(res.json?.message ?? '');
  let requestsMade = 0;
  let allowedSeen = 0;
  let refusedSeen = 0;
  const last: { r: (typeof routes)[number]; subject: Subject }[] = [];
  for (const r of routes) {
    const kind = kindOf(r.method, r.path)!;
    if (r.method === 'DELETE' && r.path === '/api/admin/user/sessions') {
      for (const subject of subjects) last.push({ r, subject });
      continue;
    }
    t.test(`${r.method} ${r.path} (${kind})`, async (t) => {
      for (const req of requests(r)) {
        for (const subject of subjects) {
          const res = await client(srv.url, subject.headers)(r.method, req.url, req.body);
          requestsMade++;
          const where = `${subject.name} on ${req.url}`;
          t.not(res.status, 401, `${where}: signed in (${res.text.slice(0, 120)})`);
          // A shared segment belongs to no project: changing it acts on the whole server.
          if (allowed(subject, req.shared && kind !== 'read' ? 'global' : kind, req.project, req.environment)) {
            allowedSeen++;
            t.notOk(isRefusal(res), `${where}: allowed (got ${res.status} ${res.json?.message ?? ''})`);
          } else {
            refusedSeen++;
            t.ok(isRefusal(res), `${where}: refused with 403 (got ${res.status} ${res.text.slice(0, 160)})`);
          }
        }
      }
    });
  }

  t.test('nothing changed, and the refusals say why', async (t) => {
    t.equal(walBytes(srv.dataDir), walBefore, 'not one byte appended to the write-ahead log');
    const after = (await api('GET', '/api/admin/events')).json;
    t.equal(after.totalEvents, eventsBefore, 'no event');
    if (after.totalEvents !== eventsBefore) t.comment(JSON.stringify(after.events.slice(0, after.totalEvents - eventsBefore).map((e: any) => [e.type, e.createdBy, e.featureName, e.project])));
    const member = client(srv.url, subjects[4].headers);
    const res = await member('POST', '/api/admin/projects/beta/features/fb/environments/production/on');
    t.equal(res.json.message, 'You need permission=UPDATE_FEATURE_ENVIRONMENT to perform this action on environment=production in project=beta: you are a Viewer of project=beta, and your root role is Viewer.');
    const dev = client(srv.url, subjects[6].headers);
    t.equal(
      (await dev('POST', '/api/admin/projects/alpha/features/fa/environments/production/on')).json.message,
      'You need permission=UPDATE_FEATURE_ENVIRONMENT to perform this action on environment=production in project=alpha: you may change only environment development.',
    );
    t.comment(`role × route matrix: ${routes.length} admin routes, ${subjects.length} callers, ${requestsMade} requests: ${allowedSeen} allowed, ${refusedSeen} refused as expected`);
  });

  t.test('DELETE /api/admin/user/sessions (last: it signs its caller out everywhere)', async (t) => {
    for (const { subject } of last) {
      const res = await client(srv.url, subject.headers)('DELETE', '/api/admin/user/sessions');
      if (subject.role === 'token') t.ok(isRefusal(res), `${subject.name}: refused, it is no person`);
      else t.equal(res.status, 200, `${subject.name}: signed out everywhere`);
    }
    t.equal((await client(srv.url, subjects[0].headers)('GET', '/api/admin/projects')).status, 401, 'and the Admin\'s session has ended');
  });
});
