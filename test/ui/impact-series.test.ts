// The console's impact metric charts (ui/src/impact-series.ts): the query route's path, a
// counter's missing steps drawn as zeros (a gauge's left as gaps), a safeguard's running total as
// a staircase ending at the total it compares, and its threshold inside the box.
import t from 'tap';
import { uiModule } from '../helpers/ui-module.js';

interface Answer { start: string; end: string; step: string; series: { metric: Record<string, string>; data: [number, number][] }[]; labels: Record<string, string[]> }
interface Plotted { lines: { name: string; points: [number, number][]; dots: [number, number][]; last: number | null }[]; max: number; min: number; level: number | null }
interface Series {
  queryPath(q: { metricName: string; timeRange: string; aggregationMode: string; labelSelectors?: Record<string, string[]> }): string;
  gapsAreZero(a: Answer, aggregationMode: string): boolean;
  plot(a: Answer, box: { width: number; height: number; threshold?: number | null; running?: boolean; zeroGaps?: boolean }): Plotted;
}

const S = Date.parse('2026-11-28T10:00:00.000Z') / 1000;
const answer = (data: [number, number][], type = 'counter'): Answer => ({
  start: new Date(S * 1000).toISOString(), end: new Date((S + 4 * 60) * 1000).toISOString(), step: '60s',
  series: [{ metric: {}, data }], labels: { metric_type: [type] },
});

t.test('the query path carries the metric, range, aggregation and label selectors', async (t) => {
  const s = await uiModule<Series>('impact-series.ts');
  t.equal(s.queryPath({ metricName: 'checkout_errors', timeRange: 'day', aggregationMode: 'p95' }), '/api/admin/impact-metrics/?metricName=checkout_errors&range=day&aggregationMode=p95');
  const withLabels = new URL(s.queryPath({ metricName: 'x', timeRange: 'hour', aggregationMode: 'count', labelSelectors: { appName: ['shop'] } }), 'http://h');
  t.same(JSON.parse(withLabels.searchParams.get('labels')!), { appName: ['shop'] }, 'labels as JSON');
});

t.test("a counter's missing steps are zeros; a gauge's are gaps", async (t) => {
  const s = await uiModule<Series>('impact-series.ts');
  const counter = answer([[S + 120, 4]]);
  t.equal(s.gapsAreZero(counter, 'count'), true);
  t.equal(s.gapsAreZero(answer([[S, 1]], 'gauge'), 'avg'), false);
  const p = s.plot(counter, { width: 400, height: 100, zeroGaps: true });
  t.equal(p.lines[0].points.length, 5, 'one point per step of the range');
  t.same(p.lines[0].points.map(([x]) => x), [0, 100, 200, 300, 400], 'spread over the width');
  t.same(p.lines[0].dots, [[200, p.lines[0].points[2][1]]], 'a dot only where something was reported');
  t.equal(p.lines[0].points[0][1], 100, 'zero at the bottom');
  t.ok(p.lines[0].points[2][1] < 100 && p.lines[0].points[2][1] > 0, 'the reported value inside the box');
  const gauge = s.plot(answer([[S, 1], [S + 240, 3]], 'gauge'), { width: 400, height: 100 });
  t.equal(gauge.lines[0].points.length, 2, 'a gauge: only what was reported');
});

t.test("a safeguard's running total is a staircase ending at the total, its threshold a level in the same scale", async (t) => {
  const s = await uiModule<Series>('impact-series.ts');
  const p = s.plot(answer([[S + 60, 3], [S + 180, 4]]), { width: 400, height: 100, threshold: 5, running: true });
  t.same(p.lines[0].points.map(([x]) => x), [0, 100, 100, 300, 300, 400], 'rises at each report');
  t.equal(p.lines[0].last, 7, 'ends at the total of the range');
  const y = (v: number) => Math.round((100 - (v / p.max) * 100) * 10) / 10;
  t.equal(p.level, y(5), 'the threshold at its height');
  t.equal(p.lines[0].points[5][1], y(7), 'the total at its height, above the threshold');
  const high = s.plot(answer([[S, 1]]), { width: 400, height: 100, threshold: 1000, running: true });
  t.ok(high.level! > 0 && high.level! < 100, 'a threshold far above the values is still inside the box');
});
