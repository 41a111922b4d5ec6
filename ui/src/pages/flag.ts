// One flag: first what one comes for, its environments, each with its switch and its strategies
// in words with a rollout bar (add, edit, disable, delete, reorder) and its variants; then its
// usage over time and its history; beside them its details, tags and dependencies. "Try it"
// (playground-panel.ts) answers what the flag does for a context.
import { useState } from 'preact/hooks';
import { blockedBy, need, needIn } from '../access.js';
import { api, enc, get } from '../api.js';
import { askedChange } from '../asked-change.js';
import { asksFirst, changeQuestion, switchesOff, switchQuestion, type Change } from '../change-words.js';
import { archiveOrPropose, useDrafting, useRules, type Rule } from '../change-requests.js';
import { Action, Check, CopyButton, ErrorNote, Field, Form, Opener, Page, Select, Switch, useLoad, when } from '../components.js';
import { describeConstraint } from '../constraint-editor.js';
import { html } from '../html.js';
import { changed } from '../live.js';
import { navigate } from '../router.js';
import { StrategyEditor, useChoices, VariantsEditor, variantsProblem, type Choices, type Strategy, type Variant } from '../strategy-editor.js';
import { rolloutOf, strategyWords } from '../words.js';
import { Usage } from '../usage-chart.js';
import { FlagImpactCharts } from '../impact-charts.js';
import { useMetrics } from '../impact-chart.js';
import { ReleasePlan, useProgressionTargets, type PlanContext, type Template } from '../release-plan.js';
import { useFirings } from '../safeguards.js';
import { flip, StaleBadges, switchLabel, TypeSelect, useFlagTypes } from './flags.js';
import { EventList, type EventRow } from './events.js';
import { PlaygroundPanel } from '../playground-panel.js';
import { ConnectSdk } from '../connect-sdk.js';
import { CopyTo } from '../copy-setup.js';
import { Star } from '../flag-tools.js';

interface FlagEnv { name: string; type: string; enabled: boolean; strategies: Strategy[]; variants: Variant[]; lastSeenAt: string | null }
interface Flag {
  name: string; project: string; type: string; description: string | null; stale: boolean; impressionData: boolean; createdAt: string; lastSeenAt: string | null;
  environments: FlagEnv[]; tags: { type: string; value: string }[]; dependencies: { feature: string; enabled: boolean; variants: string[] }[]; children: string[];
  favorite?: boolean;
}

/** How many of the flag's events its page shows; the events page has them all. */
const HISTORY = 20;

