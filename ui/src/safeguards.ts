// Safeguards, on a release plan (they pause it) or on a flag's environment (they switch it off):
// each in words, drawn with its metric and a dashed line at its threshold; one that fired says
// when and why, from its `safeguard-triggered` event (the metric's value against the threshold).
// Adding one picks a metric, an aggregation, a range, a direction and a threshold.
import { useState } from 'preact/hooks';
import type { Need } from './access.js';
import { api, enc } from './api.js';
import { Action, Opener, Field, Form, Select, useLoad, when } from './components.js';
import { html } from './html.js';
import { ImpactChart, MetricFields, type MetricInfo } from './impact-chart.js';
import { queryWords, type MetricQuery } from './impact-series.js';

export interface Safeguard {
  id: string;
  action: { type: string; id?: string; environment?: string };
  triggerCondition: { operator: '>' | '<'; threshold: number };
  impactMetric: MetricQuery & { id?: string };
  createdAt?: string;
  triggeredAt?: string | null;
}

/** What a `safeguard-triggered` event says. */
export interface Firing { safeguardId: string; metricName: string; value: number; operator: string; threshold: number; at: string }

/** The newest events of `type` about `flag`, newest first. */
export function flagEvents<T>(type: string, flag: string) {
  return api<{ events: { createdAt: string; data: T }[] }>('POST', '/api/admin/events/search', { type, feature: flag, limit: 100 });
}

/** The newest firing of each safeguard of `flag`, by safeguard id. */
export function useFirings(flag: string) {
  return useLoad(async () => {
    const page = await flagEvents<Omit<Firing, 'at'>>('safeguard-triggered', flag);
    const out = new Map<string, Firing>();
    // Newest first: the first seen of a safeguard is its last firing.
    for (const e of page.events) if (e.data?.safeguardId && !out.has(e.data.safeguardId)) out.set(e.data.safeguardId, { ...e.data, at: e.createdAt });
    return out;
  }, [flag]);
}

/** "paused: safeguard checkout_errors, count over the last hour > 5 fired (7)". */
export function firingWords(sg: Safeguard, firing: Firing | undefined): string {
  const what = `${queryWords(sg.impactMetric)} ${sg.triggerCondition.operator} ${sg.triggerCondition.threshold}`;
  return firing ? `${what} fired at ${when(firing.at)} UTC: the value was ${firing.value}, the threshold ${firing.operator} ${firing.threshold}` : `${what} fired at ${when(sg.triggeredAt)} UTC`;
}

export function Safeguards(props: {
  list: Safeguard[]; path: string; needed: Need; firings: Map<string, Firing> | undefined; metrics: MetricInfo[] | undefined;
  does: string; label: string; after: (p: Promise<unknown>) => Promise<unknown>;
}) {
  const { list, path, needed, firings } = props;
  const [adding, setAdding] = useState(false);
  const first = props.metrics?.[0]?.name ?? '';
  const [q, setQ] = useState<MetricQuery>({ metricName: '', timeRange: 'hour', aggregationMode: 'count' });
  const [operator, setOperator] = useState('>');
  const [threshold, setThreshold] = useState('');
  return html`<div class="safeguards" role="group" aria-label=${props.label}>
    ${list.length === 0 ? html`<p class="muted">No safeguards: nothing ${props.does} by itself.</p>` : null}
    <ul class="safeguard-list">${list.map((sg) => {
      const fired = firings?.get(sg.id);
      return html`<li key=${sg.id}>
        <p><strong>${props.does[0].toUpperCase()}${props.does.slice(1)} when ${queryWords(sg.impactMetric)} ${sg.triggerCondition.operator === '>' ? 'goes over' : 'falls under'} ${sg.triggerCondition.threshold}</strong>${' '}
          <${Action} label=${`Remove safeguard on ${sg.impactMetric.metricName}`} kind="link" need=${needed} confirm="Remove this safeguard?" run=${() => props.after(api('DELETE', `${path}/${enc(sg.id)}`))} /></p>
        ${sg.triggeredAt ? html`<p class="fired">Fired: ${firingWords(sg, fired)}</p>` : null}
        <${ImpactChart} query=${sg.impactMetric} threshold=${sg.triggerCondition.threshold} operator=${sg.triggerCondition.operator} />
      </li>`;
    })}</ul>
    ${adding
      ? html`<${Form} label=${`Add a safeguard: ${props.label}`} submit="Add safeguard" need=${needed} onSubmit=${async () => {
          await props.after(api('PUT', path, {
            impactMetric: { ...q, metricName: q.metricName || first, labelSelectors: {} },
            triggerCondition: { operator, threshold: threshold.trim() === '' ? NaN : Number(threshold) },
          }));
          setAdding(false);
          setThreshold('');
        }}>
          <${MetricFields} metrics=${props.metrics} value=${{ ...q, metricName: q.metricName || first }} onChange=${setQ} />
          <${Select} label="When it goes" value=${operator} options=${[['>', 'over'], ['<', 'under']]} onChange=${setOperator} />
          <${Field} label="Threshold" value=${threshold} onInput=${setThreshold} required hint="a number, compared with the metric over the whole range" />
        <//>`
      : html`<${Opener} label=${`Add a safeguard`} need=${needed} onClick=${() => setAdding(true)} />`}
  </div>`;
}
