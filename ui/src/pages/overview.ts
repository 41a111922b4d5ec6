// A project at a glance (GET /api/admin/projects/:id/overview): its flags by type and by state in
// each environment, the stale and potentially stale ones, those switched on that no SDK has
// evaluated, the names SDKs ask for that no flag has, and the latest changes in words.
import { useState } from 'preact/hooks';
import { api, enc, get } from '../api.js';
import { Empty, ErrorNote, Page, useLoad, when } from '../components.js';
import { html } from '../html.js';
import { EventList, useSegmentNames, type EventRow } from './events.js';
import { NewFlag, NewFlagButton, useFlagTypes } from './flags.js';

interface Listed<T> { count: number; items: T[] }
interface Overview {
  id: string; name: string; description: string | null; featureCount: number; health: number;
  featureTypeCounts: { type: string; count: number }[];
  environmentCounts: { environment: string; type: string; enabled: number; disabled: number }[];
  stale: Listed<{ name: string; type: string; createdAt: string }>;
  potentiallyStale: Listed<{ name: string; type: string; createdAt: string }>;
  neverEvaluated: Listed<{ name: string; environment: string }>;
}

/** A count as a bar of `of`: the number is written beside it, the bar hidden from screen readers. */
function Bar({ value, of }: { value: number; of: number }) {
  const w = of === 0 ? 0 : Math.round((value / of) * 100);
  return html`<svg class="bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true"><rect width="100" height="8" class="bar-no" /><rect width=${w} height="8" class="bar-yes" /></svg>`;
}

function FlagNames({ project, list, more }: { project: string; list: Listed<{ name: string; environment?: string; createdAt?: string }>; more: string }) {
  return html`<ul class="names">${list.items.map((f) => html`<li><a href=${`#/projects/${enc(project)}/flags/${enc(f.name)}`}>${f.name}</a>
    ${f.environment ? html` <span class="muted">in ${f.environment}</span>` : f.createdAt ? html` <span class="muted">created ${when(f.createdAt)}</span>` : null}</li>`)}</ul>
    ${list.count > list.items.length ? html`<p><a href=${more}>All ${list.count}</a></p>` : null}`;
}

export function OverviewPage({ project }: { project: string }) {
  const overview = useLoad(() => get<Overview>(`/api/admin/projects/${enc(project)}/overview`), [project]);
  const events = useLoad(() => api<{ events: EventRow[] }>('POST', '/api/admin/events/search', { project, limit: 10 }), [project]);
  const unknown = useLoad(() => get<{ unknownFlags: { name: string }[] }>('/api/admin/metrics/unknown-flags').then((r) => r.unknownFlags.length).catch(() => null), []);
  const types = useFlagTypes();
  const segmentName = useSegmentNames();
  const [creating, setCreating] = useState(false);
  const o = overview.data;
  const flags = `#/projects/${enc(project)}`;
  const typeName = (id: string) => types.data?.find((t) => t.id === id)?.name ?? id;
  return html`<${Page} title=${o?.name ?? project} crumbs=${[['Projects', '#/projects'], [o?.name ?? project, null]]}
    actions=${html`<a href=${flags}>All flags</a> <${NewFlagButton} project=${project} onClick=${() => setCreating(true)} />`}>
    <${ErrorNote} error=${overview.error} />
    ${o?.description ? html`<p class="lead">${o.description}</p>` : null}
    ${o && o.featureCount === 0 ? html`<${Empty} title="No flags in this project yet.">
      <p>Create a flag, switch it on where you want it, then give your application an <a href="#/tokens">API token</a>: its first evaluations show on the flag's page.</p>
      <${NewFlagButton} project=${project} label="Create the first flag" onClick=${() => setCreating(true)} /><//>` : null}
    ${o && o.featureCount > 0 ? html`<div class="cards-grid">
      <section class="panel" aria-labelledby="ov-types"><h2 id="ov-types">${o.featureCount} flag${o.featureCount === 1 ? '' : 's'} by type</h2>
        <table class="counts"><tbody>${o.featureTypeCounts.map((t) => html`<tr><th scope="row"><a href=${`${flags}?type=${enc(t.type)}`}>${typeName(t.type)}</a></th><td>${t.count}</td><td><${Bar} value=${t.count} of=${o.featureCount} /></td></tr>`)}</tbody></table>
      </section>
      <section class="panel" aria-labelledby="ov-envs"><h2 id="ov-envs">On and off</h2>
        <table class="counts"><tbody>${o.environmentCounts.map((e) => html`<tr><th scope="row">${e.environment}</th><td>${e.enabled} on, ${e.disabled} off</td><td><${Bar} value=${e.enabled} of=${e.enabled + e.disabled} /></td></tr>`)}</tbody></table>
      </section>
      <section class="panel" aria-labelledby="ov-health"><h2 id="ov-health">Health ${o.health}%</h2>
        <p class="muted">The share of flags neither stale nor past their type's expected lifetime.</p>
        <h3><a href=${`${flags}?state=stale`}>${o.stale.count} stale</a></h3>
        <${FlagNames} project=${project} list=${o.stale} more=${`${flags}?state=stale`} />
        <h3><a href=${`${flags}?state=potentially-stale`}>${o.potentiallyStale.count} potentially stale</a></h3>
        <${FlagNames} project=${project} list=${o.potentiallyStale} more=${`${flags}?state=potentially-stale`} />
      </section>
      <section class="panel" aria-labelledby="ov-unused"><h2 id="ov-unused">On but never evaluated</h2>
        ${o.neverEvaluated.count === 0 ? html`<p class="muted">Every flag switched on has been evaluated by an SDK.</p>`
          : html`<p class="muted">Switched on, yet no SDK has asked for them there: code not shipped yet, a typo in the code, or an SDK pointed elsewhere.</p>
            <${FlagNames} project=${project} list=${o.neverEvaluated} more=${flags} />`}
        ${unknown.data ? html`<p><a href="#/applications">${unknown.data} unknown flag name${unknown.data === 1 ? '' : 's'}</a> asked for by SDKs.</p>` : null}
      </section>
    </div>` : null}
    <section class="panel" aria-labelledby="ov-events"><h2 id="ov-events">Recent changes</h2>
      <${EventList} events=${events.data?.events ?? []} segmentName=${segmentName} />
      <p><a href=${`#/events?project=${enc(project)}`}>All of ${o?.name ?? project}'s events</a></p>
    </section>
    ${creating ? html`<${NewFlag} project=${project} onClose=${() => setCreating(false)} />` : null}
  <//>`;
}
