// API tokens: listed without their secrets, created (the secret shown once, with a copy button),
// revoked.
import { useState } from 'preact/hooks';
import { blockedUnless } from '../access.js';
import { api, enc, get } from '../api.js';
import { Action, ErrorNote, Field, Form, Page, Select, ShownOnce, useLoad, when } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';

interface TokenRow { id: string; tokenName: string; type: string; environment: string; projects: string[]; expiresAt: string | null; createdAt: string; seenAt: string | null; prefix: string }

export function TokensPage() {
  const tokens = useLoad(() => get<{ tokens: TokenRow[] }>('/api/admin/api-tokens'), []);
  const [name, setName] = useState('');
  const [type, setType] = useState('client');
  const [environment, setEnvironment] = useState('development');
  const [projects, setProjects] = useState('*');
  const [secret, setSecret] = useState<string | null>(null);
  const blocked = blockedUnless('ADMIN');
  return html`<${Page} title="API tokens">
    ${blocked ? html`<p class="note" role="note">${blocked} API tokens are managed by Admins.</p>` : null}
    <${ErrorNote} error=${tokens.error} />
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Projects</th><th scope="col">Environment</th><th scope="col">Starts with</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(tokens.data?.tokens ?? []).map((t) => html`<tr>
        <th scope="row">${t.tokenName}</th><td>${t.type}</td><td>${t.projects.join(', ')}</td><td>${t.environment}</td><td><code>${t.prefix}…</code></td>
        <td>${when(t.createdAt)}</td><td>${when(t.seenAt)}</td><td>${t.expiresAt ? when(t.expiresAt) : 'never'}</td>
        <td><${Action} label=${`Revoke ${t.tokenName}`} kind="danger" blocked=${blocked} confirm=${`Revoke ${t.tokenName}? Everything using it stops working at once.`}
          run=${async () => (await api('DELETE', `/api/admin/api-tokens/${enc(t.id)}`), changed())} /></td>
      </tr>`)}</tbody>
    </table></div>
    <section class="panel" aria-labelledby="new-token"><h2 id="new-token">Create a token</h2>
      <${Form} label="Create a token" submit="Create token" blocked=${blocked} onSubmit=${async () => {
        const body = { tokenName: name, type, environment, projects: projects.split(',').map((p) => p.trim()).filter(Boolean) };
        const made = await api<{ secret: string }>('POST', '/api/admin/api-tokens', body);
        setSecret(made.secret);
        changed();
      }}>
        <${Field} label="Token name" value=${name} onInput=${setName} required />
        <${Select} label="Type" value=${type} options=${['client', 'frontend', 'admin']} onChange=${(v: string) => {
          // An admin token usually reaches every environment; an SDK token serves exactly one.
          if (v === 'admin' && type !== 'admin') setEnvironment('*');
          if (v !== 'admin' && environment === '*') setEnvironment('development');
          setType(v);
        }} />
        <${Field} label="Environment" value=${environment} onInput=${setEnvironment} required hint=${type === 'admin' ? '* for all' : 'the one environment SDKs using it see'} />
        <${Field} label="Projects" value=${projects} onInput=${setProjects} hint="* for all, or project ids, comma-separated" />
      <//>
      ${secret ? html`<${ShownOnce} message=${html`<strong>Copy this token now: it is not shown again.</strong>`} value=${secret} name="New token" />` : null}
    </section>
  <//>`;
}
