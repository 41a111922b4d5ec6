// Who may do what with release templates, plans, progressions, safeguards and impact metrics,
// against a real server with real plans on two projects' flags in two environments: Viewers read;
// Editors and a project's Owners and Members manage plans, progressions and safeguards where they
// may change flags (a Member of alpha not in beta, a person limited to development not in
// production); templates are for Admins and Editors (no environment limit) only; admin tokens
// reach what their projects and environment reach (a limited one reads nothing server-wide);
// client and frontend tokens get 403 on every one of these routes. A refusal is a 403 with an
// error body; no request is answered with a 500.
import t from 'tap';
import { signInAs, STRONG } from '../../helpers/people.js';
import { client, serve, type Res } from '../../helpers/server.js';

const ADMIN = '*:*.plans-perm-admin-0123456789';
const CLIENT = '*:development.plans-perm-client-0123456789';
const FRONTEND = '*:development.plans-perm-frontend-0123456789';
const T = '/api/admin/release-plan-templates';
const METRIC = { metricName: 'errors', timeRange: 'hour', aggregationMode: 'count', labelSelectors: {} };

type Kind = 'read' | 'template' | 'plan' | 'chart-page';
interface Who {
  name: string;
  headers: Record<string, string>;
  /** Where this caller may change flags: project → environments (undefined: every one). */
  may: 'all' | 'none' | Record<string, string[] | undefined>;
  /** May change templates (whole-server things). */
  templates: boolean;
  admin?: boolean;
  /** A client or frontend token: no admin route at all. */
  sdk?: boolean;
}

const isRefusal = (res: Res) => res.status === 403 && typeof res.json?.message === 'string' && typeof res.json?.id === 'string' && typeof res.json?.name === 'string';

