// A flag's impact metrics: the charts saved for its page (…/features/:f/impact-metrics/config),
// each drawn from the query route; adding one picks a metric an application reports, how it is
// aggregated and over which range; removing one. Whoever may change the flag may change its charts.
import { useState } from 'preact/hooks';
import { blockedBy, need } from './access.js';
import { api, enc, get } from './api.js';
import { Action, Opener, ErrorNote, Field, Form, useLoad } from './components.js';
import { html } from './html.js';
import { ImpactChart, MetricFields, useMetrics } from './impact-chart.js';
import type { MetricQuery } from './impact-series.js';
import { changed } from './live.js';

interface Chart extends MetricQuery { id: string; title?: string; yAxisMin: 'auto' | 'zero' }

export function FlagImpactCharts({ project, flag }: { project: string; flag: string }) {
  const path = `/api/admin/projects/${enc(project)}/features/${enc(flag)}/impact-metrics/config`;
  const charts = useLoad(() => get<{ configs: Chart[] }>(path).then((r) => r.configs), [path]);
  const metrics = useMetrics();
  const [adding, setAdding] = useState(false);
  const [title, setTitle] = useState('');
  const [q, setQ] = useState<MetricQuery>({ metricName: '', timeRange: 'hour', aggregationMode: 'count', labelSelectors: {} });
  const needed = need('UPDATE_FEATURE', project);
  const after = async (p: Promise<unknown>) => (await p, charts.reload(), changed());
  const first = metrics.data?.[0]?.name ?? '';
  return html`<section class="panel" aria-labelledby="flag-impact"><h2 id="flag-impact">Impact metrics</h2>
    <${ErrorNote} error=${charts.error ?? metrics.error} />
    ${charts.data?.length === 0 ? html`<p class="muted">No charts yet. ${metrics.data?.length === 0
      ? 'No application has reported an impact metric yet: an SDK sends them with its usage counts (see the Impact metrics page).'
      : 'Add one to watch a metric your applications report while this flag rolls out.'}</p>` : null}
    ${(charts.data ?? []).map((c) => html`<div class="impact-item" key=${c.id}>
      <${ImpactChart} query=${c} title=${c.title || undefined} zero=${c.yAxisMin === 'zero' ? true : undefined} />
      <${Action} label=${`Remove chart ${c.title || c.metricName}`} kind="link" need=${needed} run=${() => after(api('DELETE', `${path}/${enc(c.id)}`))} />
    </div>`)}
    ${adding
      ? html`<${Form} label="Add an impact metrics chart" submit="Add chart" need=${needed} onSubmit=${async () => {
          await after(api('POST', path, { ...q, metricName: q.metricName || first, title: title || undefined, yAxisMin: 'zero', labelSelectors: {} }));
          setAdding(false);
          setTitle('');
        }}>
          <${MetricFields} metrics=${metrics.data} value=${{ ...q, metricName: q.metricName || first }} onChange=${setQ} />
          <${Field} label="Chart title" value=${title} onInput=${setTitle} hint="optional; the metric's name otherwise" />
        <//>`
      : html`<${Opener} label=${`Add a chart`} need=${needed} onClick=${() => setAdding(true)} />
        ${blockedBy(needed) ? html`<span class="note">${blockedBy(needed)}</span>` : null}`}
  </section>`;
}
