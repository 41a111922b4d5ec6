// The event log: newest first, searched by the API (type, project, flag, free text), paged by an
// event-id cursor.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote, Field, Page, useLoad, when } from '../components.js';
import { html } from '../html.js';

export interface EventRow {
  id: number; type: string; createdAt: string; createdBy: string; createdByUserId?: number | null; project: string | null; environment: string | null; featureName: string | null; data: unknown; preData: unknown;
}

const shown = (v: unknown) => (v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * What an event changed: for each field whose value differs, before (preData) and after (data). An
 * event with only one side (a creation, a deletion) lists that side.
 */
export function Change({ before, after }: { before: unknown; after: unknown }) {
  const obj = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : v === null ? {} : { value: v });
  const b = obj(before);
  const a = obj(after);
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]));
  if (keys.length === 0) return html`<span class="muted">no change in the recorded fields</span>`;
  // A list, not a table: it sits in a cell of the events table.
  return html`<dl class="change">${keys.map((k) => html`<dt>${k}</dt><dd>
    <span class="before" title="before"><code>${shown(before === null ? undefined : b[k])}</code></span> → <span class="after" title="after"><code>${shown(after === null ? undefined : a[k])}</code></span></dd>`)}</dl>`;
}

export function EventList({ events }: { events: EventRow[] }) {
  if (events.length === 0) return html`<p class="muted">No events.</p>`;
  return html`<div class="table-wrap"><table class="events">
    <thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Type</th><th scope="col">By</th><th scope="col">Project</th><th scope="col">Environment</th><th scope="col">Flag</th><th scope="col">Details</th></tr></thead>
    <tbody>${events.map((e) => html`<tr>
      <td>${e.id}</td><td>${when(e.createdAt)}</td><td>${e.type}</td><td>${e.createdBy}${e.createdByUserId ? html` <span class="badge" title="a person">person</span>` : null}</td><td>${e.project ?? ''}</td><td>${e.environment ?? ''}</td>
      <td>${e.featureName && e.project ? html`<a href=${`#/projects/${encodeURIComponent(e.project)}/flags/${encodeURIComponent(e.featureName)}`}>${e.featureName}</a>` : (e.featureName ?? '')}</td>
      <td>${e.data !== null || e.preData !== null ? html`<details><summary>Before → after</summary><${Change} before=${e.preData} after=${e.data} /></details>` : ''}</td>
    </tr>`)}</tbody></table></div>`;
}

const PAGE = 50;

export function EventsPage() {
  const [type, setType] = useState('');
  const [project, setProject] = useState('');
  const [feature, setFeature] = useState('');
  const [query, setQuery] = useState('');
  const [cursors, setCursors] = useState<number[]>([0]);
  const offset = cursors[cursors.length - 1];
  const body = { type: type || undefined, project: project || undefined, feature: feature || undefined, query: query || undefined, limit: PAGE, offset };
  const key = JSON.stringify(body);
  const page = useLoad(() => api<{ events: EventRow[]; totalEvents: number }>('POST', '/api/admin/events/search', body), [key]);
  const reset = (set: (v: string) => void) => (v: string) => (set(v), setCursors([0]));
  const events = page.data?.events ?? [];
  return html`<${Page} title="Events">
    <div class="toolbar" role="search">
      <${Field} label="Type" value=${type} onInput=${reset(setType)} placeholder="feature-created" />
      <${Field} label="Project" value=${project} onInput=${reset(setProject)} />
      <${Field} label="Flag" value=${feature} onInput=${reset(setFeature)} />
      <${Field} label="Text" value=${query} onInput=${reset(setQuery)} placeholder="anything in the event" />
    </div>
    <${ErrorNote} error=${page.error} />
    <p class="count" aria-live="polite">${page.data ? `${page.data.totalEvents} event${page.data.totalEvents === 1 ? '' : 's'}` : 'Loading…'}</p>
    <${EventList} events=${events} />
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Newer</button>
      <button type="button" disabled=${events.length < PAGE} onClick=${() => setCursors([...cursors, events[events.length - 1].id - 1])}>Older</button>
    </nav>
  <//>`;
}