t.test('templates, plans, progressions, safeguards, impact metrics: each caller allowed exactly where the roles say', async (t) => {
  const env = {
    AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, INIT_FRONTEND_API_TOKENS: FRONTEND,
    UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000', METRICS_FLUSH_MS: '0',
  };
  const { srv, ok } = await serve(t, { authorization: ADMIN, env });
  const flags = { alpha: 'fa', beta: 'fb' } as const;
  const where = (project: 'alpha' | 'beta', environment: string) => `/api/admin/projects/${project}/features/${flags[project]}/environments/${environment}`;
  for (const project of ['alpha', 'beta'] as const) {
    await ok('POST', '/api/admin/projects', { id: project, name: project });
    await ok('POST', `/api/admin/projects/${project}/features`, { name: flags[project] });
  }
  const tpl = await ok('POST', T, { name: 'Steps', milestones: [{ name: 'One', strategies: [{ strategyName: 'default' }] }, { name: 'Two', strategies: [{ strategyName: 'default' }] }] });
  const plans: Record<string, any> = {};
  const guards: Record<string, { env: string; plan: string }> = {};
  for (const project of ['alpha', 'beta'] as const) {
    for (const e of ['development', 'production']) {
      const w = where(project, e);
      await ok('POST', `${w}/on`);
      const plan = await ok('POST', `${w}/release-plans`, { templateId: tpl.id });
      plans[`${project}/${e}`] = plan;
      await ok('PUT', `${w}/safeguards`, { impactMetric: METRIC, triggerCondition: { operator: '>', threshold: 1000 } });
      await ok('PUT', `${w}/release-plans/${plan.id}/safeguards`, { impactMetric: METRIC, triggerCondition: { operator: '>', threshold: 1000 } });
      guards[`${project}/${e}`] = { env: (await ok('GET', `${w}/safeguards`))[0].id, plan: (await ok('GET', `${w}/release-plans/${plan.id}/safeguards`))[0].id };
    }
  }
  const chart = await ok('POST', '/api/admin/projects/alpha/features/fa/impact-metrics/config', { ...METRIC, yAxisMin: 'auto' });

  const people: [string, Record<string, unknown>][] = [
    ['editor', { rootRole: 'Editor' }],
    ['viewer', { rootRole: 'Viewer' }],
    ['owner-alpha', { rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Owner' }] }],
    ['member-alpha', { rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }, { project: 'beta', role: 'Viewer' }] }],
    ['editor-dev', { rootRole: 'Editor', environments: ['development'] }],
    ['member-alpha-dev', { rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }], environments: ['development'] }],
  ];
  for (const [username, fields] of people) await ok('POST', '/api/admin/user-admin', { username, password: STRONG, ...fields });
  const session = async (username: string) => ({ cookie: `fanion-session=${await signInAs(srv.url, username, STRONG)}` });
  const token = async (body: Record<string, unknown>) => ({ authorization: (await ok('POST', '/api/admin/api-tokens', { tokenName: `t-${Math.random()}`, ...body })).secret });
  const callers: Who[] = [
    { name: 'Admin', headers: await session('admin'), may: 'all', templates: true, admin: true },
    { name: 'Editor', headers: await session('editor'), may: 'all', templates: true },
    { name: 'Viewer', headers: await session('viewer'), may: 'none', templates: false },
    { name: 'Owner of alpha', headers: await session('owner-alpha'), may: { alpha: undefined }, templates: false },
    { name: 'Member of alpha (Viewer of beta)', headers: await session('member-alpha'), may: { alpha: undefined }, templates: false },
    { name: 'Editor limited to development', headers: await session('editor-dev'), may: { alpha: ['development'], beta: ['development'] }, templates: false },
    { name: 'Member of alpha limited to development', headers: await session('member-alpha-dev'), may: { alpha: ['development'] }, templates: false },
    { name: 'unlimited admin token', headers: { authorization: ADMIN }, may: 'all', templates: true, admin: true },
    { name: 'admin token of alpha', headers: await token({ type: 'admin', projects: ['alpha'] }), may: { alpha: undefined }, templates: false },
    { name: 'admin token of development', headers: await token({ type: 'admin', projects: ['*'], environment: 'development' }), may: { alpha: ['development'], beta: ['development'] }, templates: false },
    { name: 'client token', headers: { authorization: CLIENT }, may: 'none', templates: false, sdk: true },
    { name: 'frontend token', headers: { authorization: FRONTEND }, may: 'none', templates: false, sdk: true },
  ];
  const mayChange = (c: Who, project: string, e: string) => c.may === 'all' || (c.may !== 'none' && project in c.may && (c.may[project] === undefined || c.may[project]!.includes(e)));
  /**
   * Whether a read is allowed: any person reads everything; a limited admin token only what names a
   * project (and environment) it holds, as on every other admin route (what names none is the
   * whole server's).
   */
  const limitedToken = (c: Who) => c.name.startsWith('admin token of');
  const mayRead = (c: Who, project: string | null, e: string | null) => {
    if (c.sdk) return false;
    if (!limitedToken(c)) return true;
    return project !== null && mayChange(c, project, e ?? 'development');
  };

  // Requests that succeed (or are a harmless repeat) when allowed; none creates anything new.
  const requests: { kind: Kind; project: 'alpha' | 'beta' | null; env: string | null; method: string; url: string; body?: unknown }[] = [
    { kind: 'read', project: null, env: null, method: 'GET', url: T },
    { kind: 'read', project: null, env: null, method: 'GET', url: `${T}/${tpl.id}` },
    { kind: 'read', project: null, env: null, method: 'GET', url: `${T}/${tpl.id}/milestones` },
    { kind: 'read', project: null, env: null, method: 'GET', url: '/api/admin/impact-metrics/metadata' },
    { kind: 'read', project: null, env: null, method: 'GET', url: '/api/admin/impact-metrics?metricName=errors&range=hour&aggregationMode=count' },
    { kind: 'read', project: null, env: null, method: 'GET', url: '/api/admin/impact-metrics/config' },
    { kind: 'template', project: null, env: null, method: 'PUT', url: `${T}/${tpl.id}`, body: { name: 'Steps', milestones: tpl.milestones } },
    { kind: 'template', project: null, env: null, method: 'PUT', url: `${T}/${tpl.id}/milestones/${tpl.milestones[1].id}`, body: { name: 'Two' } },
    { kind: 'template', project: null, env: null, method: 'PUT', url: `${T}/${tpl.id}/milestones/${tpl.milestones[1].id}/strategies/${tpl.milestones[1].strategies[0].id}`, body: { strategyName: 'default' } },
    { kind: 'chart-page', project: null, env: null, method: 'POST', url: '/api/admin/impact-metrics/config', body: { ...METRIC, yAxisMin: 'zero', id: 'no-such-chart' } },
  ];
  for (const project of ['alpha', 'beta'] as const) {
    const flagUrl = `/api/admin/projects/${project}/features/${flags[project]}`;
    requests.push({ kind: 'read', project, env: null, method: 'GET', url: `${flagUrl}/impact-metrics/config` });
    if (project === 'alpha') requests.push({ kind: 'plan', project, env: null, method: 'POST', url: `${flagUrl}/impact-metrics/config`, body: { ...METRIC, yAxisMin: 'auto', id: chart.id } });
    for (const e of ['development', 'production']) {
      const w = where(project, e);
      const plan = plans[`${project}/${e}`];
      const [one, two] = plan.milestones;
      const g = guards[`${project}/${e}`];
      const sg = { impactMetric: METRIC, triggerCondition: { operator: '>', threshold: 1000 } };
      requests.push(
        { kind: 'read', project, env: e, method: 'GET', url: `${w}/release-plans` },
        { kind: 'read', project, env: e, method: 'GET', url: `${w}/release-plans/${plan.id}` },
        { kind: 'read', project, env: e, method: 'GET', url: `${w}/safeguards` },
        { kind: 'read', project, env: e, method: 'GET', url: `${w}/release-plans/${plan.id}/safeguards` },
        { kind: 'plan', project, env: e, method: 'POST', url: `${w}/release-plans`, body: { templateId: tpl.id } },
        { kind: 'plan', project, env: e, method: 'POST', url: `${w}/release-plans/${plan.id}/milestones/${one.id}/start` },
        { kind: 'plan', project, env: e, method: 'PUT', url: `${w}/progressions/${one.id}`, body: { targetMilestone: two.id, transitionCondition: { intervalMinutes: 600 } } },
        { kind: 'plan', project, env: e, method: 'DELETE', url: `${w}/progressions/${two.id}` },
        { kind: 'plan', project, env: e, method: 'POST', url: `${w}/progressions/${plan.id}/resume` },
        { kind: 'plan', project, env: e, method: 'PUT', url: `${w}/safeguards`, body: { ...sg, id: g.env } },
        { kind: 'plan', project, env: e, method: 'PUT', url: `${w}/release-plans/${plan.id}/safeguards`, body: { ...sg, id: g.plan } },
        { kind: 'plan', project, env: e, method: 'DELETE', url: `${w}/safeguards/no-such-safeguard` },
        { kind: 'plan', project, env: e, method: 'DELETE', url: `${w}/release-plans/no-such-plan` },
      );
    }
  }

  const expected = (c: Who, r: (typeof requests)[number]) => {
    if (c.sdk) return false;
    if (r.kind === 'read') return mayRead(c, r.project, r.env);
    if (r.kind === 'template') return c.templates;
    if (r.kind === 'chart-page') return !!c.admin;
    return mayChange(c, r.project!, r.env ?? 'development');
  };
  const wrong: string[] = [];
  let allowed = 0;
  let refused = 0;
  for (const r of requests) {
    for (const c of callers) {
      const res = await client(srv.url, c.headers)(r.method, r.url, r.body);
      const want = expected(c, r);
      if (want) allowed++;
      else refused++;
      if (res.status >= 500) wrong.push(`${c.name}: ${r.method} ${r.url} → ${res.status}`);
      else if (want && (isRefusal(res) || res.status === 401)) wrong.push(`${c.name}: ${r.method} ${r.url} refused (${res.status} ${res.json?.message ?? ''}), should be allowed`);
      else if (!want && !isRefusal(res)) wrong.push(`${c.name}: ${r.method} ${r.url} → ${res.status}, should be refused with 403 (${res.text.slice(0, 100)})`);
    }
  }
  t.same(wrong, [], `${requests.length} requests × ${callers.length} callers: ${allowed} allowed, ${refused} refused, as the roles say`);

  // The refused safeguard changes left the safeguards as they were made.
  for (const [key, plan] of Object.entries(plans)) {
    const [project, e] = key.split('/') as ['alpha' | 'beta', string];
    const now = await ok('GET', `${where(project, e)}/release-plans/${plan.id}`);
    t.same(now.safeguards.map((s: any) => s.id), [guards[key].plan], `${key}: its plan safeguard alone`);
    t.same((await ok('GET', `${where(project, e)}/safeguards`)).map((s: any) => s.id), [guards[key].env], `${key}: its environment safeguard alone`);
  }
});

