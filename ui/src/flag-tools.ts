// What a person who works through many flags uses: the searched text marked where it matches, a
// relative "last seen", a star for favourites, and actions on the selected rows of the flags table
// (switch in an environment, archive, tag), each through Unleash's bulk routes, all flags or none.
import { useState } from 'preact/hooks';
import { current, need, needIn } from './access.js';
import { api, enc } from './api.js';
import { asksFirst } from './change-words.js';
import { archiveOrPropose, guarded, proposeAll } from './change-requests.js';
import { Action, Field, Form, Opener, Select, when } from './components.js';
import type { EnvState, FlagRow } from './pages/flags.js';
import { html } from './html.js';
import { changed } from './live.js';
import { ask, Modal, tell } from './overlays.js';

/** `text` with every case-blind occurrence of `query` in a <mark>. */
export function Marked({ text, query }: { text: string; query: string }) {
  const q = query.trim().toLowerCase();
  if (!q) return text;
  const out: unknown[] = [];
  const low = text.toLowerCase();
  let at = 0;
  for (let i = low.indexOf(q); i >= 0; i = low.indexOf(q, at)) {
    out.push(text.slice(at, i), html`<mark>${text.slice(i, i + q.length)}</mark>`);
    at = i + q.length;
  }
  out.push(text.slice(at));
  return html`${out}`;
}

const UNITS: [number, string][] = [[86_400_000, 'day'], [3_600_000, 'h'], [60_000, 'min']];

/** "3 min ago", "2 h ago", "5 days ago", with the exact time as its title. */
export function Ago({ iso }: { iso: string | null }) {
  if (!iso) return 'never';
  const ms = Date.now() - Date.parse(iso);
  const unit = UNITS.find(([size]) => ms >= size);
  const n = unit ? Math.floor(ms / unit[0]) : 0;
  const text = unit ? `${n} ${unit[1]}${unit[1] === 'day' && n > 1 ? 's' : ''} ago` : 'just now';
  return html`<time datetime=${iso} title=${when(iso)}>${text}</time>`;
}

/** Why starring is not offered: favourites belong to a person, and a token or an open console is none. */
function noPerson(): string | null {
  const how = current()?.authType;
  return how === 'session' || how === 'personal-token' ? null : 'Favourites belong to a signed-in person; this console is not signed in as one.';
}

/** A flag's star: one of the signed-in person's favourites, listed first. */
export function Star({ project, flag, on }: { project: string; flag: string; on: boolean }) {
  const why = noPerson();
  return html`<${Action} kind="link" icon=${on ? '★' : '☆'} label=${`${on ? 'Unstar' : 'Star'} ${flag}`} blocked=${why}
    run=${async () => (await api(on ? 'DELETE' : 'POST', `/api/admin/projects/${enc(project)}/features/${enc(flag)}/favorites`), changed())} />`;
}

const plural = (n: number) => `${n} flag${n === 1 ? '' : 's'}`;

/** The selected rows, by project (a bulk route acts in one project). */
function byProject(rows: FlagRow[]): [string, string[]][] {
  const m = new Map<string, string[]>();
  for (const r of rows) m.set(r.project, [...(m.get(r.project) ?? []), r.name]);
  return [...m];
}

async function eachProject(rows: FlagRow[], call: (project: string, names: string[]) => Promise<unknown>) {
  for (const [project, names] of byProject(rows)) await call(project, names);
  changed();
}

const switchAll = (rows: FlagRow[], env: string, on: boolean) =>
  eachProject(rows, (p, features) => api('POST', `/api/admin/projects/${enc(p)}/bulk_features/environments/${enc(env)}/${on ? 'on' : 'off'}`, { features }));

/**
 * Switches the selected flags in `env`: in a production environment only after a question that says
 * how many; then says so with Undo, which switches back exactly the flags this changed. In a project
 * where change requests in `env` bind the person, its flags' switches go to their draft instead.
 */
