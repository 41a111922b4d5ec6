// An environment-limited token's event search stays exact across failed writes: events applied
// and then rolled back (the WAL write failed) must not stay in what the token is shown, even when
// a search saw them while in flight and later events reuse their ids. In-process server with a
// file layer that fails on demand (FaultyFiles).
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startServer } from '../../src/server.js';
import { FaultyFiles } from '../../src/wal/file-layer.js';
import { client, tempDataDir } from '../helpers/server.js';

const ADMIN = `*:*.${randomBytes(16).toString('hex')}`;
const SEARCH = '/api/admin/events/search';
const F = '/api/admin/projects/shop/features';

t.test('searches during failed writes never leave rolled-back events in a limited token’s view', async (t) => {
  const files = new FaultyFiles();
  const config = loadConfig({
    PORT: '0', HOST: '127.0.0.1', DATA_DIR: tempDataDir('fanion-scoped-'), WAL_SYNC: 'always', AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN,
  });
  const running = await startServer({ config, log: createLogger('silent'), files });
  t.teardown(() => running.close());
  const url = `http://127.0.0.1:${running.port}`;
  const admin = client(url, { authorization: ADMIN });
  t.equal((await admin('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' })).status, 201);
  const secret = (await admin('POST', '/api/admin/api-tokens', { tokenName: 'shop-prod', type: 'admin', project: 'shop', environment: 'production' })).json.secret;
  const limited = client(url, { authorization: secret });
  for (let i = 0; i < 3; i++) {
    t.equal((await admin('POST', F, { name: `f${i}` })).status, 201);
    t.equal((await admin('POST', `${F}/f${i}/environments/production/strategies`, { name: 'default' })).status, 200);
  }

  const compare = async (what: string) => {
    const full = (await admin('POST', SEARCH, {})).json.events as { id: number; project: string | null; environment: string | null }[];
    const want = full.filter((e) => e.project === 'shop' && (e.environment === null || e.environment === 'production')).map((e) => e.id);
    const got = (await limited('POST', SEARCH, {})).json;
    t.same(got.events.map((e: { id: number }) => e.id), want, `${what}: the same events as the full listing filtered`);
    t.equal(got.totalEvents, want.length, `${what}: totalEvents ${want.length}`);
  };
  await compare('before any failure');

  // Each round: a write whose fdatasync fails, with a search sent alongside (it may run while the
  // write is applied but not yet durable), then, once the disk heals, new events that take the
  // rolled-back ids in the other environment: a stale view would show them as production ones.
  let sawInFlight = 0;
  for (let round = 0; round < 6; round++) {
    const lastDurable = (await admin('POST', SEARCH, { limit: 1 })).json.events[0].id;
    files.fail('fdatasync', 'EIO');
    const [write, search] = await Promise.all([
      admin('POST', `${F}/f${round % 3}/environments/production/strategies`, { name: 'default' }),
      limited('POST', SEARCH, {}),
    ]);
    t.equal(write.status, 503, `round ${round}: the write failed`);
    if (search.json.events[0].id > lastDurable) sawInFlight++;
    files.heal();
    for (let i = 0; i < 2; i++) t.equal((await admin('POST', `${F}/f${i}/environments/development/strategies`, { name: 'default' })).status, 200);
    await compare(`round ${round}`);
  }
  t.comment(`${sawInFlight} of 6 searches ran while the failing write was in flight`);
});
