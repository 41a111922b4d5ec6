// GET /ready: 503 with no body while the data folder is replayed and the routes are mounted, then
// 200 {"health":"GOOD"} (Unleash 8.2's answers); every other path 503 meanwhile, except GET /health,
// which says the process is alive (200) in every mode and at every step, a cluster node waiting
// for its database included. The window is made real, not simulated: a data folder of 20,000
// flags takes a moment to replay and serve; a database nobody answers for never comes.
import t from 'tap';
import { Readiness } from '../../../src/concepts/operations/readiness.js';
import { freePort } from '../../helpers/ports.js';
import { client, spawnServer } from '../../helpers/server.js';

t.test('readiness waits for every condition, each met once', async (t) => {
  const r = new Readiness();
  t.ok(r.ready, 'nothing to wait for: ready');
  const replayed = r.require('replayed');
  const loaded = r.require('flags loaded');
  t.notOk(r.ready);
  t.same(r.pending(), ['replayed', 'flags loaded']);
  replayed();
  replayed();
  t.same([r.ready, r.pending()], [false, ['flags loaded']], 'meeting one twice does not meet the other');
  loaded();
  t.ok(r.ready);
  t.throws(() => (r.require('x'), r.require('x')), /already waits/, 'a condition is added once');
});

const FLAGS = 20_000;

t.test('/ready is 503 until the data folder is replayed and served, then 200', async (t) => {
  const first = await spawnServer({ env: { IMPORT_BODY_LIMIT_BYTES: String(64 * 2 ** 20) } });
  const features = [];
  const featureEnvironments = [];
  for (let i = 0; i < FLAGS; i++) {
    features.push({ name: `flag-${i}`, project: 'default' });
    featureEnvironments.push({ featureName: `flag-${i}`, environment: 'development', enabled: i % 2 === 0 });
  }
  t.equal((await client(first.url)('POST', '/api/admin/state/import', { version: 1, features, featureEnvironments })).status, 202);
  t.equal(await first.stop(), 0);

  const srv = await spawnServer({ dataDir: first.dataDir, portOpen: true });
  t.teardown(() => srv.stop());
  const seen: { status: number; text: string; serving: boolean }[] = [];
  let during: { health: Response; api: Response; apiText: string } | null = null;
  for (const started = Date.now(); Date.now() - started < 60_000;) {
    const serving = srv.output().includes('Fanion listening');
    const res = await fetch(`${srv.url}/ready`);
    seen.push({ status: res.status, text: await res.text(), serving });
    if (res.status === 200) break;
    if (!during) {
      const health = await fetch(`${srv.url}/health`);
      const api = await fetch(`${srv.url}/api/admin/projects`);
      during = { health, api, apiText: await api.text() };
    }
  }
  t.comment(`/ready answers: ${seen.map((s) => s.status).join(' ')}`);
  t.equal(seen[0].status, 503, 'the first answer, asked as soon as the port opened, is 503');
  t.equal(seen[0].text, '', 'with no body, as Unleash answers');
  t.notOk(seen[0].serving, 'while the server was not yet serving');
  const last = seen.at(-1)!;
  t.same([last.status, JSON.parse(last.text)], [200, { health: 'GOOD' }], 'then 200 {"health":"GOOD"}');
  t.ok(during, 'other paths were asked during the start');
  t.same([during!.health.status, await during!.health.json()], [200, { health: 'GOOD' }], '/health is 200 meanwhile: the process is alive (a liveness probe must not restart it)');
  t.equal(during!.api.status, 503);
  t.equal(during!.api.headers.get('retry-after'), '1');
  t.match(JSON.parse(during!.apiText), { name: 'ServiceUnavailableError', message: /starting/ }, 'an API path says Fanion is starting');

  const api = client(srv.url);
  t.same((await api('GET', '/health')).json, { health: 'GOOD' }, '/health as before');
  t.equal((await api('GET', '/api/admin/projects/default/features')).json.features.length, FLAGS, 'every flag is there once ready');
  const head = await fetch(`${srv.url}/ready`, { method: 'HEAD' });
  t.same([head.status, await head.text()], [200, ''], 'HEAD /ready');
  t.equal((await api('POST', '/ready', {})).status, 405, 'other methods are refused like on any path');
});

t.test('a cluster node waiting for its database is alive (/health 200) and not ready (/ready 503)', async (t) => {
  // Nothing listens on this port: the node waits (and retries) for as long as it runs.
  const url = `postgres://fanion@127.0.0.1:${await freePort()}/fanion`;
  const srv = await spawnServer({ env: { DATABASE_URL: url, DATABASE_TIMEOUT_MS: '500' }, portOpen: true });
  t.teardown(() => srv.kill());
  // Past the first tries, so the node is in its waiting loop, not in its first connection attempt.
  await new Promise((r) => setTimeout(r, 1500));
  for (let i = 0; i < 3; i++) {
    const [health, ready] = await Promise.all([fetch(`${srv.url}/health`), fetch(`${srv.url}/ready`)]);
    t.same([health.status, await health.json()], [200, { health: 'GOOD' }], `/health ${i + 1}: alive`);
    t.same([ready.status, await ready.text()], [503, ''], `/ready ${i + 1}: not serving yet`);
    const head = await fetch(`${srv.url}/health`, { method: 'HEAD' });
    t.equal(head.status, 200, 'HEAD /health too');
  }
  t.equal((await fetch(`${srv.url}/api/admin/projects`)).status, 503, 'the API is not served yet');
  t.match(srv.output(), /waiting for the database/, 'the node says what it waits for');
});