export function FlagPage({ project, flag }: { project: string; flag: string }) {
  const base = `/api/admin/projects/${enc(project)}/features/${enc(flag)}`;
  const loaded = useLoad(() => get<Flag>(base), [base]);
  const events = useLoad(() => get<{ events: EventRow[] }>(`/api/admin/events/${enc(flag)}`), [flag]);
  // Loaded once for the page: every environment's panel and strategy editor chooses from them.
  const choices = useChoices();
  const types = useFlagTypes();
  // Loaded once for every environment's release plan and safeguards.
  const templates = useLoad(() => get<Template[]>('/api/admin/release-plan-templates'), []);
  const firings = useFirings(flag);
  const metrics = useMetrics();
  const rules = useRules(project);
  const targets = useProgressionTargets(flag);
  const f = loaded.data;
  const crumbs: [string, string | null][] = [['Projects', '#/projects'], [project, `#/projects/${enc(project)}/overview`], ['Flags', `#/projects/${enc(project)}`], [flag, null]];
  if (!f) return html`<${Page} title=${flag} crumbs=${crumbs}>${loaded.error ? html`<${ErrorNote} error=${loaded.error} />` : html`<p class="loading">Loading…</p>`}<//>`;
  const after = async <T>(p: Promise<T>) => {
    const r = await p;
    changed();
    return r;
  };
  const segmentName = (id: number) => choices.data?.segments.find((s) => s.id === id)?.name ?? `#${id}`;
  const plans: PlanContext = { project: f.project, flag: f.name, templates: templates.data, firings: firings.data, metrics: metrics.data, targets: targets.data, after };
  return html`<${Page} title=${f.name} crumbs=${crumbs}
    beside=${html`<${Star} project=${f.project} flag=${f.name} on=${!!f.favorite} /><${CopyButton} text=${f.name} label="Copy name" title="Copy the flag's name, as code asks for it" /> <span class="badge">${f.type}</span><${StaleBadges} flag=${f} types=${types.data} />`}
    actions=${html`<${Action} label="Archive" kind="danger" confirm=${`Archive ${f.name}? SDKs stop seeing it.`} need=${needIn('DELETE_FEATURE', f.project, onIn(f))}
      run=${async () => (await archiveOrPropose([{ project: f.project, name: f.name, on: onIn(f) }], () => after(api('DELETE', base))) ? navigate(`/projects/${enc(project)}`) : undefined)} />`}>
    ${f.description ? html`<p class="lead">${f.description}</p>` : null}
    <p class="muted">Created ${when(f.createdAt)} · last evaluated ${when(f.lastSeenAt)}</p>
    <${ErrorNote} error=${loaded.error} />
    <div class="flag-layout">
      <div class="flag-main">
        ${f.environments.map((e) => html`<${EnvironmentPanel} key=${e.name} flag=${f} env=${e} base=${base} after=${after} choices=${choices.data} segmentName=${segmentName} plans=${plans} rule=${rules.data?.find((r) => r.environment === e.name)} />`)}
        <${PlaygroundPanel} flag=${f} fields=${choices.data?.fields ?? []} />
        <${ConnectSdk} flag=${f.name} project=${f.project} environments=${f.environments.map((e) => e.name)} />
        <${Usage} flag=${f.name} environments=${f.environments.map((e) => e.name)} />
        <${FlagImpactCharts} project=${f.project} flag=${f.name} />
        <section class="panel" aria-labelledby="flag-events"><h2 id="flag-events">History</h2>
          <${ErrorNote} error=${events.error} />
          <${EventList} events=${(events.data?.events ?? []).slice(0, HISTORY)} segmentName=${segmentName} compact />
          ${(events.data?.events.length ?? 0) > HISTORY ? html`<p><a href=${`#/events?feature=${enc(f.name)}`}>All of ${f.name}'s events</a></p>` : null}
        </section>
      </div>
      <aside class="flag-side" aria-label="About this flag">
        <${Metadata} flag=${f} base=${base} after=${after} types=${types.data} />
        <${Tags} flag=${f} after=${after} />
        <${Dependencies} flag=${f} base=${base} after=${after} />
      </aside>
    </div>
  <//>`;
}

type After = <T>(p: Promise<T>) => Promise<T>;

/** Where the flag is on: archiving it, or changing what it depends on, takes effect there. */
const onIn = (f: Flag) => f.environments.filter((e) => e.enabled).map((e) => e.name);

function Metadata({ flag, base, after, types }: { flag: Flag; base: string; after: After; types: Parameters<typeof TypeSelect>[0]['types'] }) {
  const [description, setDescription] = useState(flag.description ?? '');
  const [type, setType] = useState(flag.type);
  const [stale, setStale] = useState(flag.stale);
  const [impressionData, setImpressionData] = useState(flag.impressionData);
  return html`<section class="panel" aria-labelledby="flag-meta"><h2 id="flag-meta">About</h2>
    <${Form} label="Flag details" submit="Save details" need=${need('UPDATE_FEATURE', flag.project)} onSubmit=${() => after(api('PATCH', base, [
      { op: 'replace', path: '/description', value: description },
      { op: 'replace', path: '/type', value: type },
      { op: 'replace', path: '/stale', value: stale },
      { op: 'replace', path: '/impressionData', value: impressionData },
    ]))}>
      <${Field} label="Description" value=${description} onInput=${setDescription} />
      <${TypeSelect} value=${type} onChange=${setType} types=${types} />
      <${Check} label="Stale" checked=${stale} onChange=${setStale} />
      <${Check} label="Impression data" checked=${impressionData} onChange=${setImpressionData} />
    <//>
  </section>`;
}

function Tags({ flag, after }: { flag: Flag; after: After }) {
  const tagTypes = useLoad(() => get<{ tagTypes: { name: string }[] }>('/api/admin/tag-types').then((r) => r.tagTypes.map((t) => t.name)), []);
  const known = useLoad(() => get<{ tags: { type: string; value: string }[] }>('/api/admin/tags').then((r) => r.tags), []);
  const [type, setType] = useState('simple');
  const [value, setValue] = useState('');
  const path = `/api/admin/features/${enc(flag.name)}/tags`;
  return html`<section class="panel" aria-labelledby="flag-tags"><h2 id="flag-tags">Tags</h2>
    ${flag.tags.length === 0 ? html`<p class="muted">No tags yet.</p>` : null}
    <ul class="chips">${flag.tags.map((t) => html`<li class="badge">${t.type}:${t.value}
      <${Action} kind="link" icon="✕" label=${`Remove ${t.type}:${t.value}`} need=${need('UPDATE_FEATURE', flag.project)} run=${() => after(api('DELETE', `${path}/${enc(t.type)}/${enc(t.value)}`))} /></li>`)}</ul>
    <${Form} label="Add a tag" submit="Add tag" need=${need('UPDATE_FEATURE', flag.project)} onSubmit=${async () => {
      await after(api('POST', path, { type, value }));
      setValue('');
    }}>
      <${Select} label="Tag type" value=${type} options=${[...new Set([...(tagTypes.data ?? []), type])]} onChange=${setType} />
      <${Field} label="Tag value" value=${value} onInput=${setValue} required suggestions=${(known.data ?? []).filter((t) => t.type === type).map((t) => t.value)} />
    <//>
  </section>`;
}

