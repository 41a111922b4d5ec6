// Release templates: each an ordered list of milestones, each milestone a list of strategies (the
// flag page's strategy editor, with `{{featureName}}` standing for the flag a plan is applied to).
// Listing is for everyone who may read; creating, editing, archiving and deleting for those the
// API lets (Admins and Editors): others see the templates with the reason they may not.
import { useState } from 'preact/hooks';
import { blockedUnless, needAttributes, need } from '../access.js';
import { api, enc, get } from '../api.js';
import { Action, Empty, ErrorNote, Field, Page, useLoad, when } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';
import { milestoneWords, type Milestone, type MilestoneStrategy, type Template } from '../release-plan.js';
import { StrategyEditor, useChoices, type Choices, type Strategy } from '../strategy-editor.js';
import { strategyWords } from '../words.js';

interface DraftMilestone { id?: string; name: string; strategies: MilestoneStrategy[] }
interface Draft { id?: string; name: string; description: string; milestones: DraftMilestone[] }

const FEATURE = '{{featureName}}';

const toEditor = (s: MilestoneStrategy): Strategy => ({
  name: s.strategyName, title: s.title ?? null, parameters: { ...s.parameters }, constraints: s.constraints as Strategy['constraints'], segments: s.segments, variants: s.variants as Strategy['variants'],
});
const fromEditor = (s: Strategy, id?: string): MilestoneStrategy => ({
  ...(id ? { id } : {}), strategyName: s.name, title: s.title || null, parameters: s.parameters, constraints: s.constraints, segments: s.segments, variants: s.variants,
});
const NEW_STRATEGY: Strategy = { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: FEATURE }, constraints: [], segments: [], variants: [] };

/** The body of POST and PUT: milestones and strategies in the order shown. */
function bodyOf(d: Draft) {
  return {
    name: d.name, description: d.description || null,
    milestones: d.milestones.map((m, i) => ({
      ...(m.id ? { id: m.id } : {}), name: m.name, sortOrder: i,
      strategies: m.strategies.map((s, k) => ({ ...s, sortOrder: k })),
    })),
  };
}

export function ReleaseTemplatesPage() {
  const templates = useLoad(() => get<Template[]>('/api/admin/release-plan-templates'), []);
  const choices = useChoices();
  const [draft, setDraft] = useState<Draft | null>(null);
  const createBlocked = blockedUnless('CREATE_RELEASE_TEMPLATE');
  const updateBlocked = blockedUnless('UPDATE_RELEASE_TEMPLATE');
  const list = [...(templates.data ?? [])].sort((a, b) => Number(!!a.archivedAt) - Number(!!b.archivedAt) || a.name.localeCompare(b.name));
  const after = async (p: Promise<unknown>) => (await p, templates.reload(), changed());
  const edit = (t: Template) => setDraft({
    id: t.id, name: t.name, description: t.description ?? '',
    milestones: [...t.milestones].sort((a, b) => a.sortOrder - b.sortOrder).map((m) => ({ id: m.id, name: m.name, strategies: m.strategies.map((s) => ({ ...s })) })),
  });
  return html`<${Page} title="Release templates"
    actions=${html`<button type="button" class="primary" disabled=${!!createBlocked || draft !== null} title=${createBlocked ?? undefined} ...${needAttributes(need('CREATE_RELEASE_TEMPLATE'))}
      onClick=${() => setDraft({ name: '', description: '', milestones: [{ name: 'Milestone 1', strategies: [] }] })}>New template</button>`}>
    <p class="lead">A template is a rollout in steps. Applied to a flag's environment (on the flag's page) it becomes a release plan: its milestones are served one at a time, started by hand or after an interval, and safeguards can pause it.</p>
    ${createBlocked ? html`<p class="note" role="note">${createBlocked}</p>` : null}
    <${ErrorNote} error=${templates.error} />
    ${draft ? html`<${TemplateEditor} draft=${draft} choices=${choices.data} onCancel=${() => setDraft(null)}
      onSave=${async (d: Draft) => {
        await after(d.id ? api('PUT', `/api/admin/release-plan-templates/${enc(d.id)}`, bodyOf(d)) : api('POST', '/api/admin/release-plan-templates', bodyOf(d)));
        setDraft(null);
      }} />` : null}
    ${templates.data && list.length === 0 ? html`<${Empty} title="No release templates yet"><p>Make one with New template.</p><//>` : null}
    ${list.map((t) => html`<section class=${`panel template${t.archivedAt ? ' archived' : ''}`} key=${t.id} aria-labelledby=${`tpl-${t.id}`}>
      <header class="env-head"><h2 id=${`tpl-${t.id}`}>${t.name}</h2>${t.archivedAt ? html`<span class="badge warn">archived ${when(t.archivedAt)}</span>` : null}</header>
      ${t.description ? html`<p>${t.description}</p>` : null}
      <ol class="milestones">${[...t.milestones].sort((a, b) => a.sortOrder - b.sortOrder).map((m: Milestone) => html`<li><strong>${m.name}</strong> <span class="muted">${milestoneWords(m)}</span></li>`)}</ol>
      <div class="row-actions">
        ${t.archivedAt ? null : html`<button type="button" disabled=${!!updateBlocked || draft !== null} title=${updateBlocked ?? undefined} ...${needAttributes(need('UPDATE_RELEASE_TEMPLATE'))} onClick=${() => edit(t)}>Edit ${t.name}</button>
          <${Action} label=${`Archive ${t.name}`} need=${need('DELETE_RELEASE_TEMPLATE')} confirm=${`Archive ${t.name}? It can no longer be applied; plans made from it stay.`}
            run=${() => after(api('POST', `/api/admin/release-plan-templates/archive/${enc(t.id)}`))} />`}
        <${Action} label=${`Delete ${t.name}`} kind="danger" need=${need('DELETE_RELEASE_TEMPLATE')} confirm=${`Delete ${t.name}? Plans made from it stay.`}
          run=${() => after(api('DELETE', `/api/admin/release-plan-templates/${enc(t.id)}`))} />
      </div>
    </section>`)}
  <//>`;
}

