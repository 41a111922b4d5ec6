// "Connect an SDK": the code that connects an application to this server, for the SDK chosen,
// with this server's address (the client API for server-side SDKs, the Frontend API for browser
// and mobile ones), the flag's real name and a token of the kind that SDK needs: one given (just
// created on the tokens page), one made here by a person who may, or a placeholder naming the
// kind. While open it watches the applications the server has seen, and turns green when one it
// had not seen before reports in the chosen environment: the code ran and reached the server.
// The snippets' text is a chunk of its own (sdk-snippets.ts), fetched when the panel opens.
import { useEffect, useState } from 'preact/hooks';
import { need } from './access.js';
import { api, ApiError, poll } from './api.js';
import { Action, CopyButton, ErrorNote, Field, Select } from './components.js';
import { html } from './html.js';
import type { TokenKind } from './sdk-snippets.js';

type Snippets = typeof import('./sdk-snippets.js');

interface SeenInstance { instanceId: string; environment: string; connectionId: string | null; sdkVersion: string | null }
interface SeenApp { appName: string; instances: SeenInstance[] }

/** How often the panel asks which applications have reported, while it is open. */
const WATCH_EVERY_MS = 2_000;
/** The most applications one look lists (the server's page limit): the most recently seen first. */
const WATCHED = 1000;

/** One instance of one application, as the server lists it; a new process is a new key (its instance or connection id is new). */
const key = (a: SeenApp, i: SeenInstance) => `${a.appName}\0${i.instanceId}\0${i.connectionId ?? ''}`;

/** Every instance the server lists, as keys: what was there before the panel opened. */
export function seenKeys(apps: SeenApp[]): Set<string> {
  return new Set(apps.flatMap((a) => a.instances.map((i) => key(a, i))));
}

/** The first instance in `environment` that `before` did not have: an application that just connected. */
export function newlyConnected(before: Set<string>, apps: SeenApp[], environment: string): { appName: string; sdkVersion: string | null } | null {
  for (const a of apps) {
    const i = a.instances.find((x) => x.environment === environment && !before.has(key(a, x)));
    if (i) return { appName: a.appName, sdkVersion: i.sdkVersion };
  }
  return null;
}

/**
 * Watches the applications the server lists, from when `environment` (and the SDK) was chosen,
 * until one new there reports: another SDK chosen is a new wait.
 */
function useConnection(environment: string, sdk: string, watching: boolean) {
  const [found, setFound] = useState<{ appName: string; sdkVersion: string | null } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    setFound(null);
    if (!watching) return;
    let before: Set<string> | null = null;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const look = async () => {
      try {
        const { applications } = await poll<{ applications: SeenApp[] }>(`/api/admin/metrics/applications?limit=${WATCHED}`);
        if (stopped) return;
        setError(null);
        if (!before) before = seenKeys(applications);
        else {
          const now = newlyConnected(before, applications, environment);
          if (now) return setFound(now);
        }
      } catch (err) {
        if (!stopped) setError(err instanceof ApiError ? err : new ApiError(0, 'Error', String(err)));
      }
      if (!stopped) timer = setTimeout(() => void look(), WATCH_EVERY_MS);
    };
    void look();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [environment, sdk, watching]);
  return { found, error };
}

export interface GivenToken { secret: string; type: string; environment: string }

/**
 * The panel. `flag`/`project`: the flag the code asks for, and the project a token made here is
 * for (none: a name typed in, every project). `token`: one just made (its kind narrows the SDKs).
 */
export function ConnectSdk(props: { flag?: string; project?: string; environments: string[]; token?: GivenToken; startOpen?: boolean }) {
  const [open, setOpen] = useState(!!props.startOpen);
  const heading = `connect-sdk-${props.flag ?? 'token'}`;
  return html`<section class="panel connect-sdk" aria-labelledby=${heading}><h2 id=${heading}>Connect an SDK</h2>
    ${open ? html`<${Connect} ...${props} />` : html`<p class="muted">The code for your application, with ${props.flag ? `${props.flag}, ` : ''}this server and a token; it turns green when the application connects.
      <button type="button" onClick=${() => setOpen(true)}>Connect an SDK</button></p>`}
  </section>`;
}

function Connect({ flag, project, environments, token }: { flag?: string; project?: string; environments: string[]; token?: GivenToken }) {
  const [lib, setLib] = useState<Snippets | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  useEffect(() => {
    import('./sdk-snippets.js').then(setLib, setLoadError);
  }, []);
  const [sdk, setSdk] = useState(token?.type === 'frontend' ? 'browser' : 'node');
  const [environment, setEnvironment] = useState(token?.environment ?? (environments.includes('development') ? 'development' : environments[0] ?? 'development'));
  const [flagName, setFlagName] = useState(flag ?? 'my-flag');
  // Tokens made here, by kind and environment: choosing another SDK of the same kind keeps the token.
  const [made, setMade] = useState<Record<string, string>>({});
  const reports = !!lib && lib.SDKS.find((s) => s.id === sdk)?.reports !== false;
  const { found, error } = useConnection(environment, sdk, reports);
  if (!lib) return html`${loadError ? html`<p class="error" role="alert">The snippets could not be loaded; reload the page.</p>` : html`<p class="loading">Loading…</p>`}`;
  const choices = lib.SDKS.filter((s) => !token || s.kind === token.type);
  const chosen = choices.find((s) => s.id === sdk) ?? choices[0];
  const kind: TokenKind = chosen.kind;
  const secret = token?.type === kind && token.environment === environment ? token.secret : made[`${kind}:${environment}`] ?? null;
  const appName = kind === 'client' ? 'my-app' : 'my-web-app';
  const code = lib.snippet(chosen.id, { origin: location.origin, flag: flagName, environment, token: secret, appName });
  return html`<div class="connect-choices">
      <${Select} label="SDK" value=${chosen.id} options=${choices.map((s) => [s.id, s.label] as [string, string])} onChange=${setSdk} />
      ${token ? null : html`<${Select} label="Environment" value=${environment} options=${environments} onChange=${setEnvironment} hint="the one the token serves" />`}
      ${flag ? null : html`<${Field} label="Flag name" value=${flagName} onInput=${setFlagName} />`}
    </div>
    ${secret ? null : html`<p class="token-missing">This code needs a ${kind} token for ${environment}${project ? ` (project ${project})` : ''}: it stands as <code>${lib.placeholder(kind, environment)}</code>.
      <${Action} label=${`Create a ${kind} token for ${environment}`} kind="primary" need=${need('ADMIN')}
        run=${async () => {
          const answer = await api<{ secret: string }>('POST', '/api/admin/api-tokens', { tokenName: `${appName} (${environment})`, type: kind, environment, projects: [project ?? '*'] });
          setMade((m) => ({ ...m, [`${kind}:${environment}`]: answer.secret }));
        }} /></p>`}
    <div class="snippets"><pre aria-label=${`${chosen.label} snippet`}><code>${code}</code></pre>
      <${CopyButton} text=${code} label=${`Copy ${chosen.label} snippet`} /></div>
    <p role="status" class=${found ? 'connected' : 'muted'}>${found
      ? `Connected: ${found.appName}${found.sdkVersion ? `, ${found.sdkVersion}` : ''}`
      : reports ? `Waiting for an application to connect in ${environment}…`
        : `${chosen.label} only asks for flags and never announces itself, so this panel cannot see it connect; the token's "Last used" on API tokens shows its requests.`}</p>
    <${ErrorNote} error=${error} />`;
}