/** A share as a bar: the text beside it says the number, so the bar is hidden from screen readers. */
function RolloutBar({ share }: { share: number }) {
  return html`<svg class="rollout-bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true"><rect width="100" height="6" class="bar-no" /><rect width=${share} height="6" class="bar-yes" /></svg>`;
}

function StrategyLine({ s, segmentName }: { s: Strategy; segmentName: (id: number) => string }) {
  const share = rolloutOf(s);
  return html`<div class="strategy">
    <p class="strategy-words"><strong>${s.title || strategyWords(s)}</strong>${s.title && s.title !== strategyWords(s) ? html` <span class="muted">${strategyWords(s)}</span>` : null}
      ${s.disabled ? html` <span class="badge warn">disabled</span>` : null}</p>
    ${share !== null ? html`<${RolloutBar} share=${share} />` : null}
    ${s.constraints.length > 0 ? html`<div class="where"><span class="muted">where</span><ul class="constraint-list">${s.constraints.map((c, i) => html`<li><span class="constraint-text">${describeConstraint(c)}</span>${i < s.constraints.length - 1 ? html` <span class="muted">and</span>` : null}</li>`)}</ul></div>` : null}
    ${s.segments.length > 0 ? html`<div class="muted">segments ${s.segments.map(segmentName).join(', ')}</div>` : null}
    ${s.variants.length > 0 ? html`<div class="muted">variants ${s.variants.map((v) => `${v.name} ${v.weight / 10}%`).join(', ')}</div>` : null}
  </div>`;
}

