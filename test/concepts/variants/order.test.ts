// Variants in Unleash's order: Unleash sorts variant names with localeCompare, and the SDK walks
// the list in order, so the same weights give a user a different variant if the order differs.
// The oracle is the official Node SDK evaluating the variants in Unleash's order (bootstrapped,
// offline); Fanion's answers, through the same SDK online, must be the same for every user.
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { spawnServer, client, succeeding } from '../../helpers/server.js';

const ADMIN = '*:*.order-admin';
const CLIENT = '*:development.order-client';
const P = '/api/admin/projects/default/features';
const NAMES = ['Green', 'blue', 'Alpha', 'a-b', 'ab', 'Zeta', '_x', 'B2', 'b10'];
/** What Unleash serves: names sorted with localeCompare (the en-US collation of its image). */
const UNLEASH_ORDER = [...NAMES].sort((a, b) => a.localeCompare(b, 'en-US'));
const USERS = Array.from({ length: 2000 }, (_, i) => `user-${i}`);

function ready(sdk: Unleash, event: UnleashEvents): Promise<void> {
  return new Promise((resolve, reject) => {
    sdk.once(event, () => resolve());
    setTimeout(() => reject(new Error(`no ${event}`)), 10_000);
  });
}

t.test('flag and strategy variants are served in Unleash order and give every user the variant Unleash would', async (t) => {
  t.notSame(UNLEASH_ORDER, [...NAMES].sort(), 'the names are ones whose code-unit order differs');
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT } });
  t.teardown(() => srv.stop());
  const ok = succeeding(() => client(srv.url, { authorization: ADMIN }));
  const variants = NAMES.map((name) => ({ name, weightType: 'variable', weight: 0, stickiness: 'userId' }));

  await ok('POST', P, { name: 'env-variants' });
  await ok('POST', `${P}/env-variants/environments/development/strategies`, { name: 'default' });
  await ok('PUT', `${P}/env-variants/environments/development/variants`, variants);
  await ok('POST', `${P}/env-variants/environments/development/on`);
  await ok('POST', P, { name: 'strategy-variants' });
  await ok('POST', `${P}/strategy-variants/environments/development/strategies`, {
    name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'userId', groupId: 'g' }, variants,
  });
  await ok('POST', `${P}/strategy-variants/environments/development/on`);

  const served = (await client(srv.url, { authorization: CLIENT })('GET', '/api/client/features')).json.features;
  const envFlag = served.find((f: any) => f.name === 'env-variants');
  const strategyFlag = served.find((f: any) => f.name === 'strategy-variants');
  t.same(envFlag.variants.map((v: any) => v.name), UNLEASH_ORDER, 'flag variants in localeCompare order');
  t.same(strategyFlag.strategies[0].variants.map((v: any) => v.name), UNLEASH_ORDER, 'strategy variants in localeCompare order');

  // The oracle: the same flags as Unleash would serve them (same weights, Unleash's order).
  const inUnleashOrder = (list: any[]) => UNLEASH_ORDER.map((n) => list.find((v) => v.name === n));
  const oracleData = [
    { ...envFlag, variants: inUnleashOrder(envFlag.variants) },
    { ...strategyFlag, strategies: [{ ...strategyFlag.strategies[0], variants: inUnleashOrder(strategyFlag.strategies[0].variants) }] },
  ];
  const oracle = new Unleash({
    url: 'http://127.0.0.1:9/api/', appName: 'oracle', disableMetrics: true, refreshInterval: 0,
    bootstrap: { data: oracleData }, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
  });
  oracle.on(UnleashEvents.Error, () => {}); // nothing listens on port 9: the oracle works from its bootstrap
  const online = new Unleash({
    url: `${srv.url}/api/`, appName: 'online', customHeaders: { Authorization: CLIENT }, disableMetrics: true,
    refreshInterval: 60_000, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
  });
  t.teardown(() => {
    oracle.destroy();
    online.destroy();
  });
  await Promise.all([ready(oracle, UnleashEvents.Ready), ready(online, UnleashEvents.Synchronized)]);

  for (const flag of ['env-variants', 'strategy-variants']) {
    let differ = 0;
    const seen = new Set<string>();
    for (const userId of USERS) {
      const expected = oracle.getVariant(flag, { userId }).name;
      seen.add(expected);
      if (online.getVariant(flag, { userId }).name !== expected) differ++;
    }
    t.equal(differ, 0, `${flag}: all ${USERS.length} users get Unleash's variant`);
    t.equal(seen.size, NAMES.length, `${flag}: every variant is given to someone`);
  }
});
