// A flag's release plan in one environment: applying a template, then the plan as a timeline of
// milestones (the one served highlighted), starting another (forward or back), the progressions
// that move it on by themselves and what each waits for ("moves to 50% at 14:32 UTC", "paused:
// safeguard … fired"), resuming a paused plan, removing the plan; and the safeguards of the plan
// and of the environment. Whoever may switch the flag's environment may change all of it; others
// see it with the reason they may not.
import { useState } from 'preact/hooks';
import { need, type Need } from './access.js';
import { api, enc, get } from './api.js';
import { Action, Opener, ErrorNote, Field, Form, Select, useLoad, when } from './components.js';
import { html } from './html.js';
import type { MetricInfo } from './impact-chart.js';
import { firingWords, flagEvents, Safeguards, type Firing, type Safeguard } from './safeguards.js';
import { strategyWords } from './words.js';

export interface MilestoneStrategy { id?: string; strategyName: string; title?: string | null; parameters: Record<string, string>; constraints: unknown[]; segments: number[]; variants: unknown[] }
export interface Milestone { id: string; name: string; sortOrder: number; strategies: MilestoneStrategy[] }
export interface Template { id: string; name: string; description: string | null; archivedAt: string | null; milestones: Milestone[] }
interface PlanMilestone extends Milestone { startedAt: string | null; transitionCondition: { intervalMinutes: number } | null; progressionExecutedAt: string | null; pausedAt: string | null }
interface Plan { id: string; name: string; activeMilestoneId: string | null; milestones: PlanMilestone[]; safeguards: Safeguard[] }

/** What the plan panels of a flag's page share: loaded once for the page. */
export interface PlanContext {
  project: string; flag: string; templates: Template[] | undefined; firings: Map<string, Firing> | undefined; metrics: MetricInfo[] | undefined;
  targets: Map<string, string> | undefined; after: (p: Promise<unknown>) => Promise<unknown>;
}

/**
 * Where each progression of `flag`'s plans goes, by source milestone id. A plan's milestones carry
 * their progression's interval but not its target; the `milestone-progression-changed` event that
 * set it names both, so a progression set elsewhere to another milestone than the next is shown as
 * it is.
 */
export function useProgressionTargets(flag: string) {
  return useLoad(async () => {
    const page = await flagEvents<{ sourceMilestone: string; targetMilestone: string }>('milestone-progression-changed', flag);
    const out = new Map<string, string>();
    for (const e of page.events) if (e.data?.sourceMilestone && !out.has(e.data.sourceMilestone)) out.set(e.data.sourceMilestone, e.data.targetMilestone);
    return out;
  }, [flag]);
}

const MINUTE = 60_000;
const hhmm = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;

/** A milestone's strategies in words ("25% of users, by userId"). */
export function milestoneWords(m: Milestone): string {
  if (m.strategies.length === 0) return 'no strategies';
  return m.strategies.map((s) => s.title || strategyWords({ name: s.strategyName, parameters: s.parameters ?? {} }) + (s.constraints.length ? ' (with constraints)' : '')).join('; ');
}

/** Why the plan's active milestone is paused, in words. */
function pauseWords(plan: Plan, active: PlanMilestone, envEnabled: boolean, firings: Map<string, Firing> | undefined): string {
  const since = Date.parse(active.pausedAt!);
  // The safeguard that fired last, at or after the pause began (its firing is what set it).
  const fired = plan.safeguards.filter((s) => s.triggeredAt && Date.parse(s.triggeredAt) >= since - 1_000)
    .sort((a, b) => Date.parse(b.triggeredAt!) - Date.parse(a.triggeredAt!))[0];
  if (fired) return `paused: safeguard ${firingWords(fired, firings?.get(fired.id))}`;
  if (!envEnabled) return `paused since ${when(active.pausedAt)} UTC: the environment is off; switching it on resumes the plan`;
  return `paused since ${when(active.pausedAt)} UTC`;
}

