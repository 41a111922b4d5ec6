// An impact metric drawn as a line over its range (GET /api/admin/impact-metrics/), asked again
// every few seconds while the tab is shown, with a safeguard's threshold as a dashed level; and the
// fields that choose a metric (from GET /api/admin/impact-metrics/metadata), how it is aggregated
// and over which range. SVG drawn here, as the usage chart is: no chart library.
import { useEffect } from 'preact/hooks';
import { get, poll } from './api.js';
import { ErrorNote, Select, useLoad } from './components.js';
import { html } from './html.js';
import { AGGREGATIONS, gapsAreZero, plot, queryPath, queryWords, RANGES, totalled, type MetricAnswer, type MetricQuery } from './impact-series.js';

const EVERY_MS = 5_000;
const W = 600;
const H = 120;
const PALETTE = 6;

export interface MetricInfo { name: string; displayName?: string; type: string; help?: string }

/** The metrics kept (names as queries and safeguards take them). */
export function useMetrics() {
  return useLoad(() => get<{ metrics: MetricInfo[] }>('/api/admin/impact-metrics/metadata').then((r) => r.metrics), []);
}

const fmt = (v: number) => (Math.abs(v) >= 100 ? Math.round(v) : Number(v.toPrecision(3))).toLocaleString('en');
const hhmm = (iso: string) => new Date(iso).toISOString().slice(11, 16);

/**
 * One metric's chart. `threshold` (with `operator`) draws a safeguard's level; a safeguard that
 * compares a total (count, sum) is drawn as the running total over its window, which is what it
 * compares.
 */
export function ImpactChart(props: { query: MetricQuery; title?: string; threshold?: number; operator?: string; zero?: boolean }) {
  const { query } = props;
  const path = queryPath(query);
  const answer = useLoad(() => poll<MetricAnswer>(path), [path]);
  useEffect(() => {
    const timer = setInterval(() => document.hidden || answer.reload(), EVERY_MS);
    return () => clearInterval(timer);
  }, [path]);
  const guarded = props.threshold !== undefined;
  const running = guarded && totalled(query.aggregationMode);
  const a = answer.data;
  const words = `${queryWords(query)}${running ? ', running total' : a ? `, per ${a.step}` : ''}`;
  const p = a ? plot(a, { width: W, height: H, threshold: props.threshold ?? null, running, zero: props.zero, zeroGaps: gapsAreZero(a, query.aggregationMode) }) : null;
  const reported = a?.series.reduce((n, s) => n + s.data.length, 0) ?? 0;
  const lastWords = p?.lines.filter((l) => l.last !== null).map((l) => `${p.lines.length > 1 ? `${l.name}: ` : ''}${fmt(l.last!)}`).join(', ');
  const label = `${props.title ?? words}${lastWords ? `; latest ${lastWords}` : '; nothing reported'}${guarded ? `; threshold ${props.operator ?? '>'} ${props.threshold}` : ''}`;
  return html`<figure class="impact-chart">
    <figcaption><strong>${props.title ?? query.metricName}</strong> <span class="muted">${words}</span></figcaption>
    <${ErrorNote} error=${answer.error} />
    ${!p ? (answer.error ? null : html`<p class="loading">Loading…</p>`) : html`<svg viewBox=${`0 0 ${W} ${H + 14}`} role="img" aria-label=${label}>
      <line x1="0" x2=${W} y1=${H} y2=${H} class="axis" />
      <text x="2" y="10" class="tick">${fmt(p.max)}</text>
      ${p.lines.map((l, i) => html`<g class=${`series v${Math.min(i, PALETTE - 1)}`}>
        <polyline points=${l.points.map(([x, y]) => `${x},${y}`).join(' ')} fill="none" />
        ${l.dots.map(([x, y]) => html`<circle cx=${x} cy=${y} r="2.5" />`)}
      </g>`)}
      ${p.level !== null ? html`<g class="threshold"><line x1="0" x2=${W} y1=${p.level} y2=${p.level} data-threshold=${props.threshold} />
        <text x=${W - 4} y=${Math.max(10, p.level - 3)} text-anchor="end" class="tick">${props.operator ?? '>'} ${props.threshold}</text></g>` : null}
      <text x="2" y=${H + 12} class="tick">${hhmm(a!.start)}</text>
      <text x=${W - 2} y=${H + 12} text-anchor="end" class="tick">${hhmm(a!.end)} UTC</text>
    </svg>`}
    ${p && reported === 0 ? html`<p class="muted">Nothing reported over this range yet.</p>` : null}
  </figure>`;
}

/** Choosing a metric, its aggregation and its range (a chart's or a safeguard's). */
export function MetricFields(props: { metrics: MetricInfo[] | undefined; value: MetricQuery; onChange: (q: MetricQuery) => void }) {
  const { value: q, onChange } = props;
  const names = (props.metrics ?? []).map((m) => [m.name, `${m.name} (${m.type})`] as [string, string]);
  return html`<${Select} label="Metric" value=${q.metricName} options=${q.metricName && !names.some(([n]) => n === q.metricName) ? [[q.metricName, q.metricName], ...names] : names}
      onChange=${(v: string) => onChange({ ...q, metricName: v })} />
    <${Select} label="Aggregation" value=${q.aggregationMode} options=${AGGREGATIONS} onChange=${(v: string) => onChange({ ...q, aggregationMode: v })} />
    <${Select} label="Range" value=${q.timeRange} options=${RANGES} onChange=${(v: string) => onChange({ ...q, timeRange: v })} />`;
}
