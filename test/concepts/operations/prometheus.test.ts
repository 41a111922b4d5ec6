// GET /internal-backstage/prometheus over HTTP: valid exposition text that moves as requests are
// made (HTTP by route template, SDK polls per environment and status, flags, WAL, refusals), an
// admin token required unless PROMETHEUS_OPEN=true.
import t from 'tap';
import { client, serve, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.prom-admin';
const CLIENT = '*:development.prom-client';
const P = '/api/admin/projects/default/features';

/** The exposition text as samples: `name{labels}` → value; every line must parse. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/i.exec(line);
    if (!m) throw new Error(`not exposition text: ${line}`);
    out.set(m[1], Number(m[2]));
  }
  return out;
}

t.test('metrics: admin only, valid text, and they move as requests are made', async (t) => {
  const { srv, api, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
  const scrape = async () => {
    const res = await api('GET', '/internal-backstage/prometheus');
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/plain/);
    return parse(res.text);
  };
  t.equal((await client(srv.url)('GET', '/internal-backstage/prometheus')).status, 401, 'no token');
  t.equal((await client(srv.url, { authorization: CLIENT })('GET', '/internal-backstage/prometheus')).status, 403, 'a client token');
  const before = await scrape();
  t.ok(before.has('process_cpu_user_seconds_total'), 'process metrics');
  t.ok([...before.keys()].some((k) => k.startsWith('nodejs_gc_duration_seconds')), 'GC metrics');
  t.equal(before.get('feature_toggles_total'), 0);
  t.ok(before.get('http_auth_refused_total{status="401"}')! >= 1, '401s are counted');
  t.ok(before.get('http_auth_refused_total{status="403"}')! >= 1, '403s too');

  await ok('POST', P, { name: 'counted' });
  const poll = client(srv.url, { authorization: CLIENT });
  const first = await poll('GET', '/api/client/features');
  await poll('GET', '/api/client/features', undefined, { 'if-none-match': first.headers.get('etag')! });
  const after = await scrape();
  t.equal(after.get('feature_toggles_total'), 1);
  t.equal(after.get('client_api_requests_total{environment="development",status="200"}'), 1, 'a poll answered 200');
  t.equal(after.get('client_api_requests_total{environment="development",status="304"}'), 1, 'and one 304');
  t.equal(after.get('http_request_duration_milliseconds_count{method="POST",path="/api/admin/projects/:projectId/features",status="201"}'), 1, 'the admin write, by route template');
  t.ok(after.get('wal_records_total')! > before.get('wal_records_total')!, 'the WAL grew');
  t.ok(after.get('wal_bytes_total')! > before.get('wal_bytes_total')!);
  t.ok(after.get('wal_records_per_commit_count')! >= 1, 'group commits observed');
  t.ok(after.get('event_log_events')! > before.get('event_log_events')!);
  t.equal(after.get('streaming_connections'), 0);
  t.ok(after.has('replay_duration_milliseconds'));
});

t.test('PROMETHEUS_OPEN=true: no token needed', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, PROMETHEUS_OPEN: 'true' } });
  t.teardown(() => srv.stop());
  const res = await client(srv.url)('GET', '/internal-backstage/prometheus');
  t.equal(res.status, 200);
  t.ok(parse(res.text).has('feature_toggles_total'));
});

t.test('checkpoints are measured: duration, pause and the size of the newest file', async (t) => {
  const { srv, ok } = await serve(t, { env: { CHECKPOINT_RECORDS: '5', PROMETHEUS_OPEN: 'true' } });
  const scrape = async () => parse((await client(srv.url)('GET', '/internal-backstage/prometheus')).text);
  const before = await scrape();
  t.equal(before.get('checkpoint_duration_milliseconds_count'), 0, 'none yet');
  t.equal(before.get('checkpoint_failures_total'), 0);
  for (let i = 0; i < 12; i++) await ok('POST', P, { name: `ckpt-${i}` });
  let after = await scrape();
  for (let i = 0; i < 50 && !(after.get('checkpoint_duration_milliseconds_count')! >= 1); i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await scrape();
  }
  t.ok(after.get('checkpoint_duration_milliseconds_count')! >= 1, 'a checkpoint was written and timed');
  t.ok(after.get('checkpoint_pause_milliseconds_count')! >= 1, 'its pause too');
  t.ok(after.get('checkpoint_size_bytes')! > 100, `its size: ${after.get('checkpoint_size_bytes')} bytes`);
});
