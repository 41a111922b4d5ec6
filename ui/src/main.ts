// The Fanion console: a client of the public admin API, nothing more. Every rule (who may do what,
// what is valid) is the API's; the console shows what it answers.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, setToken, token } from './api.js';
import { html } from './html.js';
import { match, useRoute } from './router.js';
import { SignIn } from './pages/signin.js';
import { FlagsPage, ArchivePage } from './pages/flags.js';
import { FlagPage } from './pages/flag.js';
import { SegmentsPage } from './pages/segments.js';
import { EnvironmentsPage, ProjectsPage } from './pages/places.js';
import { StrategyTypesPage, ContextFieldsPage } from './pages/definitions.js';
import { TagsPage } from './pages/tags.js';
import { TokensPage } from './pages/tokens.js';
import { EventsPage } from './pages/events.js';
import { ApplicationsPage } from './pages/applications.js';
import { OverviewPage } from './pages/overview.js';
import { WebhooksPage } from './pages/webhooks.js';
import { Overlays } from './overlays.js';

const NAV: [string, string][] = [
  ['/', 'Flags'], ['/segments', 'Segments'], ['/environments', 'Environments'], ['/projects', 'Projects'], ['/strategies', 'Strategy types'],
  ['/context', 'Context fields'], ['/tags', 'Tags'], ['/tokens', 'API tokens'], ['/webhooks', 'Webhooks'], ['/events', 'Events'], ['/applications', 'Applications'],
];

type Session = 'checking' | 'signed-out' | 'open' | 'signed-in';

function App() {
  const path = useRoute();
  const [session, setSession] = useState<Session>('checking');
  const [problem, setProblem] = useState<ApiError | null>(null);
  const check = async () => {
    try {
      await api('GET', '/api/admin/projects');
      setSession(token() ? 'signed-in' : 'open');
      setProblem(null);
    } catch (e) {
      const err = e as ApiError;
      // 403: a valid token limited to some projects still signs in; the pages show what it may see.
      if (err.status === 403 && token()) setSession('signed-in');
      else {
        setSession('signed-out');
        if (token()) setProblem(err);
      }
    }
  };
  useEffect(() => void check(), []);
  if (session === 'checking') return html`<p class="loading">Loading…</p>`;
  if (session === 'signed-out') return html`<${SignIn} problem=${problem} onSignedIn=${check} />`;
  const signOut = () => {
    setToken(null);
    setSession('signed-out');
  };
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to content</a>
    <nav aria-label="Main">
      <a class="brand" href="#/">Fanion</a>
      <ul>${NAV.map(([to, label]) => html`<li><a href=${`#${to}`} aria-current=${active(path, to) ? 'page' : undefined}>${label}</a></li>`)}</ul>
      ${session === 'signed-in' ? html`<button type="button" class="link" onClick=${signOut}>Sign out</button>` : html`<span class="open-note" title="AUTH_TYPE=none">no sign-in</span>`}
    </nav>
    <main id="main">${route(path)}</main>
    <${Overlays} />
  </div>`;
}

function active(path: string, to: string): boolean {
  const overview = /^\/projects\/[^/?]+\/overview/.test(path);
  if (to === '/projects' && overview) return true;
  if (to === '/') return path === '/' || path.startsWith('/?') || (path.startsWith('/projects/') && !overview) || path.startsWith('/archive');
  // `/projects/<id>…` is a project's flags, not the projects page.
  return path === to || (path.startsWith(`${to}/`) && to !== '/projects') || path.startsWith(`${to}?`);
}

function route(path: string) {
  let p: Record<string, string> | null;
  // Keyed by flag: another flag's page starts afresh (no half-typed form or old error carried over).
  if ((p = match('/projects/:project/flags/:flag', path))) return html`<${FlagPage} key=${`${p.project}/${p.flag}`} project=${p.project} flag=${p.flag} />`;
  if ((p = match('/projects/:project/overview', path))) return html`<${OverviewPage} key=${p.project} project=${p.project} />`;
  if ((p = match('/projects/:project', path))) return html`<${FlagsPage} project=${p.project} path=${path} />`;
  if (path === '/' || path.startsWith('/?')) return html`<${FlagsPage} project="default" path=${path} />`;
  if (path.startsWith('/archive')) return html`<${ArchivePage} />`;
  if (path.startsWith('/segments')) return html`<${SegmentsPage} />`;
  if (path.startsWith('/environments')) return html`<${EnvironmentsPage} />`;
  if (path.startsWith('/projects')) return html`<${ProjectsPage} />`;
  if (path.startsWith('/strategies')) return html`<${StrategyTypesPage} />`;
  if (path.startsWith('/context')) return html`<${ContextFieldsPage} />`;
  if (path.startsWith('/tags')) return html`<${TagsPage} />`;
  if (path.startsWith('/tokens')) return html`<${TokensPage} />`;
  if (path.startsWith('/events')) return html`<${EventsPage} path=${path} />`;
  if (path.startsWith('/webhooks')) return html`<${WebhooksPage} />`;
  if (path.startsWith('/applications')) return html`<${ApplicationsPage} />`;
  return html`<section class="page"><h1>Not found</h1><p>Nothing here. <a href="#/">Back to the flags</a>.</p></section>`;
}

render(html`<${App} />`, document.getElementById('app')!);
