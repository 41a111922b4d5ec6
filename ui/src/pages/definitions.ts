// Strategy types and context fields: the vocabulary strategies and constraints are written in.
import { useState } from 'preact/hooks';
import { api, enc, get } from '../api.js';
import { Action, Check, ErrorNote, Field, Form, Page, useLoad } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';

interface StrategyType { name: string; displayName: string | null; description: string; editable: boolean; deprecated: boolean; parameters: { name: string; type: string; description: string; required: boolean }[] }
interface ContextField { name: string; description: string; stickiness: boolean; legalValues: { value: string; description: string }[] }

export function StrategyTypesPage() {
  const list = useLoad(() => get<{ strategies: StrategyType[] }>('/api/admin/strategies'), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [params, setParams] = useState('');
  return html`<${Page} title="Strategy types">
    <${ErrorNote} error=${list.error} />
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Parameters</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(list.data?.strategies ?? []).map((s) => html`<tr>
        <th scope="row">${s.displayName ?? s.name}${s.deprecated ? html` <span class="badge warn">deprecated</span>` : null}${!s.editable ? html` <span class="badge">built-in</span>` : null}</th>
        <td>${s.description}</td><td>${s.parameters.map((p) => `${p.name} (${p.type}${p.required ? ', required' : ''})`).join(', ')}</td>
        <td>${s.editable ? html`<${Action} label=${s.deprecated ? `Reactivate ${s.name}` : `Deprecate ${s.name}`} run=${async () => (await api('POST', `/api/admin/strategies/${enc(s.name)}/${s.deprecated ? 'reactivate' : 'deprecate'}`), changed())} />
          <${Action} label=${`Delete ${s.name}`} kind="danger" confirm=${`Delete strategy type ${s.name}?`} run=${async () => (await api('DELETE', `/api/admin/strategies/${enc(s.name)}`), changed())} />` : null}</td>
      </tr>`)}</tbody></table></div>
    <section class="panel" aria-labelledby="new-strategy"><h2 id="new-strategy">Create a strategy type</h2>
      <${Form} label="Create a strategy type" submit="Create strategy type" onSubmit=${async () => {
        const parameters = params.split(',').map((p) => p.trim()).filter(Boolean).map((p) => ({ name: p, type: 'string', description: '', required: false }));
        await api('POST', '/api/admin/strategies', { name, description, parameters });
        changed();
        setName('');
      }}>
        <${Field} label="Strategy type name" value=${name} onInput=${setName} required />
        <${Field} label="Description" value=${description} onInput=${setDescription} />
        <${Field} label="Parameters" value=${params} onInput=${setParams} hint="string parameter names, comma-separated" />
      <//>
    </section>
  <//>`;
}

export function ContextFieldsPage() {
  const list = useLoad(() => get<ContextField[]>('/api/admin/context'), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [legal, setLegal] = useState('');
  const [stickiness, setStickiness] = useState(false);
  return html`<${Page} title="Context fields">
    <${ErrorNote} error=${list.error} />
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Legal values</th><th scope="col">Stickiness</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(list.data ?? []).map((c) => html`<tr>
        <th scope="row">${c.name}</th><td>${c.description}</td><td>${c.legalValues.map((v) => v.value).join(', ')}</td><td>${c.stickiness ? 'yes' : ''}</td>
        <td><${Action} label=${`Delete ${c.name}`} kind="danger" confirm=${`Delete context field ${c.name}?`} run=${async () => (await api('DELETE', `/api/admin/context/${enc(c.name)}`), changed())} /></td>
      </tr>`)}</tbody></table></div>
    <section class="panel" aria-labelledby="new-field"><h2 id="new-field">Create a context field</h2>
      <${Form} label="Create a context field" submit="Create context field" onSubmit=${async () => {
        const legalValues = legal.split(',').map((v) => v.trim()).filter(Boolean).map((value) => ({ value, description: '' }));
        await api('POST', '/api/admin/context', { name, description, legalValues, stickiness });
        changed();
        setName('');
      }}>
        <${Field} label="Field name" value=${name} onInput=${setName} required />
        <${Field} label="Description" value=${description} onInput=${setDescription} />
        <${Field} label="Legal values" value=${legal} onInput=${setLegal} hint="comma-separated; empty: any value" />
        <${Check} label="Usable as stickiness" checked=${stickiness} onChange=${setStickiness} />
      <//>
    </section>
  <//>`;
}
