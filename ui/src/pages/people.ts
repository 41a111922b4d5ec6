// People, for Admins: invite someone (a one-time link to copy and send), their root role, their
// roles in projects, the environments they may change, deactivate (signed out at once), a reset
// link, delete. Everyone else sees why they may not.
import { useState } from 'preact/hooks';
import { current, may, need, whyNot } from '../access.js';
import { api, enc, get } from '../api.js';
import { Action, Check, EditRow, ErrorNote, Field, Form, Opener, Page, Select, ShownOnce, useLoad, when } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';
import { useEnvironments, useProjects } from './flags.js';

interface Binding { project: string; role: string }
interface Person {
  id: number; name: string | null; email: string | null; username: string | null; rootRole: number; projects: Binding[]; environments: string[] | null;
  active: boolean; seenAt: string | null; activeSessions?: number; sso?: boolean; passwordSet?: boolean;
}
interface Listing { users: Person[]; rootRoles: { id: number; name: string; description: string }[] }

/** People are an Admin's alone. */
const ADMIN = need('ADMIN');

/** A link the API gave (relative when PUBLIC_URL is not set) as one to paste anywhere. */
export function absolute(link: string): string {
  return new URL(link, location.origin).href;
}

export function PeoplePage() {
  const allowed = may('ADMIN');
  const people = useLoad(() => (allowed ? get<Listing>('/api/admin/user-admin') : Promise.resolve(undefined)), [allowed]);
  const [editing, setEditing] = useState<number | null>(null);
  const [link, setLink] = useState<{ who: string; url: string } | null>(null);
  const roles = people.data?.rootRoles ?? current()?.rootRoles ?? [];
  const roleOf = (id: number) => roles.find((r) => r.id === id)?.name ?? String(id);
  if (!allowed) {
    return html`<${Page} title="People"><p class="note" role="note">${whyNot('ADMIN')} An Admin invites people and gives them roles.</p><//>`;
  }
  return html`<${Page} title="People">
    <${ErrorNote} error=${people.error} />
    ${link ? html`<${ShownOnce} message=${html`<strong>Send this link to ${link.who}:</strong> it works once, and expires.`} value=${link.url} name="One-time link" copy="Copy link" />` : null}
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Signs in as</th><th scope="col">Role</th><th scope="col">Projects</th><th scope="col">Environments</th>
        <th scope="col">Status</th><th scope="col">Last sign-in</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(people.data?.users ?? []).map((p) => {
        const who = p.name ?? p.email ?? p.username ?? `#${p.id}`;
        return html`<tr>
          <th scope="row">${who}</th><td>${p.email ?? p.username}${p.sso ? html` <span class="badge">single sign-on</span>` : null}</td><td>${roleOf(p.rootRole)}</td>
          <td>${p.projects.map((b) => html`<span class="badge">${b.project}: ${b.role}</span> `)}</td>
          <td>${p.environments === null ? 'all' : p.environments.join(', ') || 'none'}</td>
          <td>${p.active && p.passwordSet === false && !p.sso ? html`<span class="badge">invited</span> <span class="muted">no password yet</span>`
            : p.active ? `active${p.activeSessions ? ` (${p.activeSessions} session${p.activeSessions === 1 ? '' : 's'})` : ''}` : html`<span class="badge warn">deactivated</span>`}</td>
          <td>${when(p.seenAt)}</td>
          <td><${Opener} label=${`Edit ${who}`} expanded=${editing === p.id} need=${ADMIN} onClick=${() => setEditing(editing === p.id ? null : p.id)} />
            <${Action} label=${p.active ? `Deactivate ${who}` : `Activate ${who}`} kind=${p.active ? 'danger' : ''} need=${ADMIN}
              confirm=${p.active ? `Deactivate ${who}? They are signed out at once, and their personal tokens stop working.` : undefined}
              run=${async () => (await api('PUT', `/api/admin/user-admin/${p.id}`, { active: !p.active }), changed())} />
            <${Action} label=${`Reset link for ${who}`} need=${ADMIN} run=${async () => {
              const r = await api<{ resetPasswordUrl: string }>('POST', '/api/admin/user-admin/reset-password', { id: String(p.id) });
              setLink({ who, url: absolute(r.resetPasswordUrl) });
            }} />
            <${Action} label=${`Delete ${who}`} kind="danger" need=${ADMIN} confirm=${`Delete ${who}, with their sessions and personal tokens?`}
              run=${async () => (await api('DELETE', `/api/admin/user-admin/${p.id}`), changed())} /></td>
        </tr>${editing === p.id ? html`<${EditRow} columns=${8}><${EditPerson} person=${p} roles=${roles} done=${() => setEditing(null)} /><//>` : null}`;
      })}</tbody>
    </table></div>
    <section class="panel" aria-labelledby="invite"><h2 id="invite">Invite someone</h2>
      <${Invite} roles=${roles} onLink=${(who: string, url: string) => setLink({ who, url })} />
    </section>
  <//>`;
}

