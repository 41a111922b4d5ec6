// One flag: its metadata and tags, per environment its switch, strategies (add, edit, disable,
// delete, reorder) and variants, its dependencies, and its events.
import { useState } from 'preact/hooks';
import { api, enc, get } from '../api.js';
import { Action, Check, ErrorNote, Field, Form, Page, useLoad, when } from '../components.js';
import { describeConstraint } from '../constraint-editor.js';
import { html } from '../html.js';
import { changed } from '../live.js';
import { navigate } from '../router.js';
import { StrategyEditor, useChoices, VariantsEditor, type Choices, type Strategy, type Variant } from '../strategy-editor.js';
import { setEnabled, TypeSelect, useFlagTypes } from './flags.js';
import { EventList, type EventRow } from './events.js';

interface FlagEnv { name: string; enabled: boolean; strategies: Strategy[]; variants: Variant[]; lastSeenAt: string | null }
interface Flag {
  name: string; project: string; type: string; description: string | null; stale: boolean; impressionData: boolean; createdAt: string; lastSeenAt: string | null;
  environments: FlagEnv[]; tags: { type: string; value: string }[]; dependencies: { feature: string; enabled: boolean; variants: string[] }[]; children: string[];
}

export function FlagPage({ project, flag }: { project: string; flag: string }) {
  const base = `/api/admin/projects/${enc(project)}/features/${enc(flag)}`;
  const loaded = useLoad(() => get<Flag>(base), [base]);
  const events = useLoad(() => get<{ events: EventRow[] }>(`/api/admin/events/${enc(flag)}`), [flag]);
  // Loaded once for the page: every environment's panel and strategy editor chooses from them.
  const choices = useChoices();
  const f = loaded.data;
  if (!f) return html`<${Page} title=${flag}>${loaded.error ? html`<${ErrorNote} error=${loaded.error} />` : html`<p class="loading">Loading…</p>`}<//>`;
  const after = async <T>(p: Promise<T>) => {
    const r = await p;
    changed();
    return r;
  };
  return html`<${Page} title=${f.name} actions=${html`<${Action} label="Archive" kind="danger" confirm=${`Archive ${f.name}? SDKs stop seeing it.`}
      run=${async () => (await after(api('DELETE', base)), navigate(`/projects/${enc(project)}`))} />`}>
    <p class="muted">Project <a href=${`#/projects/${enc(project)}`}>${f.project}</a> · created ${when(f.createdAt)} · last seen ${when(f.lastSeenAt)}</p>
    <${ErrorNote} error=${loaded.error} />
    <${Metadata} flag=${f} base=${base} after=${after} />
    <${Tags} flag=${f} after=${after} />
    ${f.environments.map((e) => html`<${EnvironmentPanel} key=${e.name} flag=${f} env=${e} base=${base} after=${after} choices=${choices.data} />`)}
    <${Dependencies} flag=${f} base=${base} after=${after} />
    <section class="panel" aria-labelledby="flag-events"><h2 id="flag-events">Events</h2>
      <${ErrorNote} error=${events.error} />
      <${EventList} events=${events.data?.events ?? []} />
    </section>
  <//>`;
}

type After = <T>(p: Promise<T>) => Promise<T>;

function Metadata({ flag, base, after }: { flag: Flag; base: string; after: After }) {
  const [description, setDescription] = useState(flag.description ?? '');
  const [type, setType] = useState(flag.type);
  const [stale, setStale] = useState(flag.stale);
  const [impressionData, setImpressionData] = useState(flag.impressionData);
  const types = useFlagTypes();
  return html`<section class="panel" aria-labelledby="flag-meta"><h2 id="flag-meta">About</h2>
    <${Form} label="Flag details" submit="Save details" onSubmit=${() => after(api('PATCH', base, [
      { op: 'replace', path: '/description', value: description },
      { op: 'replace', path: '/type', value: type },
      { op: 'replace', path: '/stale', value: stale },
      { op: 'replace', path: '/impressionData', value: impressionData },
    ]))}>
      <${Field} label="Description" value=${description} onInput=${setDescription} />
      <${TypeSelect} value=${type} onChange=${setType} types=${types.data} />
      <${Check} label="Stale" checked=${stale} onChange=${setStale} />
      <${Check} label="Impression data" checked=${impressionData} onChange=${setImpressionData} />
    <//>
  </section>`;
}

