// `npm run bench:hostile`: the 1,500-registration flood of issue #19 against a real server with
// the default SDK-metrics budget (32 MiB): RSS before and after, and the admin views' statuses.
// Before the budget, the same flood of 640 KB bodies took a server from 77 MB to 1,062 MB.
import { client, spawnServer } from '../test/helpers/server.js';
import { flood, hostileRegistration, rssOf } from '../test/helpers/hostile.js';

const ADMIN = '*:*.bench-hostile-admin';
const CLIENT = '*:development.bench-hostile-client';
const COUNT = Number(process.env.FLOOD_COUNT ?? 1500);

const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT } });
try {
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`;
  const before = rssOf(srv.proc.pid!);
  const started = Date.now();
  const statuses = await flood(srv.url, CLIENT, COUNT);
  const seconds = (Date.now() - started) / 1000;
  const after = rssOf(srv.proc.pid!);
  const admin = client(srv.url, { authorization: ADMIN });
  const list = await admin('GET', '/api/admin/metrics/applications');
  const one = await admin('GET', `/api/admin/metrics/applications/${encodeURIComponent(list.json?.applications?.[0]?.appName ?? 'none')}`);
  const sent = COUNT * JSON.stringify(hostileRegistration(0)).length;
  console.log(`flood: ${COUNT} registrations (${mb(sent)} sent, strings at their 255-character maximum) in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(statuses)}`);
  console.log(`RSS: ${mb(before)} before, ${mb(after)} after (+${mb(after - before)}; target < 300 MB)`);
  console.log(`views: list ${list.status} (${list.json?.total} applications kept, ${list.text.length} bytes), one application ${one.status}`);
  if (after - before >= 300 * 2 ** 20 || list.status !== 200 || one.status !== 200) process.exitCode = 1;
} finally {
  await srv.stop();
}
