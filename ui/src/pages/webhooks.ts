// Webhooks, over Unleash's addons API (provider `webhook`): where each sends which events, whether
// its deliveries get through, switched on or off, created, edited (secrets stay masked and are kept
// as they are unless retyped) and deleted. Only an unlimited admin token may see them.
import { useEffect, useState } from 'preact/hooks';
import { blockedBy, need } from '../access.js';
import { api, get, poll } from '../api.js';
import { Action, Check, CopyButton, EditRow, Empty, ErrorNote, Field, Form, Opener, Page, Switch, useLoad, when } from '../components.js';
import { html } from '../html.js';
import { changed } from '../live.js';
import { useEnvironments, useProjects } from './flags.js';

interface Delivery { lastEventId: number; pendingEvents: number; attempts: number; lastError: string | null; lastDeliveredAt: string | null; delivered: number; failed: number; dropped: number }
interface Addon {
  id: number; description: string | null; enabled: boolean; parameters: Record<string, string>; events: string[]; projects: string[]; environments: string[];
  delivery?: Delivery;
}

const BLANK: Addon = { id: 0, description: '', enabled: true, parameters: { url: '', contentType: 'application/json' }, events: ['*'], projects: ['*'], environments: ['*'] };
const TEXT_PARAMETERS: [string, string, string][] = [
  ['contentType', 'Content type', 'default application/json'],
  ['authorization', 'Authorization header', 'sent as it is; kept secret'],
  ['customHeaders', 'Custom headers', 'a JSON object, e.g. {"X-Team": "web"}'],
];

/** Every value, or `*` for all: checkboxes with an "All" first. */
function Choices({ legend, all, chosen, onChange }: { legend: string; all: string[]; chosen: string[]; onChange: (v: string[]) => void }) {
  const any = chosen.includes('*');
  return html`<fieldset class="choices"><legend>${legend}</legend>
    <${Check} label=${`All ${legend.toLowerCase()}`} checked=${any} onChange=${(on: boolean) => onChange(on ? ['*'] : [])} />
    ${any ? null : all.map((v) => html`<${Check} label=${v} checked=${!any && chosen.includes(v)} onChange=${(on: boolean) => onChange(on ? [...chosen.filter((x) => x !== '*'), v] : chosen.filter((x) => x !== v))} />`)}
  </fieldset>`;
}

/** Webhooks see every event: only an Admin (or an unlimited admin token) may list or change them. */
const ADMIN = need('ADMIN');

/** An empty filter list means all, as `*` does. */
const allWhenEmpty = (list: string[]) => (list.length === 0 ? ['*'] : list);

function WebhookForm({ initial, eventTypes, submit, onSave }: { initial: Addon; eventTypes: string[]; submit: string; onSave: (a: Addon) => Promise<unknown> }) {
  const [a, setA] = useState({ ...initial, projects: allWhenEmpty(initial.projects), environments: allWhenEmpty(initial.environments) });
  const envs = useEnvironments();
  const projects = useProjects();
  const param = (k: string) => (v: string) => setA({ ...a, parameters: { ...a.parameters, [k]: v } });
  return html`<${Form} label=${submit} submit=${submit} need=${ADMIN} onSubmit=${() => onSave(a)}>
    <${Field} label="URL" type="url" value=${a.parameters.url ?? ''} onInput=${param('url')} required placeholder="https://hooks.example.com/fanion" />
    <${Field} label="Description" value=${a.description ?? ''} onInput=${(v: string) => setA({ ...a, description: v })} />
    <${Check} label="Enabled" checked=${a.enabled} onChange=${(v: boolean) => setA({ ...a, enabled: v })} />
    <${Choices} legend="Events" all=${eventTypes} chosen=${a.events} onChange=${(events: string[]) => setA({ ...a, events })} />
    <${Choices} legend="Projects" all=${(projects.data ?? []).map((p) => p.id)} chosen=${a.projects} onChange=${(p: string[]) => setA({ ...a, projects: p })} />
    <${Choices} legend="Environments" all=${(envs.data ?? []).map((e) => e.name)} chosen=${a.environments} onChange=${(e: string[]) => setA({ ...a, environments: e })} />
    ${TEXT_PARAMETERS.map(([k, label, hint]) => html`<${Field} label=${label} value=${a.parameters[k] ?? ''} onInput=${param(k)} hint=${hint} />`)}
    <${Field} label="Body template" multiline value=${a.parameters.bodyTemplate ?? ''} onInput=${param('bodyTemplate')} hint="Mustache, e.g. {{event.type}} on {{event.featureName}}; empty: the event as JSON" />
  <//>`;
}

/** The body the API takes: parameters left empty are left out (the API keeps masked ones as they were). */
function body(a: Addon) {
  const parameters = Object.fromEntries(Object.entries(a.parameters).filter(([k, v]) => v !== '' && k !== 'signingSecret'));
  return { provider: 'webhook', enabled: a.enabled, description: a.description || undefined, parameters, events: a.events, projects: a.projects, environments: a.environments };
}

