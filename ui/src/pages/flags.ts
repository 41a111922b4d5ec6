// The flags table: the flag search of the API (filtered, sorted and paged by the server, so 10,000
// flags cost one page of 50 rows), one switch per environment, creating a flag, and the archive.
import { useState } from 'preact/hooks';
import { api, enc, get } from '../api.js';
import { Action, ErrorNote, Field, Form, Page, Select, useLoad, when } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';
import { navigate } from '../router.js';

const PAGE = 50;

export interface FlagType { id: string; name: string; description: string; lifetimeDays: number | null }

/** The flag types the server knows (Unleash 8's, `sunset` included), with what each is for. */
export function useFlagTypes() {
  return useLoad(() => get<{ types: FlagType[] }>('/api/admin/feature-types').then((r) => r.types), []);
}

/** Picks a flag's type, and says what the chosen type is for and how long such a flag should live. */
export function TypeSelect({ value, onChange, types }: { value: string; onChange: (v: string) => void; types: FlagType[] | undefined }) {
  const options = types ? types.map((t) => [t.id, t.name] as [string, string]) : [value];
  return html`<${Select} label="Type" value=${value} options=${options} onChange=${onChange} hint=${types?.find((t) => t.id === value)?.description} />`;
}

interface EnvState { name: string; enabled: boolean }
export interface FlagRow {
  name: string; type: string; project: string; stale: boolean; lastSeenAt: string | null; createdAt: string;
  tags: { type: string; value: string }[]; environments: EnvState[]; description: string | null;
}

/** The environments known here, in their order (a limited token that may not list them sees the flags' own). */
export function useEnvironments() {
  return useLoad(() => get<{ environments: { name: string; enabled: boolean }[] }>('/api/admin/environments').then((r) => r.environments.map((e) => e.name)), []);
}

export function useProjects() {
  return useLoad(() => get<{ projects: { id: string; name: string }[] }>('/api/admin/projects').then((r) => r.projects), []);
}

export async function setEnabled(project: string, flag: string, env: string, on: boolean): Promise<void> {
  await api('POST', `/api/admin/projects/${enc(project)}/features/${enc(flag)}/environments/${enc(env)}/${on ? 'on' : 'off'}`);
  changed();
}

function EnvSwitch({ row, env }: { row: FlagRow; env: string }) {
  const state = row.environments.find((e) => e.name === env);
  if (!state) return html`<td class="switch-cell">–</td>`;
  return html`<td class="switch-cell"><${Action} label=${state.enabled ? 'On' : 'Off'} kind=${state.enabled ? 'primary' : ''}
    title=${`${state.enabled ? 'Switch off' : 'Switch on'} ${row.name} in ${env}`}
    run=${() => setEnabled(row.project, row.name, env, !state.enabled)} /></td>`;
}

