// "Try it" on a flag's page: a context typed in (appName, userId, any context field), an
// environment (or all of them), and the server's playground answer for this flag, in words: on or
// off and why, each strategy with each constraint's result and the value the context gave it, and
// the variant. Values with commas are tried one by one (the advanced playground's combinations).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './api.js';
import { ErrorNote, Field, Select } from './components.js';
import type { ContextField } from './constraint-editor.js';
import { html } from './html.js';
import { useLive } from './live.js';
import { describeConstraint, strategyWords, type Constraint, type Strategy } from './words.js';

type Tri = boolean | 'unknown';
interface Checked extends Constraint { result: boolean }
interface StrategyResult {
  name: string; id: string; disabled: boolean; parameters: Record<string, string>;
  result: { enabled: Tri; evaluationStatus: string; variant?: { name: string } };
  constraints: Checked[]; segments: { id: number; name: string; result: boolean; constraints: Checked[] }[];
}
interface Evaluated {
  isEnabled: boolean; isEnabledInCurrentEnvironment: boolean; hasUnsatisfiedDependency: boolean;
  variant: { name: string; enabled: boolean; payload?: { type: string; value: string } };
  context: Record<string, string>; environment: string;
  strategies: { result: Tri; data: StrategyResult[] };
}

/** What the panel needs of the flag: its name, project, and each environment's strategies (for their titles). */
export interface TriedFlag { name: string; project: string; environments: { name: string; strategies: Strategy[] }[] }

/** Fields every context may have, typed in their own boxes. */
const FIXED = new Set(['appName', 'userId']);

/** The value the context gave a constraint's field, in words. */
function given(context: Record<string, string>, field: string): string {
  const v = context[field];
  if (v !== undefined) return `${field} is "${v}"`;
  return field === 'currentTime' ? 'currentTime not given (now was used)' : `${field} not given`;
}

function mark(result: Tri): string {
  return result === true ? '✓' : result === false ? '✗' : '?';
}

function ConstraintResults({ list, context }: { list: Checked[]; context: Record<string, string> }) {
  return html`<ul class="try-constraints">${list.map((c) => html`<li class=${c.result ? 'pass' : 'fail'}>
    <span aria-hidden="true">${mark(c.result)}</span><span class="sr-only">${c.result ? 'holds:' : 'fails:'}</span>
    ${describeConstraint(c)} <span class="muted">(${given(context, c.contextName)})</span></li>`)}</ul>`;
}

/** Why the flag is on or off for this context, in one sentence. */
function reason(e: Evaluated, label: (i: number) => string): string {
  const data = e.strategies.data;
  const first = data.findIndex((s) => s.result.enabled === true);
  const unknown = data.findIndex((s) => s.result.enabled === 'unknown' && !s.disabled);
  if (e.isEnabled) return data.length === 0 ? 'On: no strategies, so on for everyone.' : `On: strategy ${first + 1} (${label(first)}) matched.`;
  if (!e.isEnabledInCurrentEnvironment) {
    return `Off: the flag is switched off in ${e.environment}${first >= 0 ? `; switched on, strategy ${first + 1} (${label(first)}) would match` : ''}.`;
  }
  if (e.hasUnsatisfiedDependency) return 'Off: a flag it depends on is not as it requires.';
  if (unknown >= 0) return `Unknown: strategy ${unknown + 1} (${label(unknown)}) depends on where the SDK runs; no other strategy matched.`;
  return 'Off: no strategy matched.';
}

