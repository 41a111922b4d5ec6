// Environments and projects: where flags live.
import { useState } from 'preact/hooks';
import { need, type Need } from '../access.js';
import { api, enc, get } from '../api.js';
import { Action, EditRow, ErrorNote, Field, Form, Opener, Page, Select, useLoad } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';

interface Environment { name: string; type: string; sortOrder: number; protected: boolean; enabled: boolean }
interface Project { id: string; name: string; description: string | null; featureCount: number; mode: string; defaultStickiness: string }

const ENV_TYPES = ['development', 'test', 'preproduction', 'production'];

/** The sort order as typed: empty leaves it to the API (a new environment goes last). */
function orderOf(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

function EnvironmentForm({ initial, submit, onSave, needs }: { initial: Environment; submit: string; onSave: (e: { name: string; type: string; sortOrder?: number }) => Promise<unknown>; needs: Need }) {
  const [e, setE] = useState(initial);
  const [order, setOrder] = useState(initial.name === '' ? '' : String(initial.sortOrder));
  const creating = initial.name === '';
  return html`<${Form} label=${submit} submit=${submit} need=${needs} onSubmit=${() => onSave({ name: e.name, type: e.type, sortOrder: orderOf(order) })}>
    ${creating ? html`<${Field} label="Environment name" name="name" value=${e.name} onInput=${(v: string) => setE({ ...e, name: v })} required />` : null}
    <${Select} label="Type" value=${e.type} options=${ENV_TYPES} onChange=${(v: string) => setE({ ...e, type: v })} />
    <${Field} label="Sort order" type="number" value=${order} onInput=${setOrder} hint=${creating ? 'lower comes first; empty: last' : 'lower comes first'} />
  <//>`;
}

export function EnvironmentsPage() {
  const list = useLoad(() => get<{ environments: Environment[] }>('/api/admin/environments'), []);
  const [editing, setEditing] = useState<string | null>(null);
  const [formKey, setFormKey] = useState(0);
  return html`<${Page} title="Environments">
    <${ErrorNote} error=${list.error} />
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Order</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(list.data?.environments ?? []).map((e) => [html`<tr key=${e.name}>
        <th scope="row">${e.name}${e.protected ? html` <span class="badge">protected</span>` : null}</th>
        <td>${e.type}</td>
        <td>${e.sortOrder}</td>
        <td><div class="row-actions"><${Opener} label=${`Edit ${e.name}`} expanded=${editing === e.name} need=${need('UPDATE_ENVIRONMENT')} onClick=${() => setEditing(editing === e.name ? null : e.name)} />
          <${Action} label=${`Delete ${e.name}`} kind="danger" need=${need('DELETE_ENVIRONMENT')} confirm=${`Delete ${e.name}, with every flag's configuration and strategies there?`}
          run=${async () => (await api('DELETE', `/api/admin/environments/${enc(e.name)}`), changed())} /></div></td>
      </tr>`, editing === e.name ? html`<${EditRow} key=${`${e.name}-edit`} columns=${4}>
        <${EnvironmentForm} initial=${e} submit="Save environment" needs=${need('UPDATE_ENVIRONMENT')}
          onSave=${async (n: { type: string; sortOrder?: number }) => (await api('PUT', `/api/admin/environments/update/${enc(e.name)}`, { type: n.type, sortOrder: n.sortOrder }), changed(), setEditing(null))} />
      <//>` : null])}</tbody></table></div>
    <section class="panel" aria-labelledby="new-env"><h2 id="new-env">Create an environment</h2>
      <${EnvironmentForm} key=${formKey} initial=${{ name: '', type: 'development', sortOrder: 0, protected: false, enabled: true }} submit="Create environment" needs=${need('CREATE_ENVIRONMENT')}
        onSave=${async (e: { name: string; type: string; sortOrder?: number }) => (await api('POST', '/api/admin/environments', e), changed(), setFormKey((k) => k + 1))} />
    </section>
  <//>`;
}

function ProjectForm({ initial, submit, onSave, needs }: { initial: Project; submit: string; onSave: (p: Project) => Promise<unknown>; needs: Need }) {
  const [p, setP] = useState(initial);
  const creating = initial.id === '';
  return html`<${Form} label=${submit} submit=${submit} need=${needs} onSubmit=${() => onSave(p)}>
    ${creating ? html`<${Field} label="Project id" name="id" value=${p.id} onInput=${(v: string) => setP({ ...p, id: v })} required />` : null}
    <${Field} label="Name" value=${p.name} onInput=${(v: string) => setP({ ...p, name: v })} required=${!creating} hint=${creating ? 'empty: the id' : undefined} />
    <${Field} label="Description" value=${p.description ?? ''} onInput=${(v: string) => setP({ ...p, description: v || null })} />
  <//>`;
}

export function ProjectsPage() {
  const list = useLoad(() => get<{ projects: Project[] }>('/api/admin/projects'), []);
  const [editing, setEditing] = useState<string | null>(null);
  const [formKey, setFormKey] = useState(0);
  return html`<${Page} title="Projects">
    <${ErrorNote} error=${list.error} />
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Flags</th><th scope="col">Description</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(list.data?.projects ?? []).map((p) => [html`<tr key=${p.id}>
        <th scope="row"><a href=${`#/projects/${enc(p.id)}/overview`}>${p.id}</a></th><td>${p.name}</td><td><a href=${`#/projects/${enc(p.id)}`}>${p.featureCount} flag${p.featureCount === 1 ? '' : 's'}</a></td><td>${p.description ?? ''}</td>
        <td><div class="row-actions"><${Opener} label=${`Edit ${p.id}`} expanded=${editing === p.id} need=${need('UPDATE_PROJECT', p.id)} onClick=${() => setEditing(editing === p.id ? null : p.id)} />
          <${Action} label=${`Delete ${p.id}`} kind="danger" need=${need('DELETE_PROJECT', p.id)} confirm=${`Delete project ${p.id}?`} run=${async () => (await api('DELETE', `/api/admin/projects/${enc(p.id)}`), changed())} /></div></td>
      </tr>`, editing === p.id ? html`<${EditRow} key=${`${p.id}-edit`} columns=${5}>
        <${ProjectForm} initial=${p} submit="Save project" needs=${need('UPDATE_PROJECT', p.id)}
          onSave=${async (n: Project) => (await api('PUT', `/api/admin/projects/${enc(p.id)}`, { name: n.name, description: n.description ?? '' }), changed(), setEditing(null))} />
      <//>` : null])}</tbody></table></div>
    <section class="panel" aria-labelledby="new-project"><h2 id="new-project">Create a project</h2>
      <${ProjectForm} key=${formKey} initial=${{ id: '', name: '', description: null, featureCount: 0, mode: 'open', defaultStickiness: 'default' }} submit="Create project" needs=${need('CREATE_PROJECT')}
        onSave=${async (p: Project) => (await api('POST', '/api/admin/projects', { id: p.id, name: p.name || p.id, description: p.description ?? undefined }), changed(), setFormKey((k) => k + 1))} />
    </section>
  <//>`;
}
