// Strategy types and context fields: the vocabulary strategies and constraints are written in.
// Built-in ones are listed like the rest; the API says what may not be changed or deleted.
import { useState } from 'preact/hooks';
import { need, type Need } from '../access.js';
import { api, enc, get } from '../api.js';
import { Action, Check, EditRow, ErrorNote, Field, Form, Opener, Page, useLoad } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';

interface Parameter { name: string; type: string; description: string; required: boolean }
interface StrategyType { name: string; displayName: string | null; description: string; editable: boolean; deprecated: boolean; parameters: Parameter[] }
interface ContextField { name: string; description: string; stickiness: boolean; sortOrder: number; legalValues: { value: string; description: string }[] }

const PARAMETER_TYPES = ['string', 'percentage', 'list', 'number', 'boolean'];

/**
 * The context fields every SDK fills in: the server lists them with the rest but changes or
 * deletes them for no one, so their Edit and Delete are disabled for everyone, saying why.
 */
export const BUILT_IN_CONTEXT_FIELDS = ['appName', 'environment', 'userId', 'sessionId', 'remoteAddress', 'currentTime'];

/** Why nobody may change or delete context field `name`, or null for one that may be. */
export function builtInField(name: string): string | null {
  return BUILT_IN_CONTEXT_FIELDS.includes(name) ? `${name} is built in: every SDK fills it in, so nobody may change or delete it.` : null;
}

/** The strategy type every flag falls back to: the server refuses to deprecate it. */
const DEFAULT_STRATEGY = 'default';

let paramIds = 0;

/** A strategy type's parameters: name, type, description, required; added and removed in place. */
function ParametersEditor({ parameters, onChange }: { parameters: Parameter[]; onChange: (p: Parameter[]) => void }) {
  const set = (i: number, p: Parameter) => onChange(parameters.map((x, j) => (j === i ? p : x)));
  return html`<fieldset class="parameters"><legend>Parameters</legend>
    ${parameters.length === 0 ? html`<p class="muted">None.</p>` : null}
    ${parameters.map((p, i) => {
      const id = `p${++paramIds}`;
      return html`<div class="parameter" role="group" aria-label=${`Parameter ${i + 1}`}>
        <label for=${`${id}-n`}>Parameter name</label>
        <input id=${`${id}-n`} value=${p.name} required onInput=${(e: Event) => set(i, { ...p, name: (e.target as HTMLInputElement).value })} />
        <label for=${`${id}-t`}>Parameter type</label>
        <select id=${`${id}-t`} value=${p.type} onChange=${(e: Event) => set(i, { ...p, type: (e.target as HTMLSelectElement).value })}>
          ${PARAMETER_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}</select>
        <label for=${`${id}-d`}>Parameter description</label>
        <input id=${`${id}-d`} value=${p.description} onInput=${(e: Event) => set(i, { ...p, description: (e.target as HTMLInputElement).value })} />
        <${Check} label="Required" checked=${p.required} onChange=${(v: boolean) => set(i, { ...p, required: v })} />
        <button type="button" class="danger" onClick=${() => onChange(parameters.filter((_, j) => j !== i))}>Remove parameter ${i + 1}</button>
      </div>`;
    })}
    <button type="button" onClick=${() => onChange([...parameters, { name: '', type: 'string', description: '', required: false }])}>Add parameter</button>
  </fieldset>`;
}

function StrategyTypeForm({ initial, submit, onSave, needs }: { initial: StrategyType; submit: string; onSave: (s: StrategyType) => Promise<unknown>; needs: Need }) {
  const [s, setS] = useState(initial);
  const creating = initial.name === '';
  return html`<${Form} label=${submit} submit=${submit} need=${needs} onSubmit=${() => onSave(s)}>
    ${creating ? html`<${Field} label="Strategy type name" name="name" value=${s.name} onInput=${(v: string) => setS({ ...s, name: v })} required />` : null}
    <${Field} label="Description" value=${s.description} onInput=${(v: string) => setS({ ...s, description: v })} />
    <${ParametersEditor} parameters=${s.parameters} onChange=${(p: Parameter[]) => setS({ ...s, parameters: p })} />
  <//>`;
}

