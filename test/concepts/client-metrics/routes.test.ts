// POST /api/client/register and /api/client/metrics through HTTP against a real server process.
import fs from 'node:fs';
import t from 'tap';
import { allZero, readFrame } from '../../../src/core/log/wal/frame.js';
import { decodeRecord, type WalRecord } from '../../../src/core/log/record.js';
import { listSegments } from '../../../src/core/log/wal/scan.js';
import { client, spawnServer } from '../../helpers/server.js';

const P = '/api/admin/projects/default/features';
const START = '2026-01-01T10:00:00.000Z';
const STOP = '2026-01-01T10:01:00.000Z';

const register = (appName: string, instanceId = 'i-1') => ({
  appName, instanceId, sdkVersion: 'unleash-node-sdk:6.12.1', strategies: ['default', 'flexibleRollout'], started: START, interval: 60000,
  connectionId: 'c-1', platformName: 'node', platformVersion: '20.0.0', yggdrasilVersion: null, specVersion: '5.2.0',
});
const metrics = (appName: string, toggles: Record<string, unknown>) => ({
  appName, instanceId: 'i-1', connectionId: 'c-1', bucket: { start: START, stop: STOP, toggles },
  platformName: 'node', platformVersion: '20.0.0', yggdrasilVersion: null, specVersion: '5.2.0',
});

function walRecords(dataDir: string): WalRecord[] {
  const out: WalRecord[] = [];
  for (const seg of listSegments(dataDir)) {
    const buf = fs.readFileSync(seg.file);
    let at = 0;
    for (;;) {
      if (at < buf.length && allZero(buf, at)) break;
      const r = readFrame(buf, at);
      if (r.kind !== 'ok') break;
      out.push(decodeRecord(r.payload));
      at = r.next;
    }
  }
  return out;
}
const lastSeenRecords = (dataDir: string) => walRecords(dataDir).filter((r) => r.ops.some((o) => o.o === 'lastSeen'));

async function lastSeenOf(api: ReturnType<typeof client>, flag: string, env: string): Promise<string | null> {
  const view = await api('GET', `${P}/${flag}`);
  return view.json.environments.find((e: any) => e.name === env).lastSeenAt;
}

