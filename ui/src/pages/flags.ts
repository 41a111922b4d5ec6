// The flags table: the flag search of the API (filtered, sorted and paged by the server, so 10,000
// flags cost one page of 50 rows), with its filters and sort in the URL; one switch per
// environment; a New flag dialog; the archive. On a phone each row is a card, switches included.
import { useEffect, useState } from 'preact/hooks';
import { may, need } from '../access.js';
import { api, enc, get } from '../api.js';
import { Action, Empty, ErrorNote, Field, Form, Opener, Page, Select, Switch, useLoad, when } from '../components.js';
import { asksFirst, switchQuestion } from '../change-words.js';
import { guarded, proposeAll } from '../change-requests.js';
import { html } from '../html.js';
import { changed } from '../live.js';
import { ask, Modal, tell } from '../overlays.js';
import { navigate, setRouteQuery } from '../router.js';
import { Ago, BulkBar, Marked, Star } from '../flag-tools.js';

const PAGE = 50;
const DAY_MS = 86_400_000;

export interface FlagType { id: string; name: string; description: string; lifetimeDays: number | null }

/** The flag types the server knows (Unleash 8's, `sunset` included), with what each is for. */
export function useFlagTypes() {
  return useLoad(() => get<{ types: FlagType[] }>('/api/admin/feature-types').then((r) => r.types), []);
}

/** What a flag type is for and how long such a flag is expected to live. */
function lifetime(t: FlagType | undefined): string | undefined {
  if (!t) return undefined;
  // The server's descriptions end with the lifetime already ("… Expected lifetime ~40 days").
  return /lifetime/i.test(t.description) ? t.description : `${t.description} Expected lifetime: ${t.lifetimeDays === null ? 'permanent' : `~${t.lifetimeDays} days`}`;
}

/** Picks a flag's type, and says what the chosen type is for and how long such a flag should live. */
export function TypeSelect({ value, onChange, types }: { value: string; onChange: (v: string) => void; types: FlagType[] | undefined }) {
  const options = types ? types.map((t) => [t.id, t.name] as [string, string]) : [value];
  return html`<${Select} label="Type" value=${value} options=${options} onChange=${onChange} hint=${lifetime(types?.find((t) => t.id === value))} />`;
}

/** Whether a flag has outlived its type's expected lifetime without being marked stale. */
export function potentiallyStale(f: { type: string; stale: boolean; createdAt: string }, types: FlagType[] | undefined): boolean {
  const days = types?.find((t) => t.id === f.type)?.lifetimeDays ?? null;
  return !f.stale && days !== null && Date.parse(f.createdAt) + days * DAY_MS < Date.now();
}

/** A flag's stale marks, as badges. */
export function StaleBadges({ flag, types }: { flag: { type: string; stale: boolean; createdAt: string }; types: FlagType[] | undefined }) {
  if (flag.stale) return html` <span class="badge warn">stale</span>`;
  return potentiallyStale(flag, types) ? html` <span class="badge warn" title="Older than its type's expected lifetime">potentially stale</span>` : null;
}

export interface EnvState { name: string; enabled: boolean; type?: string; hasEnabledStrategies?: boolean }
export interface FlagRow {
  name: string; type: string; project: string; stale: boolean; lastSeenAt: string | null; createdAt: string;
  tags: { type: string; value: string }[]; environments: EnvState[]; description: string | null; favorite?: boolean;
}

/** The environments known here, in their order (a limited token that may not list them sees the flags' own). */
export function useEnvironments() {
  return useLoad(() => get<{ environments: { name: string; type: string; enabled: boolean }[] }>('/api/admin/environments').then((r) => r.environments), []);
}

export function useProjects() {
  return useLoad(() => get<{ projects: { id: string; name: string; featureCount: number }[] }>('/api/admin/projects').then((r) => r.projects), []);
}

export async function setEnabled(project: string, flag: string, env: string, on: boolean): Promise<void> {
  await api('POST', `/api/admin/projects/${enc(project)}/features/${enc(flag)}/environments/${enc(env)}/${on ? 'on' : 'off'}`);
  changed();
}

/** What a switch says it does, for screen readers and as its tooltip. */
export const switchLabel = (flag: string, env: string, on: boolean) => `Turn ${on ? 'off' : 'on'} ${flag} in ${env}`;

/**
 * Turns a flag on or off in an environment: in one of type production only once the person has
 * said yes to a question naming both (and saying when it goes on for everyone); then says so,
 * with Undo for a few seconds.
 */
export async function flip(project: string, flag: string, env: EnvState, on: boolean): Promise<void> {
  const q = switchQuestion(flag, env, on);
  if (asksFirst(env) && !(await ask({ title: q.title, body: q.body, confirm: q.confirm }))) return;
  await setEnabled(project, flag, env.name, on);
  tell(q.done, () => setEnabled(project, flag, env.name, !on));
}

