// State import and export over HTTP against real server processes.
import t from 'tap';
import { client, serve } from '../../helpers/server.js';

const H = '/api/admin';
const F = (p: string) => `${H}/projects/${p}/features`;

const fresh = (t: { teardown(fn: () => unknown): void }) => serve(t);

type Api = ReturnType<typeof client>;

async function ok(api: Api, method: string, path: string, body?: unknown, status?: number) {
  const res = await api(method, path, body);
  if (status !== undefined ? res.status !== status : res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
  return res.json;
}

/** Every kind of entity, made through the admin API (and a custom strategy type through import). */
async function buildRichState(api: Api) {
  await ok(api, 'POST', `${H}/state/import`, {
    version: 4,
    strategies: [{ name: 'by-region', displayName: 'Region', description: 'On in listed regions', parameters: [{ name: 'regions', type: 'list', description: 'regions', required: true }] }],
  }, 202);
  await ok(api, 'POST', `${H}/projects`, { id: 'payments', name: 'Payments', description: 'money' });
  await ok(api, 'POST', `${H}/environments`, { name: 'staging', type: 'test' });
  const segment = await ok(api, 'POST', `${H}/segments`, { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2'] }] });
  await ok(api, 'POST', `${H}/tag-types`, { name: 'team', description: 'owning team' });
  await ok(api, 'POST', F('default'), { name: 'checkout', description: 'new checkout', tags: [{ type: 'simple', value: 'web' }] });
  await ok(api, 'POST', F('default'), { name: 'checkout-v2', type: 'experiment' });
  await ok(api, 'POST', F('payments'), { name: 'pay-flow', impressionData: true });
  await ok(api, 'POST', F('payments'), { name: 'old-thing' });
  await ok(api, 'POST', `${H}/features/pay-flow/tags`, { type: 'team', value: 'billing' });
  const S = (p: string, f: string, e: string) => `${F(p)}/${f}/environments/${e}/strategies`;
  await ok(api, 'POST', S('default', 'checkout', 'production'), {
    name: 'flexibleRollout', parameters: { rollout: '30' }, segments: [segment.id],
    constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }, { contextName: 'version', operator: 'SEMVER_GT', value: '1.2.0' }],
    variants: [{ name: 'b', weightType: 'variable', stickiness: 'default' }, { name: 'a', weightType: 'fix', weight: 200, payload: { type: 'json', value: '{"x":1}' } }],
  });
  await ok(api, 'POST', S('default', 'checkout', 'production'), { name: 'userWithId', parameters: { userIds: 'u1,u2' }, title: 'vips', sortOrder: 5 });
  await ok(api, 'POST', S('default', 'checkout', 'staging'), { name: 'by-region', parameters: { regions: 'eu' }, disabled: true });
  await ok(api, 'POST', S('payments', 'pay-flow', 'development'), { name: 'default' });
  await ok(api, 'POST', `${F('default')}/checkout/environments/production/on`);
  await ok(api, 'POST', `${F('payments')}/pay-flow/environments/development/on`);
  await ok(api, 'PUT', `${F('default')}/checkout/environments/production/variants`, [
    { name: 'blue', weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['7'] }] },
    { name: 'green', weightType: 'variable', stickiness: 'default' },
  ]);
  await ok(api, 'POST', `${F('default')}/checkout-v2/dependencies`, { feature: 'checkout', enabled: true, variants: ['blue'] });
  await ok(api, 'PATCH', `${F('default')}/checkout-v2`, [{ op: 'replace', path: '/stale', value: true }]);
  await ok(api, 'DELETE', `${F('payments')}/old-thing`, undefined, 202);
}

t.test('export → import into an empty server → export gives the same document (rich state)', async (t) => {
  const a = await fresh(t);
  await buildRichState(a.api);
  const exported = await ok(a.api, 'GET', `${H}/state/export`);
  t.equal(exported.version, 4);
  t.ok(exported.featureStrategySegments.length === 1 && exported.strategies.length === 1 && exported.featureTags.length === 2, 'every kind is present');
  t.ok(exported.features.find((f: any) => f.name === 'old-thing').archived, 'archived flags are exported');

  for (const query of ['?keep=false', '?drop=true']) {
    const b = await fresh(t);
    const res = await b.api('POST', `${H}/state/import${query}`, exported);
    t.equal(res.status, 202, query);
    t.equal(res.text, '', '202 has no body');
    t.same(await ok(b.api, 'GET', `${H}/state/export`), exported, `${query}: same document`);
    t.same(
      (await ok(b.api, 'GET', '/api/client/features')).features,
      (await ok(a.api, 'GET', '/api/client/features')).features,
      `${query}: the client snapshot is the same as on the original server`,
    );
    // Importing the same document again changes nothing: identical items are skipped.
    const before = (await ok(b.api, 'POST', `${H}/events/search`, {})).totalEvents;
    t.equal((await b.api('POST', `${H}/state/import?keep=false`, exported)).status, 202);
    t.equal((await ok(b.api, 'POST', `${H}/events/search`, {})).totalEvents, before, 're-import of an identical document records nothing');
  }
});

