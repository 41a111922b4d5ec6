// Four eyes on a flag's page: where change requests are on for an environment, its switch and
// forms add to the person's draft (POST …/environments/:env/change-requests, in Unleash's action
// shapes) instead of being refused; the banner says how many approvals changes there need and
// links to the person's open requests. Someone who may skip change requests there changes
// directly, as before, unless they tick "Propose as a change request". The flags list's switches,
// its bulk bar and archiving do the same, without a banner, for someone who may not skip
// (`guarded`, `proposeAll`, `archiveOrPropose`).
import { useState } from 'preact/hooks';
import { may } from './access.js';
import { api, ApiError, enc, get } from './api.js';
import { Check, useLoad } from './components.js';
import { html } from './html.js';
import { changed } from './live.js';
import { tell } from './overlays.js';

/** An environment's rule, as `GET …/change-requests/config` answers it. */
export interface Rule { environment: string; changeRequestEnabled: boolean; requiredApprovals: number }

/** A change request as the API answers it (Unleash's changeRequestSchema), what the console reads of it. */
export interface Request {
  id: number; title?: string; environment: string; project: string; minApprovals: number; state: string;
  features: { name: string; conflict?: string; changes: Change[] }[];
  segments: (Change & { name: string })[];
  approvals: { createdBy: Person; createdAt: string }[]; rejections: { createdBy: Person; createdAt: string }[];
  comments: { id: number; text: string; createdBy: Person; createdAt: string }[];
  createdBy: Person; createdAt: string;
  schedule?: { scheduledAt: string; status: 'pending' | 'failed' | 'suspended'; reason?: string };
}
export interface Change { id: number; action: string; payload: any; conflict?: string }
export interface Person { id: number | null; username: string }

export const crBase = (project: string) => `/api/admin/projects/${enc(project)}/change-requests`;
export const crLink = (r: { project: string; id: number }) => `#/projects/${enc(r.project)}/change-requests/${r.id}`;
export const OPEN = ['Draft', 'In review', 'Approved', 'Scheduled'];

/** The project's rules, loaded once for every environment of a flag's page. */
export function useRules(project: string) {
  return useLoad(() => get<Rule[]>(`${crBase(project)}/config`), [project]);
}

export interface Drafting {
  /** Changes here go to the person's draft. */
  on: boolean;
  /** Adds one change (an action and its payload) to the draft, then says so; `what` says it in words. */
  propose: (action: string, payload: unknown, what: string) => Promise<true>;
  banner: unknown;
}

/** How changes to `flag` in `env` of `project` are made, and the banner that says so (null where change requests are off). */
export function useDrafting(project: string, flag: string, env: string, rule: Rule | undefined): Drafting {
  const guarded = !!rule?.changeRequestEnabled;
  const skips = may('SKIP_CHANGE_REQUEST', project, env);
  const [propose, setPropose] = useState(false);
  // The person's own open requests here: their draft, and what they sent to review.
  const mine = useLoad(() => (guarded ? get<Request[]>(`${crBase(project)}/open`) : Promise.resolve([])), [project, guarded]);
  const on = guarded && (!skips || propose);
  if (!guarded) return { on, propose: async () => true, banner: null };
  const n = rule!.requiredApprovals;
  const open = (mine.data ?? []).filter((r) => r.environment === env);
  const banner = html`<div class="note cr-banner" role="note"><strong>Changes here need ${n} approval${n === 1 ? '' : 's'}.</strong>
    ${on ? ' What you change here is added to your change request, for others to approve.' : ' You may change it directly.'}
    ${skips ? html`<${Check} label="Propose as a change request" checked=${propose} onChange=${setPropose} />` : null}
    ${open.map((r) => html` <a href=${crLink(r)}>${r.state === 'Draft' ? 'Your draft' : 'Your request'} #${r.id} (${r.state}, ${count(r)})</a>`)}</div>`;
  return {
    on, banner,
    propose: async (action, payload, what) => (await proposeAll(project, env, [{ feature: flag, action, payload }], what), true),
  };
}

/** How many changes the server takes in one request to a draft. */
const MAX_CHANGES = 100;