export function ReleasePlan({ ctx, env, envEnabled }: { ctx: PlanContext; env: string; envEnabled: boolean }) {
  const base = `/api/admin/projects/${enc(ctx.project)}/features/${enc(ctx.flag)}/environments/${enc(env)}`;
  const plans = useLoad(() => get<Plan[]>(`${base}/release-plans`), [base]);
  const envGuards = useLoad(() => get<Safeguard[]>(`${base}/safeguards`), [base]);
  const needed = need('UPDATE_FEATURE_ENVIRONMENT', ctx.project, env);
  const after = (p: Promise<unknown>) => ctx.after(p).then(() => (plans.reload(), envGuards.reload()));
  const plan = plans.data?.[0];
  return html`<div class="release">
    <h3>Release plan</h3>
    <${ErrorNote} error=${plans.error} />
    ${!plans.data ? (plans.error ? null : html`<p class="loading">Loading…</p>`)
      : plan ? html`<${PlanView} plan=${plan} base=${base} env=${env} envEnabled=${envEnabled} needed=${needed} ctx=${ctx} after=${after} />`
      : html`<${ApplyTemplate} templates=${ctx.templates} base=${base} env=${env} needed=${needed} after=${after} />`}
    <h3>Safeguards on ${env}</h3>
    <${ErrorNote} error=${envGuards.error} />
    <${Safeguards} list=${envGuards.data ?? []} path=${`${base}/safeguards`} needed=${needed} firings=${ctx.firings} metrics=${ctx.metrics}
      does=${`switches ${env} off`} label=${`Safeguards on ${env}`} after=${after} />
  </div>`;
}

function ApplyTemplate({ templates, base, env, needed, after }: { templates: Template[] | undefined; base: string; env: string; needed: Need; after: (p: Promise<unknown>) => Promise<unknown> }) {
  const usable = (templates ?? []).filter((t) => !t.archivedAt);
  const [chosen, setChosen] = useState('');
  const id = chosen || usable[0]?.id || '';
  if (templates && usable.length === 0) return html`<p class="muted">No release plan. There is no release template to apply yet: make one on the <a href="#/release-templates">Release templates</a> page.</p>`;
  return html`<p class="muted">No release plan: the strategies above are all ${env} serves.</p>
    <div class="toolbar">
      <${Select} label=${`Release template for ${env}`} value=${id} options=${usable.map((t) => [t.id, `${t.name} (${t.milestones.length} milestone${t.milestones.length === 1 ? "" : "s"})`] as [string, string])} onChange=${setChosen} />
      <${Action} label="Apply template" kind="primary" need=${needed} disabled=${!id} run=${() => after(api('POST', `${base}/release-plans`, { templateId: id }))} />
    </div>`;
}