/** One switch of the list: where change requests bind the person, the change goes to their draft (no question: nothing reaches SDKs yet). */
async function flipOrPropose(project: string, flag: string, env: EnvState, on: boolean): Promise<void> {
  if ((await guarded(project, [env.name])).length === 0) return flip(project, flag, env, on);
  await proposeAll(project, env.name, [{ feature: flag, action: 'updateEnabled', payload: { enabled: on } }], switchQuestion(flag, env, on).title.replace(/\?$/, ''));
}

function EnvSwitch({ row, env }: { row: FlagRow; env: EnvState }) {
  const state = row.environments.find((e) => e.name === env.name);
  if (!state) return html`<td class="switch-cell" data-label=${env.name}>–</td>`;
  return html`<td class="switch-cell" data-label=${env.name}><${Switch} on=${state.enabled} label=${switchLabel(row.name, env.name, state.enabled)}
    need=${need('UPDATE_FEATURE_ENVIRONMENT', row.project, env.name)} onToggle=${() => flipOrPropose(row.project, row.name, { ...env, ...state, type: state.type ?? env.type }, !state.enabled)} /></td>`;
}

const FILTERS = ['query', 'type', 'state', 'tag', 'switched', 'sortBy', 'sortOrder', 'offset', 'project'];

export function FlagsPage({ project, path }: { project: string; path: string }) {
  // Everything the table shows is in the route's query: Back returns to it, a link shares it.
  const q = new URLSearchParams(path.split('?')[1] ?? '');
  const query = q.get('query') ?? '';
  const type = q.get('type') ?? '';
  const state = q.get('state') ?? '';
  const tag = q.get('tag') ?? '';
  // `on:production`: flags switched on there (`off:…`, off).
  const switched = q.get('switched') ?? '';
  const sortBy = q.get('sortBy') ?? 'name';
  const sortOrder = q.get('sortOrder') ?? 'asc';
  const offset = Math.max(0, Number(q.get('offset')) || 0);
  const all = q.get('project') === '*';
  const [creating, setCreating] = useState(false);
  const envs = useEnvironments();
  const projects = useProjects();
  const types = useFlagTypes();
  const tags = useLoad(() => get<{ tags: { type: string; value: string }[] }>('/api/admin/tags').then((r) => r.tags.map((t) => `${t.type}:${t.value}`)), []);
  const params = new URLSearchParams({ sortBy, sortOrder, offset: String(offset), limit: String(PAGE), favoritesFirst: 'true' });
  if (!all) params.set('project', `IS:${project}`);
  if (query) params.set('query', query);
  if (type) params.set('type', `IS:${type}`);
  if (state) params.set('state', `IS:${state}`);
  if (tag) params.set('tag', `INCLUDE:${tag}`);
  if (switched) params.set(switched.startsWith('on:') ? 'enabledIn' : 'disabledIn', switched.slice(switched.indexOf(':') + 1));
  const search = params.toString();
  const flags = useLoad(() => get<{ features: FlagRow[]; total: number }>(`/api/admin/search/features?${search}`), [search]);
  const envList: EnvState[] = envs.data ?? [...new Map((flags.data?.features ?? []).flatMap((f) => f.environments).map((e) => [e.name, e])).values()];
  // The rows ticked for a bulk action, by project and name; another search starts with none.
  const [picked, setPicked] = useState<Set<string>>(new Set());
  useEffect(() => setPicked(new Set()), [search]);
  const rows = flags.data?.features ?? [];
  const id = (f: FlagRow) => `${f.project}/${f.name}`;
  const pickedRows = rows.filter((f) => picked.has(id(f)));
  const pick = (f: FlagRow, on: boolean) => {
    const next = new Set(picked);
    if (on) next.add(id(f));
    else next.delete(id(f));
    setPicked(next);
  };
  const set = (k: string) => (v: string) => setRouteQuery({ [k]: v, offset: '' });
  const chooseProject = (v: string) => {
    if (v === '*') setRouteQuery({ project: '*', offset: '' });
    else {
      const kept = new URLSearchParams([...q].filter(([k]) => k !== 'project' && k !== 'offset')).toString();
      navigate(`/projects/${enc(v)}${kept ? `?${kept}` : ''}`);
    }
  };
  const filtered = Boolean(query || type || state || tag || switched);
  const total = flags.data?.total ?? 0;
  const sortHeader = (key: string, label: string) => html`<th scope="col" aria-sort=${sortBy === key ? (sortOrder === 'asc' ? 'ascending' : 'descending') : undefined}>
    <button type="button" class="link" onClick=${() => setRouteQuery(sortBy === key ? { sortOrder: sortOrder === 'asc' ? 'desc' : 'asc', offset: '' } : { sortBy: key, sortOrder: 'asc', offset: '' })}>
      ${label}${sortBy === key ? (sortOrder === 'asc' ? ' ▲' : ' ▼') : ''}</button></th>`;
  const projectName = projects.data?.find((p) => p.id === project)?.name ?? project;
  return html`<${Page} title="Flags" crumbs=${all ? null : [['Projects', '#/projects'], [projectName, `#/projects/${enc(project)}/overview`], ['Flags', null]]}
    actions=${html`<a href=${`#/projects/${enc(project)}/overview`}>Project overview</a> <a href="#/archive">Archive</a>
      <${NewFlagButton} project=${project} onClick=${() => setCreating(true)} />`}>
    <div class="toolbar" role="search">
      ${projects.data ? html`<${Select} label="Project" value=${all ? '*' : project} options=${[['*', 'All projects'], ...projects.data.map((p) => [p.id, p.name] as [string, string])]}
        onChange=${chooseProject} />` : null}
      <${Field} label="Search" value=${query} onInput=${set('query')} placeholder="name, description or tag" />
      <${Select} label="Type" value=${type} options=${[['', 'Any type'], ...(types.data ?? []).map((t) => [t.id, t.name] as [string, string])]} onChange=${set('type')} />
      <${Select} label="State" value=${state} options=${[['', 'Any state'], ['active', 'active'], ['stale', 'stale'], ['potentially-stale', 'potentially stale']]} onChange=${set('state')} />
      <${Field} label="Tag" value=${tag} onInput=${set('tag')} placeholder="type:value" suggestions=${tags.data ?? []} />
      <${Select} label="Switched" value=${switched} onChange=${set('switched')}
        options=${[['', 'On or off'], ...envList.flatMap((e) => [[`on:${e.name}`, `On in ${e.name}`], [`off:${e.name}`, `Off in ${e.name}`]] as [string, string][])]} />
      ${filtered ? html`<button type="button" class="link" onClick=${() => setRouteQuery(Object.fromEntries(FILTERS.filter((k) => k !== 'project').map((k) => [k, ''])))}>Clear filters</button>` : null}
    </div>
    <${ErrorNote} error=${flags.error ?? null} />
    ${pickedRows.length ? html`<${BulkBar} rows=${pickedRows} envs=${envList} onDone=${() => setPicked(new Set())} />` : null}
    <p class="count" aria-live="polite">${flags.data ? `${total} flag${total === 1 ? '' : 's'}` : 'Loading…'}</p>
    ${flags.data && total === 0 ? (filtered
      ? html`<${Empty} title="No flag matches these filters."><p>Try fewer filters, or another project.</p><//>`
      : html`<${Empty} title=${`No flags in ${projectName} yet.`}>
          <p>A flag is a switch your code asks about. Create one, switch it on where you want it, then give your application an <a href="#/tokens">API token</a>.</p>
          <${NewFlagButton} project=${project} label="Create the first flag" onClick=${() => setCreating(true)} /><//>`)
      : html`<div class="table-wrap"><table class="flags">
      <thead><tr><th scope="col" class="pick"><input type="checkbox" aria-label="Select every flag on this page" checked=${rows.length > 0 && pickedRows.length === rows.length}
        onChange=${(e: Event) => setPicked(new Set((e.target as HTMLInputElement).checked ? rows.map(id) : []))} /></th>${sortHeader('name', 'Name')}${sortHeader('type', 'Type')}<th scope="col">Tags</th>${sortHeader('lastSeenAt', 'Last seen')}${sortHeader('createdAt', 'Created')}
        ${all ? sortHeader('project', 'Project') : null}${envList.map((e) => html`<th scope="col">${e.name}</th>`)}</tr></thead>
      <tbody>${rows.map((f) => html`<tr>
        <td class="pick"><input type="checkbox" aria-label=${`Select ${f.name}`} checked=${picked.has(id(f))} onChange=${(e: Event) => pick(f, (e.target as HTMLInputElement).checked)} /></td>
        <th scope="row"><${Star} project=${f.project} flag=${f.name} on=${!!f.favorite} /><a href=${`#/projects/${enc(f.project)}/flags/${enc(f.name)}`}><${Marked} text=${f.name} query=${query} /></a><${StaleBadges} flag=${f} types=${types.data} />
          ${f.description ? html`<div class="muted"><${Marked} text=${f.description} query=${query} /></div>` : null}</th>
        <td data-label="Type">${f.type}</td>
        <td data-label="Tags">${f.tags.map((t) => html`<span class="badge">${t.type}:${t.value}</span> `)}</td>
        <td data-label="Last seen"><${Ago} iso=${f.lastSeenAt} /></td>
        <td data-label="Created">${when(f.createdAt)}</td>
        ${all ? html`<td data-label="Project">${projects.data?.find((p) => p.id === f.project)?.name ?? f.project}</td>` : null}
        ${envList.map((e) => html`<${EnvSwitch} row=${f} env=${e} />`)}
      </tr>`)}</tbody>
    </table></div>
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled=${offset === 0} onClick=${() => setRouteQuery({ offset: String(Math.max(0, offset - PAGE)) })}>Previous</button>
      <span>${total === 0 ? '' : `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}`}</span>
      <button type="button" disabled=${offset + PAGE >= total} onClick=${() => setRouteQuery({ offset: String(offset + PAGE) })}>Next</button>
    </nav>`}
    ${creating ? html`<${NewFlag} project=${project} onClose=${() => setCreating(false)} />` : null}
  <//>`;
}

