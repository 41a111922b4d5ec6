// Impact metrics, the pure part: an SDK's report turned into deltas of series (names and labels
// sanitized as Unleash does), deltas folded, the flush command that keeps them in the state as
// series with a total and a history in tiers (within a byte budget), and the queries over them:
// the Prometheus text, the admin API's time series, and one value over a window (what a safeguard
// compares with its threshold). Nothing here reads a clock: `now` is always an argument.
import type { Command } from '../../core/engine/command.js';
import type { Op } from '../../core/state/ops.js';
import type { State } from '../../core/state/state.js';
import type { ImpactPoint, ImpactSeries } from '../../core/state/types.js';
import { ENTRY_BYTES, objectBytes, strBytes } from '../client-metrics/sizes.js';

export type MetricType = ImpactSeries['type'];
export type Range = 'hour' | 'day' | 'week' | 'month';
export type Aggregation = 'rps' | 'count' | 'avg' | 'sum' | 'p50' | 'p95' | 'p99';
export const RANGES: readonly Range[] = ['hour', 'day', 'week', 'month'];
export const AGGREGATIONS: readonly Aggregation[] = ['rps', 'count', 'avg', 'sum', 'p50', 'p95', 'p99'];

/**
 * The history kept of each series: per range of the admin API, points of `step` seconds, `keep`
 * of them (an hour by the minute, a day by 10 minutes, a week by the hour, 31 days by 6 hours).
 * Every report lands in one point of each tier, so each answer reads one tier.
 */
export const TIERS: readonly { range: Range; step: number; keep: number }[] = [
  { range: 'hour', step: 60, keep: 60 },
  { range: 'day', step: 600, keep: 144 },
  { range: 'week', step: 3600, keep: 168 },
  { range: 'month', step: 21600, keep: 124 },
];
const POINTS_PER_SERIES = TIERS.reduce((n, t) => n + t.keep, 0);
/** A series no report reached for this long is forgotten (its coarsest tier holds nothing newer). */
export const FORGET_AFTER_S = TIERS[TIERS.length - 1].step * TIERS[TIERS.length - 1].keep;

/** A sample as the SDK sends it (validated by schema.ts). */
export interface ImpactSample {
  labels?: Record<string, string | number | boolean>;
  value?: number;
  count?: number;
  sum?: number;
  buckets?: { le: number | string; count: number }[];
}

/** An `impactMetrics` entry, as validated by schema.ts. */
export interface ImpactEntry {
  name: string;
  help?: string;
  type: MetricType;
  samples: ImpactSample[];
}

export type SeriesHead = Omit<ImpactSeries, 'tiers' | 'total'>;

/** What one report added to one series. */
export interface Delta {
  key: string;
  head: SeriesHead;
  /** Counter: [delta]; gauge: [value]; histogram: [count, sum, cumulative count per bound…, count at +Inf]. */
  v: number[];
}

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');
const usable = (name: string) => /^[a-zA-Z_]/.test(name);

/** The Prometheus name of a metric, or null when it cannot have one (Unleash drops those). */
export function metricName(name: string): string | null {
  const s = sanitize(name);
  return usable(s) ? s : null;
}

export function seriesKey(name: string, labels: [string, string][]): string {
  return JSON.stringify([name, labels]);
}

/**
 * A sample's labels as kept: names sanitized (those that cannot be a label name dropped),
 * `origin` defaulting to `sdk`, sorted by name. `metric_type` is not stored: it follows the type.
 */