function EnvironmentPanel({ flag, env, base, after, choices, segmentName, plans, rule }: { flag: Flag; env: FlagEnv; base: string; after: After; choices: Choices | undefined; segmentName: (id: number) => string; plans: PlanContext; rule?: Rule }) {
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [variants, setVariants] = useState<Variant[] | null>(null);
  // What is being copied to another environment (copy-setup.ts): a strategy's id, '*' for the whole set-up.
  const [copying, setCopying] = useState<string | null>(null);
  const copyTo = (s?: Strategy) => html`<${CopyTo} project=${flag.project} flag=${flag.name} envs=${flag.environments} from=${env} strategy=${s} after=${after} segmentName=${segmentName} onDone=${() => setCopying(null)} />`;
  const copyOpener = (key: string, label: string) => (flag.environments.length > 1
    ? html`<${Opener} label=${label} expanded=${copying === key} need=${need('CREATE_FEATURE_STRATEGY', flag.project)} onClick=${() => setCopying(copying === key ? null : key)} />` : null);
  const sbase = `${base}/environments/${enc(env.name)}/strategies`;
  const body = (s: Strategy) => ({ name: s.name, title: s.title ?? undefined, disabled: s.disabled ?? false, parameters: s.parameters, constraints: s.constraints, segments: s.segments, variants: s.variants });
  // Every change here asks first in production (asked-change.ts), in words, then offers Undo.
  const facts = { flag: flag.name, name: env.name, type: env.type, enabled: env.enabled, strategies: env.strategies };
  // Where change requests are on (change-requests.ts), each change goes to the person's draft instead, as its action.
  const draft = useDrafting(flag.project, flag.name, env.name, rule);
  const change = <T>(c: Change, make: () => Promise<T>, undo: (made: T) => Promise<unknown>, action: string, payload: unknown) => {
    if (draft.on) return draft.propose(action, payload, changeQuestion(facts, c, segmentName).done);
    // The server switches the environment off when its last enabled strategy goes: Undo puts the
    // strategy back first, then switches it on again, so it never is on for everyone meanwhile.
    const off = switchesOff(facts, c);
    return askedChange(facts, c, () => after(make()), (made: T) => after((async () => {
      await undo(made);
      if (off) await api('POST', `${base}/environments/${enc(env.name)}/on`);
    })()), segmentName);
  };
  const sortOrder = (ids: string[]) => api('POST', `${sbase}/set-sort-order`, ids.map((id, k) => ({ id, sortOrder: k })));
  const ids = env.strategies.map((x) => x.id!);
  const move = (i: number, by: number) => {
    const order = [...ids];
    const [id] = order.splice(i, 1);
    order.splice(i + by, 0, id);
    return change({ kind: 'move', before: env.strategies[i], by }, () => sortOrder(order), () => sortOrder(ids), 'reorderStrategy', order.map((id, k) => ({ id, sortOrder: k })));
  };
  const put = (s: Strategy, next: Strategy) => api('PUT', `${sbase}/${enc(s.id!)}`, body(next));
  // A deleted strategy comes back as a new one, put back in its place.
  const remove = (s: Strategy) => change({ kind: 'delete', before: s }, () => api('DELETE', `${sbase}/${enc(s.id!)}`), async () => {
    const made = await api<Strategy>('POST', sbase, body(s));
    await sortOrder(ids.map((id) => (id === s.id ? made.id! : id)));
  }, 'deleteStrategy', { id: s.id });
  const headingId = `env-${env.name}`;
  const live = env.strategies.some((s) => !s.disabled);
  // What each control needs; the panel's note says why the person may not, when they may not switch it.
  // Adding to a draft needs what the draft route asks, whatever the change.
  const needHere = (permission: string) => need(draft.on ? 'UPDATE_FEATURE_ENVIRONMENT' : permission, flag.project, env.name);
  const switchNeed = needHere('UPDATE_FEATURE_ENVIRONMENT');
  const blocked = blockedBy(switchNeed);
  const strategyNeed = needHere('UPDATE_FEATURE_STRATEGY');
  const variantsNeed = needHere('UPDATE_FEATURE_ENVIRONMENT_VARIANTS');
  const update = (s: Strategy, next: Strategy) => ['updateStrategy', { id: s.id, ...body(next) }] as const;
  return html`<section class=${`panel env${env.enabled ? ' on' : ''}`} aria-labelledby=${headingId}>
    <header class="env-head">
      <${Switch} on=${env.enabled} label=${switchLabel(flag.name, env.name, env.enabled)} need=${switchNeed} onToggle=${() => (draft.on ? draft.propose('updateEnabled', { enabled: !env.enabled }, switchQuestion(flag.name, env, !env.enabled).title.replace(/\?$/, '')) : flip(flag.project, flag.name, { ...env, hasEnabledStrategies: live }, !env.enabled))} />
      <h2 id=${headingId}>${env.name}</h2>
      ${env.type === 'production' ? html`<span class="badge prod">production</span>` : null}
      <span class="muted">${env.enabled ? (live ? 'on, for the strategies below' : 'on for everyone') : 'off for everyone'} · last evaluated ${when(env.lastSeenAt)}</span></header>
    ${draft.banner}
    ${blocked ? html`<p class="note" role="note">${blocked}</p>` : null}
    <h3>Strategies</h3>
    ${env.strategies.length === 0 ? html`<p class="muted">No strategies: switched on, the flag is on for everyone.</p>` : null}
    <ol class="strategies">${env.strategies.map((s, i) => html`<li class=${s.disabled ? 'disabled' : ''}>
      <${StrategyLine} s=${s} segmentName=${segmentName} />
      <div class="row-actions">
        <${Opener} label="Edit" expanded=${editing === s.id} need=${strategyNeed} onClick=${() => setEditing(editing === s.id ? null : s.id!)} />
        <${Action} label=${s.disabled ? 'Enable' : 'Disable'} need=${strategyNeed}
          run=${() => change({ kind: s.disabled ? 'enable' : 'disable', before: s }, () => put(s, { ...s, disabled: !s.disabled }), () => put(s, s), ...update(s, { ...s, disabled: !s.disabled }))} />
        <${Action} label="Move up" disabled=${i === 0} need=${strategyNeed} run=${() => move(i, -1)} />
        <${Action} label="Move down" disabled=${i === env.strategies.length - 1} need=${strategyNeed} run=${() => move(i, 1)} />
        <${Action} label="Delete" kind="danger" confirm=${asksFirst(env) ? undefined : 'Delete this strategy?'} need=${needHere('DELETE_FEATURE_STRATEGY')} run=${() => remove(s)} />
        ${copyOpener(s.id!, 'Copy to…')}
      </div>
      ${copying === s.id ? copyTo(s) : null}
      ${editing === s.id ? html`<${StrategyEditor} initial=${s} flag=${flag.name} choices=${choices} submit="Save strategy" need=${strategyNeed}
        onSave=${async (n: Strategy) => (await change({ kind: 'edit', before: s, after: n }, () => put(s, n), () => put(s, s), ...update(s, n))) && setEditing(null)} />` : null}
    </li>`)}</ol>
    ${adding
      ? html`<${StrategyEditor} initial=${{ name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: flag.name }, constraints: [], segments: [], variants: [] }}
          flag=${flag.name} choices=${choices} submit="Add strategy" need=${needHere('CREATE_FEATURE_STRATEGY')}
          onSave=${async (s: Strategy) => (await change({ kind: 'add', after: s }, () => api<Strategy>('POST', sbase, body(s)), (made) => api('DELETE', `${sbase}/${enc(made.id!)}`), 'addStrategy', body(s))) && setAdding(false)} />`
      : html`<${Opener} label=${`Add strategy in ${env.name}`} need=${needHere('CREATE_FEATURE_STRATEGY')} onClick=${() => setAdding(true)} />`}
    ${env.strategies.length + env.variants.length > 0 ? copyOpener('*', `Copy ${env.name}'s set-up to…`) : null}
    ${copying === '*' ? copyTo() : null}
    <${ReleasePlan} ctx=${plans} env=${env.name} envEnabled=${env.enabled} />
    <h3>Variants</h3>
    ${variants === null
      ? html`<p>${env.variants.length > 0 ? env.variants.map((v) => html`<span class="badge">${v.name} ${v.weight / 10}%</span> `)
          // A strategy's own variants win when it matches: "None" under them would say the flag has no variants.
          : html`<span class="muted">${env.strategies.some((s) => s.variants.length > 0) ? "None of the environment's own: a strategy's variants (listed with it) apply when it matches." : 'None.'}</span>`}
          <${Opener} label=${`Edit variants in ${env.name}`} need=${variantsNeed} onClick=${() => setVariants(env.variants)} /></p>`
      : html`<${Form} label=${`Variants in ${env.name}`} submit="Save variants" need=${variantsNeed} stop=${variantsProblem(variants)} onSubmit=${async () => {
          const path = `${base}/environments/${enc(env.name)}/variants`;
          if (await change({ kind: 'variants', before: env.variants, after: variants }, () => api('PUT', path, variants), () => api('PUT', path, env.variants), 'patchVariant', { variants })) setVariants(null);
        }}>
          <${VariantsEditor} variants=${variants} onChange=${setVariants} legend=${`Variants in ${env.name}`} />
        <//>`}
  </section>`;
}

function Dependencies({ flag, base, after }: { flag: Flag; base: string; after: After }) {
  const [parent, setParent] = useState('');
  const [enabled, setEnabled] = useState(true);
  // The parent must be in the same project: offer the flags whose names hold what is typed.
  const found = useLoad(() => get<{ features: { name: string }[] }>(`/api/admin/search/features?project=IS:${enc(flag.project)}&query=${enc(parent)}&sortBy=name&limit=20`)
    .then((r) => r.features.map((x) => x.name).filter((n) => n !== flag.name)), [parent]);
  return html`<section class="panel" aria-labelledby="flag-deps"><h2 id="flag-deps">Dependencies</h2>
    ${flag.dependencies.length === 0 ? html`<p class="muted">None: this flag does not wait for another.</p>` : null}
    <ul>${flag.dependencies.map((d) => html`<li>${d.enabled ? 'needs' : 'needs off'} <a href=${`#/projects/${enc(flag.project)}/flags/${enc(d.feature)}`}>${d.feature}</a>${d.variants.length ? ` (variants ${d.variants.join(', ')})` : ''}
      <${Action} label=${`Remove dependency on ${d.feature}`} need=${needIn('UPDATE_FEATURE_DEPENDENCY', flag.project, onIn(flag))} run=${() => after(api('DELETE', `${base}/dependencies/${enc(d.feature)}`))} /></li>`)}</ul>
    ${flag.children.length > 0 ? html`<p class="muted">Flags that depend on this one: ${flag.children.join(', ')}</p>` : null}
    <${Form} label="Add a dependency" submit="Add dependency" need=${needIn('UPDATE_FEATURE_DEPENDENCY', flag.project, onIn(flag))} onSubmit=${async () => (await after(api('POST', `${base}/dependencies`, { feature: parent, enabled })), setParent(''))}>
      <${Field} label="Parent flag" value=${parent} onInput=${setParent} required suggestions=${found.data ?? []} hint="a flag of the same project" />
      <${Check} label="Parent must be on" checked=${enabled} onChange=${setEnabled} />
    <//>
  </section>`;
}