/**
 * Opens the New flag dialog: disabled, saying why, when the person may create a flag in no
 * project (in this one first; the dialog lets them choose another of theirs).
 */
export function NewFlagButton({ project, onClick, label = 'New flag' }: { project: string; onClick: () => void; label?: string }) {
  const projects = useProjects();
  const target = may('CREATE_FEATURE', project) ? project : projects.data?.find((p) => may('CREATE_FEATURE', p.id))?.id ?? project;
  return html`<${Opener} kind="primary" label=${label} need=${need('CREATE_FEATURE', target)} onClick=${onClick} />`;
}

/** The New flag dialog: name, project, type (with its expected lifetime) and description; then the flag's page. */
export function NewFlag({ project, onClose }: { project: string; onClose: () => void }) {
  const projects = useProjects();
  const types = useFlagTypes();
  return html`<${Modal} title="New flag" onClose=${onClose}><${CreateFlag} project=${project} projects=${projects.data?.map((p) => [p.id, p.name] as [string, string])} types=${types.data} /><//>`;
}

/** `projects`: id and name of each (the name shown, as everywhere else in the console). */
function CreateFlag({ project, projects, types }: { project: string; projects?: [string, string][]; types: FlagType[] | undefined }) {
  const [name, setName] = useState('');
  // This project when the person may create flags in it, else the first of theirs where they may:
  // worked out at each render until the person picks one, so that the list arriving after the dialog
  // opened neither loses what was typed (no remount) nor leaves a project they may not use chosen.
  const [picked, setTarget] = useState<string | null>(null);
  const target = picked ?? (may('CREATE_FEATURE', project) ? project : projects?.find(([id]) => may('CREATE_FEATURE', id))?.[0] ?? project);
  const [type, setType] = useState('release');
  const [description, setDescription] = useState('');
  return html`<${Form} label="Create a flag" submit="Create flag" need=${need('CREATE_FEATURE', target)} onSubmit=${async () => {
    await api('POST', `/api/admin/projects/${enc(target)}/features`, { name, type, description: description || undefined });
    changed();
    navigate(`/projects/${enc(target)}/flags/${enc(name)}`);
  }}>
    <${Field} label="Name" name="name" value=${name} onInput=${setName} required hint="letters, digits and - _ . ~; how your code asks for it" />
    ${projects ? html`<${Select} label="Project" value=${target} options=${projects} onChange=${setTarget} />` : html`<${Field} label="Project" value=${target} onInput=${setTarget} required />`}
    <${TypeSelect} value=${type} onChange=${setType} types=${types} />
    <${Field} label="Description" value=${description} onInput=${setDescription} />
  <//>`;
}

/** Archived flags: revive (disabled everywhere) or delete for good. */
export function ArchivePage() {
  const archived = useLoad(() => get<{ features: FlagRow[] }>('/api/admin/archive/features'), []);
  return html`<${Page} title="Archive">
    <${ErrorNote} error=${archived.error} />
    ${archived.data && archived.data.features.length === 0 ? html`<${Empty} title="Nothing archived."><p>An archived flag is off for every SDK; it can be revived here.</p><//>` : html`<div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Project</th><th scope="col">Archived</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(archived.data?.features ?? []).map((f: FlagRow & { archivedAt?: string }) => html`<tr>
        <th scope="row">${f.name}</th><td>${f.project}</td><td>${when(f.archivedAt)}</td>
        <td><${Action} label="Revive" need=${need('UPDATE_FEATURE', f.project)} run=${async () => (await api('POST', `/api/admin/archive/revive/${enc(f.name)}`), changed())} />
          <${Action} label="Delete" kind="danger" need=${need('DELETE_FEATURE', f.project)} confirm=${`Delete ${f.name} for good?`} run=${async () => (await api('DELETE', `/api/admin/archive/${enc(f.name)}`), changed())} /></td>
      </tr>`)}</tbody>
    </table></div>`}
  <//>`;
}
