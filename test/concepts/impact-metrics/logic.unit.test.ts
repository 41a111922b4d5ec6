// The pure part of impact metrics: reports turned into series (names and labels as Unleash makes
// them), flushes kept within the byte budget, and the values read back over a window with an
// injected clock (what a safeguard will compare with its threshold).
import t from 'tap';
import { applyOp } from '../../../src/core/state/ops.js';
import { emptyState, type State } from '../../../src/core/state/state.js';
import { dumpState, loadDump } from '../../../src/core/state/dump.js';
import {
  FORGET_AFTER_S, entryDeltas, flushImpact, foldPending, metricName, prometheusText, sampleLabels, seriesBytes, timeSeries, windowValue,
  type ImpactEntry, type PendingSeries,
} from '../../../src/concepts/impact-metrics/logic.js';

const T0 = Date.parse('2026-11-28T10:00:00.000Z');
const MIN = 60_000;

/** Folds `entries` received at `at` and flushes them into `state` at `at` (as the store does). */
function report(state: State, entries: ImpactEntry[], at: number, maxBytes = 64 * 1024 * 1024) {
  const pending = new Map<string, PendingSeries>();
  for (const e of entries) for (const d of entryDeltas(e)) foldPending(pending, d, at);
  const change = flushImpact(pending, maxBytes, at)(state, { now: new Date(at).toISOString(), newId: () => 'x', actor: { name: 't', userId: null } });
  for (const op of change.ops) applyOp(state, op, false);
  return change.result;
}

const counter = (name: string, value: number, labels: Record<string, string> = {}): ImpactEntry => ({ name, help: 'h', type: 'counter', samples: [{ labels, value }] });
const gauge = (name: string, value: number, labels: Record<string, string> = {}): ImpactEntry => ({ name, help: 'h', type: 'gauge', samples: [{ labels, value }] });
const histogram = (name: string, observations: number[], bounds = [0.1, 0.5, 1]): ImpactEntry => ({
  name, help: 'h', type: 'histogram',
  samples: [{
    labels: { appName: 'a' }, count: observations.length, sum: observations.reduce((a, b) => a + b, 0),
    buckets: [...bounds.map((le) => ({ le, count: observations.filter((o) => o <= le).length })), { le: '+Inf', count: observations.length }],
  }],
});

t.test('names and labels are sanitized as Unleash does; an unusable name is dropped', async (t) => {
  t.equal(metricName('checkout.errors-total'), 'checkout_errors_total');
  t.equal(metricName('9lives'), null, 'a name that starts with a digit cannot be a Prometheus name');
  t.same(sampleLabels({ 'app-name': 'x', '1bad': 'y', env: 'prod' }), [['app_name', 'x'], ['env', 'prod'], ['origin', 'sdk']], 'origin defaults to sdk; unusable label names dropped');
  t.same(sampleLabels({ origin: 'Edge' }), [['origin', 'Edge']], 'an origin sent is kept');
  t.same(entryDeltas({ name: '0x', help: '', type: 'counter', samples: [{ value: 1 }] }), []);
});

