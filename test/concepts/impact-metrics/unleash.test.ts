// The official Node SDK sends the same impact metrics to Fanion and to the real Unleash 8.2; both
// `/internal-backstage/impact/metrics` texts must say the same of them once normalised (lines in
// one order, each line's labels in one order). Unleash keeps them in a registry for its whole
// process, shared by every test that uses it: this test's metric names carry a suffix of its own
// and only those families are compared.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import type { Unleash } from 'unleash-client';
import { client, serve } from '../../helpers/server.js';
import { realUnleash } from '../../helpers/unleash.js';
import { syncedSdk } from '../../helpers/unleash-sdk.js';

const ADMIN = '*:*.impact-oracle-admin';
const CLIENT = 'default:development.impact-oracle-client';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The lines of `text` about metrics whose name ends with `suffix`, each with its labels sorted, sorted. */
function normalised(text: string, suffix: string): string[] {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^(# (?:HELP|TYPE) )?([a-zA-Z_][a-zA-Z0-9_]*)(.*)$/.exec(line);
    if (!m) continue;
    const [, comment, name, rest] = m;
    const family = name.replace(/_(bucket|sum|count)$/, '');
    if (!family.endsWith(suffix) && !name.endsWith(suffix)) continue;
    if (comment) {
      lines.push(`${comment}${name}${rest}`);
      continue;
    }
    const s = /^\{(.*)\} (\S+)$/.exec(rest);
    if (!s) {
      lines.push(line);
      continue;
    }
    const labels = s[1].match(/[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"/g) ?? [];
    lines.push(`${name}{${labels.sort().join(',')}} ${s[2]}`);
  }
  return lines.sort();
}

/** The same calls on an SDK, in two rounds (each sent before the next): counters must add up across posts. */
async function play(sdk: Unleash, suffix: string, round: 1 | 2): Promise<void> {
  const m = sdk.impactMetrics;
  if (round === 1) {
    m.defineCounter(`orders.placed-${suffix}`, 'Orders placed');
    m.defineCounter(`idle_${suffix}`, 'Never incremented');
    m.defineGauge(`queue_depth_${suffix}`, 'Jobs waiting');
    m.defineHistogram(`checkout_seconds_${suffix}`, 'Checkout time "quoted" \\ and more', [0.1, 0.5, 2.5]);
    m.defineCounter(`9starts_with_digit_${suffix}`, 'Dropped by Unleash');
    m.incrementCounter(`orders.placed-${suffix}`, 3);
    m.incrementCounter(`9starts_with_digit_${suffix}`, 1);
    m.updateGauge(`queue_depth_${suffix}`, 12);
    for (const s of [0.05, 0.3, 0.3, 4]) m.observeHistogram(`checkout_seconds_${suffix}`, s);
  } else {
    m.incrementCounter(`orders.placed-${suffix}`, 4);
    m.updateGauge(`queue_depth_${suffix}`, 5);
    for (const s of [0.2, 1.5]) m.observeHistogram(`checkout_seconds_${suffix}`, s);
  }
}

t.test('the Node SDK\'s impact metrics: Fanion\'s Prometheus text says what Unleash 8.2\'s says', async (t) => {
  const oracle = await realUnleash(t);
  if (!oracle) return;
  const suffix = `t${randomBytes(4).toString('hex')}`;
  const { srv } = await serve(t, { authorization: ADMIN, env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '100' } });
  const fanion = client(srv.url, { authorization: ADMIN });
  const unleash = client(oracle.url, {}, false);
  const sdks = [
    await syncedSdk(t, srv.url, { token: CLIENT, metricsInterval: 300, appName: `impact-${suffix}` }),
    await syncedSdk(t, oracle.url, { token: oracle.client, metricsInterval: 300, appName: `impact-${suffix}` }),
  ];
  const texts = async () => [(await fanion('GET', '/internal-backstage/impact/metrics')).text, (await unleash('GET', '/internal-backstage/impact/metrics')).text];
  // Each round is waited for on both servers (its counter's value shows it arrived) before the next.
  const roundIn = async (round: 1 | 2, total: number) => {
    for (const sdk of sdks) await play(sdk, suffix, round);
    const done = new RegExp(`^orders_placed_${suffix}\\{[^}]*appName[^}]*\\} ${total}$`, 'm');
    const end = Date.now() + 15_000;
    let now = await texts();
    while (!now.every((x) => done.test(x)) && Date.now() < end) {
      await sleep(100);
      now = await texts();
    }
    return now;
  };
  await roundIn(1, 3);
  let [f, u] = await roundIn(2, 7);
  // After the data, each SDK sends an idle metric's zero sample on its next post: one server may
  // have had that post and the other not yet. They are compared once both had the same posts
  // (both SDKs keep posting every 300 ms), or as they are after 10 s.
  const end = Date.now() + 10_000;
  while (JSON.stringify(normalised(f, suffix)) !== JSON.stringify(normalised(u, suffix)) && Date.now() < end) {
    await sleep(100);
    [f, u] = await texts();
  }
  const [ours, theirs] = [normalised(f, suffix), normalised(u, suffix)];
  t.ok(theirs.length >= 15, `Unleash shows the test's metrics (${theirs.length} lines)`);
  t.same(ours, theirs, 'the same lines, once normalised');
  t.comment(theirs.join('\n'));
  t.match(theirs.join('\n'), new RegExp(`orders_placed_${suffix}\\{appName=[^}]*metric_type="counter",origin="sdk"\\} 7`), 'counters accumulated across posts');
  t.notMatch(theirs.join('\n'), /9starts/, 'a name starting with a digit is dropped by both');
});
