// Segments: named lists of constraints that strategies share.
import { useState } from 'preact/hooks';
import { api, enc, get } from '../api.js';
import { Action, ErrorNote, Field, Form, Page, useLoad } from '../components.js';
import { ConstraintEditor, describeConstraint, type Constraint } from '../constraint-editor.js';
import { html } from '../html.js';
import { changed } from '../live.js';

interface Segment { id: number; name: string; description: string | null; project: string | null; constraints: Constraint[] }

function SegmentForm({ initial, fields, submit, onSave }: { initial: Segment; fields: string[]; submit: string; onSave: (s: Segment) => Promise<unknown> }) {
  const [s, setS] = useState(initial);
  return html`<${Form} label=${submit} submit=${submit} onSubmit=${() => onSave(s)}>
    <${Field} label="Segment name" value=${s.name} onInput=${(v: string) => setS({ ...s, name: v })} required />
    <${Field} label="Description" value=${s.description ?? ''} onInput=${(v: string) => setS({ ...s, description: v || null })} />
    <${Field} label="Project" value=${s.project ?? ''} hint="empty: every project may use it" onInput=${(v: string) => setS({ ...s, project: v || null })} />
    <${ConstraintEditor} constraints=${s.constraints} fields=${fields} onChange=${(c: Constraint[]) => setS({ ...s, constraints: c })} />
  <//>`;
}

export function SegmentsPage() {
  const list = useLoad(() => get<{ segments: Segment[] }>('/api/admin/segments'), []);
  // The context fields constraints are written on, once for the page's forms.
  const fields = useLoad(() => get<{ name: string }[]>('/api/admin/context').then((r) => r.map((c) => c.name)), []);
  const [editing, setEditing] = useState<number | null>(null);
  const body = (s: Segment) => ({ name: s.name, description: s.description, project: s.project, constraints: s.constraints });
  return html`<${Page} title="Segments">
    <${ErrorNote} error=${list.error} />
    <ul class="cards">${(list.data?.segments ?? []).map((s) => html`<li class="panel">
      <h2>${s.name} <span class="muted">#${s.id}${s.project ? ` · ${s.project}` : ''}</span></h2>
      ${s.description ? html`<p>${s.description}</p>` : null}
      ${s.constraints.map((c) => html`<div class="constraint-text">${describeConstraint(c)}</div>`)}
      <div class="row-actions"><button type="button" onClick=${() => setEditing(editing === s.id ? null : s.id)}>Edit ${s.name}</button>
        <${Action} label=${`Delete ${s.name}`} kind="danger" confirm=${`Delete segment ${s.name}?`} run=${async () => (await api('DELETE', `/api/admin/segments/${s.id}`), changed())} /></div>
      ${editing === s.id ? html`<${SegmentForm} initial=${s} fields=${fields.data ?? []} submit="Save segment" onSave=${async (n: Segment) => (await api('PUT', `/api/admin/segments/${enc(String(s.id))}`, body(n)), changed(), setEditing(null))} />` : null}
    </li>`)}</ul>
    <section class="panel" aria-labelledby="new-segment"><h2 id="new-segment">Create a segment</h2>
      <${SegmentForm} initial=${{ id: 0, name: '', description: null, project: null, constraints: [] }} fields=${fields.data ?? []} submit="Create segment"
        onSave=${async (s: Segment) => (await api('POST', '/api/admin/segments', body(s)), changed())} />
    </section>
  <//>`;
}