// A plan's milestone strategies use segments by id, so a segment's constraints reach every
// environment where a plan's milestone uses it (any milestone: a progression starts the next one
// with no further change by anyone). Before: a Member of alpha limited to development changed a
// segment used only by a plan in production (204), and a shared segment used by alpha's plan could
// be moved into beta, where beta's Members could then change it.
t.test("a segment used by a plan's milestone in production: out of reach of a caller limited to development", async (t) => {
  const DEV = '*:development.plans-perm-dev-0123456789';
  const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: `${ADMIN},${DEV}`, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000' };
  const { srv, api, ok } = await serve(t, { authorization: ADMIN, env });
  for (const id of ['alpha', 'beta']) await ok('POST', '/api/admin/projects', { id, name: id });
  await ok('POST', '/api/admin/projects/alpha/features', { name: 'fa' });
  const seg = await ok('POST', '/api/admin/segments', { name: 'alpha-testers', project: 'alpha', constraints: [] });
  const shared = await ok('POST', '/api/admin/segments', { name: 'everyone-shared', constraints: [] });
  const tpl = await ok('POST', T, {
    name: 'Later', milestones: [{ name: 'First', strategies: [{ strategyName: 'default' }] }, { name: 'Then', strategies: [{ strategyName: 'default', segments: [seg.id, shared.id] }] }],
  });
  const prod = '/api/admin/projects/alpha/features/fa/environments/production';
  await ok('POST', `${prod}/on`);
  await ok('POST', `${prod}/release-plans`, { templateId: tpl.id });
  await ok('POST', '/api/admin/user-admin', { username: 'member-dev', password: STRONG, rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }], environments: ['development'] });
  await ok('POST', '/api/admin/user-admin', { username: 'member', password: STRONG, rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }] });
  const memberDev = client(srv.url, { cookie: `fanion-session=${await signInAs(srv.url, 'member-dev', STRONG)}` });
  const member = client(srv.url, { cookie: `fanion-session=${await signInAs(srv.url, 'member', STRONG)}` });
  const widen = { name: 'alpha-testers', project: 'alpha', constraints: [{ contextName: 'userId', operator: 'IN', values: ['x'] }] };

  for (const [who, call] of [['a Member of alpha limited to development', memberDev], ['an admin token limited to development', client(srv.url, { authorization: DEV })]] as const) {
    const res = await call('PUT', `/api/admin/segments/${seg.id}`, widen);
    t.equal(res.status, 403, `${who} may not change it (got ${res.status})`);
    t.match(res.json?.message, /takes effect in production/, 'the refusal says where it takes effect');
  }
  t.same((await ok('GET', `/api/admin/segments/${seg.id}`)).constraints, [], 'the segment is as it was');
  t.equal((await member('PUT', `/api/admin/segments/${seg.id}`, widen)).status, 204, 'a Member of alpha without a limit may');

  const moved = await api('PUT', `/api/admin/segments/${shared.id}`, { name: 'everyone-shared', project: 'beta', constraints: [] });
  t.equal(moved.status, 400, 'a segment used by alpha\'s plan cannot be moved into beta');
  t.match(moved.json, { name: 'ValidationError', message: /fa \(alpha\)/ }, 'naming the flag');
  t.equal((await ok('GET', `/api/admin/segments/${shared.id}`)).project, null, 'it stays shared');
});
