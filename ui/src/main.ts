// The Fanion console: a client of the public admin API, nothing more. Every rule (who may do what,
// what is valid) is the API's; the console shows what it answers.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { current, forget, loadMe, may } from './access.js';
import { api, ApiError, setToken, token, whenSignedOut } from './api.js';
import { html } from './html.js';
import { match, useRoute } from './router.js';
import { SignIn } from './pages/signin.js';
import { FlagsPage, ArchivePage } from './pages/flags.js';
import { FlagPage } from './pages/flag.js';
import { EventsPage } from './pages/events.js';
import { OverviewPage } from './pages/overview.js';
import { Overlays } from './overlays.js';
import { lazy } from './lazy.js';
import { Waiting } from './change-requests.js';
import { Jump } from './jump.js';

// Fetched when first shown (lazy.ts): the first load is the flags list and a flag's page.
const SegmentsPage = lazy(() => import('./pages/segments.js').then((m) => m.SegmentsPage));
const EnvironmentsPage = lazy(() => import('./pages/places.js').then((m) => m.EnvironmentsPage));
const ProjectsPage = lazy(() => import('./pages/places.js').then((m) => m.ProjectsPage));
const StrategyTypesPage = lazy(() => import('./pages/definitions.js').then((m) => m.StrategyTypesPage));
const ContextFieldsPage = lazy(() => import('./pages/definitions.js').then((m) => m.ContextFieldsPage));
const TagsPage = lazy(() => import('./pages/tags.js').then((m) => m.TagsPage));
const TokensPage = lazy(() => import('./pages/tokens.js').then((m) => m.TokensPage));
const ApplicationsPage = lazy(() => import('./pages/applications.js').then((m) => m.ApplicationsPage));
const WebhooksPage = lazy(() => import('./pages/webhooks.js').then((m) => m.WebhooksPage));
const PasswordLinkPage = lazy(() => import('./pages/invite.js').then((m) => m.PasswordLinkPage));
const PeoplePage = lazy(() => import('./pages/people.js').then((m) => m.PeoplePage));
const ProfilePage = lazy(() => import('./pages/profile.js').then((m) => m.ProfilePage));
const ReleaseTemplatesPage = lazy(() => import('./pages/release-templates.js').then((m) => m.ReleaseTemplatesPage));
const ImpactMetricsPage = lazy(() => import('./pages/impact-metrics.js').then((m) => m.ImpactMetricsPage));
const ChangeRequestPage = lazy(() => import('./pages/change-requests.js').then((m) => m.ChangeRequestPage));
const ChangeRequestsPage = lazy(() => import('./pages/change-requests.js').then((m) => m.ChangeRequestsPage));

const NAV: [string, string][] = [
  ['/', 'Flags'], ['/segments', 'Segments'], ['/environments', 'Environments'], ['/projects', 'Projects'], ['/strategies', 'Strategy types'],
  ['/context', 'Context fields'], ['/tags', 'Tags'], ['/tokens', 'API tokens'], ['/webhooks', 'Webhooks'], ['/change-requests', 'Change requests'], ['/events', 'Events'], ['/applications', 'Applications'],
  ['/release-templates', 'Release templates'], ['/impact-metrics', 'Impact metrics'], ['/people', 'People'],
];

type Session = 'checking' | 'signed-out' | 'open' | 'signed-in';

