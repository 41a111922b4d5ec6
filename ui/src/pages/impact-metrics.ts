// The impact metrics applications report (GET /api/admin/impact-metrics/metadata): their names as
// charts and safeguards take them, their type and help text, and a chart of the one chosen.
import { useState } from 'preact/hooks';
import { Empty, ErrorNote, Page } from '../components.js';
import { html } from '../html.js';
import { ImpactChart, MetricFields, useMetrics } from '../impact-chart.js';
import type { MetricQuery } from '../impact-series.js';

export function ImpactMetricsPage() {
  const metrics = useMetrics();
  const [q, setQ] = useState<MetricQuery>({ metricName: '', timeRange: 'hour', aggregationMode: 'count' });
  const list = metrics.data ?? [];
  const shown = q.metricName || list[0]?.name || '';
  return html`<${Page} title="Impact metrics">
    <p class="lead">Numbers your applications report about themselves through their SDK (counters, gauges, histograms), sent with its usage counts. Chart them on a flag's page and guard a release with them.</p>
    <${ErrorNote} error=${metrics.error} />
    ${metrics.data && list.length === 0 ? html`<${Empty} title="No impact metrics reported yet">
      <p>An SDK reports them once the application defines one, e.g. with the Node SDK <code>unleash.impactMetrics.defineCounter('checkout_errors', 'Failed checkouts')</code> and <code>incrementCounter('checkout_errors')</code>.</p><//>` : null}
    ${list.length > 0 ? html`<div class="table-wrap"><table aria-label="Impact metrics">
      <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Help</th></tr></thead>
      <tbody>${list.map((m) => html`<tr key=${m.name}><th scope="row"><button type="button" class="link" aria-pressed=${m.name === shown ? 'true' : 'false'}
        onClick=${() => setQ({ ...q, metricName: m.name })}>${m.name}</button></th><td>${m.type}</td><td>${m.help ?? ''}</td></tr>`)}</tbody>
    </table></div>
    <section class="panel" aria-label="Chart">
      <div class="toolbar"><${MetricFields} metrics=${list} value=${{ ...q, metricName: shown }} onChange=${setQ} /></div>
      <${ImpactChart} query=${{ ...q, metricName: shown }} />
    </section>` : null}
  <//>`;
}
