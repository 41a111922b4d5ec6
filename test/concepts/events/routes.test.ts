// Event search over HTTP against a real server process: filters against a reference computed
// from the full listing, validation, the offset cursor, and events surviving a restart.
import t from 'tap';
import { client, spawnServer, succeeding } from '../../helpers/server.js';

const SEARCH = '/api/admin/events/search';
const F = (p: string) => `/api/admin/projects/${p}/features`;
const FIELDS = ['createdAt', 'createdBy', 'createdByUserId', 'data', 'environment', 'featureName', 'id', 'preData', 'project', 'tags', 'type'];

t.test('event search over HTTP', async (t) => {
  const srv = await spawnServer();
  let api = client(srv.url);
  let current = srv;
  t.teardown(() => current.stop());

  // A little history: flags in two projects, strategies, on/off, metadata changes, tags.
  const mustOk = succeeding(() => api);
  await mustOk('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  for (let i = 0; i < 6; i++) {
    const project = i % 2 ? 'shop' : 'default';
    await mustOk('POST', F(project), { name: `ev-${i}`, description: i === 3 ? 'Contains MiXeD Case words' : `flag ${i}`, tags: i === 4 ? [{ type: 'simple', value: 'Tagged-Value' }] : undefined });
    await mustOk('POST', `${F(project)}/ev-${i}/environments/production/strategies`, { name: 'flexibleRollout', parameters: { rollout: String(10 * i) } });
    if (i % 3 === 0) await mustOk('POST', `${F(project)}/ev-${i}/environments/production/on`);
    if (i === 5) await mustOk('PATCH', `${F(project)}/ev-${i}`, [{ op: 'replace', path: '/stale', value: true }]);
  }

  /** Every event, newest first, by walking the cursor. */
  const everything = async () => {
    const all: any[] = [];
    let offset = 0;
    for (;;) {
      const page = await mustOk('POST', SEARCH, { limit: 7, ...(offset ? { offset } : {}) });
      all.push(...page.events);
      if (page.events.length < 7) return { all, total: page.totalEvents };
      offset = page.events[page.events.length - 1].id - 1;
      if (offset === 0) return { all, total: page.totalEvents };
    }
  };

  t.test('the response has version 1, totalEvents, and events with the spec fields, newest first', async (t) => {
    const res = await api('POST', SEARCH, {});
    t.equal(res.status, 200);
    t.equal(res.json.version, 1);
    t.ok(res.json.totalEvents >= 15, `${res.json.totalEvents} events`);
    t.equal(res.json.events.length, Math.min(100, res.json.totalEvents));
    for (const e of res.json.events) t.same(Object.keys(e).sort(), FIELDS);
    const ids = res.json.events.map((e: any) => e.id);
    t.same(ids, [...ids].sort((a: number, b: number) => b - a));
    t.equal(ids[0], res.json.totalEvents, 'ids are gapless from 1');
  });

  t.test('paging with offset visits every event exactly once', async (t) => {
    const { all, total } = await everything();
    t.equal(all.length, total);
    t.same(all.map((e) => e.id), Array.from({ length: total }, (_, i) => total - i));
  });

  t.test('each filter and combination agrees with a reference computed from the full listing', async (t) => {
    const { all } = await everything();
    const text = (v: unknown) => (v === null ? '' : JSON.stringify(v));
    const filters: Record<string, string>[] = [
      { type: 'feature-created' }, { type: 'feature-strategy-add' }, { type: 'feature-deleted' },
      { project: 'shop' }, { project: 'Shop' }, { feature: 'ev-3' }, { feature: 'EV-3' },
      { query: 'mixed case' }, { query: 'TAGGED-value' }, { query: 'ROLLOUT' }, { query: 'stale-on' }, { query: 'admin' }, { query: 'zz-nothing' },
      { type: 'feature-strategy-add', project: 'shop' }, { project: 'default', feature: 'ev-2' }, { type: 'feature-created', query: 'flag 4' },
      { type: 'feature-environment-enabled', project: 'default', feature: 'ev-0', query: 'feature' },
    ];
    for (const f of filters) {
      const q = f.query?.toLowerCase();
      const want = all.filter((e) => (!f.type || e.type === f.type) && (!f.project || e.project === f.project) && (!f.feature || e.featureName === f.feature)
        && (!q || [e.type, e.createdBy, text(e.data), text(e.preData), text(e.tags)].some((s) => s.toLowerCase().includes(q))));
      const res = await mustOk('POST', SEARCH, { ...f, limit: 100 });
      t.same(res.events, want, JSON.stringify(f));
      t.equal(res.totalEvents, want.length, `${JSON.stringify(f)}: totalEvents counts every match, query included`);
      const two = await mustOk('POST', SEARCH, { ...f, limit: 2, offset: want[1]?.id ?? 0 });
      t.same(two.events.map((e: any) => e.id), want.filter((e) => !want[1] || e.id <= want[1].id).slice(0, 2).map((e) => e.id), `${JSON.stringify(f)} with limit and offset`);
      t.equal(two.totalEvents, want.length, 'totalEvents ignores limit and offset');
    }
  });

  t.test('bad bodies are 400 ValidationError naming the field; non-JSON is 415', async (t) => {
    const bad: [unknown, string][] = [
      [{ limit: 0 }, 'limit'], [{ limit: 101 }, 'limit'], [{ limit: '10' }, 'limit'], [{ limit: 1.5 }, 'limit'],
      [{ offset: -1 }, 'offset'], [{ offset: '5' }, 'offset'], [{ type: 'feature-exploded' }, 'type'], [{ type: 7 }, 'type'],
      [{ project: ['a'] }, 'project'], [{ feature: null }, 'feature'], [{ query: 5 }, 'query'], [{ colour: 'red' }, 'colour'], [[], '(body)'],
    ];
    for (const [body, field] of bad) {
      const res = await api('POST', SEARCH, body);
      t.equal(res.status, 400, JSON.stringify(body));
      t.equal(res.json.name, 'ValidationError');
      t.match(res.json.message, field, `${JSON.stringify(body)}: ${res.json.message}`);
    }
    const res = await api('POST', SEARCH, 'type=x', { 'content-type': 'text/plain' });
    t.equal(res.status, 415);
    t.equal((await api('POST', SEARCH, { limit: 100, offset: 0 })).status, 200, 'the bounds themselves are fine');
    t.equal((await api('POST', SEARCH, { limit: 1 })).status, 200);
  });

  t.test('GET /api/admin/events lists the newest 100, optionally by project or flag', async (t) => {
    const all = await mustOk('GET', '/api/admin/events');
    t.equal(all.version, 1);
    t.same(all.events, (await mustOk('POST', SEARCH, {})).events);
    const shop = await mustOk('GET', '/api/admin/events?project=shop');
    t.ok(shop.events.length > 0 && shop.events.every((e: any) => e.project === 'shop'));
    const one = await mustOk('GET', '/api/admin/events/ev-1');
    t.equal(one.toggleName, 'ev-1');
    t.same(one.events, (await mustOk('POST', SEARCH, { feature: 'ev-1' })).events);
    const newest = await mustOk('GET', '/api/admin/events?limit=1');
    t.same([newest.events, newest.totalEvents], [all.events.slice(0, 1), all.totalEvents], '?limit=1: the newest event alone, and the total');
    for (const bad of ['0', '101', 'x', '1.5']) t.equal((await api('GET', `/api/admin/events?limit=${bad}`)).status, 400, `limit=${bad}: 400`);
  });

  t.test('GET /api/admin/event-types lists what the search takes', async (t) => {
    const { types } = await mustOk('GET', '/api/admin/event-types');
    t.ok(types.includes('feature-strategy-update') && types.includes('feature-environment-enabled'), `${types.length} types`);
    t.same([...types].sort(), types, 'sorted');
    for (const type of types) t.equal((await api('POST', SEARCH, { type, limit: 1 })).status, 200, `searchable: ${type}`);
  });

  t.test('events survive a restart unchanged, and ids go on without a gap', async (t) => {
    const before = await everything();
    t.equal(await current.stop(), 0);
    current = await spawnServer({ dataDir: srv.dataDir });
    api = client(current.url);
    const after = await everything();
    t.same(after.all, before.all);
    t.same((await mustOk('POST', SEARCH, { type: 'feature-created', project: 'shop', query: 'flag' })).totalEvents, 2);
    await mustOk('POST', F('default'), { name: 'after-restart' });
    const newest = await mustOk('POST', SEARCH, { limit: 1 });
    t.equal(newest.events[0].id, before.total + 1);
    t.equal(newest.events[0].featureName, 'after-restart');
  });
});
