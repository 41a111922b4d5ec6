// GET /api/client/features[/:name] through HTTP against a real server process.
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { cutAfter } from '../../../src/concepts/client-api/blocks.js';
import { client, spawnServer } from '../../helpers/server.js';

const P = '/api/admin/projects';
const F = '/api/client/features';

t.test('client features with AUTH_TYPE=none', async (t) => {
  const srv = await spawnServer();
  t.teardown(() => srv.stop());
  const api = client(srv.url);
  const names = (res: { json: { features: { name: string }[] } }) => res.json.features.map((f) => f.name);

  await api('POST', '/api/admin/projects', { id: 'other', name: 'Other' });
  for (const name of ['alpha', 'beta', 'gamma']) t.equal((await api('POST', `${P}/default/features`, { name })).status, 201);
  t.equal((await api('POST', `${P}/other/features`, { name: 'other-one' })).status, 201);

  t.test('records carry the decided shape: legacy strategy/parameters, synthetic default, no ids', async (t) => {
    const st = await api('POST', `${P}/default/features/alpha/environments/development/strategies`, {
      name: 'userWithId', title: 'T', parameters: { userIds: 'a,b' }, constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }],
    });
    t.equal(st.status, 200);
    await api('POST', `${P}/default/features/alpha/environments/development/strategies`, { name: 'default', disabled: true });
    await api('POST', `${P}/default/features/alpha/environments/development/on`);
    const res = await api('GET', F);
    t.equal(res.status, 200);
    t.equal(res.json.version, 1);
    t.same(names(res), ['alpha', 'beta', 'gamma', 'other-one'], 'every live flag in every project, sorted by name');
    const alpha = res.json.features[0];
    t.strictSame(Object.keys(alpha), ['name', 'type', 'enabled', 'stale', 'project', 'description', 'impressionData', 'strategies', 'strategy', 'parameters', 'variants']);
    t.equal(alpha.enabled, true);
    t.equal(alpha.strategies.length, 1, 'the disabled strategy is left out');
    t.strictSame(Object.keys(alpha.strategies[0]).sort(), ['constraints', 'name', 'parameters', 'variants']);
    t.equal(alpha.strategy, 'userWithId');
    t.same(alpha.parameters, { userIds: 'a,b' });
    const beta = res.json.features[1];
    t.equal(beta.enabled, false);
    t.strictSame(beta.strategies, [{ name: 'default', parameters: {}, constraints: [], variants: [] }], 'no strategy → one synthetic default');
    t.equal(beta.dependencies, undefined, 'dependencies only when non-empty');
  });

  t.test('dependencies and segments appear in the record', async (t) => {
    t.equal((await api('POST', `${P}/default/features/gamma/dependencies`, { feature: 'alpha', enabled: true, variants: ['v1'] })).status, 200);
    const seg = await api('POST', '/api/admin/segments', { name: 'nordics', constraints: [{ contextName: 'country', operator: 'IN', values: ['SE', 'DK'] }] });
    t.equal(seg.status, 201);
    await api('POST', `${P}/default/features/gamma/environments/development/strategies`, {
      name: 'default', constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }], segments: [seg.json.id],
    });
    const one = await api('GET', `${F}/gamma`);
    t.equal(one.status, 200);
    t.equal(one.json.version, undefined, 'the single record has no version');
    t.same(one.json.dependencies, [{ feature: 'alpha', enabled: true, variants: ['v1'] }]);
    t.same(one.json.strategies[0].constraints.map((c: any) => c.contextName), ['appName', 'country'], 'segment constraints are appended');
    const upd = await api('PUT', `/api/admin/segments/${seg.json.id}`, { name: 'nordics', constraints: [{ contextName: 'region', operator: 'IN', values: ['north'] }] });
    t.equal(upd.status, 204);
    const after = await api('GET', `${F}/gamma`);
    t.same(after.json.strategies[0].constraints.map((c: any) => c.contextName), ['appName', 'region'], 'a segment change reaches the flags using it');
  });

  t.test('filters: project, namePrefix, tag and tag[] (OR within a kind, AND across kinds)', async (t) => {
    t.equal((await api('POST', '/api/admin/features/alpha/tags', { type: 'simple', value: 'web' })).status, 201);
    t.equal((await api('POST', '/api/admin/features/other-one/tags', { type: 'simple', value: 'mobile' })).status, 201);
    t.same(names(await api('GET', `${F}?project=other`)), ['other-one']);
    t.same(names(await api('GET', `${F}?project=other&project=default`)), ['alpha', 'beta', 'gamma', 'other-one']);
    t.same(names(await api('GET', `${F}?namePrefix=be`)), ['beta']);
    t.same(names(await api('GET', `${F}?namePrefix=Be`)), [], 'namePrefix is case-sensitive');
    t.same(names(await api('GET', `${F}?tag=simple:web`)), ['alpha']);
    t.same(names(await api('GET', `${F}?tag[]=simple:web&tag[]=simple:mobile`)), ['alpha', 'other-one']);
    t.same(names(await api('GET', `${F}?tag=simple:web&project=other`)), [], 'different kinds AND together');
    const bad = await api('GET', `${F}?tag=nocolon`);
    t.equal(bad.status, 400);
    t.equal(bad.json.name, 'ValidationError');
    t.type(bad.json.id, 'string');
  });

  t.test('a tag added to a flag changes what a tag filter selects at once', async (t) => {
    const before = await api('GET', `${F}?tag=simple:web`);
    t.equal((await api('POST', '/api/admin/features/beta/tags', { type: 'simple', value: 'web' })).status, 201);
    const after = await api('GET', `${F}?tag=simple:web`);
    t.same(names(after), ['alpha', 'beta']);
    t.not(after.headers.get('etag'), before.headers.get('etag'));
  });

  t.test('ETag and If-None-Match: exact, lists, W/ and * give 304 with the ETag and no body', async (t) => {
    const res = await api('GET', F);
    const etag = res.headers.get('etag')!;
    t.match(etag, /^"[^"]+"$/, 'strong and quoted');
    for (const inm of [etag, `"nope", ${etag}`, `W/${etag}`, '*']) {
      const r = await api('GET', F, undefined, { 'if-none-match': inm });
      t.equal(r.status, 304, inm);
      t.equal(r.text, '');
      t.equal(r.headers.get('etag'), etag);
    }
    const miss = await api('GET', F, undefined, { 'if-none-match': '"other"' });
    t.equal(miss.status, 200);
    t.equal((await api('GET', F)).headers.get('etag'), etag, 'unchanged data keeps its ETag');
  });

  t.test('read-your-writes: the GET after an acknowledged change sees it, with a new ETag', async (t) => {
    const before = await api('GET', F);
    t.equal((await api('POST', `${P}/default/features/beta/environments/development/on`)).status, 200);
    const after = await api('GET', F, undefined, { 'if-none-match': before.headers.get('etag')! });
    t.equal(after.status, 200);
    t.equal(after.json.features.find((f: any) => f.name === 'beta').enabled, true);
    t.not(after.headers.get('etag'), before.headers.get('etag'));
  });

  t.test('a change in production does not change the development response or ETag', async (t) => {
    const before = await api('GET', F);
    await api('POST', `${P}/default/features/beta/environments/production/strategies`, { name: 'default' });
    await api('POST', `${P}/default/features/beta/environments/production/on`);
    const after = await api('GET', F);
    t.equal(after.headers.get('etag'), before.headers.get('etag'));
    t.equal(after.text, before.text);
  });

  t.test('a change in project default does not change a response filtered to project other', async (t) => {
    const before = await api('GET', `${F}?project=other`);
    await api('PATCH', `${P}/default/features/beta`, [{ op: 'replace', path: '/description', value: 'changed' }]);
    const after = await api('GET', `${F}?project=other`);
    t.equal(after.headers.get('etag'), before.headers.get('etag'));
    const all = await api('GET', F);
    t.equal(all.json.features.find((f: any) => f.name === 'beta').description, 'changed');
  });

  t.test('gzip: Accept-Encoding gzip gets the gzip copy once it is ready, same ETag', async (t) => {
    const plain = await fetch(srv.url + F);
    const etag = plain.headers.get('etag');
    const body = await plain.text();
    let res: Response | null = null;
    for (let i = 0; i < 250; i++) {
      res = await fetch(srv.url + F, { headers: { 'accept-encoding': 'gzip' }, decompress: false } as RequestInit);
      if (res.headers.get('content-encoding') === 'gzip') break;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 20));
    }
    t.equal(res!.headers.get('content-encoding'), 'gzip');
    t.equal(res!.headers.get('etag'), etag);
    t.equal(res!.headers.get('vary'), 'Accept-Encoding');
    const raw = Buffer.from(await res!.arrayBuffer());
    // fetch may already have inflated it; either way the JSON must be the same bytes.
    const text = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw).toString() : raw.toString();
    t.equal(text, body);
    const refused = await fetch(srv.url + F, { headers: { 'accept-encoding': 'gzip;q=0' } });
    t.equal(refused.headers.get('content-encoding'), null);
    await refused.arrayBuffer();
  });

  t.test('a response of several blocks arrives whole, identity and gzip', async (t) => {
    // Names that end a block, so the body is written as several buffers.
    const cutting: string[] = [];
    for (let i = 0; cutting.length < 3; i++) if (cutAfter(`blk-${i}`)) cutting.push(`blk-${i}`);
    for (const name of [...cutting, 'blk-z1', 'blk-z2']) t.equal((await api('POST', `${P}/default/features`, { name })).status, 201);
    const res = await fetch(srv.url + F);
    const text = await res.text();
    t.equal(Number(res.headers.get('content-length')), Buffer.byteLength(text));
    const got = JSON.parse(text).features.map((f: any) => f.name);
    for (const name of [...cutting, 'blk-z1', 'blk-z2']) t.ok(got.includes(name), name);
    let zipped: Buffer | null = null;
    for (let i = 0; i < 250 && !zipped; i++) {
      zipped = await new Promise<Buffer | null>((resolve, reject) => {
        http.get(srv.url + F, { headers: { 'accept-encoding': 'gzip' } }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve(r.headers['content-encoding'] === 'gzip' ? Buffer.concat(chunks) : null));
        }).on('error', reject);
      });
      if (!zipped) await new Promise((r) => setTimeout(r, 20));
    }
    t.equal(gunzipSync(zipped!).toString(), text);
  });

  t.test('single flag: 404 NotFoundError when unknown or archived', async (t) => {
    const unknown = await api('GET', `${F}/nope`);
    t.equal(unknown.status, 404);
    t.equal(unknown.json.name, 'NotFoundError');
    t.equal((await api('DELETE', `${P}/other/features/other-one`)).status, 202);
    t.equal((await api('GET', `${F}/other-one`)).status, 404);
    t.notOk(names(await api('GET', F)).includes('other-one'), 'archived flags leave the list');
  });
});

