// /api/admin/features-batch over HTTP against a real server: the document a real Unleash 8.2
// exported imports unchanged (once its segments exist) and exports back to the same flags and
// strategies; an import is all or nothing, replaces the flags' strategies in its environment,
// emits the usual events and survives a restart; bad documents, unknown targets and tokens
// without the right reach get 400/401/403/404 with nothing changed.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { client, ROOT, serve, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.batch-admin';
const LIMITED = 'default:development.batch-limited';
const CLIENT = '*:development.batch-client';
const B = '/api/admin/features-batch';
/** What a real Unleash 8.2 answered to an export of 58 flags (a copy of ../shared/examples/unleash-8.2-export.json). */
const EXAMPLE = path.join(ROOT, 'test', 'fixtures', 'unleash-8.2-export.json');

type Doc = Record<string, any[]>;
const original: Doc = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
const copy = (): Doc => JSON.parse(JSON.stringify(original));
const names = original.features.map((f) => f.name);

/** Strategies with their segments named rather than numbered: ids differ between servers, names do not. */
function strategiesByName(doc: Doc) {
  const segmentName = new Map(doc.segments.map((s) => [s.id, s.name]));
  return doc.featureStrategies.map((s) => ({ ...s, segments: s.segments.map((id: number) => segmentName.get(id)).sort() }));
}

