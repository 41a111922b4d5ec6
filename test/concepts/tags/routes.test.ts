// Tag types, tags and flag tags over HTTP, with the events each change records.
import t from 'tap';
import { recorded, startInProcess } from '../../helpers/in-process-server.js';

const TT = '/api/admin/tag-types';
const TAGS = '/api/admin/tags';
const FT = (f: string) => `/api/admin/features/${f}/tags`;

t.test('tags admin API', async (t) => {
  const srv = await startInProcess();
  t.teardown(() => srv.close());
  const { api } = srv;
  await api('POST', '/api/admin/projects/default/features', { name: 'checkout' });
  await api('POST', '/api/admin/projects/default/features', { name: 'search' });

  t.test('tag types: the default "simple" exists; POST → 201 + tag-type-created; duplicate 409; bad name 400', async (t) => {
    const list = await api('GET', TT);
    t.equal(list.json.version, 1);
    t.same(list.json.tagTypes.map((x: any) => x.name), ['simple']);
    let res: any;
    const events = await recorded(srv, async () => (res = await api('POST', TT, { name: 'team', description: 'Owning team', icon: 'people' })));
    t.equal(res.status, 201);
    t.same(res.json, { name: 'team', description: 'Owning team', icon: 'people' });
    t.match(events, [{ type: 'tag-type-created', data: { name: 'team' } }]);
    t.equal((await api('POST', TT, { name: 'team' })).status, 409);
    const bad = await api('POST', TT, { name: 'a b' });
    t.equal(bad.status, 400);
    t.match(bad.json.message, /name/);
    t.equal((await api('POST', TT, { name: 'x' })).status, 400, 'shorter than 2');
    t.equal((await api('GET', `${TT}/team`)).json.tagType.name, 'team');
    t.equal((await api('GET', `${TT}/nope`)).status, 404);
    t.equal((await api('POST', `${TT}/validate`, { name: 'team' })).status, 409);
    t.equal((await api('POST', `${TT}/validate`, { name: 'fresh' })).status, 200);
  });

  t.test('PUT a tag type → 200 and tag-type-updated with data and preData; unknown → 404', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('PUT', `${TT}/team`, { description: 'Team that owns it' })));
    t.equal(res.status, 200);
    t.same(res.json.tagType, { name: 'team', description: 'Team that owns it', icon: 'people' });
    t.match(events, [{ type: 'tag-type-updated', data: { description: 'Team that owns it' }, preData: { description: 'Owning team' } }]);
    t.equal((await api('PUT', `${TT}/nope`, { description: 'x' })).status, 404);
    t.equal((await api('PUT', `${TT}/team`, { icon: 5 })).status, 400);
  });

  t.test('tags: POST → 201 (value trimmed) + tag-created; duplicate 409; unknown type 400; value too short/long 400', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('POST', TAGS, { type: 'team', value: '  payments ' })));
    t.equal(res.status, 201);
    t.same(res.json, { version: 1, tag: { type: 'team', value: 'payments' } });
    t.match(events, [{ type: 'tag-created', data: { type: 'team', value: 'payments' } }]);
    t.equal((await api('POST', TAGS, { type: 'team', value: 'payments' })).status, 409);
    const unknown = await api('POST', TAGS, { type: 'nope', value: 'abc' });
    t.equal(unknown.status, 400);
    t.match(unknown.json.message, /tag type "nope"/);
    const short = await api('POST', TAGS, { type: 'team', value: '  a   ' });
    t.equal(short.status, 400);
    t.match(short.json.message, /value/);
    t.equal((await api('POST', TAGS, { type: 'team', value: 'x'.repeat(51) })).status, 400);
    t.equal((await api('POST', TAGS, { type: 'team' })).status, 400);
    t.same((await api('GET', TAGS)).json, { version: 1, tags: [{ type: 'team', value: 'payments' }] });
    t.same((await api('GET', `${TAGS}/team/payments`)).json, { version: 1, tag: { type: 'team', value: 'payments' } });
    t.equal((await api('GET', `${TAGS}/team/nothing`)).status, 404);
    t.equal((await api('GET', `${TAGS}/nope`)).status, 404);
  });

  t.test('flag tags: POST → 201 creating the tag when missing (tag-created, feature-tagged); re-tagging records nothing', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('POST', FT('checkout'), { type: 'simple', value: ' web ' })));
    t.equal(res.status, 201);
    t.same(res.json, { type: 'simple', value: 'web' });
    t.match(events, [
      { type: 'tag-created', data: { type: 'simple', value: 'web' } },
      { type: 'feature-tagged', featureName: 'checkout', project: 'default', data: { type: 'simple', value: 'web' } },
    ]);
    const again = await recorded(srv, async () => t.equal((await api('POST', FT('checkout'), { type: 'simple', value: 'web' })).status, 201));
    t.same(again, []);
    const existing = await recorded(srv, () => api('POST', FT('checkout'), { type: 'team', value: 'payments' }));
    t.same(existing.map((e) => e.type), ['feature-tagged'], 'an existing tag is not created again');
    await api('POST', FT('search'), { type: 'simple', value: 'web' });
    const got = await api('GET', FT('checkout'));
    t.same(got.json, { version: 1, tags: [{ type: 'simple', value: 'web' }, { type: 'team', value: 'payments' }] });
    t.same((await api('GET', '/api/admin/projects/default/features/checkout')).json.tags.length, 2, 'the flag view shows them');
  });

  t.test('flag tag errors: unknown flag 404, unknown tag type 400, short value 400, nothing half-applied', async (t) => {
    t.equal((await api('POST', FT('nope'), { type: 'simple', value: 'web' })).status, 404);
    t.equal((await api('GET', FT('nope'))).status, 404);
    const before = (await api('GET', TAGS)).json.tags;
    t.equal((await api('POST', FT('checkout'), { type: 'nope', value: 'abc' })).status, 400);
    t.equal((await api('POST', FT('checkout'), { type: 'simple', value: 'a' })).status, 400);
    t.same((await api('GET', TAGS)).json.tags, before, 'no tag was created by the failed requests');
  });

  t.test('DELETE a flag tag → 200 + feature-untagged with preData; not tagged → 404', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('DELETE', `${FT('checkout')}/team/payments`)));
    t.equal(res.status, 200);
    t.match(events, [{ type: 'feature-untagged', featureName: 'checkout', preData: { type: 'team', value: 'payments' } }]);
    t.same((await api('GET', FT('checkout'))).json.tags, [{ type: 'simple', value: 'web' }]);
    t.equal((await api('DELETE', `${FT('checkout')}/team/payments`)).status, 404);
    t.equal((await api('GET', `${TAGS}/team/payments`)).status, 200, 'the tag itself stays');
  });

  t.test('PUT flag tags adds and removes in one change: events per tag, the resulting tags back', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => {
      res = await api('PUT', FT('search'), { addedTags: [{ type: 'team', value: 'search ' }, { type: 'simple', value: 'web' }], removedTags: [{ type: 'simple', value: 'web' }] });
    });
    t.equal(res.status, 400, 'a tag both added and removed');
    t.match(res.json.details[0].path, 'addedTags[1]');
    t.same(events, []);
    const bulk = await recorded(srv, async () => {
      res = await api('PUT', FT('search'), { addedTags: [{ type: 'team', value: 'search ' }, { type: 'team', value: 'search' }], removedTags: [{ type: 'simple', value: 'web' }, { type: 'simple', value: 'never' }] });
    });
    t.equal(res.status, 200);
    t.same(res.json, { version: 1, tags: [{ type: 'team', value: 'search' }] });
    t.same(bulk.map((e) => e.type), ['tag-created', 'feature-tagged', 'feature-untagged']);
    t.same((await api('GET', FT('search'))).json.tags, [{ type: 'team', value: 'search' }]);
    const bad = await api('PUT', FT('search'), { addedTags: [{ type: 'nope', value: 'abc' }], removedTags: [] });
    t.equal(bad.status, 400);
    t.match(bad.json.details[0].path, 'addedTags[0].type');
    t.equal((await api('PUT', FT('nope'), { addedTags: [], removedTags: [] })).status, 404);
    t.equal((await api('PUT', FT('search'), { addedTags: [] })).status, 400);
    await api('PUT', FT('search'), { addedTags: [{ type: 'simple', value: 'web' }], removedTags: [{ type: 'team', value: 'search' }] });
  });

  t.test('DELETE a tag → 200 + tag-deleted, and every flag loses it', async (t) => {
    let res: any;
    const events = await recorded(srv, async () => (res = await api('DELETE', `${TAGS}/simple/web`)));
    t.equal(res.status, 200);
    t.match(events, [{ type: 'tag-deleted', preData: { type: 'simple', value: 'web' } }]);
    t.same((await api('GET', FT('checkout'))).json.tags, []);
    t.same((await api('GET', FT('search'))).json.tags, []);
    t.equal((await api('DELETE', `${TAGS}/simple/web`)).status, 404);
  });

  t.test('DELETE a tag type → 200 + tag-type-deleted; its tags and flags\' uses of them go too', async (t) => {
    await api('POST', FT('search'), { type: 'team', value: 'payments' });
    let res: any;
    const events = await recorded(srv, async () => (res = await api('DELETE', `${TT}/team`)));
    t.equal(res.status, 200);
    t.match(events, [{ type: 'tag-type-deleted', preData: { name: 'team' } }]);
    t.same((await api('GET', TAGS)).json.tags, []);
    t.same((await api('GET', FT('search'))).json.tags, []);
    t.equal((await api('DELETE', `${TT}/team`)).status, 404);
  });
});
