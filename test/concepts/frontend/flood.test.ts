// A frontend token is public by design: whoever holds it must not be able to fill the server's
// memory through the Frontend API. The flood of issue #26: 10,000 distinct ~16 KB queries, each
// sent twice, against a server with a 512 MB heap. Before everything the evaluator keeps was
// counted in bytes (keys included), it grew RSS by ~470 MB and a 400 MB heap died.
import t from 'tap';
import { frontendFlood, seedFloodFlags } from '../../helpers/frontend-flood.js';
import { rssOf } from '../../helpers/hostile.js';
import { MAIN, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.flood-admin';
const FRONTEND = 'default:development.flood-frontend';

t.test('10,000 distinct 16 KB contexts, each sent twice: the process lives, RSS grows < 300 MB, answers stay right', async (t) => {
  const srv = await spawnServer({
    command: [process.execPath, '--max-old-space-size=512', MAIN],
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_FRONTEND_API_TOKENS: FRONTEND, METRICS_FLUSH_MS: '0' },
  });
  let exited = false;
  srv.proc.once('exit', () => (exited = true));
  t.teardown(() => srv.stop());
  await seedFloodFlags(srv.url, ADMIN);

  const before = rssOf(srv.proc.pid!);
  let peak = before;
  const sampler = setInterval(() => {
    if (!exited) peak = Math.max(peak, rssOf(srv.proc.pid!) || 0);
  }, 100);
  const result = await frontendFlood(srv.url, FRONTEND, { count: 10_000, size: 16_000, concurrency: 16 }).finally(() => clearInterval(sampler));
  t.comment(`flood: ${result.seconds.toFixed(1)} s; RSS ${Math.round(before / 2 ** 20)} MB before, ${Math.round(peak / 2 ** 20)} MB at peak`);

  t.notOk(exited, 'the process is alive');
  t.same(result.statuses, { 200: 20_000 }, 'every request answered 200');
  t.same(result.wrong, [], 'every answer right, and the same both times');
  t.ok(peak - before < 300 * 2 ** 20, `RSS grew by less than 300 MB (${Math.round((peak - before) / 2 ** 20)} MB)`);
  const after = await fetch(`${srv.url}/api/frontend?userId=after&properties[parity]=even`, { headers: { authorization: FRONTEND } });
  const toggles = ((await after.json()) as { toggles: { name: string }[] }).toggles.map((x) => x.name).filter((n) => n !== 'half');
  t.same(toggles.sort(), ['even', 'everyone'], 'and it still answers');
});