function PlanView({ plan, base, env, envEnabled, needed, ctx, after }: {
  plan: Plan; base: string; env: string; envEnabled: boolean; needed: Need; ctx: PlanContext; after: (p: Promise<unknown>) => Promise<unknown>;
}) {
  const ms = [...plan.milestones].sort((a, b) => a.sortOrder - b.sortOrder);
  const active = ms.find((m) => m.id === plan.activeMilestoneId);
  const planPath = `${base}/release-plans/${enc(plan.id)}`;
  return html`<div class="plan" role="group" aria-label=${`Release plan ${plan.name} in ${env}`}>
    <p><strong>${plan.name}</strong> <span class="muted">${active ? `serving ${active.name}` : `nothing served yet: the first milestone starts when ${env} is switched on`}</span>${' '}
      <${Action} label="Remove release plan" kind="danger" need=${needed} confirm=${`Remove the release plan from ${env}? Its milestone's strategies stop being served.`}
        run=${() => after(api('DELETE', planPath))} /></p>
    ${active?.pausedAt ? html`<p class="paused" role="status">${pauseWords(plan, active, envEnabled, ctx.firings)}${' '}
      <${Action} label="Resume" need=${needed} run=${() => after(api('POST', `${base}/progressions/${enc(plan.id)}/resume`))} /></p>` : null}
    <ol class="milestones" aria-label=${`Milestones of ${plan.name}`}>${ms.map((m, i) => {
      const current = m.id === plan.activeMilestoneId;
      const next = ms[i + 1];
      return html`<li key=${m.id} class=${current ? 'current' : m.startedAt ? 'started' : ''} aria-current=${current ? 'step' : undefined}>
        <p class="milestone-head"><strong>${m.name}</strong>
          ${current ? html` <span class="badge on">current</span>` : null}
          <span class="muted">${m.startedAt ? ` started ${when(m.startedAt)} UTC` : ' not started'}</span></p>
        <p class="milestone-words">${milestoneWords(m)}</p>
        ${current ? null : html`<${Action} label=${`Start ${m.name}`} need=${needed} run=${() => after(api('POST', `${planPath}/milestones/${enc(m.id)}/start`))} />`}
        ${next || m.transitionCondition ? html`<${Progression} m=${m} next=${next} target=${ms.find((x) => x.id === ctx.targets?.get(m.id))} current=${current} base=${base} needed=${needed} after=${after} />` : null}
      </li>`;
    })}</ol>
    <h4>Safeguards of the plan</h4>
    <${Safeguards} list=${plan.safeguards} path=${`${planPath}/safeguards`} needed=${needed} firings=${ctx.firings} metrics=${ctx.metrics}
      does="pauses the plan" label=${`Safeguards of the plan in ${env}`} after=${after} />
  </div>`;
}

/**
 * The progression out of `m` and what it waits for. The console sets progressions to the next
 * milestone, as a plan reads in order; one set elsewhere shows its own `target`.
 */
function Progression({ m, next, target, current, base, needed, after }: {
  m: PlanMilestone; next: PlanMilestone | undefined; target: PlanMilestone | undefined; current: boolean; base: string; needed: Need; after: (p: Promise<unknown>) => Promise<unknown>;
}) {
  const [minutes, setMinutes] = useState('');
  const [editing, setEditing] = useState(false);
  const path = `${base}/progressions/${enc(m.id)}`;
  const tc = m.transitionCondition;
  // A progression that is set goes where its event said; a new one goes to the next milestone.
  const to = tc ? (target ?? next) : next;
  const set = async () => {
    await after(api('PUT', path, { targetMilestone: to!.id, transitionCondition: { intervalMinutes: Number(minutes) } }));
    setEditing(false);
  };
  if (!to) return null;
  if (tc && !editing) {
    let waits = `moves on to ${to.name} ${tc.intervalMinutes} minute${tc.intervalMinutes === 1 ? '' : 's'} after it starts`;
    if (current && m.startedAt && !m.progressionExecutedAt) {
      waits = m.pausedAt ? `would move to ${to.name} after ${tc.intervalMinutes} minutes; paused` : `moves to ${to.name} at ${hhmm(Date.parse(m.startedAt) + tc.intervalMinutes * MINUTE)}`;
    } else if (m.progressionExecutedAt) waits = `moved on to ${to.name} at ${when(m.progressionExecutedAt)} UTC`;
    return html`<p class="progression">${waits}
      <${Opener} label=${`Change progression out of ${m.name}`} need=${needed} onClick=${() => (setMinutes(String(tc.intervalMinutes)), setEditing(true))} />
      <${Action} label=${`Remove progression out of ${m.name}`} need=${needed} run=${() => after(api('DELETE', path))} /></p>`;
  }
  if (!editing) {
    return html`<p class="progression muted">Moves on to ${to.name} only when started by hand.
      <${Opener} label=${`Move on by itself…`} need=${needed} onClick=${() => setEditing(true)} /></p>`;
  }
  return html`<${Form} label=${`Progression out of ${m.name}`} submit="Set progression" need=${needed} onSubmit=${set}>
    <${Field} label=${`Move on to ${to.name} after (minutes)`} type="number" value=${minutes} onInput=${setMinutes} required hint="counted from when this milestone starts" />
    <button type="button" onClick=${() => setEditing(false)}>Cancel</button>
  <//>`;
}