t.test('counters add up across reports, gauges keep the last value, histograms add their buckets', async (t) => {
  const s = emptyState();
  report(s, [counter('errors', 3, { appName: 'a' }), gauge('queue', 7), histogram('latency', [0.05, 0.7])], T0);
  report(s, [counter('errors', 2, { appName: 'a' }), gauge('queue', 4), histogram('latency', [2])], T0 + 2 * MIN);
  const text = prometheusText(s.impactSeries.values());
  t.match(text, /^errors\{origin="sdk",metric_type="counter",appName="a"\} 5$/m);
  t.match(text, /^queue\{origin="sdk",metric_type="gauge"\} 4$/m);
  t.match(text, /^latency_bucket\{appName="a",metric_type="histogram",origin="sdk",le="0.1"\} 1$/m);
  t.match(text, /^latency_bucket\{appName="a",metric_type="histogram",origin="sdk",le="1"\} 2$/m);
  t.match(text, /^latency_bucket\{appName="a",metric_type="histogram",origin="sdk",le="\+Inf"\} 3$/m);
  t.match(text, /^latency_sum\{appName="a",metric_type="histogram",origin="sdk"\} 2\.75$/m);
  t.match(text, /^latency_count\{appName="a",metric_type="histogram",origin="sdk"\} 3$/m);
  t.match(text, /^# TYPE latency histogram$/m);
  // Other bounds start the histogram over, as Unleash recreates such a metric.
  report(s, [histogram('latency', [0.2], [0.25])], T0 + 3 * MIN);
  t.match(prometheusText(s.impactSeries.values()), /^latency_count\{appName="a",metric_type="histogram",origin="sdk"\} 1$/m);
  const copy = loadDump(dumpState(s));
  t.same(prometheusText(copy.impactSeries.values()), prometheusText(s.impactSeries.values()), 'a checkpoint holds the series whole');
});

t.test('one value over a window, at an injected clock', async (t) => {
  const s = emptyState();
  // 10 errors a minute for 5 minutes on app a, 1 a minute on app b.
  for (let m = 0; m < 5; m++) report(s, [counter('errors', 10, { appName: 'a' }), counter('errors', 1, { appName: 'b' })], T0 + m * MIN);
  const at = (ms: number, aggregation: any, labels?: Record<string, string[]>, range: any = 'hour') => windowValue(s.impactSeries.values(), { metricName: 'errors', range, aggregation, labels }, ms);
  t.equal(at(T0 + 5 * MIN, 'count'), 55, 'count: every increase in the last hour');
  t.equal(at(T0 + 5 * MIN, 'count', { appName: ['a'] }), 50, 'label selectors narrow it');
  t.equal(at(T0 + 5 * MIN, 'rps', { appName: ['a'] }), 50 / 3600, 'rps: per second of the window');
  t.equal(at(T0 + 5 * MIN, 'avg'), 55 / 2, 'avg of a counter: the increase per series');
  t.equal(at(T0 + 59 * MIN, 'count'), 55, 'still in the window 59 minutes on');
  t.equal(at(T0 + 62 * MIN, 'count'), 22, 'the window is the last 60 minutes, the current one included: minutes 0 to 2 have left it');
  t.equal(at(T0 + 2 * 3600_000, 'count'), null, 'nothing in the window: no value');
  t.equal(at(T0 + 2 * 3600_000, 'count', undefined, 'day'), 55, 'the day still holds them');
  t.equal(at(T0 + 5 * MIN, 'count', { appName: ['nobody'] }), null);

  const g = emptyState();
  report(g, [gauge('queue', 4)], T0);
  report(g, [gauge('queue', 8)], T0 + MIN);
  t.equal(windowValue(g.impactSeries.values(), { metricName: 'queue', range: 'hour', aggregation: 'avg' }, T0 + 2 * MIN), 6, 'avg of a gauge: the mean of its values');

  const h = emptyState();
  report(h, [histogram('latency', [0.05, 0.05, 0.05, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.8])], T0);
  const q = (aggregation: any) => windowValue(h.impactSeries.values(), { metricName: 'latency', range: 'hour', aggregation }, T0 + MIN);
  t.equal(q('p50'), 0.1 + (0.4 * (5 - 3)) / 6, 'p50 interpolated in its bucket (0.1–0.5)');
  t.equal(q('p99'), 0.5 + 0.5 * ((9.9 - 9) / 1), 'p99 in the last finite bucket');
  t.equal(q('count'), 10);
  t.equal(q('avg'), (0.15 + 1.8 + 0.8) / 10);
});

t.test('the time series: a point per step, one series per value of the selected labels', async (t) => {
  const s = emptyState();
  report(s, [counter('errors', 10, { appName: 'a' }), counter('errors', 1, { appName: 'b' })], T0);
  report(s, [counter('errors', 5, { appName: 'a' })], T0 + MIN);
  const all = timeSeries(s.impactSeries.values(), { metricName: 'errors', range: 'hour', aggregation: 'count', labels: {} }, T0 + 2 * MIN);
  t.same(all.series, [{ metric: {}, data: [[T0 / 1000, 11], [T0 / 1000 + 60, 5]] }]);
  t.equal(all.step, '60s');
  t.same(all.labels, { appName: ['a', 'b'], metric_type: ['counter'], origin: ['sdk'] });
  const byApp = timeSeries(s.impactSeries.values(), { metricName: 'errors', range: 'hour', aggregation: 'rps', labels: { appName: ['a', 'b'] } }, T0 + 2 * MIN);
  t.same(byApp.series, [{ metric: { appName: 'a' }, data: [[T0 / 1000, 10 / 60], [T0 / 1000 + 60, 5 / 60]] }, { metric: { appName: 'b' }, data: [[T0 / 1000, 1 / 60]] }]);
});

t.test('the byte budget: a new series is kept only while one more full series fits', async (t) => {
  const s = emptyState();
  const one = seriesBytes(entryDeltas(counter('flood', 1, { user: 'u0' }))[0].head);
  const budget = one * 10 + one / 2;
  const flood = Array.from({ length: 100 }, (_, i) => counter('flood', 1, { user: `u${i}` }));
  t.same(report(s, flood, T0, budget), { kept: 10, refused: 90 });
  t.equal(s.impactSeries.size, 10);
  t.same(report(s, [counter('flood', 1, { user: 'u0' }), counter('flood', 1, { user: 'new' })], T0 + MIN, budget), { kept: 1, refused: 1 }, 'those kept go on; a new one is still refused');
  // A series no report reached for FORGET_AFTER_S is forgotten, which frees its room.
  t.same(report(s, [counter('flood', 1, { user: 'new' })], T0 + (FORGET_AFTER_S + 3600) * 1000, budget), { kept: 1, refused: 0 });
  t.equal(s.impactSeries.size, 1);
});
