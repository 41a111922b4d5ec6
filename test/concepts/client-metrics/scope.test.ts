// Client and frontend tokens are public: metrics sent with one count only the flags the token can
// see, in the token's environment. A token of project `default` reporting another project's flag
// must not set that flag's lastSeenAt nor its counts; a token of environment X counts in X only,
// whatever the body says; a token of every project (`*`) counts them all.
import t from 'tap';
import { serve } from '../../helpers/server.js';

const ADMIN = '*:*.scope-admin';
const FRONTEND = 'default:development.scope-frontend';
const CLIENT = 'default:development.scope-client';
const ALL_PROJECTS = '*:production.scope-all';
const START = '2026-01-01T10:00:00.000Z';
const STOP = '2026-01-01T10:01:00.000Z';

const metrics = (appName: string, toggles: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  appName, instanceId: 'i-1', bucket: { start: START, stop: STOP, toggles }, ...extra,
});

t.test('metrics count only the flags the token sees, in its environment', async (t) => {
  const { srv, api, ok } = await serve(t, {
    authorization: ADMIN,
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_FRONTEND_API_TOKENS: FRONTEND, INIT_CLIENT_API_TOKENS: `${CLIENT},${ALL_PROJECTS}`, METRICS_FLUSH_MS: '100' },
  });
  await ok('POST', '/api/admin/projects/default/features', { name: 'mine' });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await ok('POST', '/api/admin/projects/shop/features', { name: 'theirs' });
  await ok('POST', '/api/admin/projects/shop/features', { name: 'shared' });
  const lastSeen = async (project: string, flag: string, env: string): Promise<string | null> =>
    (await ok('GET', `/api/admin/projects/${project}/features/${flag}`)).environments.find((e: { name: string }) => e.name === env).lastSeenAt;
  /** Waits for the flush that writes `mine`'s lastSeenAt in `env`: whatever the same posts did to other flags is written by then too. */
  const flushed = async (env: string) => {
    for (let i = 0; i < 200; i++) {
      if (await lastSeen('default', 'mine', env)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`mine/${env} never got a lastSeenAt`);
  };
  const counted = async (appName: string) =>
    (await ok('GET', `/api/admin/metrics/applications/${appName}`)).toggles.map((c: { featureName: string; environment: string; yes: number }) => [c.featureName, c.environment, c.yes]);
  const post = (path: string, token: string, body: unknown) =>
    fetch(srv.url + path, { method: 'POST', headers: { authorization: token, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  await t.test("a frontend token of project default: another project's flag is not counted", async (t) => {
    const res = await post('/api/frontend/client/metrics', FRONTEND, metrics('browser', { mine: { yes: 1, no: 0 }, theirs: { yes: 7, no: 0 } }));
    t.equal(res.status, 200);
    await flushed('development');
    t.equal(await lastSeen('shop', 'theirs', 'development'), null, "the other project's flag has no lastSeenAt");
    t.same(await counted('browser'), [['mine', 'development', 1]], 'and no counts');
  });

  await t.test('a client token of project default: the same', async (t) => {
    const res = await post('/api/client/metrics', CLIENT, metrics('server', { mine: { yes: 2, no: 0 }, theirs: { yes: 9, no: 1 } }));
    t.equal(res.status, 202);
    await new Promise((r) => setTimeout(r, 500)); // several flush intervals
    t.equal(await lastSeen('shop', 'theirs', 'development'), null, "the other project's flag has no lastSeenAt");
    t.same(await counted('server'), [['mine', 'development', 2]], 'and no counts');
  });

  await t.test('a token of every project counts every project, in its own environment only', async (t) => {
    const res = await post('/api/client/metrics', ALL_PROJECTS, metrics('everywhere', { mine: { yes: 3, no: 0 }, shared: { yes: 4, no: 0 } }, { environment: 'development' }));
    t.equal(res.status, 202);
    await flushed('production');
    t.type(await lastSeen('shop', 'shared', 'production'), 'string', "a flag of any project, in the token's environment");
    t.equal(await lastSeen('shop', 'shared', 'development'), null, 'not in the environment the body names');
    t.same(await counted('everywhere'), [['mine', 'production', 3], ['shared', 'production', 4]]);
  });

  t.equal((await api('GET', '/api/admin/metrics/applications')).status, 200);
});
