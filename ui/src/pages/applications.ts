// SDK applications: their instances, and per flag how often it was on and off, drawn as bars.
// Metrics are not events, so this page also reloads on its own every few seconds.
import { useEffect } from 'preact/hooks';
import { get } from '../api.js';
import { ErrorNote, Page, useLoad, when } from '../components.js';
import { html } from '../html.js';

interface Toggle { featureName: string; environment: string; yes: number; no: number; variants: Record<string, number>; lastSeen: string }
interface Application {
  appName: string; lastSeen: string; instanceCount: number; environments: string[]; strategies: string[];
  instances: { instanceId: string; environment: string; sdkVersion: string | null; lastSeen: string }[]; toggles: Toggle[];
}

const SHOWN = 100;
const METRICS_EVERY_MS = 5_000;

/** A yes/no bar: an SVG, labelled with its numbers for screen readers. */
function Bar({ yes, no }: { yes: number; no: number }) {
  const total = yes + no;
  const w = total === 0 ? 0 : Math.round((yes / total) * 200);
  return html`<svg class="bar" width="200" height="12" role="img" aria-label=${`${yes} yes, ${no} no`}>
    <rect x="0" y="0" width="200" height="12" class="bar-no" /><rect x="0" y="0" width=${w} height="12" class="bar-yes" /></svg>`;
}

export function ApplicationsPage() {
  const apps = useLoad(() => get<{ applications: Application[]; total: number }>(`/api/admin/metrics/applications?limit=${SHOWN}`), []);
  useEffect(() => {
    const timer = setInterval(apps.reload, METRICS_EVERY_MS);
    return () => clearInterval(timer);
  }, []);
  return html`<${Page} title="Applications">
    <${ErrorNote} error=${apps.error} />
    ${apps.data && apps.data.total > SHOWN ? html`<p class="muted">The ${SHOWN} most recently seen of ${apps.data.total} applications.</p>` : null}
    ${apps.data && apps.data.applications.length === 0 ? html`<p class="muted">No SDK has registered yet.</p>` : null}
    ${(apps.data?.applications ?? []).map((a) => html`<section class="panel" aria-labelledby=${`app-${a.appName}`}>
      <h2 id=${`app-${a.appName}`}>${a.appName}</h2>
      <p class="muted">${a.instanceCount} instance${a.instanceCount === 1 ? '' : 's'} · ${a.environments.join(', ')} · last seen ${when(a.lastSeen)}</p>
      <details><summary>Instances</summary><ul>${a.instances.map((i) => html`<li>${i.instanceId} (${i.environment}${i.sdkVersion ? `, ${i.sdkVersion}` : ''}) · ${when(i.lastSeen)}</li>`)}</ul></details>
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Flag</th><th scope="col">Environment</th><th scope="col">Yes</th><th scope="col">No</th><th scope="col">Share on</th></tr></thead>
        <tbody>${a.toggles.map((t) => html`<tr><th scope="row">${t.featureName}</th><td>${t.environment}</td><td>${t.yes}</td><td>${t.no}</td><td><${Bar} yes=${t.yes} no=${t.no} /></td></tr>`)}</tbody>
      </table></div>
    </section>`)}
  <//>`;
}
