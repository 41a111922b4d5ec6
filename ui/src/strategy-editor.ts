// Editing one strategy (type, title, parameters as its type defines them: a flexible rollout's
// share on a slider and its stickiness chosen from the fields that may hold it; constraints,
// segments, variants) and a list of variants with payloads. The API validates; errors show under
// the form.
import { useState } from 'preact/hooks';
import type { Need } from './access.js';
import { get } from './api.js';
import { Check, Field, Form, Select, useLoad } from './components.js';
import { ConstraintEditor, type Constraint, type ContextField } from './constraint-editor.js';
import { html } from './html.js';
import { STICKINESS, type Strategy, type Variant } from './words.js';
import { variantShares } from './change-words.js';

export type { Strategy, Variant } from './words.js';

interface StrategyType { name: string; displayName: string | null; deprecated: boolean; parameters: { name: string; type: string; description: string; required: boolean }[] }

/** Everything the editors choose from: strategy types, context fields, segments. */
export interface Choices { types: StrategyType[]; fields: ContextField[]; segments: { id: number; name: string; project: string | null }[] }

/** Loads the choices; a page calls it once and hands them to its panels and editors. */
export function useChoices() {
  return useLoad(async () => {
    const [types, context, segments] = await Promise.all([
      get<{ strategies: StrategyType[] }>('/api/admin/strategies'),
      get<ContextField[]>('/api/admin/context'),
      get<{ segments: { id: number; name: string; project: string | null }[] }>('/api/admin/segments'),
    ]);
    const choices: Choices = { types: types.strategies, fields: context, segments: segments.segments };
    return choices;
  }, []);
}

const FLEXIBLE_DEFAULTS = { rollout: '100', stickiness: 'default', groupId: '' };

/** Stickiness choices: the built-in ones, then context fields marked as usable for it (and the current value). */
export function stickinessChoices(fields: ContextField[], current?: string): string[] {
  return [...new Set([...STICKINESS, ...fields.filter((f) => f.stickiness).map((f) => f.name), ...(current ? [current] : [])])];
}

let sliderIds = 0;

