// The event log: newest first, searched by the API (type, project, flag, free text, kept in the
// URL), paged by an event-id cursor. Each event says what it changed in words, who did it, and
// shows its raw JSON on demand.
import { useState } from 'preact/hooks';
import { api, enc, get } from '../api.js';
import { Empty, ErrorNote, Field, Page, Select, useLoad, when } from '../components.js';
import { eventLines, type Kind } from '../diff.js';
import { html } from '../html.js';
import { setRouteQuery } from '../router.js';
import { useProjects } from './flags.js';

export interface EventRow {
  id: number; type: string; createdAt: string; createdBy: string; project: string | null; environment: string | null; featureName: string | null; data: unknown; preData: unknown;
}

// The sign beside each line, so that its colour is not the only mark; screen readers read the kind.
const SIGN: Record<Kind, string> = { added: '+', removed: '−', changed: '→' };

/** The words for what `e` changed, each marked added, removed or changed, then its raw JSON one click away. */
function Change({ e, segmentName }: { e: EventRow; segmentName?: (id: number) => string }) {
  const lines = eventLines(e, segmentName);
  return html`${lines.length > 0 ? html`<ul class="diff">${lines.map((l) => html`<li class=${l.kind}><span class="sign" aria-hidden="true">${SIGN[l.kind]}</span><span class="sr-only">${l.kind}: </span><span>${l.text}</span></li>`)}</ul>` : null}
    ${e.data !== null || e.preData !== null ? html`<details class="raw"><summary>Raw JSON</summary><pre>${JSON.stringify({ data: e.data, preData: e.preData }, null, 2)}</pre></details>` : null}`;
}

const flagLink = (e: EventRow) => (e.featureName && e.project
  ? html`<a href=${`#/projects/${enc(e.project)}/flags/${enc(e.featureName)}`}>${e.featureName}</a>`
  : (e.featureName ?? ''));

/** Events in a table; `compact`: as a list of what changed, who did it and when (a flag's own history). */
export function EventList({ events, segmentName, compact }: { events: EventRow[]; segmentName?: (id: number) => string; compact?: boolean }) {
  if (events.length === 0) return html`<p class="muted">No events.</p>`;
  if (compact) return html`<ol class="history">${events.map((e) => html`<li>
    <div class="meta"><span>${when(e.createdAt)}</span> · <strong>${e.createdBy}</strong>${e.environment ? ` · ${e.environment}` : ''} · <code class="type">${e.type}</code></div>
    <${Change} e=${e} segmentName=${segmentName} /></li>`)}</ol>`;
  return html`<div class="table-wrap"><table class="events">
    <thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Type</th><th scope="col">By</th><th scope="col">Project</th><th scope="col">Environment</th><th scope="col">Flag</th><th scope="col">What changed</th></tr></thead>
    <tbody>${events.map((e) => html`<tr>
      <td>${e.id}</td><td>${when(e.createdAt)}</td><td>${e.type}</td><td>${e.createdBy}</td><td>${e.project ?? ''}</td><td>${e.environment ?? ''}</td>
      <td>${flagLink(e)}</td><td class="change"><${Change} e=${e} segmentName=${segmentName} /></td>
    </tr>`)}</tbody></table></div>`;
}

/** Segment names by id, for events that name segments by id. */
export function useSegmentNames() {
  const segments = useLoad(() => get<{ segments: { id: number; name: string }[] }>('/api/admin/segments').then((r) => new Map(r.segments.map((x) => [x.id, x.name]))), []);
  return (id: number) => segments.data?.get(id) ?? `#${id}`;
}

const PAGE = 50;

export function EventsPage({ path }: { path: string }) {
  const q = new URLSearchParams(path.split('?')[1] ?? '');
  const type = q.get('type') ?? '';
  const project = q.get('project') ?? '';
  const feature = q.get('feature') ?? '';
  const query = q.get('query') ?? '';
  const [cursors, setCursors] = useState<number[]>([0]);
  const types = useLoad(() => get<{ types: string[] }>('/api/admin/event-types').then((r) => r.types), []);
  const projects = useProjects();
  const segmentName = useSegmentNames();
  const offset = cursors[cursors.length - 1];
  const body = { type: type || undefined, project: project || undefined, feature: feature || undefined, query: query || undefined, limit: PAGE, offset };
  const key = JSON.stringify(body);
  const page = useLoad(() => api<{ events: EventRow[]; totalEvents: number }>('POST', '/api/admin/events/search', body), [key]);
  const set = (k: string) => (v: string) => (setRouteQuery({ [k]: v }), setCursors([0]));
  const events = page.data?.events ?? [];
  const filtered = Boolean(type || project || feature || query);
  return html`<${Page} title="Events">
    <div class="toolbar" role="search">
      <${Select} label="Type" value=${type} options=${[['', 'Any type'], ...(types.data ?? []), ...(type && !types.data?.includes(type) ? [type] : [])]} onChange=${set('type')} />
      <${Select} label="Project" value=${project} options=${[['', 'Any project'], ...(projects.data ?? []).map((p) => [p.id, p.name] as [string, string]), ...(project && !projects.data?.some((p) => p.id === project) ? [project] : [])]} onChange=${set('project')} />
      <${Field} label="Flag" value=${feature} onInput=${set('feature')} placeholder="its exact name" />
      <${Field} label="Text" value=${query} onInput=${set('query')} placeholder="anything in the event" />
    </div>
    <${ErrorNote} error=${page.error} />
    <p class="count" aria-live="polite">${page.data ? `${page.data.totalEvents} event${page.data.totalEvents === 1 ? '' : 's'}` : 'Loading…'}</p>
    ${page.data && events.length === 0 && filtered ? html`<${Empty} title="No event matches these filters." />` : html`<${EventList} events=${events} segmentName=${segmentName} />`}
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Newer</button>
      <button type="button" disabled=${events.length < PAGE} onClick=${() => setCursors([...cursors, events[events.length - 1].id - 1])}>Older</button>
    </nav>
  <//>`;
}
