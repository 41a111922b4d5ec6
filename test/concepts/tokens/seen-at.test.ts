// API tokens record when they were last used, written with the metrics flush: a burst of
// requests costs one WAL record per flush, not one per request; the time survives a restart.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { client, serve, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.seen-admin';
const CLIENT = '*:development.seen-client';
const UNUSED = '*:production.seen-unused';

function walBytes(dir: string): number {
  return fs.readdirSync(dir).filter((f) => f.startsWith('wal-')).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('seenAt: set by use, batched with the metrics flush, kept across a restart', async (t) => {
  const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: `${CLIENT},${UNUSED}`, METRICS_FLUSH_MS: '300' };
  const { srv, ok } = await serve(t, { env, authorization: ADMIN });
  const sdk = client(srv.url, { authorization: CLIENT });
  const listed = async () => Object.fromEntries((await ok('GET', '/api/admin/api-tokens')).tokens.map((x: any) => [x.environment, x.seenAt]));

  await sleep(700); // the admin token's own use gets flushed first
  const before = walBytes(srv.dataDir);
  const started = new Date().toISOString();
  for (let i = 0; i < 200; i++) await sdk('GET', '/api/client/features');
  const afterBurst = walBytes(srv.dataDir);
  // A record per request would be 200 records (20 kB and more); flushes during the burst write a few.
  t.ok(afterBurst - before < 3000, `200 requests wrote ${afterBurst - before} bytes to the WAL: a flush's worth, not one record per request`);
  await sleep(700);
  const seen = await listed();
  t.ok(typeof seen.development === 'string' && seen.development >= started, `the client token's seenAt is set (${seen.development})`);
  t.equal(seen.production, null, 'an unused token has none');
  t.ok(walBytes(srv.dataDir) - afterBurst < 2000, 'the flush wrote one small record');

  await srv.stop();
  const again = await spawnServer({ dataDir: srv.dataDir, env });
  t.teardown(() => again.stop());
  const tokens = (await client(again.url, { authorization: ADMIN })('GET', '/api/admin/api-tokens')).json.tokens;
  t.equal(tokens.find((x: any) => x.environment === 'development').seenAt, seen.development, 'kept across a restart');
});