/** A share from 0 to 100 on a slider (arrow keys move it by one) and in a number box beside it, kept in step. */
function Rollout({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const [id] = useState(() => `rollout${++sliderIds}`);
  // A number being typed reaches the slider once it is a whole number from 0 to 100 ("" or "150" wait).
  const typed = (e: Event) => {
    const v = (e.target as HTMLInputElement).value;
    if (/^\d{1,3}$/.test(v) && Number(v) <= 100) onChange(String(Number(v)));
  };
  return html`<div class="field rollout-field"><label for=${id}>Rollout</label>
    <div class="slider"><input id=${id} type="range" min="0" max="100" step="1" value=${value} aria-valuetext=${`${value}%`}
      onInput=${(e: Event) => onChange((e.target as HTMLInputElement).value)} /><input type="number" min="0" max="100" step="1" class="share-box" aria-label="Share in percent" value=${value} onInput=${typed} />%</div>
    <small>the share of users (or of requests, at random) it is on for</small></div>`;
}

/** Why these variants cannot be saved yet (a JSON payload that does not parse), or null. */
export function variantsProblem(variants: Variant[]): string | null {
  const bad = variants.find((v) => payloadProblem(v) !== null);
  return bad ? `Variant ${bad.name}: ${payloadProblem(bad)}` : null;
}

function payloadProblem(v: Variant): string | null {
  if (v.payload?.type !== 'json') return null;
  try {
    JSON.parse(v.payload.value);
    return null;
  } catch (e) {
    return `the payload is not JSON (${(e as Error).message})`;
  }
}

/** `canDisable` false: no Disabled choice (a release template's strategies have none). */
export function StrategyEditor(props: { initial: Strategy; flag: string; choices: Choices | undefined; submit: string; onSave: (s: Strategy) => Promise<unknown>; canDisable?: boolean; need?: Need }) {
  const { choices } = props;
  const [s, setS] = useState<Strategy>(props.initial);
  const types = choices?.types ?? [];
  const fields = choices?.fields ?? [];
  const type = types.find((t) => t.name === s.name);
  const param = (name: string, value: string) => setS({ ...s, parameters: { ...s.parameters, [name]: value } });
  const setType = (name: string) => setS({ ...s, name, parameters: name === 'flexibleRollout' ? { ...FLEXIBLE_DEFAULTS, groupId: props.flag } : {} });
  const flexible = s.name === 'flexibleRollout';
  return html`<${Form} label="Strategy" submit=${props.submit} need=${props.need} stop=${variantsProblem(s.variants)} onSubmit=${() => props.onSave(s)}>
    <${Select} label="Strategy type" value=${s.name} options=${types.filter((t) => !t.deprecated || t.name === s.name).map((t) => [t.name, t.displayName ?? t.name] as [string, string])} onChange=${setType} />
    <${Field} label="Title" value=${s.title ?? ''} onInput=${(v: string) => setS({ ...s, title: v || null })} />
    ${flexible
      ? html`<${Rollout} value=${s.parameters.rollout ?? '100'} onChange=${(v: string) => param('rollout', v)} />
        <${Select} label="Stickiness" value=${s.parameters.stickiness ?? 'default'} options=${stickinessChoices(fields, s.parameters.stickiness)} onChange=${(v: string) => param('stickiness', v)}
          hint="what keeps a user in or out as the share changes: default is userId, else sessionId, else at random" />
        <${Field} label="Group id" value=${s.parameters.groupId ?? ''} onInput=${(v: string) => param('groupId', v)} hint="flags with the same group id roll out to the same users" />`
      : (type?.parameters ?? []).map((p) => html`<${Field} label=${`${p.name}${p.required ? ' (required)' : ''}`} value=${s.parameters[p.name] ?? ''}
          hint=${p.description || p.type} onInput=${(v: string) => param(p.name, v)} />`)}
    ${props.canDisable === false ? null : html`<${Check} label="Disabled" checked=${s.disabled ?? false} onChange=${(v: boolean) => setS({ ...s, disabled: v })} />`}
    <${ConstraintEditor} constraints=${s.constraints} fields=${fields} onChange=${(c: Constraint[]) => setS({ ...s, constraints: c })} />
    <fieldset class="segments"><legend>Segments</legend>
      ${(choices?.segments ?? []).length === 0 ? html`<p class="muted">No segments yet.</p>` : null}
      ${(choices?.segments ?? []).map((seg) => html`<${Check} label=${seg.name} checked=${s.segments.includes(seg.id)}
        onChange=${(on: boolean) => setS({ ...s, segments: on ? [...s.segments, seg.id] : s.segments.filter((x) => x !== seg.id) })} />`)}
    </fieldset>
    <${VariantsEditor} variants=${s.variants} onChange=${(v: Variant[]) => setS({ ...s, variants: v })} />
  <//>`;
}

let ids = 0;

export function VariantsEditor(props: { variants: Variant[]; onChange: (v: Variant[]) => void; legend?: string }) {
  const { variants, onChange } = props;
  const set = (i: number, v: Variant) => onChange(variants.map((x, j) => (j === i ? v : x)));
  const shares = variantShares(variants);
  return html`<fieldset class="variants"><legend>${props.legend ?? 'Variants'}</legend>
    ${variants.map((v, i) => {
      const id = `v${++ids}`;
      return html`<div class="variant" role="group" aria-label=${`Variant ${i + 1}`}>
        <label for=${`${id}-name`}>Variant name</label>
        <input id=${`${id}-name`} value=${v.name} onInput=${(e: Event) => set(i, { ...v, name: (e.target as HTMLInputElement).value })} />
        <label for=${`${id}-wt`}>Weight</label>
        <select id=${`${id}-wt`} value=${v.weightType} onChange=${(e: Event) => set(i, { ...v, weightType: (e.target as HTMLSelectElement).value as Variant['weightType'] })}>
          <option value="variable">shared evenly</option><option value="fix">fixed</option>
        </select>
        ${v.weightType === 'fix' ? html`<label for=${`${id}-w`}>Fixed weight (of 1000)</label>
          <input id=${`${id}-w`} type="number" min="0" max="1000" value=${v.weight} onInput=${(e: Event) => set(i, { ...v, weight: Number((e.target as HTMLInputElement).value) })} />` : null}
        <span>Share</span><output aria-label=${`Share of ${v.name}`}>${shares[i]} %</output>
        <label for=${`${id}-pt`}>Payload type</label>
        <select id=${`${id}-pt`} value=${v.payload?.type ?? ''} onChange=${(e: Event) => {
          const t = (e.target as HTMLSelectElement).value;
          set(i, t ? { ...v, payload: { type: t, value: v.payload?.value ?? '' } } : { ...v, payload: undefined });
        }}><option value="">none</option><option value="string">string</option><option value="json">json</option><option value="csv">csv</option><option value="number">number</option></select>
        ${v.payload ? html`<label for=${`${id}-pv`}>Payload</label>
          <textarea id=${`${id}-pv`} value=${v.payload.value} aria-invalid=${payloadProblem(v) ? 'true' : undefined} aria-describedby=${payloadProblem(v) ? `${id}-pe` : undefined}
            onInput=${(e: Event) => set(i, { ...v, payload: { type: v.payload!.type, value: (e.target as HTMLTextAreaElement).value } })} />
          ${payloadProblem(v) ? html`<small class="field-error wide" id=${`${id}-pe`} role="alert">${payloadProblem(v)}</small>` : null}` : null}
        <button type="button" class="danger" onClick=${() => onChange(variants.filter((_, j) => j !== i))}>Remove variant ${i + 1}</button>
      </div>`;
    })}
    <button type="button" onClick=${() => onChange([...variants, { name: `variant-${variants.length + 1}`, weight: 0, weightType: 'variable', stickiness: 'default' }])}>Add variant</button>
  </fieldset>`;
}
