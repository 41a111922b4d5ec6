// The official Node SDK (unleash-client 6.12.1) in streaming and in delta mode against a real
// Fanion process, beside one polling the usual way: all three see every kind of change and end up
// answering exactly alike; client specification files 19 and 20 pass when their state arrives as
// live delta events; with CLIENT_STREAMING_UPGRADE a default-configured SDK moves onto streaming.
import t from 'tap';
import type { Unleash } from 'unleash-client';
import { specFiles, stateDocument } from '../../helpers/client-spec.js';
import { serve } from '../../helpers/server.js';
import { syncedSdk, type SdkMode } from '../../helpers/unleash-sdk.js';

const ADMIN = '*:*.push-sdk-admin';
const CLIENT = '*:development.push-sdk-client';
const P = '/api/admin/projects/default/features';
const ENV = 'development';

const MODES: Record<string, SdkMode> = { polling: { type: 'polling', format: 'full' }, delta: { type: 'polling', format: 'delta' }, streaming: { type: 'streaming' } };

function waitFor(fn: () => boolean, what: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      if (fn()) return resolve();
      if (Date.now() - started > ms) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 10);
    };
    tick();
  });
}

function sdk(t: { teardown(fn: () => void): void }, url: string, mode: SdkMode | undefined, refreshInterval = 100): Promise<Unleash> {
  return syncedSdk(t, url, { token: CLIENT, mode, refreshInterval, appName: `push-${mode?.type ?? 'default'}` });
}

const contexts = Array.from({ length: 40 }, (_, i) => ({ userId: `u${i}`, sessionId: `s${i}`, properties: { country: i % 2 ? 'NO' : 'SE' } }));

/** Every flag's answer for every context: on/off and variant. */
function answers(u: Unleash, flags: string[]): string {
  return JSON.stringify(flags.map((f) => contexts.map((c) => [u.isEnabled(f, c), u.getVariant(f, c).name])));
}