function DeliveryLine({ d }: { d?: Delivery }) {
  if (!d) return null;
  return html`<span class=${d.lastError ? 'error-text' : 'muted'}>${d.lastError ? `failing: ${d.lastError}` : `${d.delivered} delivered${d.lastDeliveredAt ? `, last ${when(d.lastDeliveredAt)}` : ''}`}${d.pendingEvents ? ` · ${d.pendingEvents} waiting` : ''}</span>`;
}

/** How often the page asks again while a webhook is on: a delivery is counted without an event, so the live poller does not see it. */
const DELIVERY_EVERY_MS = 3_000;

export function WebhooksPage() {
  const list = useLoad(() => get<{ addons: Addon[]; providers: { name: string; events: string[] }[] }>('/api/admin/addons'), []);
  const anyOn = list.data?.addons.some((a) => a.enabled) ?? false;
  const [fresh, setFresh] = useState<Addon[] | null>(null);
  useEffect(() => {
    setFresh(null);
    if (!anyOn) return undefined;
    const timer = setInterval(() => void poll<{ addons: Addon[] }>('/api/admin/addons').then((d) => setFresh(d.addons), () => undefined), DELIVERY_EVERY_MS);
    return () => clearInterval(timer);
  }, [anyOn, list.data]);
  const [editing, setEditing] = useState<number | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [secret, setSecret] = useState<string | null>(null);
  const eventTypes = list.data?.providers.find((p) => p.name === 'webhook')?.events ?? [];
  // The delivery figures from the last background ask, over the list as last loaded.
  const addons = (list.data?.addons ?? []).map((a) => ({ ...a, delivery: fresh?.find((f) => f.id === a.id)?.delivery ?? a.delivery }));
  return html`<${Page} title="Webhooks">
    <p class="muted">Fanion POSTs each matching event to a webhook, in order, signed with its secret (X-Fanion-Signature), retrying for a day.</p>
    ${blockedBy(ADMIN) ? html`<p class="note" role="note">${blockedBy(ADMIN)} Webhooks are managed by Admins.</p>` : null}
    <${ErrorNote} error=${list.error} />
    ${list.data && addons.length === 0 ? html`<${Empty} title="No webhooks yet."><p>Create one below to tell another system (chat, CI, an audit log) when flags change.</p><//>` : null}
    ${addons.length > 0 ? html`<div class="table-wrap"><table class="webhooks">
      <thead><tr><th scope="col">Enabled</th><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Delivery</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${addons.map((a) => [html`<tr key=${a.id}>
        <td><${Switch} need=${ADMIN} on=${a.enabled} label=${`${a.enabled ? 'Disable' : 'Enable'} webhook ${a.parameters.url}`}
          onToggle=${async () => (await api('PUT', `/api/admin/addons/${a.id}`, body({ ...a, enabled: !a.enabled })), changed(), list.reload())} /></td>
        <th scope="row">${a.parameters.url}${a.description ? html`<div class="muted">${a.description}</div>` : null}</th>
        <td>${a.events.includes('*') ? 'all' : a.events.join(', ')}</td>
        <td><${DeliveryLine} d=${a.delivery} /></td>
        <td><div class="row-actions"><${Opener} label=${`Edit ${a.parameters.url}`} expanded=${editing === a.id} need=${ADMIN} onClick=${() => setEditing(editing === a.id ? null : a.id)} />
          <${Action} label=${`Delete ${a.parameters.url}`} kind="danger" need=${ADMIN} confirm=${`Delete the webhook to ${a.parameters.url}? Nothing more is sent to it.`}
            run=${async () => (await api('DELETE', `/api/admin/addons/${a.id}`), changed(), list.reload())} /></div></td>
      </tr>`, editing === a.id ? html`<${EditRow} key=${`${a.id}-edit`} columns=${5}>
        <${WebhookForm} initial=${a} eventTypes=${eventTypes} submit="Save webhook"
          onSave=${async (n: Addon) => (await api('PUT', `/api/admin/addons/${a.id}`, body(n)), changed(), setEditing(null), list.reload())} />
      <//>` : null])}</tbody></table></div>` : null}
    <section class="panel" aria-labelledby="new-webhook"><h2 id="new-webhook">Create a webhook</h2>
      <${WebhookForm} key=${formKey} initial=${BLANK} eventTypes=${eventTypes} submit="Create webhook" onSave=${async (a: Addon) => {
        const made = await api<Addon>('POST', '/api/admin/addons', body(a));
        setSecret(made.parameters.signingSecret ?? null);
        changed();
        list.reload();
        setFormKey((k) => k + 1);
      }} />
      ${secret ? html`<div class="secret" role="status"><p><strong>Its signing secret, shown this once:</strong> check X-Fanion-Signature with it.</p>
        <code aria-label="Signing secret">${secret}</code> <${CopyButton} text=${secret} /></div>` : null}
    </section>
  <//>`;
}
