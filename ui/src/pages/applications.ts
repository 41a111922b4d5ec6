// SDK applications: their instances (with what each SDK says of itself), and per flag how often it
// was on and off, drawn as bars; then the flag names SDKs asked for that no flag has. Metrics are
// not events, so this page also reloads on its own every few seconds, as background reads the
// server leaves out of its access log.
import { useEffect } from 'preact/hooks';
import { poll } from '../api.js';
import { ErrorNote, Page, useLoad, when } from '../components.js';
import { html } from '../html.js';

interface Toggle { featureName: string; environment: string; yes: number; no: number; variants: Record<string, number>; lastSeen: string }
interface Instance {
  instanceId: string; environment: string; sdkVersion: string | null; sdkFlavor: string | null; sdkFlavorVersion: string | null;
  connectionId: string | null; interval: number | null; lastSeen: string;
}
interface Application { appName: string; lastSeen: string; instanceCount: number; environments: string[]; strategies: string[]; instances: Instance[]; toggles: Toggle[] }
interface UnknownFlag { name: string; lastSeenAt: string; reports: { appName: string; environments: { environment: string; seenAt: string }[] }[] }

const SHOWN = 100;
const METRICS_EVERY_MS = 5_000;

/** A yes/no bar: an SVG, labelled with its numbers for screen readers. */
function Bar({ yes, no }: { yes: number; no: number }) {
  const total = yes + no;
  const w = total === 0 ? 0 : Math.round((yes / total) * 200);
  // The viewBox scales the drawing to the size styles.css gives the bar; without it a narrower
  // box cut the drawing off on the right, and 36 % on was drawn over 60 % of what showed.
  return html`<svg class="bar" viewBox="0 0 200 12" preserveAspectRatio="none" role="img" aria-label=${`${yes} yes, ${no} no`}>
    <rect x="0" y="0" width="200" height="12" class="bar-no" /><rect x="0" y="0" width=${w} height="12" class="bar-yes" /></svg>`;
}

/** An interval in milliseconds, as a person reads it. */
function every(ms: number): string {
  return ms >= 1000 ? `every ${Math.round(ms / 100) / 10} s` : `every ${ms} ms`;
}

/** One instance: where it runs, its SDK and the integration built on it, how often it reports. */
function InstanceLine({ i }: { i: Instance }) {
  const sdk = [i.environment, i.sdkVersion, i.sdkFlavor ? `via ${i.sdkFlavor}${i.sdkFlavorVersion ? ` ${i.sdkFlavorVersion}` : ''}` : null].filter(Boolean).join(', ');
  return html`<li>${i.instanceId} (${sdk})${i.interval !== null ? ` · ${every(i.interval)}` : ''} · ${when(i.lastSeen)}
    ${i.connectionId ? html` <span class="muted">connection ${i.connectionId}</span>` : null}</li>`;
}

function UnknownFlags() {
  const unknown = useLoad(() => poll<{ unknownFlags: UnknownFlag[] }>('/api/admin/metrics/unknown-flags'), []);
  useEffect(() => {
    const timer = setInterval(unknown.reload, METRICS_EVERY_MS);
    return () => clearInterval(timer);
  }, []);
  const rows = (unknown.data?.unknownFlags ?? []).flatMap((f) => f.reports.flatMap((r) => r.environments.map((e) => ({ name: f.name, appName: r.appName, ...e }))));
  return html`<section class="panel" aria-labelledby="unknown-flags"><h2 id="unknown-flags">Unknown flags</h2>
    <p class="muted">Flag names SDKs asked for in the last 24 hours that no flag here has: a typo, a flag deleted while code still uses it, or an SDK pointed at the wrong server.</p>
    <${ErrorNote} error=${unknown.error} />
    ${unknown.data && rows.length === 0 ? html`<p class="muted">None.</p>` : null}
    ${rows.length > 0 ? html`<div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Application</th><th scope="col">Environment</th><th scope="col">Last asked</th></tr></thead>
      <tbody>${rows.map((r) => html`<tr><th scope="row">${r.name}</th><td>${r.appName}</td><td>${r.environment}</td><td>${when(r.seenAt)}</td></tr>`)}</tbody>
    </table></div>` : null}
  </section>`;
}

export function ApplicationsPage() {
  const apps = useLoad(() => poll<{ applications: Application[]; total: number }>(`/api/admin/metrics/applications?limit=${SHOWN}`), []);
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
      <details><summary>Instances</summary><ul>${a.instances.map((i) => html`<${InstanceLine} i=${i} />`)}</ul></details>
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Flag</th><th scope="col">Environment</th><th scope="col">Yes</th><th scope="col">No</th><th scope="col">Share on</th></tr></thead>
        <tbody>${a.toggles.map((t) => html`<tr><th scope="row"><a href=${`#/?project=*&query=${encodeURIComponent(t.featureName)}`} title="Find this flag (its page has its usage over time)">${t.featureName}</a></th><td>${t.environment}</td><td>${t.yes}</td><td>${t.no}</td><td><${Bar} yes=${t.yes} no=${t.no} /></td></tr>`)}</tbody>
      </table></div>
    </section>`)}
    <${UnknownFlags} />
  <//>`;
}
