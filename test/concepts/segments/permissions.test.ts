// Who may do what with segments, against a real server: a project Member creates, changes and
// deletes segments of their project (their permissions say so), but may neither make one
// shared by every project nor move it to another project (that needs the permission on shared
// segments, which an Editor has); and what a refused request asked for is not done.
import t from 'tap';
import { signInAs, STRONG } from '../../helpers/people.js';
import { client, serve } from '../../helpers/server.js';

const ADMIN_TOKEN = '*:*.segment-perm-admin-token-0123456789';
const S = '/api/admin/segments';

t.test('a project Member: segments of their project yes, shared ones or moves to another project no', async (t) => {
  const { srv, api } = await serve(t, {
    authorization: ADMIN_TOKEN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN_TOKEN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000' },
  });
  for (const id of ['alpha', 'beta']) t.equal((await api('POST', '/api/admin/projects', { id, name: id })).status, 201);
  t.equal((await api('POST', '/api/admin/user-admin', { username: 'member', password: STRONG, rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }, { project: 'beta', role: 'Viewer' }] })).status, 201);
  t.equal((await api('POST', '/api/admin/user-admin', { username: 'editor', password: STRONG, rootRole: 'Editor' })).status, 201);
  const member = client(srv.url, { cookie: `fanion-session=${await signInAs(srv.url, 'member', STRONG)}` });
  const editor = client(srv.url, { cookie: `fanion-session=${await signInAs(srv.url, 'editor', STRONG)}` });

  const me = (await member('GET', '/api/admin/user')).json.permissions as { permission: string; project?: string }[];
  t.ok(me.some((p) => p.permission === 'CREATE_SEGMENT' && p.project === 'alpha'), 'their permissions list CREATE_SEGMENT in alpha');

  const created = await member('POST', S, { name: 'alpha-new', project: 'alpha', constraints: [] });
  t.equal(created.status, 201, `creates a segment in alpha (${created.text.slice(0, 160)})`);
  // The one the rest changes, made by the Admin (so that it exists whatever the answer above).
  const { id } = (await api('POST', S, { name: 'alpha-testers', project: 'alpha', constraints: [] })).json;

  const refused = async (what: string, res: { status: number; json: any }) => {
    t.equal(res.status, 403, what);
    t.match(res.json?.message ?? '', /^You need permission=\w+_SEGMENT /, `${what}: the refusal names the permission`);
  };
  await refused('creating a shared segment', await member('POST', S, { name: 'everyone', constraints: [] }));
  await refused('creating a segment in beta (Viewer there)', await member('POST', S, { name: 'beta-testers', project: 'beta', constraints: [] }));
  await refused('making the alpha segment shared', await member('PUT', `${S}/${id}`, { name: 'alpha-testers', project: null, constraints: [] }));
  await refused('moving it to beta', await member('PUT', `${S}/${id}`, { name: 'alpha-testers', project: 'beta', constraints: [] }));
  const after = (await api('GET', `${S}/${id}`)).json;
  t.equal(after.project, 'alpha', 'the segment is still alpha\'s');
  t.same((await api('GET', S)).json.segments.map((s: any) => s.name).filter((n: string) => n === 'everyone' || n === 'beta-testers'), [], 'nothing created by the refused requests');

  const changed = await member('PUT', `${S}/${id}`, { name: 'alpha-testers', description: 'changed', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] });
  t.equal(changed.status, 204, 'changes it within alpha (the project kept when the body names none)');
  t.equal((await member('PUT', `${S}/${id}`, { name: 'alpha-testers', project: 'alpha', constraints: [] })).status, 204, 'and when the body names alpha');

  t.equal((await editor('PUT', `${S}/${id}`, { name: 'alpha-testers', project: null, constraints: [] })).status, 204, 'an Editor may make it shared');
  await refused('changing the now shared segment', await member('PUT', `${S}/${id}`, { name: 'alpha-testers', project: 'alpha', constraints: [] }));
  t.equal((await api('GET', `${S}/${id}`)).json.project, null, 'it stays shared');
  t.equal((await editor('PUT', `${S}/${id}`, { name: 'alpha-testers', project: 'alpha', constraints: [] })).status, 204, 'the Editor puts it back in alpha');
  t.equal((await member('DELETE', `${S}/${id}`)).status, 204, 'the Member deletes a segment of alpha');
});