function Invite({ roles, onLink }: { roles: { id: number; name: string }[]; onLink: (who: string, url: string) => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState('3');
  return html`<${Form} label="Invite someone" submit="Invite" need=${ADMIN} onSubmit=${async () => {
    const made = await api<{ inviteLink: string }>('POST', '/api/admin/user-admin', { email: email.trim(), name: name.trim() || undefined, rootRole: Number(role), sendEmail: false });
    onLink(name.trim() || email.trim(), absolute(made.inviteLink));
    setEmail('');
    setName('');
    changed();
  }}>
    <${Field} label="Email" name="email" type="email" value=${email} onInput=${setEmail} required />
    <${Field} label="Name" value=${name} onInput=${setName} />
    <${Select} label="Root role" value=${role} options=${roles.map((r) => [String(r.id), r.name] as [string, string])} onChange=${setRole} />
  <//>`;
}

function EditPerson({ person, roles, done }: { person: Person; roles: { id: number; name: string; description: string }[]; done: () => void }) {
  const projects = useProjects();
  const envs = useEnvironments();
  const [name, setName] = useState(person.name ?? '');
  const [role, setRole] = useState(String(person.rootRole));
  const [bindings, setBindings] = useState<Binding[]>(person.projects);
  const [limited, setLimited] = useState(person.environments !== null);
  const [environments, setEnvironments] = useState<string[]>(person.environments ?? []);
  const projectIds = (projects.data ?? []).map((p) => p.id);
  const who = person.name ?? person.email ?? person.username;
  return html`<${Form} label=${`Edit ${who}`} submit="Save" need=${ADMIN} onSubmit=${async () => {
    await api('PUT', `/api/admin/user-admin/${enc(String(person.id))}`, { name: name.trim() || null, rootRole: Number(role), projects: bindings, environments: limited ? environments : null });
    changed();
    done();
  }}>
    <${Field} label="Name" value=${name} onInput=${setName} />
    <${Select} label="Root role" value=${role} options=${roles.map((r) => [String(r.id), r.name] as [string, string])} onChange=${setRole} />
    <p class="muted">${roles.find((r) => String(r.id) === role)?.description}</p>
    <fieldset><legend>Roles in projects</legend>
      ${bindings.map((b, i) => html`<div class="toolbar">
        <${Select} label=${`Project ${i + 1}`} value=${b.project} options=${projectIds} onChange=${(v: string) => setBindings(bindings.map((x, k) => (k === i ? { ...x, project: v } : x)))} />
        <${Select} label=${`Role in project ${i + 1}`} value=${b.role} options=${['Owner', 'Member', 'Viewer']} onChange=${(v: string) => setBindings(bindings.map((x, k) => (k === i ? { ...x, role: v } : x)))} />
        <button type="button" onClick=${() => setBindings(bindings.filter((_, k) => k !== i))}>Remove project ${i + 1}</button></div>`)}
      <button type="button" disabled=${projectIds.length === 0} onClick=${() => setBindings([...bindings, { project: projectIds.find((p) => !bindings.some((b) => b.project === p)) ?? projectIds[0], role: 'Member' }])}>Add a project role</button>
    </fieldset>
    <fieldset><legend>Environments they may change</legend>
      <${Check} label="Only some environments" checked=${limited} onChange=${setLimited} />
      ${limited ? (envs.data ?? []).map(({ name: e }) => html`<${Check} label=${e} checked=${environments.includes(e)}
        onChange=${(on: boolean) => setEnvironments(on ? [...environments, e] : environments.filter((x) => x !== e))} />`) : null}
    </fieldset>
  <//>`;
}