t.test('features-batch: the Unleash 8.2 export imports, round-trips, and is all or nothing', async (t) => {
  const { srv, api, ok } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: `${ADMIN},${LIMITED}`, INIT_CLIENT_API_TOKENS: CLIENT },
    authorization: ADMIN,
  });
  const limited = client(srv.url, { authorization: LIMITED });
  const request = (data: Doc, environment = 'development', project = 'default') => ({ project, environment, data });
  const exportDev = async () => ok('POST', `${B}/export`, { environment: 'development', features: names });
  const total = async (type?: string) => (await ok('POST', '/api/admin/events/search', type ? { type, limit: 1 } : { limit: 1 })).totalEvents as number;

  await t.test('segments missing here: validate lists them, import refuses with nothing changed', async (t) => {
    const review = await ok('POST', `${B}/validate`, request(copy()));
    t.equal(review.errors.length, 1);
    t.match(review.errors[0].message, /segments do not exist here/);
    t.same([...review.errors[0].affectedItems].sort(), original.segments.map((s) => s.name).sort(), 'every missing segment named');
    t.same(review.permissions, []);
    const before = await total();
    const refused = await api('POST', `${B}/import`, request(copy()));
    t.equal(refused.status, 400);
    t.equal(refused.json.name, 'ValidationError');
    t.match(refused.json.message, /nothing was changed.*dif3-mwug6rcygsr-seg-0/);
    t.equal(await total(), before, 'no event');
    t.equal((await api('GET', `/api/admin/projects/default/features/${names[0]}`)).status, 404, 'no flag');
  });

  // Each segment here carries a constraint that names it, to see which ones SDKs get.
  for (const s of original.segments) await ok('POST', '/api/admin/segments', { name: s.name, constraints: [{ contextName: 'segment', operator: 'IN', values: [s.name] }] });

  await t.test('the document imports unchanged and exports back the same', async (t) => {
    t.same(await ok('POST', `${B}/validate`, request(copy())), { errors: [], warnings: [], permissions: [] }, 'nothing to say');
    const res = await api('POST', `${B}/import`, request(copy()));
    t.equal(res.status, 200);
    const out = await exportDev();
    t.same(out.features, original.features, 'the same flags');
    t.same(strategiesByName(out), strategiesByName(original), 'the same strategies, ULID ids, order, constraints, variants and segments');
    t.same(out.featureEnvironments, original.featureEnvironments, 'the same on/off and variants');
    t.same(out.featureTags, original.featureTags, 'the same tags');
    t.same(out.dependencies, original.dependencies, 'the same dependencies');
    t.same(out.tagTypes.map((x: any) => x.name), ['simple']);
    t.same(out.segments.map((s: any) => s.name).sort(), original.segments.map((s) => s.name).sort());
    const fields = out.contextFields.map((c: any) => c.name);
    for (const c of original.contextFields) t.ok(fields.includes(c.name), `context field ${c.name} exported as used`);

    // What SDKs are served: every enabled strategy with the constraints of the segments it names.
    const served = (await client(srv.url, { authorization: CLIENT })('GET', '/api/client/features')).json.features;
    t.equal(served.length, original.features.length);
    const segmentName = new Map(original.segments.map((s) => [s.id, s.name]));
    let checked = 0;
    for (const f of served) {
      const given = original.featureStrategies.filter((s) => s.featureName === f.name && !s.disabled);
      given.forEach((s, i) => {
        const marks = f.strategies[i].constraints.filter((c: any) => c.contextName === 'segment').map((c: any) => c.values[0]).sort();
        t.same(marks, s.segments.map((id: number) => segmentName.get(id)).sort(), `${f.name} strategy ${i}: its segments`);
        checked += s.segments.length;
      });
    }
    t.ok(checked > 20, `${checked} segment uses checked`);
  });

  await t.test('events: the usual per-change ones, then features-imported', async (t) => {
    const enabled = original.featureEnvironments.filter((fe) => fe.enabled).length;
    t.equal(await total('feature-created'), original.features.length);
    t.equal(await total('feature-strategy-add'), original.featureStrategies.length);
    t.equal(await total('feature-environment-enabled'), enabled);
    t.equal(await total('feature-tagged'), original.featureTags.length);
    t.equal(await total('feature-dependency-added'), original.dependencies.reduce((n, d) => n + d.dependencies.length, 0));
    const [imported] = (await ok('POST', '/api/admin/events/search', { type: 'features-imported' })).events;
    t.same([imported.project, imported.environment, imported.createdBy, imported.data.features.length], ['default', 'development', 'init-admin-token', original.features.length]);
    const [exported] = (await ok('POST', '/api/admin/events/search', { type: 'features-exported' })).events;
    t.same([exported.environment, exported.data.features.length], ['development', original.features.length]);

    const before = await total();
    await ok('POST', `${B}/import`, request(copy()));
    t.equal(await total(), before + 1, 'the same document again changes nothing: only features-imported');
  });

  await t.test("the flags' strategies in that environment are replaced; other environments keep theirs", async (t) => {
    const doc = copy();
    const flag = 'dif3-mwug6rcygsr-f000';
    doc.featureStrategies = doc.featureStrategies.filter((s) => s.featureName !== flag);
    doc.featureStrategies.push({ name: 'default', featureName: flag, parameters: {}, constraints: [], segments: [] });
    const strategiesIn = (env: string) => ok('GET', `/api/admin/projects/default/features/${flag}/environments/${env}/strategies`);
    await ok('POST', `/api/admin/projects/default/features/${flag}/environments/production/strategies`, { name: 'userWithId', parameters: { userIds: 'a,b' } });
    const prodBefore = await strategiesIn('production');
    const removedBefore = await total('feature-strategy-remove');
    await ok('POST', `${B}/import`, request(doc));
    t.same((await strategiesIn('development')).map((s: any) => s.name), ['default'], 'one strategy left, the document\'s');
    t.equal(await total('feature-strategy-remove'), removedBefore + original.featureStrategies.filter((s) => s.featureName === flag).length);
    t.same(await strategiesIn('production'), prodBefore, 'production untouched');
    await ok('POST', `${B}/import`, request(copy()));
  });

  await t.test('an export of development imports into production of the same server: new strategy ids, development kept', async (t) => {
    const devBefore = await exportDev();
    await ok('POST', `${B}/import`, request(copy(), 'production'));
    const prod = await ok('POST', `${B}/export`, { environment: 'production', project: 'default' });
    t.equal(prod.featureStrategies.length, original.featureStrategies.length);
    const devIds = new Set(original.featureStrategies.map((s) => s.id));
    t.ok(prod.featureStrategies.every((s: any) => !devIds.has(s.id)), 'no id taken from development');
    const strip = (d: Doc) => strategiesByName(d).map((s) => ({ ...s, id: undefined }));
    t.same(strip(prod), strip(original), 'the same strategies otherwise');
    t.same(await exportDev(), devBefore, 'development unchanged');
  });

  await t.test('export by tag and by project; bad queries', async (t) => {
    const byTag = await ok('POST', `${B}/export`, { environment: 'development', tag: 'simple:bench' });
    const tagged = [...new Set(original.featureTags.filter((x) => x.tagValue === 'bench').map((x) => x.featureName))].sort();
    t.same(byTag.features.map((f: any) => f.name), tagged);
    t.same((await ok('POST', `${B}/export`, { environment: 'development', tag: 'bench' })).features.map((f: any) => f.name), tagged, 'a bare value matches any type');
    t.equal((await ok('POST', `${B}/export`, { environment: 'development', project: 'default' })).features.length, original.features.length);
    const download = await api('POST', `${B}/export`, { environment: 'development', features: [names[0]], downloadFile: true });
    t.match(download.headers.get('content-disposition'), /attachment/);
    t.equal((await api('POST', `${B}/export`, { environment: 'development' })).status, 400, 'no selector');
    t.equal((await api('POST', `${B}/export`, { environment: 'staging', features: names })).status, 404, 'unknown environment');
    t.equal((await api('POST', `${B}/export`, { environment: 'development', project: 'nope' })).status, 404, 'unknown project');
  });

  await t.test('refused documents: every error listed, 400, nothing changed', async (t) => {
    await ok('POST', '/api/admin/projects', { id: 'other', name: 'Other' });
    await ok('POST', '/api/admin/projects/other/features', { name: 'elsewhere' });
    const before = await exportDev();
    const events = await total();
    const bad = copy();
    bad.features.push({ ...bad.features[0] }, { name: 'elsewhere', type: 'release' }, { name: 'lonely' });
    bad.featureStrategies.push(
      { name: 'noSuchStrategy', featureName: 'lonely', parameters: {}, constraints: [] },
      { name: 'default', featureName: 'not-in-the-document', parameters: {}, constraints: [] },
      { name: 'default', featureName: 'lonely', parameters: {}, constraints: [], segments: [999] },
    );
    bad.featureTags.push({ featureName: 'lonely', tagType: 'unknowntype', tagValue: 'x1' });
    const review = await ok('POST', `${B}/validate`, request(bad));
    const messages = review.errors.map((e: any) => `${e.message}: ${e.affectedItems.join(', ')}`).join('\n');
    t.match(messages, /more than once.*dif3-mwug6rcygsr-f000/);
    t.match(messages, /other projects.*elsewhere \(in project other\)/);
    t.match(messages, /strategy types do not exist.*noSuchStrategy/);
    t.match(messages, /not in data.features.*not-in-the-document/);
    t.match(messages, /segment ids that data.segments does not list.*999/);
    t.match(messages, /tag types.*unknowntype/);
    const res = await api('POST', `${B}/import`, request(bad));
    t.equal(res.status, 400);
    t.equal(res.json.details.length, review.errors.length, 'the import lists the same errors');
    t.same(await exportDev(), before, 'nothing changed');
    t.equal(await total(), events + 1, 'only the export\'s own event');

    t.equal((await api('POST', `${B}/import`, { project: 'default', environment: 'development' })).status, 400, 'no data');
    t.equal((await api('POST', `${B}/import`, request({ features: [{ name: 'a b' }] }))).status, 400, 'a flag name with a space');
    t.equal((await api('POST', `${B}/import`, request({ features: 'x' } as any))).status, 400, 'features not a list');
    t.equal((await api('POST', `${B}/import`, request(copy(), 'development', 'nope'))).status, 404, 'unknown project');
    t.equal((await api('POST', `${B}/import`, request(copy(), 'staging'))).status, 404, 'unknown environment');
  });

  await t.test('archived flags are left alone, with a warning', async (t) => {
    const flag = 'dif3-mwug6rcygsr-f059';
    await ok('DELETE', `/api/admin/projects/default/features/${flag}`);
    const doc = copy();
    doc.features.find((f) => f.name === flag)!.description = 'changed';
    const review = await ok('POST', `${B}/validate`, request(doc));
    t.same(review.errors, []);
    t.match(review.warnings.find((w: any) => /archived/.test(w.message)).affectedItems, [flag]);
    await ok('POST', `${B}/import`, request(doc));
    const archived = (await ok('GET', '/api/admin/archive/features')).features.find((f: any) => f.name === flag);
    t.equal(archived.description, null, 'not updated');
  });

  await t.test('tokens: none 401, client 403, a limited admin token imports into its own reach only', async (t) => {
    t.equal((await client(srv.url)('POST', `${B}/import`, request(copy()))).status, 401);
    t.equal((await client(srv.url, { authorization: CLIENT })('POST', `${B}/export`, { environment: 'development', project: 'default' })).status, 403);
    t.equal((await limited('POST', `${B}/import`, request(copy(), 'production'))).status, 403, 'another environment');
    t.equal((await limited('POST', `${B}/export`, { environment: 'development', features: ['elsewhere'] })).status, 403, 'a flag of another project');
    const own = await limited('POST', `${B}/import`, request(copy()));
    t.equal(own.status, 200, 'its own project and environment', { body: own.json });

    const withField = copy();
    withField.contextFields.push({ name: 'tier', description: 'Plan', stickiness: false, sortOrder: 5, legalValues: [{ value: 'gold' }] });
    const review = (await limited('POST', `${B}/validate`, request(withField))).json;
    t.same(review.permissions.map((p: any) => p.affectedItems), [['tier']], 'a context field it may not create');
    const denied = await limited('POST', `${B}/import`, request(withField));
    t.equal(denied.status, 403);
    t.equal((await api('GET', '/api/admin/context/tier')).status, 404, 'not created');
    await ok('POST', `${B}/import`, request(withField));
    t.same((await ok('GET', '/api/admin/context/tier')).legalValues.map((v: any) => v.value), ['gold'], 'created by an unlimited token');
    t.equal(await total('context-field-created'), 1);

    const narrower = copy();
    narrower.contextFields.push({ name: 'tier', legalValues: [{ value: 'silver' }] });
    const r = await ok('POST', `${B}/validate`, request(narrower));
    t.match(r.errors[0].message, /legal values/, 'an existing field must already allow the imported values');
  });

  const finalExport = await exportDev();
  await srv.stop();
  const again = await spawnServer({ dataDir: srv.dataDir, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN } });
  t.teardown(() => again.stop());
  const after = await client(again.url, { authorization: ADMIN })('POST', `${B}/export`, { environment: 'development', features: names });
  t.same(after.json, finalExport, 'the same after a restart');
});
