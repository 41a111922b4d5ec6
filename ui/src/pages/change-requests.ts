// Change requests: the open ones of every project the person sees, and one request to review:
// each change as a before → after in words (against the flag as it is now), its conflicts, the
// approvals and comments, and the buttons the person may use. The server decides every step
// (four eyes, who may approve or apply); the buttons say beforehand what it would refuse.
import { useState } from 'preact/hooks';
import { current, need, type Need } from '../access.js';
import { api, enc, get } from '../api.js';
import { variantWords } from '../change-words.js';
import { crBase, crLink, count, OPEN, type Change, type Request } from '../change-requests.js';
import { Action, Check, Empty, ErrorNote, Field, Form, Page, useLoad, when } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';
import { navigate } from '../router.js';
import { strategySentence, type Strategy } from '../words.js';

export function ChangeRequestsPage() {
  const [closed, setClosed] = useState(false);
  // The projects once: their ids to ask each for its requests, their names to show.
  const list = useLoad(async () => {
    const { projects } = await get<{ projects: { id: string; name: string }[] }>('/api/admin/projects');
    const requests = (await Promise.all(projects.map((p) => get<Request[]>(crBase(p.id))))).flat().sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return { names: new Map(projects.map((p) => [p.id, p.name])), requests };
  }, []);
  const rows = (list.data?.requests ?? []).filter((r) => closed || OPEN.includes(r.state));
  const name = (id: string) => list.data?.names.get(id) ?? id;
  return html`<${Page} title="Change requests">
    <p class="muted">Changes proposed where change requests are on: open ones first need approvals, then someone applies them.</p>
    <${Check} label="Show applied, rejected and cancelled" checked=${closed} onChange=${setClosed} />
    <${ErrorNote} error=${list.error} />
    ${!list.data ? html`<p class="loading">Loading…</p>` : rows.length === 0 ? html`<${Empty} title="No change requests">Where change requests are on, changes made on a flag's page gather in your draft.<//>` : html`<table>
      <thead><tr><th>Request</th><th>Project</th><th>Environment</th><th>State</th><th>By</th><th>Approvals</th></tr></thead>
      <tbody>${rows.map((r) => html`<tr><td><a href=${crLink(r)}>#${r.id} ${r.title ?? ''}</a> <span class="muted">${count(r)}</span></td><td>${name(r.project)}</td>
        <td>${r.environment}</td><td><span class="badge">${r.state}</span></td><td>${r.createdBy.username}</td><td>${r.approvals.length} of ${r.minApprovals}</td></tr>`)}</tbody></table>`}
  <//>`;
}

interface FlagEnv { name: string; enabled: boolean; strategies: Strategy[]; variants: any[] }

/** A change as lines of words: what goes (`-`), what comes (`+`), or what is done (` `). */
function changeLines(c: Change, env: FlagEnv | undefined, segment: (id: number) => string): [string, string][] {
  const p = c.payload ?? {};
  const strategy = (id: string) => env?.strategies.find((s) => s.id === id);
  const words = (s: any) => (s ? `${s.title ? `"${s.title}": ` : ''}${strategySentence({ parameters: {}, constraints: [], segments: [], variants: [], ...s }, segment)}${s.disabled ? ' (disabled)' : ''}` : 'a strategy no longer there');
  switch (c.action) {
    case 'updateEnabled': return [['-', env ? (env.enabled ? 'on' : 'off') : '?'], ['+', p.enabled ? 'on' : 'off']];
    case 'addStrategy': return [['+', `strategy ${words(p)}`]];
    case 'updateStrategy': return [['-', words(strategy(p.id))], ['+', words(p)]];
    case 'deleteStrategy': return [['-', `strategy ${words(strategy(p.id))}`]];
    case 'reorderStrategy': return [['-', (env?.strategies ?? []).map((s) => words(s)).join(' · ')],
      ['+', [...p].sort((a: any, b: any) => a.sortOrder - b.sortOrder).map((o: any) => words(strategy(o.id))).join(' · ')]];
    case 'patchVariant': return [['-', `variants: ${variantWords(env?.variants ?? [])}`], ['+', `variants: ${variantWords(p.variants ?? [])}`]];
    case 'archiveFeature': return [[' ', 'archive the flag']];
    case 'addDependency': return [['+', `depends on ${p.feature} being ${p.enabled === false ? 'off' : 'on'}`]];
    case 'deleteDependency': return [['-', `depends on ${p.feature}`]];
    case 'updateSegment': return [['+', `segment ${p.name}: ${(p.constraints ?? []).length} constraint(s)`]];
    case 'deleteSegment': return [['-', `segment ${segment(p.id)}`]];
    default: return [[' ', `${c.action} ${JSON.stringify(p)}`]];
  }
}