function Result({ e, strategies, several }: { e: Evaluated; strategies: Strategy[]; several: boolean }) {
  const label = (i: number) => {
    const s = e.strategies.data[i];
    const own = strategies.find((x) => x.id === s.id);
    return own?.title || strategyWords(s);
  };
  const ctx = Object.entries(e.context).filter(([k]) => k !== 'appName').map(([k, v]) => `${k}=${v}`).join(', ');
  return html`<div class=${`try-result ${e.isEnabled ? 'on' : 'off'}`}>
    ${several ? html`<p class="muted">For ${ctx || 'no fields but appName'}</p>` : null}
    <p class="try-why"><span class=${`badge ${e.isEnabled ? 'on' : ''}`}>${e.isEnabled ? 'On' : 'Off'}</span> ${reason(e, label)}</p>
    ${e.strategies.data.length > 0 ? html`<ol class="try-strategies">${e.strategies.data.map((s, i) => html`<li>
      <strong>${label(i)}</strong> <span class="muted">${s.disabled ? 'disabled: not evaluated'
        : s.result.evaluationStatus === 'incomplete' && s.result.enabled === 'unknown' ? 'depends on where the SDK runs'
          : s.result.enabled === true ? 'matched' : 'did not match'}</span>
      ${s.constraints.length > 0 ? html`<${ConstraintResults} list=${s.constraints} context=${e.context} />` : null}
      ${s.segments.map((g) => html`<div class="try-segment">segment <strong>${g.name}</strong> <span class="muted">${g.result ? 'holds' : 'fails'}</span>
        <${ConstraintResults} list=${g.constraints} context=${e.context} /></div>`)}
    </li>`)}</ol>` : null}
    <p class="try-variant">Variant: ${e.variant.enabled
      ? html`<strong>${e.variant.name}</strong>${e.variant.payload ? html` <span class="muted">(${e.variant.payload.type}: <code>${e.variant.payload.value}</code>)</span>` : null}`
      : html`<span class="muted">none</span>`}</p>
  </div>`;
}

export function PlaygroundPanel({ flag, fields }: { flag: TriedFlag; fields: ContextField[] }) {
  const [appName, setAppName] = useState('console');
  const [userId, setUserId] = useState('');
  const [extra, setExtra] = useState<[string, string][]>([]);
  const [environment, setEnvironment] = useState('*');
  const [answer, setAnswer] = useState<Record<string, Evaluated[]> | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const live = useLive();
  const environments = flag.environments.map((e) => e.name);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const context: Record<string, string> = { appName };
      if (userId !== '') context.userId = userId;
      for (const [k, v] of extra) if (v !== '') context[k] = v;
      const res = await api<{ features: { name: string; environments: Record<string, Evaluated[]> }[] }>('POST', '/api/admin/playground/advanced', {
        environments: environment === '*' ? environments : [environment], projects: [flag.project], context,
      });
      setAnswer(res.features.find((f) => f.name === flag.name)?.environments ?? {});
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'Error', String(e)));
    } finally {
      setBusy(false);
    }
  };
  // A change to the flag (here or elsewhere) is tried again with the same context.
  useEffect(() => {
    if (answer !== null) void run();
  }, [live]);
  const addable = fields.map((f) => f.name).filter((n) => !FIXED.has(n) && !extra.some(([k]) => k === n));
  const setValue = (i: number, v: string) => setExtra(extra.map((e, k) => (k === i ? [e[0], v] : e)));
  return html`<section class="panel try" aria-labelledby="try-it"><h2 id="try-it">Try it</h2>
    <p class="muted">What this flag does for a context, as an SDK would decide it. Values with commas are tried one by one.</p>
    <form aria-label="Try a context" onSubmit=${(e: Event) => (e.preventDefault(), void run())}>
      <div class="try-fields">
        <${Field} label="appName" value=${appName} onInput=${setAppName} required />
        <${Field} label="userId" value=${userId} onInput=${setUserId} />
        ${extra.map(([name, value], i) => html`<div class="try-extra">
          <${Field} label=${name} value=${value} onInput=${(v: string) => setValue(i, v)} suggestions=${fields.find((f) => f.name === name)?.legalValues.map((l) => l.value)} />
          <button type="button" class="link" aria-label=${`Remove ${name}`} onClick=${() => setExtra(extra.filter((_, k) => k !== i))}>×</button></div>`)}
        ${addable.length > 0 ? html`<${Select} label="Add a context field" value="" options=${[['', 'Choose a field…'], ...addable.map((n): [string, string] => [n, n])]}
          onChange=${(n: string) => n && setExtra([...extra, [n, '']])} /> ` : null}
        <${Select} label="Environment" value=${environment} options=${[['*', 'All environments'], ...environments.map((n): [string, string] => [n, n])]} onChange=${setEnvironment} />
      </div>
      <div class="form-actions"><button type="submit" class="primary" disabled=${busy}>Try</button></div>
      <${ErrorNote} error=${error} />
    </form>
    ${answer === null ? null : Object.keys(answer).length === 0 ? html`<p class="muted">The playground did not list this flag.</p>`
      : Object.entries(answer).map(([env, list]) => html`<section class="try-env" aria-label=${`Result in ${env}`}><h3>${env}</h3>
        ${list.map((e) => html`<${Result} e=${e} strategies=${flag.environments.find((x) => x.name === env)?.strategies ?? []} several=${list.length > 1} />`)}
      </section>`)}
  </section>`;
}
