// A client token cannot fill the server's memory: over-long strings are refused, and a flood of
// registrations with every kept string at its longest and ever-new applications stays within the
// SDK-metrics byte budget; the admin views still answer 200, small and marked as truncated.
import t from 'tap';
import { client, spawnServer } from '../../helpers/server.js';
import { flood, hostileRegistration, rssOf } from '../../helpers/hostile.js';

const ADMIN = '*:*.hostile-admin';
const CLIENT = '*:development.hostile-client';

t.test('a register flood stays within CLIENT_METRICS_MAX_BYTES and the views answer 200', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, CLIENT_METRICS_MAX_BYTES: String(2 * 1024 * 1024) } });
  t.teardown(() => srv.stop());
  const sdk = client(srv.url, { authorization: CLIENT });
  const admin = client(srv.url, { authorization: ADMIN });

  // What the unbounded server kept: 640 KB strings. Each over-long field is a 400 naming it.
  for (const field of ['platformName', 'platformVersion', 'sdkVersion', 'environment', 'specVersion']) {
    const res = await sdk('POST', '/api/client/register', { ...hostileRegistration(0), [field]: 'x'.repeat(256) });
    t.equal(res.status, 400, `${field} of 256 characters`);
    t.match(res.json?.message, new RegExp(field));
  }
  t.equal((await sdk('POST', '/api/client/register', { ...hostileRegistration(0), strategies: Array.from({ length: 101 }, (_, i) => `s${i}`) })).status, 400, '101 strategy names in one registration');

  const before = rssOf(srv.proc.pid!);
  const statuses = await flood(srv.url, CLIENT, 1500);
  t.same(statuses, { 202: 1500 }, 'every well-formed registration is accepted');
  const after = rssOf(srv.proc.pid!);
  t.comment(`RSS ${Math.round(before / 2 ** 20)} MB before, ${Math.round(after / 2 ** 20)} MB after 1,500 registrations (${Math.round((1500 * JSON.stringify(hostileRegistration(0)).length) / 2 ** 20)} MB sent)`);
  t.ok(after - before < 100 * 2 ** 20, 'RSS grew by less than 100 MB');

  const list = await admin('GET', '/api/admin/metrics/applications');
  t.equal(list.status, 200);
  t.ok(list.json.total < 1500, `old applications were evicted (${list.json.total} kept)`);
  t.ok(list.json.applications.length <= 100 && list.json.truncated === list.json.total > 100, 'a page of at most 100, marked truncated when there is more');
  t.ok(list.text.length < 4 * 2 ** 20, `the answer is small (${list.text.length} bytes)`);
  const newest = list.json.applications[0];
  t.equal(newest.strategies.length, 100);
  t.equal((await admin('GET', `/api/admin/metrics/applications/${encodeURIComponent(newest.appName)}`)).status, 200);
  const page = await admin('GET', `/api/admin/metrics/applications?offset=${list.json.total - 1}&limit=1000`);
  t.same([page.status, page.json.applications.length, page.json.truncated], [200, 1, false], 'the last page');
  t.equal((await admin('GET', '/api/admin/metrics/applications?limit=1001')).status, 400, 'limit is bounded');
});