function Tags({ flag, after }: { flag: Flag; after: After }) {
  const [tag, setTag] = useState('');
  const path = `/api/admin/features/${enc(flag.name)}/tags`;
  return html`<section class="panel" aria-labelledby="flag-tags"><h2 id="flag-tags">Tags</h2>
    <ul class="chips">${flag.tags.map((t) => html`<li><span class="badge">${t.type}:${t.value}</span>
      <${Action} label=${`Remove ${t.type}:${t.value}`} run=${() => after(api('DELETE', `${path}/${enc(t.type)}/${enc(t.value)}`))} /></li>`)}</ul>
    <${Form} label="Add a tag" submit="Add tag" onSubmit=${async () => {
      const at = tag.indexOf(':');
      const body = at > 0 ? { type: tag.slice(0, at), value: tag.slice(at + 1) } : { type: 'simple', value: tag };
      await after(api('POST', path, body));
      setTag('');
    }}><${Field} label="Tag (type:value, or a value of type simple)" value=${tag} onInput=${setTag} required /><//>
  </section>`;
}

function EnvironmentPanel({ flag, env, base, after, choices }: { flag: Flag; env: FlagEnv; base: string; after: After; choices: Choices | undefined }) {
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [variants, setVariants] = useState<Variant[] | null>(null);
  const sbase = `${base}/environments/${enc(env.name)}/strategies`;
  const segmentNames = new Map((choices?.segments ?? []).map((x) => [x.id, x.name]));
  const body = (s: Strategy) => ({ name: s.name, title: s.title ?? undefined, disabled: s.disabled ?? false, parameters: s.parameters, constraints: s.constraints, segments: s.segments, variants: s.variants });
  const move = (i: number, by: number) => {
    const order = [...env.strategies];
    const [s] = order.splice(i, 1);
    order.splice(i + by, 0, s);
    return after(api('POST', `${sbase}/set-sort-order`, order.map((x, k) => ({ id: x.id, sortOrder: k }))));
  };
  const headingId = `env-${env.name}`;
  return html`<section class="panel env" aria-labelledby=${headingId}>
    <header class="env-head"><h2 id=${headingId}>${env.name}</h2>
      <${Action} label=${env.enabled ? `On in ${env.name}` : `Off in ${env.name}`} kind=${env.enabled ? 'primary' : ''} title=${`${env.enabled ? 'Switch off' : 'Switch on'} in ${env.name}`}
        run=${() => setEnabled(flag.project, flag.name, env.name, !env.enabled)} />
      <span class="muted">last seen ${when(env.lastSeenAt)}</span></header>
    <h3>Strategies</h3>
    ${env.strategies.length === 0 ? html`<p class="muted">No strategies: switched on, the flag is on for everyone.</p>` : null}
    <ol class="strategies">${env.strategies.map((s, i) => html`<li class=${s.disabled ? 'disabled' : ''}>
      <div><strong>${s.title || s.name}</strong>${s.title ? html` <span class="muted">(${s.name})</span>` : null}${s.disabled ? html` <span class="badge warn">disabled</span>` : null}
        ${Object.keys(s.parameters).length > 0 ? html`<div class="muted">${Object.entries(s.parameters).map(([k, v]) => `${k}=${v}`).join(' · ')}</div>` : null}
        ${s.constraints.map((c) => html`<div class="constraint-text">${describeConstraint(c)}</div>`)}
        ${s.segments.length > 0 ? html`<div class="muted">segments ${s.segments.map((id) => segmentNames.get(id) ?? `#${id}`).join(', ')}</div>` : null}
        ${s.variants.length > 0 ? html`<div class="muted">variants ${s.variants.map((v) => v.name).join(', ')}</div>` : null}</div>
      <div class="row-actions">
        <button type="button" onClick=${() => setEditing(editing === s.id ? null : s.id!)}>Edit</button>
        <${Action} label=${s.disabled ? 'Enable' : 'Disable'} run=${() => after(api('PUT', `${sbase}/${enc(s.id!)}`, { ...body(s), disabled: !s.disabled }))} />
        <${Action} label="Move up" disabled=${i === 0} run=${() => move(i, -1)} />
        <${Action} label="Move down" disabled=${i === env.strategies.length - 1} run=${() => move(i, 1)} />
        <${Action} label="Delete" kind="danger" confirm="Delete this strategy?" run=${() => after(api('DELETE', `${sbase}/${enc(s.id!)}`))} />
      </div>
      ${editing === s.id ? html`<${StrategyEditor} initial=${s} flag=${flag.name} choices=${choices} submit="Save strategy"
        onSave=${async (n: Strategy) => (await after(api('PUT', `${sbase}/${enc(s.id!)}`, body(n))), setEditing(null))} />` : null}
    </li>`)}</ol>
    ${adding
      ? html`<${StrategyEditor} initial=${{ name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: flag.name }, constraints: [], segments: [], variants: [] }}
          flag=${flag.name} choices=${choices} submit="Add strategy" onSave=${async (s: Strategy) => (await after(api('POST', sbase, body(s))), setAdding(false))} />`
      : html`<button type="button" onClick=${() => setAdding(true)}>Add strategy in ${env.name}</button>`}
    <h3>Variants</h3>
    ${variants === null
      ? html`<p>${env.variants.length === 0 ? html`<span class="muted">None.</span>` : env.variants.map((v) => html`<span class="badge">${v.name} ${v.weight / 10}%</span> `)}
          <button type="button" onClick=${() => setVariants(env.variants)}>Edit variants in ${env.name}</button></p>`
      : html`<${Form} label=${`Variants in ${env.name}`} submit="Save variants" onSubmit=${async () => (await after(api('PUT', `${base}/environments/${enc(env.name)}/variants`, variants)), setVariants(null))}>
          <${VariantsEditor} variants=${variants} onChange=${setVariants} legend=${`Variants in ${env.name}`} />
        <//>`}
  </section>`;
}

function Dependencies({ flag, base, after }: { flag: Flag; base: string; after: After }) {
  const [parent, setParent] = useState('');
  const [enabled, setEnabled_] = useState(true);
  return html`<section class="panel" aria-labelledby="flag-deps"><h2 id="flag-deps">Dependencies</h2>
    ${flag.dependencies.length === 0 ? html`<p class="muted">None.</p>` : null}
    <ul>${flag.dependencies.map((d) => html`<li>${d.enabled ? 'needs' : 'needs off'} <strong>${d.feature}</strong>${d.variants.length ? ` (variants ${d.variants.join(', ')})` : ''}
      <${Action} label=${`Remove dependency on ${d.feature}`} run=${() => after(api('DELETE', `${base}/dependencies/${enc(d.feature)}`))} /></li>`)}</ul>
    ${flag.children.length > 0 ? html`<p class="muted">Flags that depend on this one: ${flag.children.join(', ')}</p>` : null}
    <${Form} label="Add a dependency" submit="Add dependency" onSubmit=${async () => (await after(api('POST', `${base}/dependencies`, { feature: parent, enabled })), setParent(''))}>
      <${Field} label="Parent flag" value=${parent} onInput=${setParent} required />
      <${Check} label="Parent must be on" checked=${enabled} onChange=${setEnabled_} />
    <//>
  </section>`;
}