export function sampleLabels(labels: ImpactSample['labels']): [string, string][] {
  const out = new Map<string, string>([['origin', 'sdk']]);
  for (const [k, v] of Object.entries(labels ?? {})) {
    const name = sanitize(k);
    if (!usable(name) || name === 'metric_type' || name === 'le') continue;
    if (name === 'origin' && (v === '' || v === undefined)) continue;
    out.set(name, String(v));
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A histogram sample's finite bounds (ascending) and its counts in the stored layout. */
function histogram(sample: ImpactSample): { le: number[]; v: number[] } {
  const finite = (sample.buckets ?? []).filter((b) => b.le !== '+Inf').map((b) => ({ le: Number(b.le), count: b.count }));
  finite.sort((a, b) => a.le - b.le);
  const inf = (sample.buckets ?? []).find((b) => b.le === '+Inf');
  const count = sample.count ?? inf?.count ?? 0;
  return { le: finite.map((b) => b.le), v: [count, sample.sum ?? 0, ...finite.map((b) => b.count), inf?.count ?? count] };
}

/** The deltas of one validated entry (none when its name cannot be a metric name). */
export function entryDeltas(entry: ImpactEntry): Delta[] {
  const name = metricName(entry.name);
  if (name === null) return [];
  const help = entry.help ?? '';
  const out: Delta[] = [];
  for (const sample of entry.samples) {
    const labels = sampleLabels(sample.labels);
    const key = seriesKey(name, labels);
    if (entry.type === 'histogram') {
      const h = histogram(sample);
      out.push({ key, head: { name, help, type: 'histogram', labels, le: h.le }, v: h.v });
    } else {
      out.push({ key, head: { name, help, type: entry.type, labels, le: [] }, v: [sample.value ?? 0] });
    }
  }
  return out;
}

const sameBounds = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
/** Whether `v` (of `head`) adds to a series described by `into` or replaces it (another type, other bounds). */
export const continues = (into: SeriesHead, head: SeriesHead) => into.type === head.type && sameBounds(into.le, head.le);

const clamp = (n: number) => (Number.isFinite(n) ? n : n > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE);
const addAll = (a: number[], b: number[]) => a.map((x, i) => clamp(x + (b[i] ?? 0)));

/** A point of one delta: a gauge's point is [last value, sum of values, number of values]. */
export const pointOfDelta = (type: MetricType, v: number[]) => (type === 'gauge' ? [v[0], v[0], 1] : v.slice());

/** Two points of one step merged (`b` the later): counts add up, a gauge's last value is `b`'s. */
export function mergePoints(type: MetricType, a: number[] | null, b: number[]): number[] {
  if (a === null || a.length !== b.length) return b.slice();
  if (type === 'gauge') return [b[0], clamp(a[1] + b[1]), a[2] + b[2]];
  return addAll(a, b);
}

/** A series' total after a point: counters and histograms add up, a gauge takes the last value. */
export function addToTotal(type: MetricType, total: number[] | null, point: number[]): number[] {
  if (type === 'gauge') return [point[0]];
  if (total === null || total.length !== point.length) return point.slice();
  return addAll(total, point);
}

/** What a series costs in memory once every tier is full: the budget reserves it when the series is first kept. */
export function seriesBytes(head: SeriesHead): number {
  const values = head.type === 'counter' ? 1 : head.type === 'gauge' ? 3 : 3 + head.le.length;
  let n = ENTRY_BYTES + objectBytes(6) + 2 * strBytes(head.name) + strBytes(head.help) + 8 * (values + head.le.length) + 64;
  for (const [k, v] of head.labels) n += 32 + strBytes(k) + strBytes(v);
  return n + POINTS_PER_SERIES * (objectBytes(2) + 16 + 8 * values);
}

/** Bytes the state's series hold (as reserved). */
export function stateBytes(state: State): number {
  let n = 0;
  for (const s of state.impactSeries.values()) n += seriesBytes(s);
  return n;
}

/** Deltas waiting for the next flush, for one series: by minute (Unix seconds), oldest first. */
export interface PendingSeries {
  head: SeriesHead;
  minutes: Map<number, number[]>;
}

/**
 * Folds one delta into what waits (received at `nowMs`): into the minute it arrived in. A delta
 * of another type or other bounds replaces what waited for that series.
 */
export function foldPending(pending: Map<string, PendingSeries>, d: Delta, nowMs: number): void {
  const minute = Math.floor(nowMs / 60_000) * 60;
  let p = pending.get(d.key);
  if (!p || !continues(p.head, d.head)) pending.set(d.key, (p = { head: d.head, minutes: new Map() }));
  else p.head = d.head;
  p.minutes.set(minute, mergePoints(d.head.type, p.minutes.get(minute) ?? null, pointOfDelta(d.head.type, d.v)));
}

/**
 * Writes what waited into the state: for each series its new total and the point of each tier it
 * reached. A series not kept yet is kept only when the budget (`maxBytes`) has room for it full;
 * series no report reached for FORGET_AFTER_S are forgotten. Result: series kept and refused.
 */
export function flushImpact(pending: Iterable<[string, PendingSeries]>, maxBytes: number, nowMs: number): Command<{ kept: number; refused: number }> {
  return (state) => {
    const ops: Op[] = [];
    const nowS = Math.floor(nowMs / 1000);
    let bytes = 0;
    for (const [key, s] of state.impactSeries) {
      const newest = s.tiers[TIERS.length - 1]?.at(-1)?.t ?? -Infinity;
      if (newest < nowS - FORGET_AFTER_S) ops.push({ o: 'impact.del', key });
      else bytes += seriesBytes(s);
    }
    let kept = 0;
    let refused = 0;
    for (const [key, p] of pending) {
      const had = state.impactSeries.get(key) ?? null;
      const gone = had !== null && ops.some((op) => op.o === 'impact.del' && op.key === key);
      const cont = had !== null && !gone && continues(had, p.head);
      if (!cont) {
        const size = seriesBytes(p.head) - (had && !gone ? seriesBytes(had) : 0);
        if (bytes + size > maxBytes) {
          refused++;
          continue;
        }
        bytes += size;
      }
      let total = cont ? had.total : null;
      const points = new Map<string, { tier: number; point: ImpactPoint }>();
      const pointOf = (tier: number, t: number): number[] | null => {
        const seen = points.get(`${tier}:${t}`);
        if (seen) return seen.point.v;
        if (!cont) return null;
        return had.tiers[tier]?.find((x) => x.t === t)?.v ?? null;
      };
      for (const minute of [...p.minutes.keys()].sort((a, b) => a - b)) {
        const v = p.minutes.get(minute)!;
        total = addToTotal(p.head.type, total, v);
        TIERS.forEach((tier, i) => {
          const t = Math.floor(minute / tier.step) * tier.step;
          points.set(`${i}:${t}`, { tier: i, point: { t, v: mergePoints(p.head.type, pointOf(i, t), v) } });
        });
      }
      if (total === null) continue;
      ops.push({ o: 'impact.put', key, head: { ...p.head, total } });
      for (const { tier, point } of points.values()) {
        const { step, keep } = TIERS[tier];
        ops.push({ o: 'impact.point', key, tier, point, since: point.t - step * (keep - 1) });
      }
      kept++;
    }
    return { ops, events: [], result: { kept, refused } };
  };
}

// ---- reading ----------------------------------------------------------------------------------

/** Label name → accepted values: a series matches when each named label has one of them. */
export type LabelSelectors = Record<string, string[]>;

export function matches(s: ImpactSeries, selectors: LabelSelectors): boolean {
  for (const [name, values] of Object.entries(selectors)) {
    if (values.length === 0 || values.includes('*')) continue;
    const v = name === 'metric_type' ? s.type : s.labels.find(([k]) => k === name)?.[1];
    if (v === undefined || !values.includes(v)) return false;
  }
  return true;
}

/** The quantile `q` of a histogram's cumulative bucket counts, interpolated within its bucket as Prometheus does. */
export function quantile(q: number, le: number[], cumulative: number[], count: number): number | null {
  if (count <= 0) return null;
  const rank = q * count;
  for (let i = 0; i < le.length; i++) {
    if (cumulative[i] >= rank) {
      const lower = i === 0 ? 0 : le[i - 1];
      const below = i === 0 ? 0 : cumulative[i - 1];
      const inBucket = cumulative[i] - below;
      if (i === 0 && le[0] <= 0) return le[0];
      return inBucket <= 0 ? le[i] : lower + ((le[i] - lower) * (rank - below)) / inBucket;
    }
  }
  // In the +Inf bucket: the highest finite bound, as Prometheus answers.
  return le.length > 0 ? le[le.length - 1] : null;
}

/** Sums of points of several series (of one metric, one type) for one step or one window. */
interface Sums {
  type: MetricType;
  /** Counter: sum of deltas. Histogram: count. Gauge: number of values. */
  n: number;
  /** Counter: same as n. Histogram: sum of observations. Gauge: sum of values. */
  sum: number;
  /** Gauge: sum over series of each one's last value. */
  last: number;
  le: number[];
  buckets: number[];
  series: number;
}

function emptySums(type: MetricType, le: number[]): Sums {
  return { type, n: 0, sum: 0, last: 0, le, buckets: le.map(() => 0), series: 0 };
}

function addPoint(into: Sums, s: ImpactSeries, v: number[]): void {
  if (s.type === 'counter') {
    into.n += v[0];
    into.sum += v[0];
  } else if (s.type === 'gauge') {
    into.last += v[0];
    into.sum += v[1];
    into.n += v[2];
  } else {
    into.n += v[0];
    into.sum += v[1];
    if (sameBounds(into.le, s.le)) for (let i = 0; i < into.buckets.length; i++) into.buckets[i] += v[2 + i];
  }
}

/**
 * One value of `sums` over `seconds`: for counters `count`/`sum` are the increase and `rps` it per
 * second, `avg` the increase per series; for gauges `avg` is the mean of the values reported, `sum`
 * the sum over series of their last value, `count` how many values were reported; for histograms
 * `count` and `sum` are the observations' number and total, `avg` their mean, p50/p95/p99
 * interpolated in the buckets. Null when nothing was reported.
 */
export function valueOf(sums: Sums, aggregation: Aggregation, seconds: number): number | null {
  if (sums.series === 0) return null;
  const t = sums.type;
  switch (aggregation) {
    case 'count':
      return sums.n;
    case 'rps':
      return sums.n / seconds;
    case 'sum':
      return t === 'gauge' ? sums.last : sums.sum;
    case 'avg':
      if (t === 'counter') return sums.n / sums.series;
      return sums.n > 0 ? sums.sum / sums.n : null;
    default: {
      if (t !== 'histogram') return null;
      const q = aggregation === 'p50' ? 0.5 : aggregation === 'p95' ? 0.95 : 0.99;
      return quantile(q, sums.le, sums.buckets, sums.n);
    }
  }
}

/** The tier a range reads. */
export const tierOf = (range: Range) => TIERS.findIndex((t) => t.range === range);

/**
 * The value of one metric over the last `range` at `nowMs`, summed over the series that match
 * `selectors`: what a safeguard compares with its threshold. Points of the range's tier whose step
 * began within the window count. Null when no matching series reported anything in the window.
 */
export function windowValue(series: Iterable<ImpactSeries>, q: { metricName: string; range: Range; aggregation: Aggregation; labels?: LabelSelectors }, nowMs: number): number | null {
  const tier = tierOf(q.range);
  const { step, keep } = TIERS[tier];
  const nowS = Math.floor(nowMs / 1000);
  const from = Math.floor(nowS / step) * step - step * (keep - 1);
  let sums: Sums | null = null;
  for (const s of series) {
    if (s.name !== q.metricName || !matches(s, q.labels ?? {})) continue;
    sums ??= emptySums(s.type, s.le);
    if (s.type !== sums.type) continue;
    let seen = false;
    for (const p of s.tiers[tier] ?? []) {
      if (p.t < from || p.t > nowS) continue;
      addPoint(sums, s, p.v);
      seen = true;
    }
    if (seen) sums.series++;
  }
  return sums ? valueOf(sums, q.aggregation, step * keep) : null;
}

export interface TimeSeriesAnswer {
  start: string;
  end: string;
  step: string;
  series: { metric: Record<string, string>; data: [number, number][] }[];
  labels: Record<string, string[]>;
}

/** At most this many values of a label are listed in an answer's `labels`. */
export const MAX_LISTED_LABEL_VALUES = 1000;

/**
 * The admin API's answer: the matching series of `metricName` over the last `range`, aggregated
 * per step; one series per combination of the values of the labels named in `selectors` (one
 * series when none), and the labels the metric's series have, with their values.
 */
export function timeSeries(series: Iterable<ImpactSeries>, q: { metricName: string; range: Range; aggregation: Aggregation; labels: LabelSelectors }, nowMs: number): TimeSeriesAnswer {
  const tier = tierOf(q.range);
  const { step, keep } = TIERS[tier];
  const nowS = Math.floor(nowMs / 1000);
  const end = Math.floor(nowS / step) * step;
  const start = end - step * (keep - 1);
  const names = Object.keys(q.labels).sort();
  const groups = new Map<string, { metric: Record<string, string>; steps: Map<number, Sums>; seen: Set<ImpactSeries> }>();
  const labels = new Map<string, Set<string>>();
  let type: MetricType | null = null;
  for (const s of series) {
    if (s.name !== q.metricName) continue;
    for (const [k, v] of [...s.labels, ['metric_type', s.type] as [string, string]]) {
      let set = labels.get(k);
      if (!set) labels.set(k, (set = new Set()));
      if (set.size < MAX_LISTED_LABEL_VALUES) set.add(v);
    }
    if (!matches(s, q.labels)) continue;
    type ??= s.type;
    if (s.type !== type) continue;
    const metric: Record<string, string> = {};
    for (const n of names) metric[n] = n === 'metric_type' ? s.type : (s.labels.find(([k]) => k === n)?.[1] ?? '');
    const gk = JSON.stringify(names.map((n) => metric[n]));
    let g = groups.get(gk);
    if (!g) groups.set(gk, (g = { metric, steps: new Map(), seen: new Set() }));
    for (const p of s.tiers[tier] ?? []) {
      if (p.t < start || p.t > end) continue;
      let sums = g.steps.get(p.t);
      if (!sums) g.steps.set(p.t, (sums = emptySums(s.type, s.le)));
      addPoint(sums, s, p.v);
      sums.series++;
    }
  }
  const out: TimeSeriesAnswer['series'] = [];
  for (const g of [...groups.values()].sort((a, b) => (JSON.stringify(a.metric) < JSON.stringify(b.metric) ? -1 : 1))) {
    const data: [number, number][] = [];
    for (const t of [...g.steps.keys()].sort((a, b) => a - b)) {
      const v = valueOf(g.steps.get(t)!, q.aggregation, step);
      if (v !== null) data.push([t, v]);
    }
    if (data.length > 0) out.push({ metric: g.metric, data });
  }
  const labelList: Record<string, string[]> = {};
  for (const k of [...labels.keys()].sort()) labelList[k] = [...labels.get(k)!].sort();
  return { start: new Date(start * 1000).toISOString(), end: new Date(end * 1000).toISOString(), step: `${step}s`, series: out, labels: labelList };
}

/** The metrics kept, by name: what `GET /api/admin/impact-metrics/metadata` lists. */
export function metricList(series: Iterable<ImpactSeries>): { name: string; displayName: string; type: MetricType; help: string; source: 'internal' }[] {
  const byName = new Map<string, { name: string; displayName: string; type: MetricType; help: string; source: 'internal' }>();
  for (const s of series) if (!byName.has(s.name)) byName.set(s.name, { name: s.name, displayName: s.name, type: s.type, help: s.help, source: 'internal' });
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

// ---- Prometheus text ---------------------------------------------------------------------------

const escapeHelp = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeValue = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const number = (n: number) => (Number.isNaN(n) ? 'NaN' : n === Infinity ? '+Inf' : n === -Infinity ? '-Inf' : String(n));
const labelText = (labels: [string, string][]) => `{${labels.map(([k, v]) => `${k}="${escapeValue(v)}"`).join(',')}}`;

/**
 * The totals in Prometheus' text format (0.0.4), one family per metric name, as Unleash's
 * `/internal-backstage/impact/metrics` shows them: `origin` and `metric_type` labels first (a
 * histogram's in name order), its buckets cumulative with `+Inf` last, then `_sum` and `_count`.
 */
export function prometheusText(series: Iterable<ImpactSeries>): string {
  const families = new Map<string, ImpactSeries[]>();
  for (const s of series) {
    const list = families.get(s.name);
    if (list) list.push(s);
    else families.set(s.name, [s]);
  }
  const lines: string[] = [];
  for (const name of [...families.keys()].sort()) {
    const list = families.get(name)!;
    // One family has one type: the newest description wins, as a metric recreated in Unleash.
    const type = list[list.length - 1].type;
    lines.push(`# HELP ${name} ${escapeHelp(list[list.length - 1].help)}`, `# TYPE ${name} ${type}`);
    for (const s of list) {
      if (s.type !== type) continue;
      const base: [string, string][] = [['origin', s.labels.find(([k]) => k === 'origin')?.[1] ?? 'sdk'], ['metric_type', s.type], ...s.labels.filter(([k]) => k !== 'origin')];
      if (s.type !== 'histogram') {
        lines.push(`${name}${labelText(base)} ${number(s.total[0])}`);
        continue;
      }
      // A histogram's labels in name order, `le` last (as Unleash writes them).
      const sorted = base.slice().sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      s.le.forEach((le, i) => lines.push(`${name}_bucket${labelText([...sorted, ['le', String(le)]])} ${number(s.total[2 + i])}`));
      lines.push(`${name}_bucket${labelText([...sorted, ['le', '+Inf']])} ${number(s.total[2 + s.le.length])}`);
      lines.push(`${name}_sum${labelText(sorted)} ${number(s.total[1])}`, `${name}_count${labelText(sorted)} ${number(s.total[0])}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

// ---- forwarding ---------------------------------------------------------------------------------

/** What a relay holds of one series until it sends it upstream: the sum of its deltas (a gauge: its last value). */
export interface HeldSeries {
  head: SeriesHead;
  point: number[];
}

/** Adds one delta to what a relay holds (a delta of another type or other bounds replaces it). */
export function holdDelta(held: Map<string, HeldSeries>, d: Delta): void {
  const had = held.get(d.key);
  const point = pointOfDelta(d.head.type, d.v);
  held.set(d.key, { head: d.head, point: had && continues(had.head, d.head) ? mergePoints(d.head.type, had.point, point) : point });
}

/** Bytes a held series takes (an estimate, for the relay's budget of what waits). */
export const heldBytes = (h: HeldSeries) => seriesBytes(h.head) - POINTS_PER_SERIES * (objectBytes(2) + 16 + 8 * h.point.length) + 8 * h.point.length;

/** Held series as `impactMetrics` entries again, one per metric name, as SDKs send them. */
export function toEntries(held: Iterable<HeldSeries>): ImpactEntry[] {
  const byName = new Map<string, ImpactEntry>();
  for (const { head, point } of held) {
    let entry = byName.get(head.name);
    if (!entry || entry.type !== head.type) byName.set(head.name, (entry = { name: head.name, help: head.help, type: head.type, samples: [] }));
    const labels = Object.fromEntries(head.labels);
    if (head.type !== 'histogram') entry.samples.push({ labels, value: point[0] });
    else {
      const buckets: { le: number | string; count: number }[] = head.le.map((le, i) => ({ le, count: point[2 + i] }));
      buckets.push({ le: '+Inf', count: point[2 + head.le.length] });
      entry.samples.push({ labels, count: point[0], sum: point[1], buckets });
    }
  }
  return [...byName.values()];
}
