// The safeguard's promise, end to end against a real server: the official Node SDK (unleash-client)
// counts errors in an impact metric; once a post carries the count past a safeguard's threshold,
// the flag's environment is switched off and that same SDK sees the flag off within 10 s of its
// post (measured over 20 firings; p50/p99 printed), a `safeguard-triggered` event names the
// metric, its value and the threshold, and a webhook delivers it. The ordinary impact metrics flush
// is set far off (30 s), so only the write brought forward for a watched metric can meet the target.
import t from 'tap';
import { RECEIVERS_ALLOWED, receiverFor, webhook } from '../../helpers/receiver.js';
import { serve } from '../../helpers/server.js';
import { guarded, guardFlags, postedAt, quantile, timeFiring } from '../../helpers/safeguard-timing.js';
import { syncedSdk } from '../../helpers/unleash-sdk.js';

const ADMIN = '*:*.safeguards-sdk-admin';
const CLIENT = '*:development.safeguards-sdk-client';
const P = '/api/admin/projects/default/features';
const APP = 'safeguard-sdk';
const RUNS = 20;
const TARGET_MS = 10_000;

t.test('an error counter the SDK pushes past a threshold switches the flag off for that SDK within 10 s of its post', async (t) => {
  const { srv, ok } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '30000', ...RECEIVERS_ALLOWED },
    authorization: ADMIN,
  });
  const receiver = await receiverFor(t);
  await ok('POST', '/api/admin/addons', webhook(receiver.url, { events: ['safeguard-triggered'] }));
  await guardFlags(ok, { prefix: 'guarded', runs: RUNS, app: APP, threshold: 5, environment: 'development' });
  const sdk = await syncedSdk(t, srv.url, { token: CLIENT, metricsInterval: 200, refreshInterval: 100, appName: APP });
  for (let i = 0; i < RUNS; i++) sdk.impactMetrics.defineCounter(guarded('guarded', i).metric, 'Failed checkouts');
  t.ok([...Array(RUNS).keys()].every((i) => sdk.isEnabled(`guarded-${i}`)), 'every flag is on for the SDK');

  // Under the threshold, nothing happens.
  const under = postedAt(sdk, 'guarded_errors_0', 3);
  sdk.impactMetrics.incrementCounter('guarded_errors_0', 3);
  await under;
  await new Promise((r) => setTimeout(r, 1500));
  t.ok(sdk.isEnabled('guarded-0'), '3 errors (threshold 5): the flag stays on');

  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    times.push(await timeFiring(sdk, { ...guarded('guarded', i), add: i === 0 ? 3 : 6, withinMs: TARGET_MS + 5_000 }));
  }
  const [p50, p99] = [quantile(times, 0.5), quantile(times, 0.99)];
  t.comment(`post → flag off for the SDK, ${RUNS} runs: ${times.join(', ')} ms; p50 ${p50} ms, p99 ${p99} ms`);
  t.ok(p99 < TARGET_MS, `every run within ${TARGET_MS} ms (slowest ${p99} ms)`);

  // Why, in the event log and through the webhook.
  const events = (await ok('GET', '/api/admin/events')).events.filter((e: any) => e.type === 'safeguard-triggered');
  t.equal(events.length, RUNS, 'one safeguard-triggered event per flag: each fired once');
  t.match(events.find((e: any) => e.featureName === 'guarded-1'), {
    environment: 'development', project: 'default', data: { metricName: 'guarded_errors_1', value: 6, threshold: 5, operator: '>' },
  }, 'the event names the metric, its value and the threshold');
  const sent = await receiver.waitFor(RUNS);
  const bodies = sent.map((r) => JSON.parse(r.body));
  t.ok(bodies.every((b) => b.type === 'safeguard-triggered'), 'the webhook delivered each firing');
  t.match(bodies.find((b) => b.featureName === 'guarded-2').data, { metricName: 'guarded_errors_2', value: 6, threshold: 5 });
  const [sg] = await ok('GET', `${P}/guarded-1/environments/development/safeguards`);
  t.type(sg.triggeredAt, 'string', 'the safeguard says when it fired');
  t.equal((await ok('GET', `${P}/guarded-1`)).environments.find((e: any) => e.name === 'development').enabled, false, 'the admin API shows the environment off');
});
