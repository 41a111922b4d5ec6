// API tokens: listed without their secrets, created from choices (type, environment, projects),
// the secret shown once with a copy button and the code that uses it (an SDK token: "Connect an
// SDK" with the token filled in; an admin token: curl), revoked.
import { useState } from 'preact/hooks';
import { blockedUnless, need } from '../access.js';
import { api, enc, get } from '../api.js';
import { Action, Check, CopyButton, Empty, ErrorNote, Field, Form, Page, Select, useLoad, useShownOnce, when } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';
import { ConnectSdk, type GivenToken } from '../connect-sdk.js';
import { useEnvironments, useProjects } from './flags.js';

interface TokenRow { id: string; tokenName: string; type: string; environment: string; projects: string[]; expiresAt: string | null; createdAt: string; seenAt: string | null; prefix: string }

/** What an admin token is for: a script. */
function AdminSnippet({ secret }: { secret: string }) {
  const code = `curl -H 'Authorization: ${secret}' ${location.origin}/api/admin/projects`;
  return html`<div class="snippets"><p>Use it from a script:</p>
    <pre aria-label="curl snippet"><code>${code}</code></pre>
    <${CopyButton} text=${code} label="Copy curl snippet" /></div>`;
}

export function TokensPage() {
  const tokens = useLoad(() => get<{ tokens: TokenRow[] }>('/api/admin/api-tokens'), []);
  const envs = useEnvironments();
  const projects = useProjects();
  const [name, setName] = useState('');
  const [type, setType] = useState('client');
  const [environment, setEnvironment] = useState('development');
  const [chosen, setChosen] = useState<string[]>(['*']);
  const [made, setMade] = useState<GivenToken | null>(null);
  const shown = useShownOnce(made?.secret);
  const envOptions: (string | [string, string])[] = [...(type === 'admin' ? [['*', 'All environments'] as [string, string]] : []), ...(envs.data ?? []).map((e) => e.name)];
  const blocked = blockedUnless('ADMIN');
  return html`<${Page} title="API tokens">
    ${blocked ? html`<p class="note" role="note">${blocked} API tokens are managed by Admins.</p>` : null}
    <${ErrorNote} error=${tokens.error} />
    ${tokens.data && tokens.data.tokens.length === 0 ? html`<${Empty} title="No tokens yet."><p>An SDK needs a client token (server side) or a frontend token (browser and mobile): create one below.</p><//>` : html`<div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Projects</th><th scope="col">Environment</th><th scope="col">Starts with</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(tokens.data?.tokens ?? []).map((t) => html`<tr>
        <th scope="row">${t.tokenName}</th><td>${t.type}</td><td>${t.projects.join(', ')}</td><td>${t.environment}</td><td><code>${t.prefix}…</code></td>
        <td>${when(t.createdAt)}</td><td>${when(t.seenAt)}</td><td>${t.expiresAt ? when(t.expiresAt) : 'never'}</td>
        <td><${Action} label=${`Revoke ${t.tokenName}`} kind="danger" need=${need('ADMIN')} confirm=${`Revoke ${t.tokenName}? Everything using it stops working at once.`}
          run=${async () => (await api('DELETE', `/api/admin/api-tokens/${enc(t.id)}`), changed())} /></td>
      </tr>`)}</tbody>
    </table></div>`}
    <section class="panel" aria-labelledby="new-token"><h2 id="new-token">Create a token</h2>
      <${Form} label="Create a token" submit="Create token" need=${need('ADMIN')} onSubmit=${async () => {
        const body = { tokenName: name, type, environment, projects: chosen };
        const answer = await api<{ secret: string }>('POST', '/api/admin/api-tokens', body);
        setMade({ secret: answer.secret, type, environment });
        changed();
      }}>
        <${Field} label="Token name" name="tokenName" value=${name} onInput=${setName} required />
        <${Select} label="Type" value=${type} options=${[['client', 'client (server-side SDKs)'], ['frontend', 'frontend (browser and mobile SDKs)'], ['admin', 'admin (scripts and this console)']]} onChange=${(v: string) => {
          // An admin token usually reaches every environment; an SDK token serves exactly one.
          if (v === 'admin' && type !== 'admin') setEnvironment('*');
          if (v !== 'admin' && environment === '*') setEnvironment(envs.data?.[0]?.name ?? 'development');
          setType(v);
        }} />
        <${Select} label="Environment" value=${environment} options=${envOptions} onChange=${setEnvironment} hint=${type === 'admin' ? 'where it may change flags' : 'the one environment SDKs using it see'} />
        <fieldset class="choices"><legend>Projects</legend>
          <${Check} label="All projects" checked=${chosen.includes('*')} onChange=${(on: boolean) => setChosen(on ? ['*'] : [])} />
          ${(projects.data ?? []).map((p) => html`<${Check} label=${p.name === p.id ? p.id : `${p.name} (${p.id})`} checked=${chosen.includes(p.id)}
            onChange=${(on: boolean) => setChosen(on ? [...chosen.filter((x) => x !== '*'), p.id] : chosen.filter((x) => x !== p.id))} />`)}
        </fieldset>
      <//>
      ${made ? html`<div class="secret" role="status" ref=${shown}><p><strong>Copy this token now: it is not shown again.</strong></p>
        <code aria-label="New token">${made.secret}</code>
        <${CopyButton} text=${made.secret} />
        ${made.type === 'admin' ? html`<${AdminSnippet} secret=${made.secret} />` : null}</div>` : null}
      ${made && made.type !== 'admin' ? html`<${ConnectSdk} key=${made.secret} environments=${[made.environment]} token=${made} startOpen />` : null}
    </section>
  <//>`;
}