function App() {
  const path = useRoute();
  const [session, setSession] = useState<Session>('checking');
  const [problem, setProblem] = useState<ApiError | null>(null);
  const [login, setLogin] = useState<string | undefined>(undefined);
  // On a narrow screen the navigation folds behind a Menu button (styles.css); choosing a page folds it again.
  const [menu, setMenu] = useState(false);
  useEffect(() => setMenu(false), [path]);
  const check = async () => {
    try {
      // Who is signed in (a session, a token of this tab) and what they may do: every page asks access.ts.
      const me = await loadMe();
      setSession(me.authType === 'open' ? 'open' : 'signed-in');
      setProblem(null);
    } catch (e) {
      forget();
      setSession('signed-out');
      if (token()) setProblem(e as ApiError);
    }
  };
  useEffect(() => {
    void check();
    // The session ended while the console was open (signed out elsewhere, deactivated, expired):
    // back to sign-in, saying why.
    whenSignedOut((err) => {
      if (current()?.authType === 'session' || current()?.authType === 'personal-token' || token()) {
        forget();
        setProblem(err);
        setSession('signed-out');
      }
    });
    return () => whenSignedOut(null);
  }, []);
  const link = /^\/(invite|reset)\/([^/?]+)/.exec(path);
  if (link) {
    return html`<${PasswordLinkPage} secret=${decodeURIComponent(link[2])} kind=${link[1] as 'invite' | 'reset'}
      onDone=${(who: string) => (setLogin(who), setProblem(null), setSession('signed-out'), (location.hash = '#/'))} />`;
  }
  if (session === 'checking') return html`<p class="loading">Loading…</p>`;
  if (session === 'signed-out') return html`<${SignIn} problem=${problem} onSignedIn=${check} username=${login} />`;
  const signedOut = () => {
    setToken(null);
    forget();
    setProblem(null);
    setSession('signed-out');
  };
  const signOut = async () => {
    // A session ends on the server; a token only leaves this tab.
    if (current()?.authType === 'session') await api('POST', '/logout').catch(() => undefined);
    signedOut();
  };
  const me = current();
  const who = me?.user.name ?? me?.user.email ?? me?.user.username;
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to content</a>
    <nav aria-label="Main" class=${menu ? 'open' : ''}>
      <div class="nav-top"><a class="brand" href="#/">Fanion</a>
        <button type="button" class="menu" aria-expanded=${menu ? 'true' : 'false'} aria-controls="nav-body" onClick=${() => setMenu(!menu)}>Menu</button></div>
      <div id="nav-body"><${Jump} />
      <ul>${NAV.filter(([to]) => to !== '/people' || may('ADMIN')).map(([to, label]) => html`<li><a href=${`#${to}`} aria-current=${active(path, to) ? 'page' : undefined}>${label}${to === '/change-requests' ? html`<${Waiting} />` : null}</a></li>`)}</ul>
      ${session === 'signed-in'
        // The profile link says what it is: a person named "Admin" read as an admin section.
        ? html`<p class="whoami">Signed in as <strong>${who ?? 'you'}</strong><br /><a href="#/profile" aria-current=${path === '/profile' ? 'page' : undefined}>Your profile</a></p>
          <button type="button" class="link" onClick=${signOut}>Sign out</button>`
        : html`<span class="open-note" title="AUTH_TYPE=none">no sign-in</span>`}
      </div>
    </nav>
    <main id="main">${route(path, signedOut)}</main>
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

function route(path: string, signedOut: () => void) {
  let p: Record<string, string> | null;
  // Keyed by flag: another flag's page starts afresh (no half-typed form or old error carried over).
  if ((p = match('/projects/:project/flags/:flag', path))) return html`<${FlagPage} key=${`${p.project}/${p.flag}`} project=${p.project} flag=${p.flag} />`;
  if ((p = match('/projects/:project/change-requests/:id', path))) return html`<${ChangeRequestPage} key=${p.id} project=${p.project} id=${p.id} />`;
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
  if (path.startsWith('/change-requests')) return html`<${ChangeRequestsPage} />`;
  if (path.startsWith('/events')) return html`<${EventsPage} path=${path} />`;
  if (path.startsWith('/webhooks')) return html`<${WebhooksPage} />`;
  if (path.startsWith('/applications')) return html`<${ApplicationsPage} />`;
  if (path.startsWith('/release-templates')) return html`<${ReleaseTemplatesPage} />`;
  if (path.startsWith('/impact-metrics')) return html`<${ImpactMetricsPage} />`;
  if (path.startsWith('/people')) return html`<${PeoplePage} />`;
  if (path.startsWith('/profile')) return html`<${ProfilePage} onSignedOut=${signedOut} />`;
  if (path.startsWith('/signin')) return html`<${FlagsPage} project="default" path="/" />`;
  return html`<section class="page"><h1>Not found</h1><p>Nothing here. <a href="#/">Back to the flags</a>.</p></section>`;
}

render(html`<${App} />`, document.getElementById('app')!);
