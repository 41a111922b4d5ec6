// Segments: named lists of constraints that strategies share.
import { useState } from 'preact/hooks';
import { api, enc, get } from '../api.js';
import { Action, Empty, ErrorNote, Field, Form, Page, Select, useLoad } from '../components.js';
import { ConstraintEditor, describeConstraint, type Constraint, type ContextField } from '../constraint-editor.js';
import { useProjects } from './flags.js';
import { html } from '../html.js';
import { changed } from '../live.js';

interface Segment { id: number; name: string; description: string | null; project: string | null; constraints: Constraint[] }

function SegmentForm({ initial, fields, submit, onSave }: { initial: Segment; fields: ContextField[]; submit: string; onSave: (s: Segment) => Promise<unknown> }) {
  const [s, setS] = useState(initial);
  const projects = useProjects();
  return html`<${Form} label=${submit} submit=${submit} onSubmit=${() => onSave(s)}>
    <${Field} label="Segment name" name="name" value=${s.name} onInput=${(v: string) => setS({ ...s, name: v })} required />
    <${Field} label="Description" value=${s.description ?? ''} onInput=${(v: string) => setS({ ...s, description: v || null })} />
    <${Select} label="Project" value=${s.project ?? ''} options=${[['', 'Every project'], ...(projects.data ?? []).map((p) => [p.id, p.name] as [string, string]), ...(s.project && !projects.data?.some((p) => p.id === s.project) ? [s.project] : [])]}
      hint="a segment of one project can only be used by its flags" onChange=${(v: string) => setS({ ...s, project: v || null })} />
    <${ConstraintEditor} constraints=${s.constraints} fields=${fields} onChange=${(c: Constraint[]) => setS({ ...s, constraints: c })} />
  <//>`;
}

export function SegmentsPage() {
  const list = useLoad(() => get<{ segments: Segment[] }>('/api/admin/segments'), []);
  // The context fields constraints are written on, once for the page's forms.
  const fields = useLoad(() => get<ContextField[]>('/api/admin/context'), []);
  const [editing, setEditing] = useState<number | null>(null);
  // Bumped by each segment created: the create form is drawn anew, empty (it kept what was typed,
  // and a second save asked for the same name again).
  const [created, setCreated] = useState(0);
  const body = (s: Segment) => ({ name: s.name, description: s.description, project: s.project, constraints: s.constraints });
  return html`<${Page} title="Segments">
    <${ErrorNote} error=${list.error} />
    ${list.data && list.data.segments.length === 0 ? html`<${Empty} title="No segments yet."><p>A segment is a named list of constraints (beta testers, a country, a plan) that any strategy can use: create one below.</p><//>` : null}
    <ul class="cards">${(list.data?.segments ?? []).map((s) => html`<li class="panel">
      <h2>${s.name} <span class="muted">#${s.id}${s.project ? ` · ${s.project}` : ''}</span></h2>
      ${s.description ? html`<p>${s.description}</p>` : null}
      ${s.constraints.map((c) => html`<div class="constraint-text">${describeConstraint(c)}</div>`)}
      <div class="row-actions"><button type="button" onClick=${() => setEditing(editing === s.id ? null : s.id)}>Edit ${s.name}</button>
        <${Action} label=${`Delete ${s.name}`} kind="danger" confirm=${`Delete segment ${s.name}?`} run=${async () => (await api('DELETE', `/api/admin/segments/${s.id}`), changed())} /></div>
      ${editing === s.id ? html`<${SegmentForm} initial=${s} fields=${fields.data ?? []} submit="Save segment" onSave=${async (n: Segment) => (await api('PUT', `/api/admin/segments/${enc(String(s.id))}`, body(n)), changed(), setEditing(null))} />` : null}
    </li>`)}</ul>
    <section class="panel" aria-labelledby="new-segment"><h2 id="new-segment">Create a segment</h2>
      <${SegmentForm} key=${created} initial=${{ id: 0, name: '', description: null, project: null, constraints: [] }} fields=${fields.data ?? []} submit="Create segment"
        onSave=${async (s: Segment) => (await api('POST', '/api/admin/segments', body(s)), changed(), setCreated((n) => n + 1))} />
    </section>
  <//>`;
}
