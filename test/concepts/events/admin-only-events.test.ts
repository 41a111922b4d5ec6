// Events about what only an Admin may list (people, personal and API tokens, webhooks) are hidden
// from everyone who cannot list those, through every door that serves events: the search, the
// newest events (also by project), a flag's events. Against a real server: an Admin sees them
// (emails, roles, token scopes), a Viewer, an Editor and a project-limited admin token see none of
// them, not by type, not by free text, and their totals leave them out; other events are shown
// to them as before.
import t from 'tap';
import { signInAs, STRONG } from '../../helpers/people.js';
import { client, serve } from '../../helpers/server.js';

const ADMIN = '*:*.admin-only-events-admin-token-0123';
const LIMITED = 'default:*.admin-only-events-limited-token-0123';
const HIDDEN = /^(user-|pat-|api-token-|addon-config-)/;

t.test('events about people, tokens and webhooks are seen only by those who may list them', async (t) => {
  const { srv, ok } = await serve(t, {
    authorization: ADMIN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: `${ADMIN},${LIMITED}`, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000' },
  });
  await ok('POST', '/api/admin/user-admin', { username: 'viewer', email: 'viewer@secret.example', password: STRONG, rootRole: 'Viewer' });
  await ok('POST', '/api/admin/user-admin', { username: 'editor', email: 'editor@secret.example', password: STRONG, rootRole: 'Editor' });
  await ok('POST', '/api/admin/api-tokens', { tokenName: 'ci-default', type: 'admin', projects: ['default'], environment: '*' });
  await ok('POST', '/api/admin/api-tokens', { tokenName: 'sdk-default', type: 'client', projects: ['default'], environment: 'production' });
  await ok('POST', '/api/admin/addons', { provider: 'webhook', enabled: false, parameters: { url: 'https://hooks.secret.example/in' }, events: ['*'] });
  await ok('POST', '/api/admin/projects/default/features', { name: 'visible-flag' });
  const viewerSession = await signInAs(srv.url, 'viewer', STRONG);
  await client(srv.url, { cookie: `fanion-session=${viewerSession}` })('POST', '/api/admin/user/tokens', { description: 'mine', expiresAt: '2099-01-01T00:00:00Z' });

  const all = (await ok('GET', '/api/admin/events')).events as { type: string; project: string | null }[];
  const hidden = all.filter((e) => HIDDEN.test(e.type));
  t.ok(hidden.length >= 6, `the Admin sees ${hidden.length} events about people, tokens and webhooks`);
  t.ok(hidden.some((e) => e.project === 'default'), 'one of them belongs to project default (a token of that project)');

  const callers: [string, ReturnType<typeof client>][] = [
    ['Viewer', client(srv.url, { cookie: `fanion-session=${viewerSession}` })],
    ['Editor', client(srv.url, { cookie: `fanion-session=${await signInAs(srv.url, 'editor', STRONG)}` })],
    ['admin token of project default', client(srv.url, { authorization: LIMITED })],
  ];
  const leaks: string[] = [];
  for (const [name, as] of callers) {
    t.equal((await as('GET', '/api/admin/user-admin')).status, 403, `${name} may not list people`);
    t.equal((await as('GET', '/api/admin/api-tokens')).status, 403, `${name} may not list tokens`);
    const doors: [string, string, unknown?][] = [
      ['GET', '/api/admin/events'],
      ['GET', '/api/admin/events?project=default'],
      ['POST', '/api/admin/events/search', {}],
      ['POST', '/api/admin/events/search', { query: 'secret.example' }],
      ['POST', '/api/admin/events/search', { query: 'ci-default' }],
      ['POST', '/api/admin/events/search', { type: 'user-created' }],
      ['POST', '/api/admin/events/search', { type: 'api-token-created', project: 'default' }],
      ['POST', '/api/admin/events/search', { type: 'addon-config-created' }],
      ['POST', '/api/admin/events/search', { type: 'pat-created' }],
    ];
    for (const [method, url, body] of doors) {
      const res = await as(method, url, body);
      const seen = (res.json?.events ?? []).filter((e: { type: string }) => HIDDEN.test(e.type));
      const text = JSON.stringify(res.json ?? {});
      if (res.status !== 200 || seen.length > 0 || /secret\.example|ci-default/.test(text)) leaks.push(`${name}: ${method} ${url} ${JSON.stringify(body ?? '')} → ${res.status}, ${seen.length} hidden events`);
    }
    const page = (await as('GET', '/api/admin/events')).json;
    const expected = name.startsWith('admin token') ? all.filter((e) => e.project === 'default' && !HIDDEN.test(e.type)).length : all.length - hidden.length;
    t.equal(page.totalEvents, expected, `${name}: totalEvents counts only what it sees`);
    t.ok(page.events.some((e: { type: string }) => e.type === 'feature-created'), `${name}: still sees the flag's creation`);
    const flag = (await as('GET', '/api/admin/events/visible-flag')).json;
    t.equal(flag.totalEvents, 1, `${name}: a flag's events as before`);
  }
  t.same(leaks, [], 'no door shows them an event about people, tokens or webhooks');
  const adminSearch = (await ok('POST', '/api/admin/events/search', { query: 'secret.example' })).events;
  t.ok(adminSearch.length >= 3, 'the Admin still finds them by free text');
});