async function bulkSwitch(rows: FlagRow[], env: EnvState, on: boolean) {
  const verb = on ? 'on' : 'off';
  const changing = rows.filter((r) => r.environments.some((e) => e.name === env.name && e.enabled !== on));
  if (changing.length === 0) return tell(`Already ${verb} in ${env.name}.`);
  const moved: FlagRow[] = [];
  for (const [project, features] of byProject(changing)) {
    if ((await guarded(project, [env.name])).length === 0) moved.push(...changing.filter((r) => r.project === project));
    else await proposeAll(project, env.name, features.map((feature) => ({ feature, action: 'updateEnabled', payload: { enabled: on } })), `Turn ${verb} ${features.join(', ')} in ${env.name}`);
  }
  if (moved.length === 0) return;
  const names = moved.map((r) => r.name).join(', ');
  if (asksFirst(env) && !(await ask({
    title: `Turn ${verb} ${plural(moved.length)} in ${env.name}?`,
    body: `${env.name} is a production environment: SDKs there see ${names} ${verb} within seconds.${on ? ' A flag with no strategy there goes on for everyone.' : ''}`,
    confirm: `Turn ${verb} ${plural(moved.length)}`,
  }))) return;
  await switchAll(moved, env.name, on);
  tell(`${plural(moved.length)} turned ${verb} in ${env.name}.`, () => switchAll(moved, env.name, !on));
}

/** What acts on the selected rows; `onDone` clears the selection after an archive. */
export function BulkBar({ rows, envs, onDone }: { rows: FlagRow[]; envs: EnvState[]; onDone: () => void }) {
  const [envName, setEnv] = useState(envs[0]?.name ?? '');
  const [tagging, setTagging] = useState(false);
  const [tag, setTag] = useState('');
  const env = envs.find((e) => e.name === envName) ?? envs[0];
  // A bulk change is allowed where it is allowed for each project the selection spans; the first is shown.
  const project = rows[0]?.project;
  const reaches = [...new Set(rows.flatMap((r) => r.environments.filter((e) => e.enabled).map((e) => e.name)))];
  return html`<div class="toolbar bulk" role="group" aria-label="Selected flags"><strong>${plural(rows.length)} selected</strong>
    ${env ? html`<${Select} label="Environment" value=${env.name} options=${envs.map((e) => e.name)} onChange=${setEnv} />
      ${[true, false].map((on) => html`<${Action} label=${`Turn ${on ? 'on' : 'off'} in ${env.name}`} need=${need('UPDATE_FEATURE_ENVIRONMENT', project, env.name)}
        run=${() => bulkSwitch(rows, env, on)} />`)}` : null}
    <${Opener} label="Add tag" need=${need('UPDATE_FEATURE', project)} onClick=${() => setTagging(true)} />
    <${Action} label=${`Archive ${plural(rows.length)}`} kind="danger" need=${needIn('DELETE_FEATURE', project, reaches)}
      confirm=${`Archive ${plural(rows.length)}: ${rows.map((r) => r.name).join(', ')}?`}
      run=${async () => (await archiveOrPropose(rows.map((r) => ({ project: r.project, name: r.name, on: r.environments.filter((e) => e.enabled).map((e) => e.name) })),
        (p, features) => api('POST', `/api/admin/projects/${enc(p)}/archive`, { features })), changed(), onDone())} />
    ${tagging ? html`<${Modal} title=${`Tag ${plural(rows.length)}`} onClose=${() => setTagging(false)}>
      <${Form} submit="Add tag" need=${need('UPDATE_FEATURE', project)} onSubmit=${async () => {
        const [type, ...value] = tag.includes(':') ? tag.split(':') : ['simple', tag];
        const tags = { addedTags: [{ type, value: value.join(':') }], removedTags: [] };
        await eachProject(rows, (p, features) => api('PUT', `/api/admin/projects/${enc(p)}/tags`, { features, tags }));
        setTagging(false);
      }}><${Field} label="Tag" name="tags" value=${tag} onInput=${setTag} required placeholder="type:value" hint="simple:value when no type is given" /><//>
    <//>` : null}
  </div>`;
}
