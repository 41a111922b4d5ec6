// Event listings seen through limited admin tokens, over HTTP against a real server with
// AUTH_TYPE=api-token: each token's pages are exactly what a brute-force filter of the full,
// unlimited listing gives (events, order and totalEvents) less the events about tokens (which
// they may not list), and asking for another project is 403.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { client, spawnServer, succeeding } from '../../helpers/server.js';

const ADMIN = `*:*.${randomBytes(16).toString('hex')}`;
const SEARCH = '/api/admin/events/search';
const F = (p: string) => `/api/admin/projects/${p}/features`;

interface Ev {
  id: number;
  type: string;
  project: string | null;
  environment: string | null;
  featureName: string | null;
  createdBy: string;
  data: unknown;
}

t.test('limited admin tokens see only their own events', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN } });
  t.teardown(() => srv.stop());
  const admin = client(srv.url, { authorization: ADMIN });
  const ok = succeeding(() => admin);

  // History in three projects and both environments, plus server-wide events (no project).
  for (const p of ['shop', 'web']) await ok('POST', '/api/admin/projects', { id: p, name: p });
  await ok('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
  await ok('POST', '/api/admin/tag-types', { name: 'team' });
  for (let i = 0; i < 9; i++) {
    const project = ['default', 'shop', 'web'][i % 3];
    await ok('POST', F(project), { name: `flag-${i}` });
    await ok('POST', `${F(project)}/flag-${i}/environments/${i % 2 ? 'production' : 'development'}/strategies`, { name: 'flexibleRollout', parameters: { rollout: String(i * 10) } });
    await ok('POST', `${F(project)}/flag-${i}/environments/production/on`);
  }
  const token = async (tokenName: string, scope: Record<string, unknown>) =>
    client(srv.url, { authorization: (await ok('POST', '/api/admin/api-tokens', { tokenName, type: 'admin', ...scope })).secret });
  const views = {
    shop: { call: await token('shop-admin', { project: 'shop' }), projects: ['shop'], environment: '*' },
    shopWeb: { call: await token('shop-web-admin', { projects: ['shop', 'web'] }), projects: ['shop', 'web'], environment: '*' },
    shopProd: { call: await token('shop-prod-admin', { project: 'shop', environment: 'production' }), projects: ['shop'], environment: 'production' },
    anyProd: { call: await token('prod-admin', { environment: 'production' }), projects: ['*'], environment: 'production' },
  };
  // The token creations above are server-wide events too: the full listing has them.
  const everything = async (call: typeof admin, body: Record<string, unknown> = {}) => {
    const all: Ev[] = [];
    let offset = 0;
    let total = -1;
    for (;;) {
      const res = await call('POST', SEARCH, { ...body, limit: 6, ...(offset ? { offset } : {}) });
      if (res.status !== 200) throw new Error(`search → ${res.status} ${res.text}`);
      if (total >= 0 && res.json.totalEvents !== total) throw new Error('totalEvents changed between pages');
      total = res.json.totalEvents;
      all.push(...res.json.events);
      if (res.json.events.length < 6) break;
      offset = res.json.events.at(-1).id - 1;
      if (offset === 0) break;
    }
    return { all, total };
  };
  // Events about tokens (the shop-admin token's creation has project shop) are for those who may list tokens.
  const visible = (v: { projects: string[]; environment: string }) => (e: Ev) =>
    e.project !== null && (v.projects.includes('*') || v.projects.includes(e.project)) && (v.environment === '*' || e.environment === null || e.environment === v.environment) &&
    !e.type.startsWith('api-token-');

  const full = await everything(admin);
  t.equal(full.total, full.all.length, 'the unlimited token pages through every event');
  t.ok(full.all.some((e) => e.project === null) && full.all.some((e) => e.environment === 'development'), 'the history has server-wide and development events');

  for (const [name, v] of Object.entries(views)) {
    t.test(`${name}: every page of the search is the full listing filtered by the token's projects and environment, and totalEvents counts only those`, async (t) => {
      const want = full.all.filter(visible(v));
      t.ok(want.length > 0 && want.length < full.all.length, `${want.length} of ${full.all.length} events are visible`);
      const got = await everything(v.call);
      t.same(got.all.map((e) => e.id), want.map((e) => e.id));
      t.equal(got.total, want.length);
      t.notOk(got.all.some((e) => e.project === null), 'no server-wide event (tag types, environments, tokens) is shown');
      for (const body of [{ type: 'feature-strategy-add' }, { query: 'rollout' }, { feature: 'flag-1' }, { project: 'shop' }, { type: 'feature-created', query: 'FLAG' }]) {
        const res = await v.call('POST', SEARCH, body);
        const q = (body as { query?: string }).query?.toLowerCase();
        const ref = full.all.filter(visible(v)).filter((e) => Object.entries(body).every(([k, x]) =>
          k === 'query' ? `${e.type}\n${e.createdBy}\n${JSON.stringify(e.data)}`.toLowerCase().includes(q!) : (e as any)[k === 'feature' ? 'featureName' : k] === x));
        t.equal(res.status, 200, JSON.stringify(body));
        t.same(res.json.events.map((e: Ev) => e.id), ref.map((e) => e.id), `${JSON.stringify(body)}: the same events`);
        t.equal(res.json.totalEvents, ref.length, `${JSON.stringify(body)}: totalEvents ${ref.length}`);
      }
      const listing = await v.call('GET', '/api/admin/events');
      t.same(listing.json.events.map((e: Ev) => e.id), want.slice(0, 100).map((e) => e.id), 'GET /api/admin/events lists the same');
      t.equal(listing.json.totalEvents, want.length);
      const other = full.all.find((e) => e.featureName !== null && !visible(v)(e))!;
      const byFlag = await v.call('GET', `/api/admin/events/${other.featureName}`);
      t.equal(byFlag.status, 200);
      t.same(byFlag.json.events.map((e: Ev) => e.id), full.all.filter((e) => e.featureName === other.featureName).filter(visible(v)).map((e) => e.id), "a flag's listing hides what the token may not see");
    });
  }

  t.test('asking for a project outside the token is 403 NoAccessError naming its limits, on search and listing', async (t) => {
    for (const res of [await views.shop.call('POST', SEARCH, { project: 'web' }), await views.shopProd.call('GET', '/api/admin/events?project=default')]) {
      t.equal(res.status, 403);
      t.equal(res.json.name, 'NoAccessError');
      t.match(res.json.message, /^You need permission=READ to perform this action on environment=\S+ in project=(web|default): this token is limited to project=shop and environment=(\*|production)\.$/);
    }
    t.equal((await views.anyProd.call('POST', SEARCH, { project: 'web' })).status, 200, 'a token of every project may name any');
  });

  t.test('limited tokens still cannot act on server-wide routes; client tokens still cannot read events', async (t) => {
    t.equal((await views.shop.call('GET', '/api/admin/api-tokens')).status, 403);
    t.equal((await views.anyProd.call('POST', '/api/admin/tag-types', { name: 'nope' })).status, 403);
    const sdkSecret = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'sdk', type: 'client', environment: 'production', project: 'shop' })).secret;
    const res = await client(srv.url, { authorization: sdkSecret })('POST', SEARCH, {});
    t.equal(res.status, 403);
    t.equal(res.json.name, 'NoAccessError');
  });

  t.test('the unlimited token sees everything, server-wide events included', async (t) => {
    const res = await admin('POST', SEARCH, { limit: 1 });
    t.equal(res.json.totalEvents, res.json.events[0].id, 'totalEvents is the newest id: nothing hidden');
    t.ok((await admin('POST', SEARCH, { type: 'tag-type-created' })).json.totalEvents >= 1);
  });
});