t.test('register and metrics', async (t) => {
  const srv = await spawnServer({ env: { METRICS_FLUSH_MS: '1500' } });
  t.teardown(() => srv.stop());
  const api = client(srv.url);
  await api('POST', P, { name: 'm1' });
  await api('POST', P, { name: 'm2' });

  t.test('register: the Node SDK body → 202 with an empty body', async (t) => {
    const res = await api('POST', '/api/client/register', register('app-a'));
    t.equal(res.status, 202);
    t.equal(res.text, '');
  });

  t.test('register: a missing required field or wrong type → 400 naming it', async (t) => {
    for (const field of ['appName', 'strategies', 'started', 'interval']) {
      const body: Record<string, unknown> = register('app-x');
      delete body[field];
      const res = await api('POST', '/api/client/register', body);
      t.equal(res.status, 400, field);
      t.equal(res.json.name, 'ValidationError');
      t.match(res.json.message, field);
    }
    const res = await api('POST', '/api/client/register', { ...register('app-x'), started: 'yesterday' });
    t.equal(res.status, 400);
    t.equal((await api('POST', '/api/client/register', '{not json')).status, 400);
  });

  t.test('register and metrics with a non-JSON content type → 415', async (t) => {
    for (const path of ['/api/client/register', '/api/client/metrics']) {
      const res = await api('POST', path, 'appName=x', { 'content-type': 'text/plain' });
      t.equal(res.status, 415, path);
      t.equal(res.json.name, 'ContentTypeerror');
    }
  });

  t.test('metrics: the Node SDK body → 202; a bucket is optional', async (t) => {
    const res = await api('POST', '/api/client/metrics', metrics('app-a', { m1: { yes: 3, no: 1, variants: { blue: 2 } } }));
    t.equal(res.status, 202);
    t.equal(res.text, '');
    t.equal((await api('POST', '/api/client/metrics', { appName: 'app-a', instanceId: 'i-1' })).status, 202);
  });

  t.test('metrics: malformed bodies → 400', async (t) => {
    const bad = [
      { bucket: { start: START, stop: STOP, toggles: {} } },
      metrics('app-a', { m1: { yes: -1, no: 0 } }),
      metrics('app-a', { m1: { yes: 'many', no: 0 } }),
      { ...metrics('app-a', {}), bucket: { start: START, stop: null, toggles: {} } },
      { ...metrics('app-a', {}), bucket: { start: 'not a date', stop: STOP, toggles: {} } },
      [],
    ];
    for (const body of bad) {
      const res = await api('POST', '/api/client/metrics', body);
      t.equal(res.status, 400, JSON.stringify(body));
      t.equal(res.json.name, 'ValidationError');
    }
  });

  t.test('the admin view lists applications, instances and per-flag yes/no counts', async (t) => {
    await api('POST', '/api/client/metrics', metrics('app-a', { m1: { yes: 2, no: 2 }, unknown: { yes: 5, no: 0 } }));
    const list = await api('GET', '/api/admin/metrics/applications');
    t.equal(list.status, 200);
    t.same(list.json.applications.map((a: any) => a.appName), ['app-a']);
    const app = await api('GET', '/api/admin/metrics/applications/app-a');
    t.same(app.json.strategies, ['default', 'flexibleRollout']);
    t.same(app.json.instances.map((i: any) => [i.instanceId, i.environment, i.sdkVersion]), [['i-1', 'development', 'unleash-node-sdk:6.12.1']]);
    t.same(app.json.toggles.map((c: any) => [c.featureName, c.environment, c.yes, c.no, c.variants]), [['m1', 'development', 5, 3, { blue: 2 }]],
      'counts add up; flags the server does not know are not stored');
    t.equal((await api('GET', '/api/admin/metrics/applications/nope')).status, 404);
  });

  t.test('many metrics posts become one WAL record at the next flush; lastSeenAt then shows in the admin view', async (t) => {
    const before = lastSeenRecords(srv.dataDir).length;
    const started = Date.now();
    for (let i = 0; i < 30; i++) {
      t.equal((await api('POST', '/api/client/metrics', metrics('app-b', { m1: { yes: 1, no: 0 }, m2: { yes: 0, no: 1 } }))).status, 202);
    }
    let seen: string | null = null;
    for (let i = 0; i < 200 && !seen; i++) {
      seen = await lastSeenOf(api, 'm2', 'development');
      if (!seen) await new Promise((r) => setTimeout(r, 50));
    }
    t.type(seen, 'string', 'lastSeenAt is set');
    t.type(await lastSeenOf(api, 'm1', 'development'), 'string');
    t.equal(await lastSeenOf(api, 'm1', 'production'), null, 'only the token environment is touched');
    const written = lastSeenRecords(srv.dataDir).length - before;
    // At most one record per flush interval that passed (a slow machine may see a few), never one per post.
    const intervals = Math.ceil((Date.now() - started) / 1500) + 1;
    t.ok(written >= 1 && written <= Math.min(intervals, 10), `30 posts → ${written} WAL record(s) over ${intervals} flush intervals, not one per post`);
  });
});

t.test('metrics buffered at shutdown are flushed before the WAL closes', async (t) => {
  const srv = await spawnServer({ env: { METRICS_FLUSH_MS: '600000' } });
  const api = client(srv.url);
  await api('POST', P, { name: 'kept' });
  t.equal((await api('POST', '/api/client/metrics', metrics('app', { kept: { yes: 1, no: 0 } }))).status, 202);
  t.equal(await lastSeenOf(api, 'kept', 'development'), null, 'nothing written before the flush interval');
  t.equal(await srv.stop(), 0);
  const again = await spawnServer({ dataDir: srv.dataDir, env: { METRICS_FLUSH_MS: '600000' } });
  t.teardown(() => again.stop());
  t.type(await lastSeenOf(client(again.url), 'kept', 'development'), 'string');
});

t.test('register and metrics need a client token when tokens are on', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: '*:*.adm', INIT_CLIENT_API_TOKENS: '*:production.cli' } });
  t.teardown(() => srv.stop());
  const anon = client(srv.url);
  const sdk = client(srv.url, { authorization: '*:production.cli' });
  const admin = client(srv.url, { authorization: '*:*.adm' });
  t.equal((await anon('POST', '/api/client/register', register('a'))).status, 401);
  t.equal((await anon('POST', '/api/client/metrics', 'x', { 'content-type': 'text/plain' })).status, 401, 'authentication comes before the body');
  t.equal((await admin('POST', '/api/client/metrics', metrics('a', {}))).status, 403);
  t.equal((await sdk('POST', '/api/client/register', register('a'))).status, 202);
  const app = await admin('GET', '/api/admin/metrics/applications/a');
  t.same(app.json.environments, ['production'], "the instance is filed under the token's environment");
  t.equal((await sdk('GET', '/api/admin/metrics/applications')).status, 403, 'the admin view needs an admin token');
});
