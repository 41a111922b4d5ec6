// A list of constraints, edited in place: context field, operator (every one the API knows), and
// the value in the shape that operator takes (a list, one number, a date, a version, a pattern).
// The API checks everything again; this only helps to write what it accepts.
import { useState } from 'preact/hooks';
import { html } from './html.js';

/** A constraint as the API takes it and answers it (mirrors the server's ConstraintInput, which the browser build cannot import). */
export interface Constraint {
  contextName: string;
  operator: string;
  values?: string[];
  value?: string;
  caseInsensitive?: boolean;
  inverted?: boolean;
}

interface OperatorInfo { label: string; list: boolean; hint: string; caseInsensitive?: boolean }

/** Every operator of the API, what it means, and whether it takes a list. */
export const OPERATORS: Record<string, OperatorInfo> = {
  IN: { label: 'is one of', list: true, hint: 'values, comma-separated' },
  NOT_IN: { label: 'is not one of', list: true, hint: 'values, comma-separated' },
  STR_CONTAINS: { label: 'contains', list: true, hint: 'texts, comma-separated', caseInsensitive: true },
  STR_STARTS_WITH: { label: 'starts with', list: true, hint: 'texts, comma-separated', caseInsensitive: true },
  STR_ENDS_WITH: { label: 'ends with', list: true, hint: 'texts, comma-separated', caseInsensitive: true },
  NUM_EQ: { label: '= (number)', list: false, hint: 'a number' },
  NUM_GT: { label: '> (number)', list: false, hint: 'a number' },
  NUM_GTE: { label: '≥ (number)', list: false, hint: 'a number' },
  NUM_LT: { label: '< (number)', list: false, hint: 'a number' },
  NUM_LTE: { label: '≤ (number)', list: false, hint: 'a number' },
  DATE_AFTER: { label: 'after (date)', list: false, hint: 'an ISO date, e.g. 2026-12-01T00:00:00Z' },
  DATE_BEFORE: { label: 'before (date)', list: false, hint: 'an ISO date, e.g. 2026-12-01T00:00:00Z' },
  SEMVER_EQ: { label: '= (version)', list: false, hint: 'a semantic version, e.g. 1.2.3' },
  SEMVER_GT: { label: '> (version)', list: false, hint: 'a semantic version' },
  SEMVER_GTE: { label: '≥ (version)', list: false, hint: 'a semantic version' },
  SEMVER_LT: { label: '< (version)', list: false, hint: 'a semantic version' },
  SEMVER_LTE: { label: '≤ (version)', list: false, hint: 'a semantic version' },
  REGEX: { label: 'matches (regular expression)', list: false, hint: 'a regular expression (RE2)', caseInsensitive: true },
  IN_CIDR: { label: 'in network (CIDR)', list: true, hint: 'addresses or ranges, e.g. 10.0.0.0/8, comma-separated' },
};

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

export function describeConstraint(c: Constraint): string {
  const info = OPERATORS[c.operator];
  const op = info?.label ?? c.operator;
  // The API answers both fields (one of them empty), as Unleash does: the operator says which counts.
  const value = (info?.list ?? true) ? (c.values ?? []).join(', ') : (c.value ?? '');
  return `${c.contextName} ${c.inverted ? 'NOT ' : ''}${op} ${value}${c.caseInsensitive ? ' (any case)' : ''}`;
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

/** Edits `constraints`; `fields` are the context field names to choose from. */
export function ConstraintEditor(props: { constraints: Constraint[]; fields: string[]; onChange: (c: Constraint[]) => void }) {
  const { constraints, fields, onChange } = props;
  const set = (i: number, c: Constraint) => onChange(constraints.map((x, j) => (j === i ? c : x)));
  return html`<fieldset class="constraints"><legend>Constraints</legend>
    ${constraints.length === 0 ? html`<p class="muted">No constraints: every context matches.</p>` : null}
    ${constraints.map((c, i) => {
      const info = OPERATORS[c.operator] ?? OPERATORS.IN;
      const id = `c${++ids}`;
      return html`<div class="constraint" role="group" aria-label=${`Constraint ${i + 1}`}>
        <label for=${`${id}-field`}>Context field</label>
        <select id=${`${id}-field`} value=${c.contextName} onChange=${(e: Event) => set(i, { ...c, contextName: (e.target as HTMLSelectElement).value })}>
          ${[...new Set([...fields, c.contextName])].map((f) => html`<option value=${f}>${f}</option>`)}
        </select>
        <label for=${`${id}-op`}>Operator</label>
        <select id=${`${id}-op`} value=${c.operator} onChange=${(e: Event) => set(i, withOperator(c, (e.target as HTMLSelectElement).value))}>
          ${Object.entries(OPERATORS).map(([op, o]) => html`<option value=${op}>${o.label} (${op})</option>`)}
        </select>
        <label for=${`${id}-value`}>${info.list ? 'Values' : 'Value'}</label>
        ${info.list
          ? html`<${ListInput} id=${`${id}-value`} values=${c.values ?? []} placeholder=${info.hint} onChange=${(values: string[]) => set(i, { ...c, values, value: undefined })} />`
          : html`<input id=${`${id}-value`} value=${c.value ?? ''} placeholder=${info.hint} onInput=${(e: Event) => set(i, { ...c, value: (e.target as HTMLInputElement).value, values: undefined })} />`}
        <label class="check"><input type="checkbox" checked=${c.inverted ?? false} onChange=${(e: Event) => set(i, { ...c, inverted: (e.target as HTMLInputElement).checked })} /> Negate</label>
        ${info.caseInsensitive ? html`<label class="check"><input type="checkbox" checked=${c.caseInsensitive ?? false} onChange=${(e: Event) => set(i, { ...c, caseInsensitive: (e.target as HTMLInputElement).checked })} /> Ignore case</label>` : null}
        <button type="button" class="danger" onClick=${() => onChange(constraints.filter((_, j) => j !== i))}>Remove constraint ${i + 1}</button>
      </div>`;
    })}
    <button type="button" onClick=${() => onChange([...constraints, { contextName: fields[0] ?? 'userId', operator: 'IN', values: [], caseInsensitive: false, inverted: false }])}>Add constraint</button>
  </fieldset>`;
}