type Editing = { milestone: number; strategy: number | 'new' } | null;

function TemplateEditor(props: { draft: Draft; choices: Choices | undefined; onSave: (d: Draft) => Promise<unknown>; onCancel: () => void }) {
  const [d, setD] = useState<Draft>(props.draft);
  const [editing, setEditing] = useState<Editing>(null);
  const setMilestone = (i: number, m: DraftMilestone) => setD({ ...d, milestones: d.milestones.map((x, j) => (j === i ? m : x)) });
  const move = (i: number, by: number) => {
    const order = [...d.milestones];
    const [m] = order.splice(i, 1);
    order.splice(i + by, 0, m);
    setD({ ...d, milestones: order });
    setEditing(null);
  };
  return html`<section class="panel editor" aria-label=${d.id ? `Edit template ${props.draft.name}` : 'New template'}>
    <h2>${d.id ? `Edit ${props.draft.name}` : 'New template'}</h2>
    <${Field} label="Template name" value=${d.name} onInput=${(v: string) => setD({ ...d, name: v })} required />
    <${Field} label="Description" value=${d.description} onInput=${(v: string) => setD({ ...d, description: v })} />
    <ol class="milestone-editor">${d.milestones.map((m, i) => html`<li role="group" aria-label=${`Milestone ${i + 1}`}>
      <${Field} label=${`Milestone ${i + 1} name`} value=${m.name} onInput=${(v: string) => setMilestone(i, { ...m, name: v })} required />
      ${m.strategies.length === 0 ? html`<p class="muted">No strategies yet: while it is served, this milestone adds nothing.</p>` : null}
      <ul class="strategies">${m.strategies.map((s, k) => html`<li>
        <span>${s.title || strategyWords({ name: s.strategyName, parameters: s.parameters })}</span>
        <button type="button" onClick=${() => setEditing({ milestone: i, strategy: k })}>Edit strategy ${k + 1} of ${m.name}</button>
        <button type="button" class="danger" onClick=${() => setMilestone(i, { ...m, strategies: m.strategies.filter((_, j) => j !== k) })}>Remove strategy ${k + 1} of ${m.name}</button>
        ${editing?.milestone === i && editing.strategy === k ? html`<${StrategyEditor} initial=${toEditor(s)} flag=${FEATURE} choices=${props.choices} submit="Keep strategy" canDisable=${false}
          onSave=${async (n: Strategy) => (setMilestone(i, { ...m, strategies: m.strategies.map((x, j) => (j === k ? fromEditor(n, x.id) : x)) }), setEditing(null))} />` : null}
      </li>`)}</ul>
      ${editing?.milestone === i && editing.strategy === 'new'
        ? html`<${StrategyEditor} initial=${NEW_STRATEGY} flag=${FEATURE} choices=${props.choices} submit="Add to milestone" canDisable=${false}
            onSave=${async (n: Strategy) => (setMilestone(i, { ...m, strategies: [...m.strategies, fromEditor(n)] }), setEditing(null))} />`
        : html`<button type="button" onClick=${() => setEditing({ milestone: i, strategy: 'new' })}>Add strategy to ${m.name || `milestone ${i + 1}`}</button>`}
      <div class="row-actions">
        <button type="button" disabled=${i === 0} onClick=${() => move(i, -1)}>Move milestone ${i + 1} up</button>
        <button type="button" disabled=${i === d.milestones.length - 1} onClick=${() => move(i, 1)}>Move milestone ${i + 1} down</button>
        <button type="button" class="danger" onClick=${() => (setD({ ...d, milestones: d.milestones.filter((_, j) => j !== i) }), setEditing(null))}>Remove milestone ${i + 1}</button>
      </div>
    </li>`)}</ol>
    <button type="button" onClick=${() => setD({ ...d, milestones: [...d.milestones, { name: `Milestone ${d.milestones.length + 1}`, strategies: [] }] })}>Add milestone</button>
    <div class="form-actions">
      <${Action} label="Save template" kind="primary" run=${() => props.onSave(d)} />
      <button type="button" onClick=${props.onCancel}>Cancel</button>
    </div>
  </section>`;
}