/** One change to a flag, in Unleash's action shapes (`updateEnabled` with `{ enabled }`, `archiveFeature`, …). */
export interface Proposal { feature: string; action: string; payload?: unknown }

/**
 * The environments among `envs` of `project` where change requests are on and the person may not
 * skip them: a change there goes to their draft. The rules are asked only when there is such an
 * environment, so a switch someone who may skip flips costs no extra request.
 */
export async function guarded(project: string, envs: string[]): Promise<string[]> {
  const bound = envs.filter((e) => !may('SKIP_CHANGE_REQUEST', project, e));
  if (bound.length === 0) return [];
  const rules = await get<Rule[]>(`${crBase(project)}/config`);
  return bound.filter((e) => rules.some((r) => r.environment === e && r.changeRequestEnabled));
}

/** Adds `changes` to the person's draft in `env` of `project` (made if they have none), then says so, linking the draft. */
export async function proposeAll(project: string, env: string, changes: Proposal[], what: string): Promise<Request> {
  let r: Request | undefined;
  for (let i = 0; i < changes.length; i += MAX_CHANGES) {
    r = await api<Request>('POST', `/api/admin/projects/${enc(project)}/environments/${enc(env)}/change-requests`, changes.slice(i, i + MAX_CHANGES));
  }
  changed();
  tell(`Added to your change request #${r!.id} (${count(r!)}): ${what}`, undefined, ['Open the draft', crLink(r!)]);
  return r!;
}

/**
 * Archives flags, or proposes archiving them: archiving takes a flag out of every environment where
 * it is on (`on`), so the server's rule holds there. A flag on in one environment with change
 * requests on that the person may not skip is proposed (`archiveFeature`) in their draft there; the
 * rest are archived at once by `archive`, per project. A flag on in two such environments is
 * refused before anything is done, in words: a request approved in one would archive it in the
 * other without that one's approvals. Answers how many were archived at once.
 */
export async function archiveOrPropose(flags: { project: string; name: string; on: string[] }[], archive: (project: string, names: string[]) => Promise<unknown>): Promise<number> {
  const plans: { project: string; name: string; held: string[] }[] = [];
  for (const project of new Set(flags.map((f) => f.project))) {
    const mine = flags.filter((f) => f.project === project);
    const held = await guarded(project, [...new Set(mine.flatMap((f) => f.on))]);
    plans.push(...mine.map((f) => ({ project, name: f.name, held: f.on.filter((e) => held.includes(e)) })));
  }
  const twice = plans.find((p) => p.held.length > 1);
  if (twice) {
    throw new ApiError(0, 'Refused', `Archiving ${twice.name} takes it out of ${twice.held.join(' and ')}, each with change requests on: turn it off in all but one `
      + 'of them first (the switch proposes that), then archive it, or ask someone who may skip change requests there.');
  }
  let direct = 0;
  for (const project of new Set(plans.map((p) => p.project))) {
    const mine = plans.filter((p) => p.project === project);
    for (const env of new Set(mine.flatMap((p) => p.held))) {
      const names = mine.filter((p) => p.held[0] === env).map((p) => p.name);
      await proposeAll(project, env, names.map((feature) => ({ feature, action: 'archiveFeature', payload: {} })), `Archive ${names.join(', ')}`);
    }
    const now = mine.filter((p) => p.held.length === 0).map((p) => p.name);
    if (now.length > 0) await archive(project, now);
    direct += now.length;
  }
  return direct;
}

export const count = (r: Request) => {
  const n = r.features.reduce((k, f) => k + f.changes.length, 0) + r.segments.length;
  return `${n} change${n === 1 ? '' : 's'}`;
};

const projectIds = async () => (await get<{ projects: { id: string }[] }>('/api/admin/projects')).projects.map((p) => p.id);

/** How many requests wait for the person (to approve, to apply), over every project: the navigation's count, kept live like every view. */
export function Waiting() {
  const n = useLoad(async () => {
    const counts = await Promise.all((await projectIds()).map((p) => get<{ total: number }>(`${crBase(p)}/actionable`)));
    return counts.reduce((k, c) => k + c.total, 0);
  }, []);
  return n.data ? html` <span class="badge" title="waiting for you">${n.data}</span>` : null;
}
