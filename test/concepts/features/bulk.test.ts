// Unleash's routes over several flags at once, over HTTP against a real server: switch on/off in
// an environment, archive, tag; all or none (an unknown flag changes nothing). And favourites:
// per person, kept across a restart, refused to an API token with a 403 that says why.
import t from 'tap';
import { signInAs, STRONG } from '../../helpers/people.js';
import { client, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.bulk-admin-token-0123456789';
const P = '/api/admin/projects/default';

t.test('bulk switch, archive and tag; favourites per person', async (t) => {
  let srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG } });
  const dataDir = srv.dataDir;
  t.teardown(() => srv.stop());
  let api = client(srv.url, { authorization: ADMIN });
  const ok = async (method: string, p: string, body?: unknown) => {
    const res = await api(method, p, body);
    if (res.status >= 300) throw new Error(`${method} ${p} → ${res.status} ${res.text}`);
    return res.json;
  };
  for (const name of ['b1', 'b2', 'b3', 'b4']) await ok('POST', `${P}/features`, { name });
  const eventsBefore = (await api('GET', '/api/admin/events')).json.totalEvents;
  const onIn = async (name: string, env: string) =>
    (await ok('GET', `${P}/features/${name}`)).environments.find((e: any) => e.name === env).enabled as boolean;

  t.test('switch on/off: every flag named, or none with an unknown one', async (t) => {
    const bad = await api('POST', `${P}/bulk_features/environments/development/on`, { features: ['b1', 'nope'] });
    t.equal(bad.status, 404);
    t.match(bad.json.message, /no feature named "nope"/);
    t.equal(await onIn('b1', 'development'), false, 'b1 untouched by the refused request');
    t.equal((await api('GET', '/api/admin/events')).json.totalEvents, eventsBefore, 'no event');
    t.equal((await api('POST', `${P}/bulk_features/environments/nowhere/on`, { features: ['b1'] })).status, 404);
    t.equal((await api('POST', `${P}/bulk_features/environments/development/on`, { feature: ['b1'] })).status, 400);
    t.equal((await api('POST', `${P}/bulk_features/environments/development/on`, { features: ['b1', 'b2', 'b3'], shouldActivateDisabledStrategies: false })).status, 200);
    t.same(await Promise.all(['b1', 'b2', 'b3', 'b4'].map((n) => onIn(n, 'development'))), [true, true, true, false]);
    const b2 = await ok('GET', `${P}/features/b2`);
    t.equal(b2.environments.find((e: any) => e.name === 'development').strategies.length, 1, 'a default strategy, as a single switch gives');
    const search = async (q: string) => (await ok('GET', `/api/admin/search/features?sortBy=name&${q}`)).features.map((f: any) => f.name);
    t.same(await search('enabledIn=development'), ['b1', 'b2', 'b3'], 'the search finds them by their switch');
    t.same(await search('disabledIn=development'), ['b4']);
    t.equal((await api('GET', '/api/admin/search/features?enabledIn=nowhere')).status, 400);
    t.equal((await api('POST', `${P}/bulk_features/environments/development/off`, { features: ['b2', 'b3'] })).status, 200);
    t.same(await Promise.all(['b1', 'b2', 'b3'].map((n) => onIn(n, 'development'))), [true, false, false]);
  });

  t.test('tag: the same tags on every flag, a tag new to the server made once', async (t) => {
    const body = { features: ['b1', 'b2'], tags: { addedTags: [{ type: 'simple', value: 'team-a' }], removedTags: [] } };
    const bad = await api('PUT', `${P}/tags`, { ...body, features: ['b1', 'nope'] });
    t.equal(bad.status, 404);
    t.same((await ok('GET', '/api/admin/features/b1/tags')).tags, [], 'nothing tagged by the refused request');
    t.equal((await api('PUT', `${P}/tags`, body)).status, 200);
    for (const n of ['b1', 'b2']) t.same((await ok('GET', `/api/admin/features/${n}/tags`)).tags.map((x: any) => x.value), ['team-a'], n);
    t.equal((await ok('GET', '/api/admin/tags/simple')).tags.filter((x: any) => x.value === 'team-a').length, 1);
    const created = (await ok('GET', '/api/admin/events')).events.filter((e: any) => e.type === 'tag-created' && e.data?.value === 'team-a');
    t.equal(created.length, 1, 'the new tag recorded as created once');
    t.equal((await api('PUT', `${P}/tags`, { features: ['b1'], tags: { addedTags: [], removedTags: [{ type: 'simple', value: 'team-a' }] } })).status, 200);
    t.same((await ok('GET', '/api/admin/features/b1/tags')).tags, []);
  });

  t.test('archive: all or none; a parent goes only with its children', async (t) => {
    await ok('POST', `${P}/features/b4/dependencies`, { feature: 'b3' });
    const alone = await api('POST', `${P}/archive`, { features: ['b3', 'b2'] });
    t.equal(alone.status, 403);
    t.match(alone.json.message, /b4 depend on it/);
    t.equal((await api('GET', `${P}/features/b2`)).status, 200, 'b2 still live');
    t.equal((await api('POST', `${P}/archive`, { features: ['b2', 'nope'] })).status, 404);
    t.equal((await api('POST', `${P}/archive`, { features: ['b3', 'b4', 'b2'] })).status, 202);
    const archived = (await ok('GET', '/api/admin/archive/features')).features.map((f: any) => f.name).sort();
    t.same(archived, ['b2', 'b3', 'b4']);
    t.same((await ok('GET', '/api/admin/archive/features')).features.find((f: any) => f.name === 'b4').name, 'b4');
  });

  t.test('favourites: per person, in lists and search, kept across a restart; a token is refused', async (t) => {
    await ok('POST', '/api/admin/user-admin', { username: 'ana', password: STRONG, rootRole: 'Viewer' });
    await ok('POST', `${P}/features`, { name: 'c1' });
    await ok('POST', `${P}/features`, { name: 'c2' });
    const token = await api('POST', `${P}/features/c1/favorites`);
    t.equal(token.status, 403);
    t.match(token.json.message, /signed-in person/);
    const ana = client(srv.url, { cookie: `fanion-session=${await signInAs(srv.url, 'ana', STRONG)}` });
    const admin = client(srv.url, { cookie: `fanion-session=${await signInAs(srv.url, 'admin', STRONG)}` });
    t.equal((await ana('POST', `${P}/features/nope/favorites`)).status, 404);
    t.equal((await ana('POST', `${P}/features/c2/favorites`)).status, 200, 'a Viewer may star');
    t.equal((await ana('POST', `${P}/features/c2/favorites`)).status, 200, 'twice is fine');
    const fav = async (who: typeof ana, name: string) => (await who('GET', `${P}/features/${name}`)).json.favorite;
    t.equal(await fav(ana, 'c2'), true);
    t.equal(await fav(admin, 'c2'), false, "another person's star is not mine");
    const first = (await ana('GET', '/api/admin/search/features?favoritesFirst=true&sortBy=name')).json.features;
    t.same(first.map((f: any) => [f.name, f.favorite]).slice(0, 2), [['c2', true], ['b1', false]]);
    t.equal((await ana('GET', '/api/admin/search/features?favoritesFirst=maybe')).status, 400);
    const list = (await ana('GET', `${P}/features`)).json.features;
    t.same(list.filter((f: any) => f.favorite).map((f: any) => f.name), ['c2']);
    const types = (await api('GET', `/api/admin/events?feature=c2`)).json.events.map((e: any) => e.type);
    t.ok(types.includes('feature-favorited'), 'recorded as Unleash records it');

    await srv.stop();
    srv = await spawnServer({ dataDir, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG } });
    api = client(srv.url, { authorization: ADMIN });
    const again = client(srv.url, { cookie: `fanion-session=${await signInAs(srv.url, 'ana', STRONG)}` });
    t.equal(await fav(again, 'c2'), true, 'kept across a restart');
    t.equal((await again('DELETE', `${P}/features/c2/favorites`)).status, 200);
    t.equal(await fav(again, 'c2'), false);
  });
});