t.test('client features with API tokens: environment and project scope', async (t) => {
  const srv = await spawnServer({
    env: {
      AUTH_TYPE: 'api-token',
      INIT_ADMIN_API_TOKENS: '*:*.admin-secret',
      INIT_CLIENT_API_TOKENS: '*:production.prod-secret,default:development.dev-default-secret',
    },
  });
  t.teardown(() => srv.stop());
  const admin = client(srv.url, { authorization: '*:*.admin-secret' });
  const prod = client(srv.url, { authorization: '*:production.prod-secret' });
  const devDefault = client(srv.url, { authorization: 'default:development.dev-default-secret' });
  await admin('POST', '/api/admin/projects', { id: 'other', name: 'Other' });
  await admin('POST', `${P}/default/features`, { name: 'a' });
  await admin('POST', `${P}/other/features`, { name: 'b' });
  await admin('POST', `${P}/default/features/a/environments/production/on`);

  t.test('no token → 401, admin token → 403 NoAccessError', async (t) => {
    const none = await client(srv.url)('GET', F);
    t.equal(none.status, 401);
    const adm = await admin('GET', F);
    t.equal(adm.status, 403);
    t.equal(adm.json.name, 'NoAccessError');
  });

  t.test("the token's environment decides `enabled`", async (t) => {
    const p = await prod('GET', F);
    t.same(p.json.features.map((f: any) => [f.name, f.enabled]), [['a', true], ['b', false]]);
    const d = await devDefault('GET', F);
    t.same(d.json.features.map((f: any) => [f.name, f.enabled]), [['a', false]], 'a project token sees only its project');
  });

  t.test('a ?project= outside the token scope yields nothing; single flag outside scope is 404', async (t) => {
    const r = await devDefault('GET', `${F}?project=other`);
    t.equal(r.status, 200);
    t.same(r.json.features, []);
    t.equal((await devDefault('GET', `${F}/b`)).status, 404);
    t.equal((await devDefault('GET', `${F}/a`)).status, 200);
  });

  t.test('a production change keeps the development ETag', async (t) => {
    const before = await devDefault('GET', F);
    await admin('POST', `${P}/default/features/a/environments/production/off`);
    const after = await devDefault('GET', F, undefined, { 'if-none-match': before.headers.get('etag')! });
    t.equal(after.status, 304);
    const p = await prod('GET', F);
    t.equal(p.json.features[0].enabled, false);
  });
});
