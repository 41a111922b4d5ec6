// An impact metric's answer (GET /api/admin/impact-metrics/) as a chart draws it: each series as
// points in a box, a threshold as a level in the same scale, and what a query means in words.
// Pure (test/ui/impact-series.test.ts bundles it on its own).

export interface MetricSeries { metric: Record<string, string>; data: [number, number][] }
export interface MetricAnswer { start: string; end: string; step: string; series: MetricSeries[]; labels: Record<string, string[]> }
export interface MetricQuery { metricName: string; timeRange: string; aggregationMode: string; labelSelectors?: Record<string, string[]> }

export const RANGES: [string, string][] = [['hour', 'the last hour'], ['day', 'the last day'], ['week', 'the last week'], ['month', 'the last month']];
export const AGGREGATIONS: [string, string][] = [
  ['count', 'count'], ['rps', 'per second'], ['sum', 'sum'], ['avg', 'average'], ['p50', 'median (p50)'], ['p95', 'p95'], ['p99', 'p99'],
];

/** The query route's path for `q`. */
export function queryPath(q: MetricQuery): string {
  const p = new URLSearchParams({ metricName: q.metricName, range: q.timeRange, aggregationMode: q.aggregationMode });
  const labels = q.labelSelectors ?? {};
  if (Object.keys(labels).length > 0) p.set('labels', JSON.stringify(labels));
  return `/api/admin/impact-metrics/?${p.toString()}`;
}

/** "checkout_errors, count over the last hour". */
export function queryWords(q: MetricQuery): string {
  const agg = AGGREGATIONS.find(([k]) => k === q.aggregationMode)?.[1] ?? q.aggregationMode;
  const range = RANGES.find(([k]) => k === q.timeRange)?.[1] ?? q.timeRange;
  const labels = Object.entries(q.labelSelectors ?? {}).map(([k, v]) => `${k} ${v.join('|')}`).join(', ');
  return `${q.metricName}, ${agg} over ${range}${labels ? ` where ${labels}` : ''}`;
}

/**
 * Whether a safeguard on `aggregationMode` compares the total of the window (count, sum): its chart
 * then draws the running total, which ends at the value compared with the threshold.
 */
export const totalled = (aggregationMode: string) => aggregationMode === 'count' || aggregationMode === 'sum';

export interface Plotted {
  lines: { name: string; points: [number, number][]; dots: [number, number][]; last: number | null }[];
  /** The top and bottom of the scale. */
  max: number;
  min: number;
  /** The threshold's height in the box, when there is one. */
  level: number | null;
}

/** A step such as "60s" or "3600s" in seconds (0 when it is not one). */
export function stepSeconds(step: string): number {
  const m = /^(\d+)s$/.exec(step);
  return m ? Number(m[1]) : 0;
}

/**
 * Whether a step without a point means zero: a counter's increase (the route leaves out the steps
 * in which nothing was reported). A gauge's or a histogram's missing step is a gap, not a zero.
 */
export function gapsAreZero(answer: MetricAnswer, aggregationMode: string): boolean {
  const types = answer.labels.metric_type ?? [];
  return types.length > 0 && types.every((t) => t === 'counter') && aggregationMode !== 'avg';
}

/**
 * The answer's series as points in a `width` × `height` box (y down, as SVG draws), from `start`
 * to `end`. `zeroGaps`: steps without a point are drawn at zero. `running`: each series as its
 * running total from the start, a staircase that rises at each report and ends at the total of
 * the range. `dots` are the reported points alone. The scale takes in the threshold, so its line
 * is always inside the box.
 */
export function plot(answer: MetricAnswer, box: { width: number; height: number; threshold?: number | null; running?: boolean; zero?: boolean; zeroGaps?: boolean }): Plotted {
  const t0 = Date.parse(answer.start) / 1000;
  const t1 = Math.max(t0 + 1, Date.parse(answer.end) / 1000);
  const step = stepSeconds(answer.step);
  const series = answer.series.map((s) => {
    const data = [...s.data].sort((a, b) => a[0] - b[0]).filter(([, v]) => Number.isFinite(v));
    let line = data;
    if (box.running) {
      let total = 0;
      line = [[t0, 0]];
      for (const [t, v] of data) line.push([t, total], [t, (total += v)]);
      line.push([t1, total]);
    } else if (box.zeroGaps && step > 0) {
      const at = new Map(data);
      line = [];
      for (let t = t0; t <= t1; t += step) line.push([t, at.get(t) ?? 0]);
    }
    return { name: labelsOf(s.metric), data, line };
  });
  const values = series.flatMap((s) => s.line.map(([, v]) => v));
  const threshold = box.threshold ?? null;
  if (threshold !== null) values.push(threshold);
  let max = Math.max(...values, 0);
  let min = box.zero === false ? Math.min(...values) : Math.min(...values, 0);
  if (!Number.isFinite(min)) min = 0;
  if (max <= min) max = min + 1;
  // Some room above the highest value, so a line at the top still shows.
  max += (max - min) * 0.1;
  const x = (t: number) => ((t - t0) / (t1 - t0)) * box.width;
  const y = (v: number) => box.height - ((v - min) / (max - min)) * box.height;
  const at = ([t, v]: [number, number]) => [round(x(t)), round(y(v))] as [number, number];
  return {
    lines: series.map((s) => ({ name: s.name, points: s.line.map(at), dots: box.running ? [] : s.data.map(at), last: s.line.length ? s.line[s.line.length - 1][1] : null })),
    max, min,
    level: threshold === null ? null : round(y(threshold)),
  };
}

const round = (n: number) => Math.round(n * 10) / 10;

function labelsOf(metric: Record<string, string>): string {
  const e = Object.entries(metric);
  return e.length ? e.map(([k, v]) => `${k}=${v}`).join(', ') : 'all series';
}
