// GET /api/admin/search/features over HTTP: each filter with Unleash's operators, text search,
// sorting, paging with a total, 400 for a filter it does not understand, and a token limited to
// a project finding only that project's flags; `archived` (the archive, as `fanion migrate` asks
// Unleash for it) answered as the real Unleash 8.2 answers.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { client, serve } from '../../helpers/server.js';
import { realUnleash } from '../../helpers/unleash.js';

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
  t.same(Object.keys(shape).sort(), ['archived', 'archivedAt', 'createdAt', 'description', 'environments', 'favorite', 'impressionData', 'lastSeenAt', 'name', 'project', 'stale', 'tags', 'type']);

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

/** `archived` values asked of both servers: Unleash 8.2 takes exactly IS:true and IS:false. */
const ARCHIVED_VALUES = ['IS:true', 'IS:false', 'true', 'false', '', 'IS:TRUE', 'IS_NOT:true', 'IS_ANY_OF:true', 'IS:true,false'];

/** A live flag and an archived one named `<prefix>-live`, `<prefix>-gone` on a server speaking the admin API. */
async function liveAndArchived(api: ReturnType<typeof client>, prefix: string): Promise<void> {
  for (const name of [`${prefix}-live`, `${prefix}-gone`]) {
    const res = await api('POST', '/api/admin/projects/default/features', { name });
    if (res.status >= 300) throw new Error(`create ${name} → ${res.status} ${res.text}`);
  }
  const res = await api('DELETE', `/api/admin/projects/default/features/${prefix}-gone`);
  if (res.status >= 300) throw new Error(`archive → ${res.status} ${res.text}`);
}

/** Per `archived` value: the status, and the names found (200) or the field named (400). */
async function archivedAnswers(api: ReturnType<typeof client>, prefix: string) {
  const out: Record<string, { status: number; names?: string[]; total?: number; archivedAt?: boolean[] }> = {};
  for (const v of ARCHIVED_VALUES) {
    const res = await api('GET', `${SEARCH}?query=${prefix}&archived=${encodeURIComponent(v)}`);
    out[v] = res.status === 200
      ? { status: 200, names: res.json.features.map((f: any) => f.name), total: res.json.total, archivedAt: res.json.features.map((f: any) => f.archivedAt !== null) }
      : { status: res.status };
  }
  return out;
}

t.test('archived=IS:true searches the archive, IS:false the live flags, anything else is a 400', async (t) => {
  const { api } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await liveAndArchived(api, 'arc');
  const answers = await archivedAnswers(api, 'arc');
  t.same(answers['IS:true'], { status: 200, names: ['arc-gone'], total: 1, archivedAt: [true] }, 'IS:true: the archived flag only');
  t.same(answers['IS:false'], { status: 200, names: ['arc-live'], total: 1, archivedAt: [false] }, 'IS:false: the live flag only');
  for (const v of ARCHIVED_VALUES.slice(2)) t.equal(answers[v].status, 400, `archived=${v} is a 400`);
  const twice = await api('GET', `${SEARCH}?archived=IS:true&archived=IS:false`);
  t.same([twice.status, twice.json.name], [400, 'ValidationError'], 'given twice: a 400, as Unleash answers');
  t.same((await api('GET', `${SEARCH}?query=arc`)).json.features.map((f: any) => f.name), ['arc-live'], 'without it: live flags, as before');
});

t.test('archived answers as the real Unleash 8.2 does, value by value', async (t) => {
  const oracle = await realUnleash(t);
  if (!oracle) return;
  const prefix = `arc-${randomBytes(4).toString('hex')}`;
  const unleash = client(oracle.url, { authorization: oracle.admin }, false);
  const { api } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  await liveAndArchived(unleash, prefix);
  await liveAndArchived(api, prefix);
  const theirs = await archivedAnswers(unleash, prefix);
  t.same(await archivedAnswers(api, prefix), theirs, 'statuses, names, totals and archivedAt alike');
  t.equal(theirs['IS:true'].names?.length, 1, 'the oracle did find its archived flag');
  const shape = (await unleash('GET', `${SEARCH}?query=${prefix}&archived=IS:true`)).json;
  t.same(Object.keys(shape).sort(), ['features', 'total'], 'Unleash answers {features, total}, as Fanion does');
});