export function FlagsPage({ project }: { project: string }) {
  const [query, setQuery] = useState('');
  const [type, setType] = useState('');
  const [state, setState] = useState('');
  const [tag, setTag] = useState('');
  const [sortBy, setSortBy] = useState('name');
  const [sortOrder, setSortOrder] = useState('asc');
  const [offset, setOffset] = useState(0);
  const [all, setAll] = useState(false);
  const envs = useEnvironments();
  const projects = useProjects();
  const types = useFlagTypes();
  const params = new URLSearchParams({ sortBy, sortOrder, offset: String(offset), limit: String(PAGE) });
  if (!all) params.set('project', `IS:${project}`);
  if (query) params.set('query', query);
  if (type) params.set('type', `IS:${type}`);
  if (state) params.set('state', `IS:${state}`);
  if (tag) params.set('tag', `INCLUDE:${tag}`);
  const search = params.toString();
  const flags = useLoad(() => get<{ features: FlagRow[]; total: number }>(`/api/admin/search/features?${search}`), [search]);
  const envNames = envs.data ?? [...new Set((flags.data?.features ?? []).flatMap((f) => f.environments.map((e) => e.name)))];
  const chooseProject = (v: string) => {
    setAll(v === '*');
    setOffset(0);
    if (v !== '*') navigate(`/projects/${enc(v)}`);
  };
  const reset = (set: (v: string) => void) => (v: string) => {
    set(v);
    setOffset(0);
  };
  const total = flags.data?.total ?? 0;
  const sortHeader = (key: string, label: string) => html`<th scope="col" aria-sort=${sortBy === key ? (sortOrder === 'asc' ? 'ascending' : 'descending') : undefined}>
    <button type="button" class="link" onClick=${() => {
      if (sortBy === key) {
        setSortOrder(sortOrder === 'asc' ? 'desc' : 'asc');
      } else {
        setSortBy(key);
        setSortOrder('asc');
      }
    }}>${label}${sortBy === key ? (sortOrder === 'asc' ? ' ▲' : ' ▼') : ''}</button></th>`;
  return html`<${Page} title="Flags" actions=${html`<a href="#/archive">Archive</a>`}>
    <div class="toolbar" role="search">
      ${projects.data ? html`<${Select} label="Project" value=${all ? '*' : project} options=${[['*', 'All projects'], ...projects.data.map((p) => [p.id, p.name] as [string, string])]}
        onChange=${(v: string) => chooseProject(v)} />` : null}
      <${Field} label="Search" value=${query} onInput=${reset(setQuery)} placeholder="name, description or tag" />
      <${Select} label="Type" value=${type} options=${[['', 'Any type'], ...(types.data ?? []).map((t) => [t.id, t.name] as [string, string])]} onChange=${reset(setType)} />
      <${Select} label="State" value=${state} options=${[['', 'Any state'], ['active', 'active'], ['stale', 'stale']]} onChange=${reset(setState)} />
      <${Field} label="Tag" value=${tag} onInput=${reset(setTag)} placeholder="type:value" />
    </div>
    <${ErrorNote} error=${flags.error ?? null} />
    <p class="count" aria-live="polite">${flags.data ? `${total} flag${total === 1 ? '' : 's'}` : 'Loading…'}</p>
    <div class="table-wrap"><table class="flags">
      <thead><tr>${sortHeader('name', 'Name')}${sortHeader('type', 'Type')}<th scope="col">Tags</th>${sortHeader('lastSeenAt', 'Last seen')}${sortHeader('createdAt', 'Created')}
        ${all ? sortHeader('project', 'Project') : null}${envNames.map((e) => html`<th scope="col">${e}</th>`)}</tr></thead>
      <tbody>${(flags.data?.features ?? []).map((f) => html`<tr>
        <th scope="row"><a href=${`#/projects/${enc(f.project)}/flags/${enc(f.name)}`}>${f.name}</a>${f.stale ? html` <span class="badge warn">stale</span>` : null}
          ${f.description ? html`<div class="muted">${f.description}</div>` : null}</th>
        <td>${f.type}</td>
        <td>${f.tags.map((t) => html`<span class="badge">${t.type}:${t.value}</span> `)}</td>
        <td>${when(f.lastSeenAt)}</td>
        <td>${when(f.createdAt)}</td>
        ${all ? html`<td>${f.project}</td>` : null}
        ${envNames.map((e) => html`<${EnvSwitch} row=${f} env=${e} />`)}
      </tr>`)}</tbody>
    </table></div>
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>Previous</button>
      <span>${total === 0 ? '' : `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}`}</span>
      <button type="button" disabled=${offset + PAGE >= total} onClick=${() => setOffset(offset + PAGE)}>Next</button>
    </nav>
    <details class="create"><summary>Create a flag</summary><${CreateFlag} project=${project} projects=${projects.data?.map((p) => p.id)} types=${types.data} /></details>
  <//>`;
}

function CreateFlag({ project, projects, types }: { project: string; projects?: string[]; types: FlagType[] | undefined }) {
  const [name, setName] = useState('');
  const [target, setTarget] = useState(project);
  const [type, setType] = useState('release');
  const [description, setDescription] = useState('');
  return html`<${Form} label="Create a flag" submit="Create flag" onSubmit=${async () => {
    await api('POST', `/api/admin/projects/${enc(target)}/features`, { name, type, description: description || undefined });
    changed();
    navigate(`/projects/${enc(target)}/flags/${enc(name)}`);
  }}>
    <${Field} label="Name" value=${name} onInput=${setName} required />
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
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Project</th><th scope="col">Archived</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(archived.data?.features ?? []).map((f: FlagRow & { archivedAt?: string }) => html`<tr>
        <th scope="row">${f.name}</th><td>${f.project}</td><td>${when(f.archivedAt)}</td>
        <td><${Action} label="Revive" run=${async () => (await api('POST', `/api/admin/archive/revive/${enc(f.name)}`), changed())} />
          <${Action} label="Delete" kind="danger" confirm=${`Delete ${f.name} for good?`} run=${async () => (await api('DELETE', `/api/admin/archive/${enc(f.name)}`), changed())} /></td>
      </tr>`)}</tbody>
    </table></div>
    ${archived.data && archived.data.features.length === 0 ? html`<p class="muted">Nothing archived.</p>` : null}
  <//>`;
}
