// Segments: named lists of constraints that strategies share.
import { useState } from 'preact/hooks';
import { limitedToEnvironments, may, need, needIn } from '../access.js';
import { api, enc, get } from '../api.js';
import { Action, Empty, ErrorNote, Field, Form, Opener, Page, Select, useLoad } from '../components.js';
import { ConstraintEditor, describeConstraint, type Constraint, type ContextField } from '../constraint-editor.js';
import { useProjects } from './flags.js';
import { html } from '../html.js';
import { changed } from '../live.js';

interface Segment { id: number; name: string; description: string | null; project: string | null; constraints: Constraint[] }

/**
 * The form of a segment; `permission` is needed where it ends up (its project, or the whole server
 * for a shared one), so the form is disabled, with the reason, while that is not the person's.
 */
function SegmentForm({ initial, fields, submit, onSave, permission }: { initial: Segment; fields: ContextField[]; submit: string; onSave: (s: Segment) => Promise<unknown>; permission: string }) {
  const [s, setS] = useState(initial);
  const projects = useProjects();
  return html`<${Form} label=${submit} submit=${submit} need=${need(permission, s.project)} onSubmit=${() => onSave(s)}>
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
  // A change to a segment takes effect wherever a strategy uses it: for a person limited to some
  // environments, where each is used decides whether they may change it (one request a segment,
  // made only for them).
  const usedIn = useLoad(async () => {
    if (!limitedToEnvironments() || !list.data) return new Map<number, string[]>();
    return new Map(await Promise.all(list.data.segments.map(async (seg) => {
      const using = await get<{ strategies: { environment: string }[] }>(`/api/admin/segments/${seg.id}/strategies`);
      return [seg.id, [...new Set(using.strategies.map((x) => x.environment))]] as [number, string[]];
    })));
  }, [list.data]);
  const body = (s: Segment) => ({ name: s.name, description: s.description, project: s.project, constraints: s.constraints });
  // A new segment starts shared when the person may create those, else in the first project of
  // theirs where they may (a project Member): the form opens on something they can save.
  const projects = useProjects();
  const creatable = may('CREATE_SEGMENT') ? null : projects.data?.find((p) => may('CREATE_SEGMENT', p.id))?.id ?? null;
  // Until then, nothing is offered that might be refused.
  const finding = limitedToEnvironments() && !usedIn.data ? 'Finding where this segment is used…' : null;
  return html`<${Page} title="Segments">
    <${ErrorNote} error=${list.error} />
    ${finding && list.data ? html`<p class="loading">${finding}</p>` : null}
    ${list.data && list.data.segments.length === 0 ? html`<${Empty} title="No segments yet."><p>A segment is a named list of constraints (beta testers, a country, a plan) that any strategy can use: create one below.</p><//>` : null}
    <ul class="cards">${(list.data?.segments ?? []).map((s) => html`<li class="panel">
      <h2>${s.name} <span class="muted">#${s.id}${s.project ? ` · ${s.project}` : ''}</span></h2>
      ${s.description ? html`<p>${s.description}</p>` : null}
      ${s.constraints.map((c) => html`<div class="constraint-text">${describeConstraint(c)}</div>`)}
      <div class="row-actions"><${Opener} label=${`Edit ${s.name}`} expanded=${editing === s.id} need=${needIn('UPDATE_SEGMENT', s.project, usedIn.data?.get(s.id) ?? [])} blocked=${finding ?? undefined} onClick=${() => setEditing(editing === s.id ? null : s.id)} />
        <${Action} label=${`Delete ${s.name}`} kind="danger" need=${need('DELETE_SEGMENT', s.project)} confirm=${`Delete segment ${s.name}?`} run=${async () => (await api('DELETE', `/api/admin/segments/${s.id}`), changed())} /></div>
      ${editing === s.id ? html`<${SegmentForm} initial=${s} fields=${fields.data ?? []} submit="Save segment" permission="UPDATE_SEGMENT" onSave=${async (n: Segment) => (await api('PUT', `/api/admin/segments/${enc(String(s.id))}`, body(n)), changed(), setEditing(null))} />` : null}
    </li>`)}</ul>
    <section class="panel" aria-labelledby="new-segment"><h2 id="new-segment">Create a segment</h2>
      <${SegmentForm} key=${`${creatable ?? ''}-${created}`} initial=${{ id: 0, name: '', description: null, project: creatable, constraints: [] }} fields=${fields.data ?? []} submit="Create segment" permission="CREATE_SEGMENT"
        onSave=${async (s: Segment) => (await api('POST', '/api/admin/segments', body(s)), changed(), setCreated((n) => n + 1))} />
    </section>
  <//>`;
}
