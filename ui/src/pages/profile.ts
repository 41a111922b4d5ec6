// The signed-in person: who they are and what their roles are, their password, their personal
// access tokens (a secret shown once), and signing out everywhere.
import { useState } from 'preact/hooks';
import { current, roleName } from '../access.js';
import { api, enc, get } from '../api.js';
import { Action, ErrorNote, Field, Form, Page, ShownOnce, useLoad, when } from '../components.js';
import { html } from '../html.js';

interface Pat { id: number; description: string; expiresAt: string; createdAt: string; seenAt: string | null }

export function ProfilePage({ onSignedOut }: { onSignedOut: () => void }) {
  const me = current();
  if (!me || me.user.accountType !== 'User') {
    return html`<${Page} title="Profile"><p class="note" role="note">You are signed in with an API token, not as a person: there is no profile, password or personal token here.</p><//>`;
  }
  const u = me.user;
  return html`<${Page} title="Profile">
    <p><strong>${u.name ?? u.email ?? u.username}</strong>${u.email ? ` · ${u.email}` : ''}${u.username ? ` · ${u.username}` : ''}</p>
    <p>Role: ${roleName(u.rootRole)}${u.projects?.length ? ` · ${u.projects.map((b) => `${b.role} of ${b.project}`).join(', ')}` : ''}
      ${u.environments ? ` · may change only ${u.environments.join(', ') || 'no environment'}` : ''}</p>
    ${me.authType === 'session' ? html`<${ChangePassword} sso=${u.sso === true} />` : null}
    <${PersonalTokens} session=${me.authType === 'session'} />
    <section class="panel" aria-labelledby="everywhere"><h2 id="everywhere">Sign out everywhere</h2>
      <p class="muted">Ends every session of yours, in every browser, this one included. Personal tokens keep working: revoke them above.</p>
      <${Action} label="Sign out everywhere" answer="Yes, sign out" kind="danger" confirm="Sign out of every browser, this one included?"
        run=${async () => (await api('DELETE', '/api/admin/user/sessions'), onSignedOut())} />
    </section>
  <//>`;
}

function ChangePassword({ sso }: { sso: boolean }) {
  const [old, setOld] = useState('');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [done, setDone] = useState(false);
  return html`<section class="panel" aria-labelledby="password"><h2 id="password">Password</h2>
    ${sso ? html`<p class="muted">You also sign in with single sign-on; a password is optional.</p>` : null}
    <${Form} label="Change your password" submit="Change password" onSubmit=${async () => {
      setDone(false);
      await api('POST', '/api/admin/user/change-password', { oldPassword: old, password, confirmPassword: again });
      setOld('');
      setPassword('');
      setAgain('');
      setDone(true);
    }}>
      <${Field} label="Current password" type="password" autocomplete="current-password" value=${old} onInput=${setOld} />
      <${Field} label="New password" type="password" autocomplete="new-password" value=${password} onInput=${setPassword} required hint="At least 12 characters, and not a common password. Your other sessions end." />
      <${Field} label="New password again" type="password" autocomplete="new-password" value=${again} onInput=${setAgain} required />
    <//>
    ${done ? html`<p role="status">Password changed. Your other sessions have ended.</p>` : null}
  </section>`;
}

function PersonalTokens({ session }: { session: boolean }) {
  const tokens = useLoad(() => get<{ pats: Pat[] }>('/api/admin/user/tokens'), []);
  const [description, setDescription] = useState('');
  const [days, setDays] = useState('30');
  const [secret, setSecret] = useState<string | null>(null);
  return html`<section class="panel" aria-labelledby="pats"><h2 id="pats">Personal access tokens</h2>
    <p class="muted">A personal token acts as you, with your roles, and events name you. Send it as the Authorization header.</p>
    <${ErrorNote} error=${tokens.error} />
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Description</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(tokens.data?.pats ?? []).map((p) => html`<tr><th scope="row">${p.description}</th><td>${when(p.createdAt)}</td><td>${when(p.seenAt)}</td><td>${when(p.expiresAt)}</td>
        <td><${Action} label=${`Delete ${p.description}`} kind="danger" confirm=${`Delete ${p.description}? Whatever uses it stops working.`}
          run=${async () => (await api('DELETE', `/api/admin/user/tokens/${enc(String(p.id))}`), tokens.reload())} /></td></tr>`)}</tbody>
    </table></div>
    ${session ? html`<${Form} label="Create a personal token" submit="Create token" onSubmit=${async () => {
      const expiresAt = new Date(Date.now() + Number(days) * 86_400_000).toISOString();
      const made = await api<{ secret: string }>('POST', '/api/admin/user/tokens', { description, expiresAt });
      setSecret(made.secret);
      setDescription('');
      tokens.reload();
    }}>
      <${Field} label="Description" value=${description} onInput=${setDescription} required />
      <${Field} label="Days until it expires" type="number" value=${days} onInput=${setDays} required />
    <//>` : html`<p class="note" role="note">New personal tokens are made from a signed-in session, not with a token.</p>`}
    ${secret ? html`<${ShownOnce} message=${html`<strong>Copy this token now: it is not shown again.</strong>`} value=${secret} name="New token" />` : null}
  </section>`;
}
