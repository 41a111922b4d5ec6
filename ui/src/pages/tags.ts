// Tag types (created, described, deleted with their tags) and tags (a type and a value, nothing to edit).
import { useState } from 'preact/hooks';
import { need } from '../access.js';
import { api, enc, get } from '../api.js';
import { Action, ErrorNote, Field, Form, Opener, Page, Select, useLoad } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';

export function TagsPage() {
  const types = useLoad(() => get<{ tagTypes: { name: string; description: string }[] }>('/api/admin/tag-types'), []);
  const tags = useLoad(() => get<{ tags: { type: string; value: string }[] }>('/api/admin/tags'), []);
  const [typeName, setTypeName] = useState('');
  const [typeDescription, setTypeDescription] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [editDescription, setEditDescription] = useState('');
  const [tagType, setTagType] = useState('simple');
  const [tagValue, setTagValue] = useState('');
  return html`<${Page} title="Tags">
    <section class="panel" aria-labelledby="tag-types"><h2 id="tag-types">Tag types</h2>
      <${ErrorNote} error=${types.error} />
      <ul class="tag-types">${(types.data?.tagTypes ?? []).map((t) => html`<li><strong>${t.name}</strong> ${t.description}
        <span class="row-actions"><${Opener} label=${`Edit type ${t.name}`} expanded=${editing === t.name} need=${need('UPDATE_TAG_TYPE')}
            onClick=${() => (setEditing(editing === t.name ? null : t.name), setEditDescription(t.description))} />
          <${Action} label=${`Delete type ${t.name}`} kind="danger" need=${need('DELETE_TAG_TYPE')} confirm=${`Delete tag type ${t.name}, its tags, and untag every flag?`} run=${async () => (await api('DELETE', `/api/admin/tag-types/${enc(t.name)}`), changed())} /></span>
        ${editing === t.name ? html`<${Form} label=${`Edit tag type ${t.name}`} submit="Save tag type" need=${need('UPDATE_TAG_TYPE')}
            onSubmit=${async () => (await api('PUT', `/api/admin/tag-types/${enc(t.name)}`, { description: editDescription }), changed(), setEditing(null))}>
          <${Field} label=${`Description of ${t.name}`} value=${editDescription} onInput=${setEditDescription} />
        <//>` : null}</li>`)}</ul>
      <${Form} label="Create a tag type" submit="Create tag type" need=${need('CREATE_TAG_TYPE')} onSubmit=${async () => (await api('POST', '/api/admin/tag-types', { name: typeName, description: typeDescription }), changed(), setTypeName(''))}>
        <${Field} label="Tag type name" name="name" value=${typeName} onInput=${setTypeName} required />
        <${Field} label="Description" value=${typeDescription} onInput=${setTypeDescription} />
      <//>
    </section>
    <section class="panel" aria-labelledby="tag-list"><h2 id="tag-list">Tags</h2>
      <${ErrorNote} error=${tags.error} />
      <ul class="chips">${(tags.data?.tags ?? []).map((t) => html`<li><span class="badge">${t.type}:${t.value}</span>
        <${Action} label=${`Delete ${t.type}:${t.value}`} need=${need('UPDATE_FEATURE')} run=${async () => (await api('DELETE', `/api/admin/tags/${enc(t.type)}/${enc(t.value)}`), changed())} /></li>`)}</ul>
      <${Form} label="Create a tag" submit="Create tag" need=${need('UPDATE_FEATURE')} onSubmit=${async () => (await api('POST', '/api/admin/tags', { type: tagType, value: tagValue }), changed(), setTagValue(''))}>
        <${Select} label="Tag type" value=${tagType} options=${[...new Set([...(types.data?.tagTypes ?? []).map((t) => t.name), tagType])]} onChange=${setTagType} />
        <${Field} label="Value" value=${tagValue} onInput=${setTagValue} required />
      <//>
    </section>
  <//>`;
}
