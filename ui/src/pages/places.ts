// Environments and projects: where flags live.
import { useState } from 'preact/hooks';
import { api, enc, get } from '../api.js';
import { Action, ErrorNote, Field, Form, Page, Select, useLoad } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';

interface Environment { name: string; type: string; sortOrder: number; protected: boolean; enabled: boolean }
interface Project { id: string; name: string; description: string | null; featureCount: number; mode: string; defaultStickiness: string }

const ENV_TYPES = ['development', 'test', 'preproduction', 'production'];

export function EnvironmentsPage() {
  const list = useLoad(() => get<{ environments: Environment[] }>('/api/admin/environments'), []);
  const [name, setName] = useState('');
  const [type, setType] = useState('development');
  return html`<${Page} title="Environments">
    <${ErrorNote} error=${list.error} />
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Order</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(list.data?.environments ?? []).map((e) => html`<tr>
        <th scope="row">${e.name}${e.protected ? html` <span class="badge">protected</span>` : null}</th>
        <td><${Select} label=${`Type of ${e.name}`} value=${e.type} options=${ENV_TYPES} onChange=${async (t: string) => (await api('PUT', `/api/admin/environments/update/${enc(e.name)}`, { type: t, sortOrder: e.sortOrder }), changed())} /></td>
        <td>${e.sortOrder}</td>
        <td><${Action} label=${`Delete ${e.name}`} kind="danger" confirm=${`Delete ${e.name}, with every flag's configuration and strategies there?`}
          run=${async () => (await api('DELETE', `/api/admin/environments/${enc(e.name)}`), changed())} /></td>
      </tr>`)}</tbody></table></div>
    <section class="panel" aria-labelledby="new-env"><h2 id="new-env">Create an environment</h2>
      <${Form} label="Create an environment" submit="Create environment" onSubmit=${async () => (await api('POST', '/api/admin/environments', { name, type }), changed(), setName(''))}>
        <${Field} label="Environment name" value=${name} onInput=${setName} required />
        <${Select} label="Type" value=${type} options=${ENV_TYPES} onChange=${setType} />
      <//>
    </section>
  <//>`;
}

export function ProjectsPage() {
  const list = useLoad(() => get<{ projects: Project[] }>('/api/admin/projects'), []);
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  return html`<${Page} title="Projects">
    <${ErrorNote} error=${list.error} />
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Flags</th><th scope="col">Description</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(list.data?.projects ?? []).map((p) => html`<tr>
        <th scope="row"><a href=${`#/projects/${enc(p.id)}`}>${p.id}</a></th><td>${p.name}</td><td>${p.featureCount}</td><td>${p.description ?? ''}</td>
        <td><${Action} label=${`Delete ${p.id}`} kind="danger" confirm=${`Delete project ${p.id}?`} run=${async () => (await api('DELETE', `/api/admin/projects/${enc(p.id)}`), changed())} /></td>
      </tr>`)}</tbody></table></div>
    <section class="panel" aria-labelledby="new-project"><h2 id="new-project">Create a project</h2>
      <${Form} label="Create a project" submit="Create project" onSubmit=${async () => (await api('POST', '/api/admin/projects', { id, name: name || id, description: description || undefined }), changed(), setId(''), setName(''))}>
        <${Field} label="Project id" value=${id} onInput=${setId} required />
        <${Field} label="Name" value=${name} onInput=${setName} />
        <${Field} label="Description" value=${description} onInput=${setDescription} />
      <//>
    </section>
  <//>`;
}
