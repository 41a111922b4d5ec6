// GET /api/admin/search/features over HTTP: each filter with Unleash's operators, text search,
// sorting, paging with a total, 400 for a filter it does not understand, and a token limited to
// a project finding only that project's flags.
import t from 'tap';
import { client, serve } from '../helpers/server.js';

const ADMIN = '*:*.search-admin';
const SEARCH = '/api/admin/search/features';

t.test('flag search: filters, text, sort, pages, scope', async (t) => {
  const { srv, api, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await ok('POST', '/api/admin/projects', { id: 'payments', name: 'Payments' });
  const make = async (project: string, name: string, extra: Record<string, unknown> = {}) => ok('POST', `/api/admin/projects/${project}/features`, { name, ...extra });
  await make('default', 'checkout-a', { description: 'New checkout', tags: [{ type: 'simple', value: 'web' }] });
  await make('default', 'checkout-b', { type: 'experiment', tags: [{ type: 'simple', value: 'web' }, { type: 'simple', value: 'beta' }] });
  await make('default', 'search-bar', { type: 'kill-switch' });
  await make('payments', 'pay-flow', { type: 'experiment', tags: [{ type: 'simple', value: 'beta' }] });
  await make('payments', 'pay-old');
  await ok('PATCH', '/api/admin/projects/payments/features/pay-old', [{ op: 'replace', path: '/stale', value: true }]);
  await make('default', 'archived-one');
  await ok('DELETE', '/api/admin/projects/default/features/archived-one');

  const names = async (q: string) => {
    const res = await api('GET', `${SEARCH}${q}`);
    if (res.status !== 200) throw new Error(`${q} → ${res.status} ${res.text}`);
    return { names: res.json.features.map((f: any) => f.name), total: res.json.total };
  };
  t.same(await names(''), { names: ['checkout-a', 'checkout-b', 'search-bar', 'pay-flow', 'pay-old'], total: 5 }, 'every live flag, by creation');
  t.same((await names('?query=CHECKOUT')).names, ['checkout-a', 'checkout-b'], 'name, case-insensitive');
  t.same((await names('?query=new%20check')).names, ['checkout-a'], 'description');
  t.same((await names('?query=beta')).names, ['checkout-b', 'pay-flow'], 'tags');
  t.same((await names('?project=IS:payments')).names, ['pay-flow', 'pay-old']);
  t.same((await names('?project=payments')).names, ['pay-flow', 'pay-old'], 'a bare value means IS');
  t.same((await names('?project=IS_NOT:payments')).names, ['checkout-a', 'checkout-b', 'search-bar']);
  t.same((await names('?type=IS_ANY_OF:experiment,kill-switch')).names, ['checkout-b', 'search-bar', 'pay-flow']);
  t.same((await names('?state=IS:stale')).names, ['pay-old']);
  t.same((await names('?state=IS:active&project=IS:payments')).names, ['pay-flow']);
  t.same((await names('?tag=INCLUDE:simple:web')).names, ['checkout-a', 'checkout-b']);
  t.same((await names('?tag=INCLUDE_ALL_OF:simple:web,simple:beta')).names, ['checkout-b']);
  t.same((await names('?tag=DO_NOT_INCLUDE:simple:web')).names, ['search-bar', 'pay-flow', 'pay-old']);
  t.same((await names('?sortBy=name&sortOrder=desc')).names, ['search-bar', 'pay-old', 'pay-flow', 'checkout-b', 'checkout-a']);
  t.same(await names('?sortBy=name&offset=1&limit=2'), { names: ['checkout-b', 'pay-flow'], total: 5 }, 'a page, with the total');
  const shape = (await ok('GET', `${SEARCH}?query=checkout-a`)).features[0];
  t.same(Object.keys(shape).sort(), ['archived', 'archivedAt', 'createdAt', 'description', 'environments', 'impressionData', 'lastSeenAt', 'name', 'project', 'stale', 'tags', 'type']);

  for (const bad of ['?sortBy=color', '?sortOrder=up', '?limit=1001', '?offset=-1', '?tag=web', '?project=HAS:x']) {
    const res = await api('GET', `${SEARCH}${bad}`);
    t.equal(res.status, 400, `${bad} is a 400`);
    t.equal(res.json.name, 'ValidationError');
  }

  const limited = await ok('POST', '/api/admin/api-tokens', { tokenName: 'payments-admin', type: 'admin', project: 'payments', environment: 'development' });
  const seen = await client(srv.url, { authorization: limited.secret })('GET', SEARCH);
  t.same(seen.json.features.map((f: any) => f.name), ['pay-flow', 'pay-old'], 'a token limited to payments finds only its flags');
  t.equal((await client(srv.url)('GET', SEARCH)).status, 401);
});