t.test('streaming and delta SDKs see every kind of change and answer like a polling one', async (t) => {
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
  const flag = async (name: string, strategies: unknown[], on = true) => {
    await ok('POST', P, { name });
    for (const s of strategies) await ok('POST', `${P}/${name}/environments/${ENV}/strategies`, s);
    if (on) await ok('POST', `${P}/${name}/environments/${ENV}/on`);
  };
  const segment = await ok('POST', '/api/admin/segments', { name: 'nordics', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'] }] });
  await flag('toggle', [{ name: 'default' }], false);
  await flag('users', [{ name: 'userWithId', parameters: { userIds: 'u1' } }]);
  await flag('segmented', [{ name: 'flexibleRollout', parameters: { rollout: '100' }, segments: [segment.id] }]);
  await flag('rollout', [{ name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'userId' }, variants: [{ name: 'a', weight: 500 }, { name: 'b', weight: 500 }] }]);
  await flag('archived-later', [{ name: 'default' }]);

  const sdks = Object.fromEntries(await Promise.all(Object.entries(MODES).map(async ([k, m]) => [k, await sdk(t, srv.url, m)] as const)));
  const flags = ['toggle', 'users', 'segmented', 'rollout', 'archived-later', 'imported'];
  /** After a change: every SDK shows `expect`, and all three agree on everything. */
  const converge = async (what: string, expect: (u: Unleash) => boolean) => {
    const started = Date.now();
    await waitFor(() => Object.values(sdks).every(expect), `${what} to reach every SDK`);
    await waitFor(() => answers(sdks.streaming, flags) === answers(sdks.polling, flags) && answers(sdks.delta, flags) === answers(sdks.polling, flags), `${what}: the same answers everywhere`);
    t.pass(`${what}: seen by polling, delta and streaming SDKs alike (${Date.now() - started} ms)`);
  };
  const no = contexts[1]; // country NO, userId u1
  const se = contexts[2]; // country SE, userId u2

  await converge('start', (u) => u.isEnabled('users', no) && !u.isEnabled('toggle', no));
  await ok('POST', `${P}/toggle/environments/${ENV}/on`);
  await converge('on', (u) => u.isEnabled('toggle', no));
  await ok('POST', `${P}/toggle/environments/${ENV}/off`);
  await converge('off', (u) => !u.isEnabled('toggle', no));

  const added = await ok('POST', `${P}/users/environments/${ENV}/strategies`, { name: 'userWithId', parameters: { userIds: 'u2' } });
  await converge('strategy added', (u) => u.isEnabled('users', se));
  await ok('PUT', `${P}/users/environments/${ENV}/strategies/${added.id}`, { name: 'userWithId', parameters: { userIds: 'u4' } });
  await converge('strategy updated', (u) => !u.isEnabled('users', se) && u.isEnabled('users', contexts[4]));
  await ok('DELETE', `${P}/users/environments/${ENV}/strategies/${added.id}`);
  await converge('strategy deleted', (u) => !u.isEnabled('users', contexts[4]) && u.isEnabled('users', no));

  await ok('PUT', `/api/admin/segments/${segment.id}`, { name: 'nordics', constraints: [{ contextName: 'country', operator: 'IN', values: ['SE'] }] });
  await converge('segment changed', (u) => u.isEnabled('segmented', se) && !u.isEnabled('segmented', no));

  await ok('DELETE', `${P}/archived-later`);
  await converge('archived', (u) => u.getFeatureToggleDefinition('archived-later') === undefined);
  await ok('POST', '/api/admin/archive/revive/archived-later');
  await converge('revived (off, as revived flags are)', (u) => u.getFeatureToggleDefinition('archived-later') !== undefined && !u.isEnabled('archived-later', no));

  await ok('POST', '/api/admin/features-batch/import', {
    project: 'default', environment: ENV,
    data: {
      features: [{ name: 'imported', type: 'release' }],
      featureStrategies: [{ name: 'flexibleRollout', featureName: 'imported', parameters: { rollout: '100', stickiness: 'default', groupId: 'imported' }, constraints: [] }],
      featureEnvironments: [{ featureName: 'imported', environment: ENV, enabled: true, variants: [] }],
    },
  });
  await converge('imported', (u) => u.isEnabled('imported', no));

  // A change in another environment reaches no development SDK, and changes nothing they answer.
  await ok('POST', `${P}/toggle/environments/production/on`);
  await converge('production only', (u) => !u.isEnabled('toggle', no));
});

t.test('client specification files 19 and 20 arrive as live delta events and pass', async (t) => {
  const files = specFiles().filter((f) => /^(19|20)-/.test(f.name) || /delta/i.test(f.name));
  t.equal(files.length, 2, 'the two delta files');
  for (const file of files) {
    for (const mode of ['delta', 'streaming'] as const) {
      await t.test(`${file.name} through ${mode}`, async (t) => {
        const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
        // Connected to an empty server first: the file's flags and segments reach it as changes.
        const u = await sdk(t, srv.url, MODES[mode]);
        await ok('POST', '/api/admin/state/import', stateDocument(file.state, ENV));
        await waitFor(() => file.tests.every((c) => u.getFeatureToggleDefinition(c.toggleName) !== undefined || c.expectedResult === false), 'the flags to arrive');
        await new Promise((r) => setTimeout(r, 300));
        for (const c of file.tests) t.equal(u.isEnabled(c.toggleName, c.context as never), c.expectedResult, c.description);
      });
    }
  }
});

t.test('CLIENT_STREAMING_UPGRADE moves a default-configured SDK onto streaming', async (t) => {
  const { srv, api, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, CLIENT_STREAMING_UPGRADE: 'true' }, authorization: ADMIN });
  const poll = await api('GET', '/api/client/features', undefined, { authorization: CLIENT });
  t.equal(poll.headers.get('fetch-mode'), 'streaming', 'polling answers say so');
  await ok('POST', P, { name: 'late' });
  // Polling once a minute: only a stream can bring the change within seconds.
  const u = await sdk(t, srv.url, undefined, 60_000);
  await new Promise((r) => setTimeout(r, 500));
  await ok('POST', `${P}/late/environments/${ENV}/on`);
  await waitFor(() => u.isEnabled('late'), 'the change to arrive through a stream', 5000);
  t.pass('the SDK, configured to poll every minute, had the change within seconds');
});
