// A list of constraints, edited in place: context field (or a new one, made without leaving the
// form), operator (every one the API knows), and the value in the shape that operator takes (a
// list, one number, a date, a version, a pattern); a field with legal values offers them as
// choices. The API checks everything again; this only helps to write what it accepts.
import { useState } from 'preact/hooks';
import { blockedBy, need } from './access.js';
import { api } from './api.js';
import { Check, Field, Form } from './components.js';
import { html } from './html.js';
import { changed } from './live.js';
import { Modal } from './overlays.js';
import { OPERATORS, type Constraint } from './words.js';

export { describeConstraint, OPERATORS, type Constraint } from './words.js';

/** A context field as GET /api/admin/context lists it. */
export interface ContextField { name: string; description?: string; stickiness?: boolean; legalValues: { value: string; description?: string }[] }

/** The constraint with its value moved to the field its (new) operator takes. */
export function withOperator(c: Constraint, operator: string): Constraint {
  const list = OPERATORS[operator]?.list ?? true;
  const text = c.values?.join(', ') ?? c.value ?? '';
  const next: Constraint = { contextName: c.contextName, operator, inverted: c.inverted ?? false, caseInsensitive: c.caseInsensitive ?? false };
  if (list) next.values = splitValues(text);
  else next.value = text.split(',')[0]?.trim() ?? '';
  return next;
}

export function splitValues(text: string): string[] {
  return text.split(',').map((v) => v.trim()).filter((v) => v.length > 0);
}

let ids = 0;

/**
 * A comma-separated list typed as text. The text is kept as typed ("a, " while the next value is
 * on its way) and only the list goes up; a list changed from outside (another operator) replaces it.
 */
