// An environment limit covers what a change does, not only the environment its path names: a
// person or an admin token limited to `development` may not make a change that takes effect in
// `production` through a door that names no environment (a project segment used in production, a
// dependency of a flag on in production, archiving such a flag, deleting an archived parent of a
// flag on in production, a features import that rewrites such a flag's dependencies, the project's
// own settings). Against a real server: each such door is refused (403 naming the permission) and
// nothing is written; the same changes confined to development still work.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { signInAs, STRONG } from '../../helpers/people.js';
import { client, serve, type Res } from '../../helpers/server.js';

const ADMIN_TOKEN = '*:*.reach-admin-token-0123456789abcdef';
const DEV_TOKEN = '*:development.reach-dev-token-0123456789abcdef';
const P = '/api/admin/projects/default/features';

function walBytes(dir: string): number {
  return fs.readdirSync(dir).filter((f) => f.startsWith('wal-')).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
}

const isRefusal = (res: Res) => res.status === 403 && /^You need permission=\w+ to perform this action/.test(res.json?.message ?? '');

t.test('a caller limited to development: every door to production refused with nothing written; development still works', async (t) => {
  const { srv, api, ok } = await serve(t, {
    authorization: ADMIN_TOKEN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: `${ADMIN_TOKEN},${DEV_TOKEN}`, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000' },
  });
  const on = (flag: string, env: string) => ok('POST', `${P}/${flag}/environments/${env}/on`);

  // A project segment used only in production, and one used only in development.
  const segProd = await ok('POST', '/api/admin/segments', { name: 'seg-prod', project: 'default', constraints: [] });
  const segDev = await ok('POST', '/api/admin/segments', { name: 'seg-dev', project: 'default', constraints: [] });
  for (const [flag, env, seg] of [['uses-seg-prod', 'production', segProd.id], ['uses-seg-dev', 'development', segDev.id]] as const) {
    await ok('POST', P, { name: flag });
    await ok('POST', `${P}/${flag}/environments/${env}/strategies`, { name: 'default', segments: [seg] });
    await on(flag, env);
  }
  // Parents, and children on in production (one without, one with a dependency), or in development only.
  for (const f of ['parent', 'child-prod', 'child-prod-dep', 'child-dev', 'on-prod']) await ok('POST', P, { name: f });
  await on('child-prod', 'production');
  await on('child-prod-dep', 'production');
  await ok('POST', `${P}/child-prod-dep/dependencies`, { feature: 'parent' });
  await on('child-dev', 'development');
  await on('on-prod', 'production');
  // A live flag on in production that depends on an archived parent: deleting the parent for good
  // removes the dependency, so it changes how the child evaluates in production.
  await ok('POST', P, { name: 'old-parent' });
  await ok('POST', P, { name: 'orphan' });
  await ok('POST', `${P}/orphan/dependencies`, { feature: 'old-parent' });
  await ok('DELETE', `${P}/orphan`);
  await ok('DELETE', `${P}/old-parent`);
  await ok('POST', '/api/admin/archive/revive/orphan');
  await on('orphan', 'production');

  await ok('POST', '/api/admin/user-admin', { username: 'editor-dev', password: STRONG, rootRole: 'Editor', environments: ['development'] });
  await ok('POST', '/api/admin/user-admin', { username: 'owner-dev', password: STRONG, rootRole: 'Viewer', projects: [{ project: 'default', role: 'Owner' }], environments: ['development'] });
  const subjects: [string, Record<string, string>][] = [
    ['Editor limited to development', { cookie: `fanion-session=${await signInAs(srv.url, 'editor-dev', STRONG)}` }],
    ['Owner of default limited to development', { cookie: `fanion-session=${await signInAs(srv.url, 'owner-dev', STRONG)}` }],
    ['admin token limited to development', { authorization: DEV_TOKEN }],
  ];

  const doors: [string, string, unknown?][] = [
    ['PUT', `/api/admin/segments/${segProd.id}`, { name: 'seg-prod', project: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['x'] }] }],
    ['POST', `${P}/child-prod/dependencies`, { feature: 'parent' }],
    ['DELETE', `${P}/child-prod-dep/dependencies/parent`],
    ['DELETE', `${P}/child-prod-dep/dependencies`],
    ['DELETE', `${P}/on-prod`],
    ['DELETE', '/api/admin/archive/old-parent'],
    ['PUT', '/api/admin/projects/default', { name: 'Renamed by a limited caller', defaultStickiness: 'userId' }],
    ['POST', '/api/admin/features-batch/import', {
      project: 'default', environment: 'development',
      data: { features: [{ name: 'child-prod', project: 'default' }], dependencies: [{ feature: 'child-prod', dependencies: [{ feature: 'parent' }] }] },
    }],
  ];
  const walBefore = walBytes(srv.dataDir);
  const eventsBefore = (await api('GET', '/api/admin/events')).json.totalEvents;
  const through: string[] = [];
  let refused = 0;
  for (const [name, headers] of subjects) {
    const as = client(srv.url, headers);
    for (const [method, url, body] of doors) {
      const res = await as(method, url, body);
      if (isRefusal(res)) refused++;
      else through.push(`${name}: ${method} ${url} → ${res.status} ${res.text.slice(0, 100)}`);
    }
  }
  t.comment(`${refused} of ${subjects.length * doors.length} doors to production refused`);
  t.same(through, [], 'every door to production is refused with 403 naming the permission');
  t.equal(walBytes(srv.dataDir), walBefore, 'not one byte appended to the write-ahead log');
  t.equal((await api('GET', '/api/admin/events')).json.totalEvents, eventsBefore, 'no event');
  t.same((await ok('GET', `/api/admin/segments/${segProd.id}`)).constraints, [], 'the production segment is unchanged');
  t.same((await ok('GET', `${P}/child-prod`)).dependencies ?? [], [], 'child-prod has no dependency');
  t.equal((await ok('GET', `${P}/child-prod-dep`)).dependencies.length, 1, 'child-prod-dep keeps its dependency');
  t.equal((await ok('GET', `${P}/on-prod`)).archived, false, 'on-prod is not archived');
  t.equal((await ok('GET', '/api/admin/archive/features')).features.some((f: any) => f.name === 'old-parent'), true, 'old-parent is still in the archive');
  t.equal((await ok('GET', '/api/admin/projects/default')).name, 'Default', "the project's settings are unchanged");

  const message = (await client(srv.url, subjects[0][1])('POST', `${P}/child-prod/dependencies`, { feature: 'parent' })).json.message;
  t.equal(message, 'You need permission=UPDATE_FEATURE_DEPENDENCY to perform this action on environment=* in project=default: ' +
    'you may change only environment development, and this change takes effect in production.', 'the refusal says where the change would take effect');

  // The same kinds of change, confined to development, still work for each of them.
  for (const [i, [name, headers]] of subjects.entries()) {
    const as = client(srv.url, headers);
    const flag = `on-dev-${i}`;
    await ok('POST', P, { name: flag });
    await on(flag, 'development');
    const steps: [string, string, unknown, number][] = [
      ['PUT', `/api/admin/segments/${segDev.id}`, { name: 'seg-dev', project: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: [String(i)] }] }, 204],
      ['POST', `${P}/child-dev/dependencies`, { feature: 'parent' }, 200],
      ['DELETE', `${P}/child-dev/dependencies/parent`, undefined, 200],
      ['DELETE', `${P}/${flag}`, undefined, 202],
      ['POST', '/api/admin/features-batch/import', {
        project: 'default', environment: 'development',
        data: { features: [{ name: 'child-dev', project: 'default' }], dependencies: [{ feature: 'child-dev', dependencies: [{ feature: 'parent' }] }] },
      }, 200],
      ['DELETE', `${P}/child-dev/dependencies`, undefined, 200],
    ];
    for (const [method, url, body, status] of steps) t.equal((await as(method, url, body)).status, status, `${name}: ${method} ${url} → ${status}`);
  }
  t.same((await ok('GET', `/api/admin/segments/${segDev.id}`)).constraints[0].values, ['2'], 'the development segment was changed');
});