export function StrategyTypesPage() {
  const list = useLoad(() => get<{ strategies: StrategyType[] }>('/api/admin/strategies'), []);
  const [editing, setEditing] = useState<string | null>(null);
  const [formKey, setFormKey] = useState(0);
  const body = (s: StrategyType) => ({ name: s.name, description: s.description, parameters: s.parameters });
  return html`<${Page} title="Strategy types">
    <${ErrorNote} error=${list.error} />
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Parameters</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(list.data?.strategies ?? []).map((s) => [html`<tr key=${s.name}>
        <th scope="row">${s.displayName ?? s.name}${s.deprecated ? html` <span class="badge warn">deprecated</span>` : null}${!s.editable ? html` <span class="badge">built-in</span>` : null}</th>
        <td>${s.description}</td><td>${s.parameters.map((p) => `${p.name} (${p.type}${p.required ? ', required' : ''})`).join(', ')}</td>
        <td><div class="row-actions">${s.editable ? html`<${Opener} label=${`Edit ${s.name}`} expanded=${editing === s.name} need=${need('UPDATE_STRATEGY')} onClick=${() => setEditing(editing === s.name ? null : s.name)} />` : null}
          <${Action} label=${s.deprecated ? `Reactivate ${s.name}` : `Deprecate ${s.name}`} need=${need('UPDATE_STRATEGY')}
            refused=${s.name === DEFAULT_STRATEGY ? 'Every flag falls back to the default strategy type: nobody may deprecate it.' : null}
            run=${async () => (await api('POST', `/api/admin/strategies/${enc(s.name)}/${s.deprecated ? 'reactivate' : 'deprecate'}`), changed())} />
          ${s.editable ? html`<${Action} label=${`Delete ${s.name}`} kind="danger" need=${need('DELETE_STRATEGY')} confirm=${`Delete strategy type ${s.name}?`} run=${async () => (await api('DELETE', `/api/admin/strategies/${enc(s.name)}`), changed())} />` : null}</div></td>
      </tr>`, editing === s.name ? html`<${EditRow} key=${`${s.name}-edit`} columns=${4}>
        <${StrategyTypeForm} initial=${s} submit="Save strategy type" needs=${need('UPDATE_STRATEGY')} onSave=${async (n: StrategyType) => (await api('PUT', `/api/admin/strategies/${enc(s.name)}`, body(n)), changed(), setEditing(null))} />
      <//>` : null])}</tbody></table></div>
    <section class="panel" aria-labelledby="new-strategy"><h2 id="new-strategy">Create a strategy type</h2>
      <${StrategyTypeForm} key=${formKey} initial=${{ name: '', displayName: null, description: '', editable: true, deprecated: false, parameters: [] }} submit="Create strategy type" needs=${need('CREATE_STRATEGY')}
        onSave=${async (s: StrategyType) => (await api('POST', '/api/admin/strategies', body(s)), changed(), setFormKey((k) => k + 1))} />
    </section>
  <//>`;
}

/** Legal values typed as a comma-separated list; descriptions already given to a value are kept. */
function legalValuesOf(text: string, before: ContextField['legalValues']): ContextField['legalValues'] {
  const known = new Map(before.map((v) => [v.value, v.description]));
  return text.split(',').map((v) => v.trim()).filter(Boolean).map((value) => ({ value, description: known.get(value) ?? '' }));
}

function ContextFieldForm({ initial, submit, onSave, needs }: { initial: ContextField; submit: string; onSave: (c: ContextField) => Promise<unknown>; needs: Need }) {
  const [c, setC] = useState(initial);
  const [legal, setLegal] = useState(initial.legalValues.map((v) => v.value).join(', '));
  const creating = initial.name === '';
  return html`<${Form} label=${submit} submit=${submit} need=${needs} onSubmit=${() => onSave({ ...c, legalValues: legalValuesOf(legal, initial.legalValues) })}>
    ${creating ? html`<${Field} label="Field name" name="name" value=${c.name} onInput=${(v: string) => setC({ ...c, name: v })} required />` : null}
    <${Field} label="Description" value=${c.description} onInput=${(v: string) => setC({ ...c, description: v })} />
    <${Field} label="Legal values" value=${legal} onInput=${setLegal} hint="comma-separated; empty: any value" />
    <${Check} label="Usable as stickiness" checked=${c.stickiness} onChange=${(v: boolean) => setC({ ...c, stickiness: v })} />
  <//>`;
}

export function ContextFieldsPage() {
  const list = useLoad(() => get<ContextField[]>('/api/admin/context'), []);
  const [editing, setEditing] = useState<string | null>(null);
  const [formKey, setFormKey] = useState(0);
  const body = (c: ContextField) => ({ name: c.name, description: c.description, legalValues: c.legalValues, stickiness: c.stickiness });
  return html`<${Page} title="Context fields">
    <${ErrorNote} error=${list.error} />
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Legal values</th><th scope="col">Stickiness</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(list.data ?? []).map((c) => [html`<tr key=${c.name}>
        <th scope="row">${c.name}</th><td>${c.description}</td><td>${c.legalValues.map((v) => v.value).join(', ')}</td><td>${c.stickiness ? 'yes' : ''}</td>
        <td><div class="row-actions"><${Opener} label=${`Edit ${c.name}`} expanded=${editing === c.name} need=${need('UPDATE_CONTEXT_FIELD')} refused=${builtInField(c.name)}
            onClick=${() => setEditing(editing === c.name ? null : c.name)} />
          <${Action} label=${`Delete ${c.name}`} kind="danger" need=${need('DELETE_CONTEXT_FIELD')} refused=${builtInField(c.name)} confirm=${`Delete context field ${c.name}?`} run=${async () => (await api('DELETE', `/api/admin/context/${enc(c.name)}`), changed())} /></div></td>
      </tr>`, editing === c.name ? html`<${EditRow} key=${`${c.name}-edit`} columns=${5}>
        <${ContextFieldForm} initial=${c} submit="Save context field" needs=${need('UPDATE_CONTEXT_FIELD')} onSave=${async (n: ContextField) => (await api('PUT', `/api/admin/context/${enc(c.name)}`, body(n)), changed(), setEditing(null))} />
      <//>` : null])}</tbody></table></div>
    <section class="panel" aria-labelledby="new-field"><h2 id="new-field">Create a context field</h2>
      <${ContextFieldForm} key=${formKey} initial=${{ name: '', description: '', stickiness: false, sortOrder: 0, legalValues: [] }} submit="Create context field" needs=${need('CREATE_CONTEXT_FIELD')}
        onSave=${async (c: ContextField) => (await api('POST', '/api/admin/context', body(c)), changed(), setFormKey((k) => k + 1))} />
    </section>
  <//>`;
}