t.test('?download=true adds a Content-Disposition', async (t) => {
  const { api } = await fresh(t);
  const plain = await api('GET', `${H}/state/export`);
  t.equal(plain.headers.get('content-disposition'), null);
  const res = await api('GET', `${H}/state/export?download=true`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-disposition'), /^attachment; filename="export\.json"$/);
  t.same(res.json, plain.json);
});

t.test('the OpenAPI description shows the state document and the search body', async (t) => {
  const { api } = await fresh(t);
  const doc = (await api('GET', '/api/openapi.json')).json;
  t.equal(doc.paths['/api/admin/state/import'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/stateSchema');
  t.ok(doc.components.schemas.stateSchema.properties.featureStrategies);
  t.equal(doc.paths['/api/admin/events/search'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/searchEventsSchema');
});

function docWithFlags(n: number) {
  return {
    version: 4,
    features: Array.from({ length: n }, (_, i) => ({ name: `imp-${i}`, project: 'default', type: 'release' })),
  };
}

t.test('one bad item anywhere → 400 naming array, index and field; nothing is imported', async (t) => {
  const { api } = await fresh(t);
  await ok(api, 'POST', F('default'), { name: 'existing' });
  const exportBefore = await ok(api, 'GET', `${H}/state/export`);
  const eventsBefore = await ok(api, 'POST', `${H}/events/search`, {});

  const cases: [string, (doc: any) => void, RegExp][] = [
    ['a name that is not URL friendly in the last flag', (d) => (d.features[99].name = 'bad name'), /features\[99\]\.name/],
    ['a wrong type in the last flag', (d) => (d.features[99].stale = 'yes'), /features\[99\]\.stale/],
    ['a strategy of a flag that exists nowhere', (d) => (d.featureStrategies = [{ featureName: 'imp-1', environment: 'production', strategyName: 'default' }, { featureName: 'ghost', environment: 'production', strategyName: 'default' }]), /featureStrategies\[1\]\.featureName/],
    ['a strategy in an unknown environment', (d) => (d.featureStrategies = [{ featureName: 'imp-1', environment: 'nowhere', name: 'default' }]), /featureStrategies\[0\]\.environment/],
    ['a strategy of an unknown type', (d) => (d.featureStrategies = [{ featureName: 'imp-1', environment: 'production', strategyName: 'nope' }]), /featureStrategies\[0\]\.strategyName/],
    ['a strategy without a type', (d) => (d.featureStrategies = [{ featureName: 'imp-1', environment: 'production' }]), /featureStrategies\[0\]/],
    ['a strategy-segment link to an unknown segment', (d) => {
      d.featureStrategies = [{ id: 's1', featureName: 'imp-1', environment: 'production', strategyName: 'default' }];
      d.featureStrategySegments = [{ featureStrategyId: 's1', segmentId: 42 }];
    }, /featureStrategySegments\[0\]\.segmentId/],
    ['a strategy-segment link to an unknown strategy', (d) => {
      d.segments = [{ id: 3, name: 'seg', constraints: [] }];
      d.featureStrategySegments = [{ featureStrategyId: 'nope', segmentId: 3 }];
    }, /featureStrategySegments\[0\]\.featureStrategyId/],
    ['a flag in an unknown project', (d) => (d.features[50].project = 'nope'), /features\[50\]\.project/],
    ['a tag of an unknown tag type', (d) => (d.featureTags = [{ featureName: 'imp-2', tagType: 'ghost-type', tagValue: 'xx' }]), /featureTags\[0\]\.tagType/],
    ['a constraint that is not one (no operator)', (d) => (d.featureStrategies = [{ featureName: 'imp-1', environment: 'production', strategyName: 'default', constraints: [{ contextName: 'n', value: 'abc' }] }]), /featureStrategies\[0\]\.constraints\[0\]\.operator/],
    ['the same flag twice', (d) => (d.features[99].name = 'imp-3'), /features\[99\]/],
    ['no version', (d) => delete d.version, /version/],
  ];
  for (const [label, spoil, field] of cases) {
    const doc = docWithFlags(100);
    spoil(doc);
    const res = await api('POST', `${H}/state/import`, doc);
    t.equal(res.status, 400, label);
    t.equal(res.json?.name, 'ValidationError', label);
    t.match(res.json?.message, field, `${label}: ${res.json?.message}`);
  }
  t.same(await ok(api, 'GET', `${H}/state/export`), exportBefore, 'state unchanged');
  t.same(await ok(api, 'POST', `${H}/events/search`, {}), eventsBefore, 'event log unchanged');

  const notJson = await api('POST', `${H}/state/import`, 'version=4', { 'content-type': 'text/plain' });
  t.equal(notJson.status, 415);
  const badFlag = await api('POST', `${H}/state/import?drop=maybe`, { version: 4 });
  t.equal(badFlag.status, 400);
  t.match(badFlag.json.message, /drop/);
});

t.test('events: Unleash 5.12 order, drop-* first per kind; keep and drop semantics', async (t) => {
  const { api } = await fresh(t);
  await ok(api, 'POST', F('default'), { name: 'kept', description: 'original' });
  await ok(api, 'POST', F('default'), { name: 'dropped-later' });
  const start = (await ok(api, 'POST', `${H}/events/search`, { limit: 1 })).events[0].id;
  const doc = {
    version: 4,
    segments: [{ id: 7, name: 'seg-7', constraints: [] }],
    featureTags: [{ featureName: 'kept', tagType: 'colour', tagValue: 'red' }],
    tags: [{ type: 'colour', value: 'red' }],
    tagTypes: [{ name: 'colour', description: 'a colour' }],
    strategies: [{ name: 'custom-one', parameters: [] }],
    features: [{ name: 'kept', project: 'p2', description: 'from the document' }, { name: 'brand-new', project: 'p2' }],
    projects: [{ id: 'p2', name: 'Project two' }],
    environments: [{ name: 'qa', type: 'test' }],
  };
  t.equal((await api('POST', `${H}/state/import`, doc)).status, 202);
  const after = (await ok(api, 'POST', `${H}/events/search`, {})).events.filter((e: any) => e.id > start).reverse();
  t.same(after.map((e: any) => e.type), [
    'environment-import', 'project-import', 'feature-import', 'strategy-import', 'tag-type-import', 'tag-import', 'feature-tag-import', 'segment-import',
  ], 'keep=true (default): the existing flag is not re-imported');
  t.equal(after[2].featureName, 'brand-new');
  t.equal(after[2].project, 'p2');
  t.equal((await ok(api, 'GET', `${F('default')}/kept`)).description, 'original', 'keep=true leaves an existing flag as it is');
  t.same((await ok(api, 'GET', `${F('p2')}/brand-new`)).environments.map((e: any) => e.name).sort(), ['development', 'production', 'qa'],
    'a new flag without featureEnvironments is connected to every environment');

  const mid = after[after.length - 1].id;
  t.equal((await api('POST', `${H}/state/import?keep=false`, { version: 4, features: [{ name: 'kept', project: 'p2', description: 'from the document' }] })).status, 202);
  t.equal((await ok(api, 'GET', `${F('p2')}/kept`)).description, 'from the document', 'keep=false overwrites');

  t.equal((await api('POST', `${H}/state/import?drop=true`, { version: 4, features: [{ name: 'only-one' }] })).status, 202);
  const dropped = (await ok(api, 'POST', `${H}/events/search`, {})).events.filter((e: any) => e.id > mid).reverse();
  t.same(dropped.map((e: any) => e.type), ['feature-import', 'drop-features', 'feature-import']);
  const names = (await ok(api, 'GET', '/api/client/features')).features.map((f: any) => f.name);
  t.same(names, ['only-one'], 'drop=true removed every flag not in the document');
  const exp = await ok(api, 'GET', `${H}/state/export`);
  t.same(exp.featureTags, [], 'tags on dropped flags went with them');
  t.same(exp.projects.map((p: any) => p.id), ['default', 'p2'], 'kinds absent from the document are not dropped');
});

t.test('an Unleash 5.x export document imports', async (t) => {
  const { api } = await fresh(t);
  const unleashDoc = {
    version: 4,
    features: [{ name: 'u-flag', description: '', type: 'release', project: 'default', stale: false, variants: [], createdAt: '2024-01-02T10:00:00.000Z', lastSeenAt: null, impressionData: false, archivedAt: null, archived: false }],
    strategies: [],
    projects: [{ id: 'default', name: 'Default', description: 'Default project', createdAt: '2024-01-01T00:00:00.000Z', health: 100, updatedAt: '2024-01-01T00:00:00.000Z', mode: 'open', defaultStickiness: 'default', featureLimit: null }],
    tagTypes: [{ name: 'simple', description: 'Used to simplify filtering of features', icon: '#' }],
    tags: [{ type: 'simple', value: 'legacy' }],
    featureTags: [{ featureName: 'u-flag', tagType: 'simple', tagValue: 'legacy', createdByUserId: null }],
    featureStrategies: [{
      id: '5a1a5b4e-0000-4000-8000-000000000001', featureName: 'u-flag', projectId: 'default', environment: 'production', strategyName: 'flexibleRollout',
      parameters: { groupId: 'u-flag', rollout: 50, stickiness: 'default' }, constraints: [], variants: [], title: null, disabled: false, sortOrder: 0, createdAt: '2024-01-02T10:00:00.000Z',
    }],
    environments: [{ name: 'development', type: 'development', sortOrder: 100, enabled: true, protected: false }, { name: 'production', type: 'production', sortOrder: 200, enabled: true, protected: false }],
    featureEnvironments: [{ enabled: true, featureName: 'u-flag', environment: 'production', variants: [], lastSeenAt: null }],
    segments: [{ id: 1, name: 'internal', description: null, project: null, constraints: [{ values: ['a'], inverted: false, operator: 'IN', contextName: 'userId', caseInsensitive: false }], createdBy: 'admin', createdAt: '2024-01-01T00:00:00.000Z' }],
    featureStrategySegments: [{ segmentId: 1, featureStrategyId: '5a1a5b4e-0000-4000-8000-000000000001', createdAt: '2024-01-02T10:00:00.000Z' }],
  };
  const res = await api('POST', `${H}/state/import`, unleashDoc);
  t.equal(res.status, 202, res.text);
  const flag = await ok(api, 'GET', `${F('default')}/u-flag`);
  const prod = flag.environments.find((e: any) => e.name === 'production');
  t.equal(prod.enabled, true);
  t.same(prod.strategies[0].parameters, { groupId: 'u-flag', rollout: '50', stickiness: 'default' }, 'parameters become strings');
  t.same(prod.strategies[0].segments, [1]);
  t.same(flag.environments.map((e: any) => e.name), ['production'], 'only the environments the document configures');
  t.same(flag.tags, [{ type: 'simple', value: 'legacy' }]);
  const snapshot = await ok(api, 'GET', '/api/client/features');
  t.same(snapshot.features.map((f: any) => [f.name, f.enabled]), [['u-flag', false]], 'development is not configured, so the client sees it off');
});

t.test('10,000 flags × 3 strategies import in under 3 s; the client snapshot is right after the 202', async (t) => {
  const { api } = await fresh(t);
  const n = 10_000;
  const doc = {
    version: 4,
    features: Array.from({ length: n }, (_, i) => ({ name: `bulk-${i}`, project: 'default', type: 'release', description: `flag ${i}` })),
    featureEnvironments: Array.from({ length: n }, (_, i) => ({ featureName: `bulk-${i}`, environment: 'development', enabled: i % 2 === 0 })),
    featureStrategies: Array.from({ length: n * 3 }, (_, k) => ({
      featureName: `bulk-${Math.floor(k / 3)}`, environment: 'development', strategyName: ['flexibleRollout', 'userWithId', 'remoteAddress'][k % 3],
      parameters: [{ rollout: '25', stickiness: 'default', groupId: `g${k}` }, { userIds: `u${k}` }, { IPs: '10.0.0.1' }][k % 3], sortOrder: k % 3,
      constraints: k % 3 === 0 ? [{ contextName: 'country', operator: 'IN', values: ['NO'] }] : [],
    })),
  };
  const body = JSON.stringify(doc);
  t.ok(body.length > 1024 * 1024, `the document (${(body.length / 1e6).toFixed(1)} MB) is above the ordinary body limit`);
  const started = performance.now();
  const res = await api('POST', `${H}/state/import`, body);
  const ms = performance.now() - started;
  t.equal(res.status, 202, res.text.slice(0, 300));
  t.ok(ms < 3000, `import took ${Math.round(ms)} ms`);
  const snapshot = await ok(api, 'GET', '/api/client/features');
  t.equal(snapshot.features.length, n);
  const byName = new Map(snapshot.features.map((f: any) => [f.name, f]));
  for (const i of [0, 1, 4321, n - 1]) {
    const f: any = byName.get(`bulk-${i}`);
    t.equal(f.enabled, i % 2 === 0);
    t.same(f.strategies.map((s: any) => s.name), ['flexibleRollout', 'userWithId', 'remoteAddress']);
    t.same(f.strategies[0].constraints, [{ contextName: 'country', operator: 'IN', values: ['NO'], caseInsensitive: false, inverted: false }]);
  }
  const events = await ok(api, 'POST', `${H}/events/search`, { type: 'feature-import', limit: 1 });
  t.equal(events.totalEvents, n, 'one feature-import event per flag');
});