function ListInput(props: { id: string; values: string[]; placeholder: string; onChange: (values: string[]) => void }) {
  const [text, setText] = useState(props.values.join(', '));
  const shown = sameList(splitValues(text), props.values) ? text : props.values.join(', ');
  return html`<input id=${props.id} value=${shown} placeholder=${props.placeholder} onInput=${(e: Event) => {
    const typed = (e.target as HTMLInputElement).value;
    setText(typed);
    props.onChange(splitValues(typed));
  }} />`;
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Past this many legal values a filter box narrows the list. */
const FILTER_FROM = 10;

/** The legal values of a field, one checkbox each (and any other value the constraint already holds); a long list gets a filter box. */
function LegalValues(props: { id: string; legal: string[]; values: string[]; onChange: (values: string[]) => void }) {
  const [filter, setFilter] = useState('');
  const all = [...new Set([...props.legal, ...props.values])];
  const shown = all.filter((v) => v.toLowerCase().includes(filter.trim().toLowerCase()));
  return html`<div>${all.length > FILTER_FROM ? html`<input type="search" class="values-filter" aria-label="Filter values" aria-controls=${props.id} placeholder=${`Filter ${all.length} values`}
      value=${filter} onInput=${(e: Event) => setFilter((e.target as HTMLInputElement).value)} />` : null}
    <div id=${props.id} class="choices" role="group" aria-label="Values">${shown.map((v) => html`<${Check} label=${v} checked=${props.values.includes(v)}
    onChange=${(on: boolean) => props.onChange(on ? all.filter((x) => x === v || props.values.includes(x)) : props.values.filter((x) => x !== v))} />`)}
    ${shown.length < all.length ? html`<span class="muted">${shown.length} of ${all.length} shown${props.values.length ? `, ${props.values.length} chosen` : ''}</span>` : null}</div></div>`;
}

/** Creates a context field in a dialog; the form under it stays as it was. */
export function NewContextField({ onMade, onClose }: { onMade: (name: string) => void; onClose: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [legal, setLegal] = useState('');
  const [stickiness, setStickiness] = useState(false);
  return html`<${Modal} title="New context field" onClose=${onClose}>
    <${Form} label="New context field" submit="Create context field" need=${need('CREATE_CONTEXT_FIELD')} onSubmit=${async () => {
      await api('POST', '/api/admin/context', { name, description, stickiness, legalValues: splitValues(legal).map((value) => ({ value, description: '' })) });
      changed();
      onMade(name);
    }}>
      <${Field} label="Field name" name="name" value=${name} onInput=${setName} required hint="as your SDKs send it, e.g. country or tier" />
      <${Field} label="Description" value=${description} onInput=${setDescription} />
      <${Field} label="Legal values" value=${legal} onInput=${setLegal} hint="comma-separated; empty: any value" />
      <${Check} label="Usable as stickiness" checked=${stickiness} onChange=${setStickiness} />
    <//>
  <//>`;
}

const NEW_FIELD = '\u0000new';

/** Edits `constraints`; `fields` are the context fields to choose from. */
export function ConstraintEditor(props: { constraints: Constraint[]; fields: ContextField[]; onChange: (c: Constraint[]) => void }) {
  const { constraints, fields, onChange } = props;
  // The constraint a new context field is being made for, while its dialog is open.
  const [making, setMaking] = useState<number | null>(null);
  const set = (i: number, c: Constraint) => onChange(constraints.map((x, j) => (j === i ? c : x)));
  return html`<fieldset class="constraints"><legend>Constraints</legend>
    ${constraints.length === 0 ? html`<p class="muted">No constraints: every context matches.</p>` : null}
    ${constraints.map((c, i) => {
      const info = OPERATORS[c.operator] ?? OPERATORS.IN;
      const id = `c${++ids}`;
      const legal = fields.find((f) => f.name === c.contextName)?.legalValues.map((v) => v.value) ?? [];
      const names = [...new Set([...fields.map((f) => f.name), c.contextName])];
      return html`<div class="constraint" role="group" aria-label=${`Constraint ${i + 1}`}>
        <label for=${`${id}-field`}>Context field</label>
        <select id=${`${id}-field`} value=${c.contextName} onChange=${(e: Event) => {
          const v = (e.target as HTMLSelectElement).value;
          if (v === NEW_FIELD) {
            (e.target as HTMLSelectElement).value = c.contextName;
            setMaking(i);
          } else set(i, { ...c, contextName: v });
        }}>
          ${names.map((f) => html`<option value=${f}>${f}</option>`)}
          <option value=${NEW_FIELD} disabled=${!!blockedBy(need('CREATE_CONTEXT_FIELD'))}>New context field…</option>
        </select>
        <label for=${`${id}-op`}>Operator</label>
        <select id=${`${id}-op`} value=${c.operator} onChange=${(e: Event) => set(i, withOperator(c, (e.target as HTMLSelectElement).value))}>
          ${Object.entries(OPERATORS).map(([op, o]) => html`<option value=${op}>${o.label} (${op})</option>`)}
        </select>
        <label for=${`${id}-value`}>${info.list ? 'Values' : 'Value'}</label>
        ${info.list && legal.length > 0 && (c.operator === 'IN' || c.operator === 'NOT_IN')
          ? html`<${LegalValues} id=${`${id}-value`} legal=${legal} values=${c.values ?? []} onChange=${(values: string[]) => set(i, { ...c, values, value: undefined })} />`
          : info.list
            ? html`<${ListInput} id=${`${id}-value`} values=${c.values ?? []} placeholder=${info.hint} onChange=${(values: string[]) => set(i, { ...c, values, value: undefined })} />`
            : html`<input id=${`${id}-value`} value=${c.value ?? ''} placeholder=${info.hint} onInput=${(e: Event) => set(i, { ...c, value: (e.target as HTMLInputElement).value, values: undefined })} />`}
        <${Check} label="Negate" checked=${c.inverted ?? false} onChange=${(v: boolean) => set(i, { ...c, inverted: v })} />
        ${info.caseInsensitive ? html`<${Check} label="Ignore case" checked=${c.caseInsensitive ?? false} onChange=${(v: boolean) => set(i, { ...c, caseInsensitive: v })} />` : null}
        <button type="button" class="danger" onClick=${() => onChange(constraints.filter((_, j) => j !== i))}>Remove constraint ${i + 1}</button>
      </div>`;
    })}
    <button type="button" onClick=${() => onChange([...constraints, { contextName: fields[0]?.name ?? 'userId', operator: 'IN', values: [], caseInsensitive: false, inverted: false }])}>Add constraint</button>
    ${making !== null ? html`<${NewContextField} onClose=${() => setMaking(null)} onMade=${(name: string) => {
      const c = constraints[making];
      if (c) set(making, { ...c, contextName: name, operator: 'IN', values: [], value: undefined });
      setMaking(null);
    }} />` : null}
  </fieldset>`;
}
