// The safeguard's promise, end to end against a real server: the official Node SDK (unleash-client)
// counts errors in an impact metric; once a post carries the count past a safeguard's threshold,
// the flag's environment is switched off and that same SDK sees the flag off within 10 s of its
// post (measured over several runs; p50/p99 printed), a `safeguard-triggered` event names the
// metric, its value and the threshold, and a webhook delivers it. The ordinary impact metrics flush
// is set far off (30 s), so only the write brought forward for a watched metric can meet the target.
import t from 'tap';
import { UnleashEvents } from 'unleash-client';
import { RECEIVERS_ALLOWED, receiverFor, until, webhook } from '../../helpers/receiver.js';
import { serve } from '../../helpers/server.js';
import { syncedSdk } from '../../helpers/unleash-sdk.js';

const ADMIN = '*:*.safeguards-sdk-admin';
const CLIENT = '*:development.safeguards-sdk-client';
const P = '/api/admin/projects/default/features';
const APP = 'safeguard-sdk';
const RUNS = 5;
const TARGET_MS = 10_000;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

t.test('an error counter the SDK pushes past a threshold switches the flag off for that SDK within 10 s of its post', async (t) => {
  const { srv, ok } = await serve(t, {
    env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '30000', ...RECEIVERS_ALLOWED },
    authorization: ADMIN,
  });
  const receiver = await receiverFor(t);
  await ok('POST', '/api/admin/addons', webhook(receiver.url, { events: ['safeguard-triggered'] }));
  for (let i = 0; i < RUNS; i++) {
    await ok('POST', P, { name: `guarded-${i}` });
    await ok('POST', `${P}/guarded-${i}/environments/development/on`);
    await ok('PUT', `${P}/guarded-${i}/environments/development/safeguards`, {
      impactMetric: { metricName: `errors_${i}`, timeRange: 'hour', aggregationMode: 'count', labelSelectors: { appName: [APP] } },
      triggerCondition: { operator: '>', threshold: 5 },
    });
  }
  const sdk = await syncedSdk(t, srv.url, { token: CLIENT, metricsInterval: 200, refreshInterval: 100, appName: APP });
  for (let i = 0; i < RUNS; i++) sdk.impactMetrics.defineCounter(`errors_${i}`, 'Failed checkouts');
  t.ok([...Array(RUNS).keys()].every((i) => sdk.isEnabled(`guarded-${i}`)), 'every flag is on for the SDK');

  /** When the SDK's post that carried `n` or more of `errors_i` was answered. */
  const posted = (i: number, n: number) => new Promise<number>((resolve) => {
    const onSent = (payload: { impactMetrics?: { name: string; samples: { value?: number }[] }[] }) => {
      const entry = payload.impactMetrics?.find((m) => m.name === `errors_${i}`);
      if (!entry || !entry.samples.some((s) => (s.value ?? 0) >= n)) return;
      sdk.off(UnleashEvents.Sent, onSent);
      resolve(Date.now());
    };
    sdk.on(UnleashEvents.Sent, onSent);
  });

  // Under the threshold, nothing happens.
  const under = posted(0, 3);
  sdk.impactMetrics.incrementCounter('errors_0', 3);
  await under;
  await new Promise((r) => setTimeout(r, 1500));
  t.ok(sdk.isEnabled('guarded-0'), '3 errors (threshold 5): the flag stays on');

  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const flag = `guarded-${i}`;
    const post = posted(i, i === 0 ? 3 : 6);
    sdk.impactMetrics.incrementCounter(`errors_${i}`, i === 0 ? 3 : 6);
    const postedAt = await post;
    await until(`${flag} off for the SDK`, () => !sdk.isEnabled(flag), TARGET_MS + 5_000);
    times.push(Date.now() - postedAt);
  }
  const [p50, p99] = [quantile(times, 0.5), quantile(times, 0.99)];
  t.comment(`post → flag off for the SDK, ${RUNS} runs: ${times.join(', ')} ms; p50 ${p50} ms, p99 ${p99} ms`);
  t.ok(p99 < TARGET_MS, `every run within ${TARGET_MS} ms (slowest ${p99} ms)`);

  // Why, in the event log and through the webhook.
  const events = (await ok('GET', '/api/admin/events')).events.filter((e: any) => e.type === 'safeguard-triggered');
  t.equal(events.length, RUNS, 'one safeguard-triggered event per flag: each fired once');
  t.match(events.find((e: any) => e.featureName === 'guarded-1'), {
    environment: 'development', project: 'default', data: { metricName: 'errors_1', value: 6, threshold: 5, operator: '>' },
  }, 'the event names the metric, its value and the threshold');
  const sent = await receiver.waitFor(RUNS);
  const bodies = sent.map((r) => JSON.parse(r.body));
  t.ok(bodies.every((b) => b.type === 'safeguard-triggered'), 'the webhook delivered each firing');
  t.match(bodies.find((b) => b.featureName === 'guarded-2').data, { metricName: 'errors_2', value: 6, threshold: 5 });
  const [sg] = await ok('GET', `${P}/guarded-1/environments/development/safeguards`);
  t.type(sg.triggeredAt, 'string', 'the safeguard says when it fired');
  t.equal((await ok('GET', `${P}/guarded-1`)).environments.find((e: any) => e.name === 'development').enabled, false, 'the admin API shows the environment off');
});