function ChangeItem({ c, env, closed, segment, mine, base, n }: { c: Change; env?: FlagEnv; closed: boolean; segment: (id: number) => string; mine: boolean; base: string; n: Need }) {
  // A closed request's "before" would be today's state, which is not what it changed: only what it did is shown.
  const lines = changeLines(c, env, segment).filter(([k]) => !closed || k !== '-' || c.action === 'deleteStrategy' || c.action === 'deleteDependency' || c.action === 'deleteSegment');
  return html`<li class="cr-change"><strong>${c.action}</strong>
    <ul class="diff">${lines.map(([k, text]) => html`<li>${k === '-' ? html`<del>${text}</del>` : k === '+' ? html`<ins>${text}</ins>` : text}</li>`)}</ul>
    ${c.conflict ? html`<p class="error" role="alert">Conflict: ${c.conflict}</p>` : null}
    ${mine ? html`<${Action} label="Discard change" kind="link" need=${n} run=${() => api('DELETE', `${base}/changes/${c.id}`).then(changed)} />` : null}</li>`;
}

export function ChangeRequestPage({ project, id }: { project: string; id: string }) {
  const base = `${crBase(project)}/${enc(id)}`;
  const loaded = useLoad(() => get<Request>(base), [base]);
  const r = loaded.data;
  // The flags as they are now: the "before" of each change.
  const flags = useLoad(async () => Object.fromEntries(await Promise.all((r?.features ?? []).map(async (f) =>
    [f.name, (await get<{ environments: FlagEnv[] }>(`/api/admin/projects/${enc(project)}/features/${enc(f.name)}`).catch(() => null))?.environments.find((e) => e.name === r!.environment)]))),
    // The flags again when the request names others, not each time its answer is a new object.
    [r?.environment, r?.features.map((f) => f.name).join('\n')]);
  const segments = useLoad(() => get<{ segments: { id: number; name: string }[] }>('/api/admin/segments').then((x) => x.segments), []);
  const [title, setTitle] = useState<string | null>(null);
  const [comment, setComment] = useState('');
  const [reason, setReason] = useState('');
  const [at, setAt] = useState('');
  const crumbs: [string, string | null][] = [['Change requests', '#/change-requests'], [`#${id}`, null]];
  if (!r) return html`<${Page} title=${`Change request #${id}`} crumbs=${crumbs}>${loaded.error ? html`<${ErrorNote} error=${loaded.error} />` : html`<p class="loading">Loading…</p>`}<//>`;
  const me = current();
  // A person by id; an API token, which has none, by its name (as the server tells authors apart).
  const by = r.createdBy;
  // With AUTH_TYPE=none every caller is the same Admin, author and reviewer at once (the server lets it approve its own).
  const anyone = me?.authType === 'open';
  const mine = anyone || (by.id !== null ? by.id === me?.user.id : !me?.user.id && by.username === me?.user.username);
  const open = OPEN.includes(r.state);
  const here = (permission: string) => need(permission, r.project, r.environment);
  const segment = (sid: number) => segments.data?.find((s) => s.id === sid)?.name ?? `#${sid}`;
  const move = (state: string, text?: string) => api('PUT', `${base}/state`, { state, ...(text ? { comment: text } : {}) }).then(changed);
  const approved = r.approvals.some((a) => a.createdBy.id === me?.user.id);
  return html`<${Page} title=${r.title || `Change request #${r.id}`} crumbs=${crumbs}
    beside=${html`<span class="badge">${r.state}</span> <span class="badge prod">${r.environment}</span>`}>
    <p class="muted">#${r.id} in ${r.project}, by ${r.createdBy.username}, ${when(r.createdAt)} · approvals ${r.approvals.length} of ${r.minApprovals}${r.approvals.length ? `: ${r.approvals.map((a) => a.createdBy.username).join(', ')}` : ''}${r.rejections.length ? ` · rejected by ${r.rejections.map((a) => a.createdBy.username).join(', ')}` : ''}</p>
    <${ErrorNote} error=${loaded.error} />
    ${mine && open ? html`<${Form} label="Title" submit="Save title" need=${here('UPDATE_FEATURE_ENVIRONMENT')} onSubmit=${() => api('PUT', `${base}/title`, { title: title ?? r.title ?? '' }).then(changed)}>
      <${Field} label="Title" value=${title ?? r.title ?? ''} onInput=${setTitle} required /><//>` : null}
    ${r.features.map((f) => html`<section class="panel" aria-label=${f.name}><h2><a href=${`#/projects/${enc(r.project)}/flags/${enc(f.name)}`}>${f.name}</a></h2>
      <ol>${f.changes.map((c) => html`<${ChangeItem} key=${c.id} c=${c} env=${flags.data?.[f.name]} closed=${!open} segment=${segment} mine=${mine && open} base=${base} n=${here('UPDATE_FEATURE_ENVIRONMENT')} />`)}</ol></section>`)}
    ${r.segments.length ? html`<section class="panel" aria-label="Segments"><h2>Segments</h2><ol>${r.segments.map((c) => html`<${ChangeItem} key=${c.id} c=${c} closed=${!open} segment=${segment} mine=${mine && open} base=${base} n=${here('UPDATE_FEATURE_ENVIRONMENT')} />`)}</ol></section>` : null}
    <div class="form-actions">
      ${mine && r.state === 'Draft' ? html`<${Action} label="Send to review" kind="primary" need=${here('UPDATE_FEATURE_ENVIRONMENT')} run=${() => move('In review')} />` : null}
      ${r.state === 'In review' && (!mine || anyone) && !approved ? html`<${Action} label="Approve" kind="primary" need=${here('APPROVE_CHANGE_REQUEST')} run=${() => move('Approved')} />` : null}
      ${r.state === 'Approved' || r.state === 'Scheduled' ? html`<${Action} label=${r.state === 'Scheduled' ? 'Apply now' : 'Apply'} kind="primary" confirm=${`Apply change request #${r.id} in ${r.environment}? SDKs see it within seconds.`} need=${here('APPLY_CHANGE_REQUEST')} run=${() => move('Applied')} />` : null}
      ${mine && open ? html`<${Action} label="Cancel request" kind="danger" confirm=${`Cancel change request #${r.id}? It stays on record, never applied.`} answer="Yes, cancel it" need=${here('UPDATE_FEATURE_ENVIRONMENT')} run=${() => move('Cancelled')} />` : null}
      ${mine && r.state === 'Draft' ? html`<${Action} label="Delete draft" kind="danger" confirm=${`Delete your draft #${r.id}?`} need=${here('UPDATE_FEATURE_ENVIRONMENT')} run=${() => api('DELETE', base).then(() => (changed(), navigate('/change-requests')))} />` : null}
    </div>
    ${r.state === 'Approved' || r.state === 'Scheduled' ? html`<${Schedule} r=${r} at=${at} setAt=${setAt} need=${here('APPLY_CHANGE_REQUEST')}
      run=${() => api('PUT', `${base}/state`, { state: 'Scheduled', scheduledAt: new Date(at).toISOString() }).then(() => (setAt(''), changed()))} />` : null}
    ${(r.state === 'In review' || r.state === 'Approved' || r.state === 'Scheduled') && (!mine || anyone) ? html`<${Form} label="Reject" submit="Reject" need=${here('APPROVE_CHANGE_REQUEST')} onSubmit=${() => move('Rejected', reason)}>
      <${Field} label="Why it is rejected" value=${reason} onInput=${setReason} required /><//>` : null}
    <section class="panel" aria-labelledby="cr-comments"><h2 id="cr-comments">Comments</h2>
      <ul>${r.comments.map((c) => html`<li><strong>${c.createdBy.username}</strong> <span class="muted">${when(c.createdAt)}</span><p>${c.text}</p></li>`)}</ul>
      <${Form} label="Comment" submit="Add comment" need=${here('UPDATE_FEATURE_ENVIRONMENT')} onSubmit=${async () => (await api('POST', `${base}/comments`, { text: comment }), setComment(''), changed())}>
        <${Field} label="Comment" value=${comment} onInput=${setComment} multiline required /><//>
    </section>
  <//>`;
}

/**
 * When an approved request is applied: the schedule as it stands (pending, or suspended or failed
 * with the server's reason) and a time to (re)schedule it for, in the person's own time zone; the
 * server applies it then, once, and suspends it if what it touches changes meanwhile.
 */
function Schedule({ r, at, setAt, need, run }: { r: Request; at: string; setAt: (v: string) => void; need: Need; run: () => Promise<unknown> }) {
  const s = r.schedule;
  const status = !s ? null : s.status === 'pending' ? `Scheduled for ${when(s.scheduledAt)}` : `Schedule ${s.status} (was for ${when(s.scheduledAt)}): ${s.reason ?? 'no reason given'}`;
  return html`<section class="panel" aria-labelledby="cr-schedule"><h2 id="cr-schedule">Schedule</h2>
    ${status ? html`<p class=${s!.status === 'pending' ? '' : 'error'} role="status">${status}</p>` : null}
    <${Form} label="Schedule" submit=${s ? 'Reschedule' : 'Schedule'} need=${need} onSubmit=${run}>
      <${Field} label="Apply at (your time)" type="datetime-local" value=${at} onInput=${setAt} required hint="applied within seconds of this time, once" />
    <//></section>`;
}
