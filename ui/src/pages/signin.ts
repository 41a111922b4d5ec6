// Signing in: with an email or username and a password (a session cookie the browser keeps), with
// the single sign-on provider when there is one, or with an admin API token kept for this tab only
// (sessionStorage), for admins who prefer it.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, get, setToken } from '../api.js';
import { ErrorNote, Field } from '../components.js';
import { html } from '../html.js';

interface Options { password: boolean; oidc: { name: string; url: string } | null }

/** A message passed in the address (`#/signin?error=…`, from a single sign-on that failed). */
function errorInAddress(): ApiError | null {
  const q = location.hash.indexOf('?');
  const message = q < 0 ? null : new URLSearchParams(location.hash.slice(q + 1)).get('error');
  return message ? new ApiError(401, 'Sign-in failed', message) : null;
}

export function SignIn(props: { problem: ApiError | null; onSignedIn: () => void; username?: string }) {
  const [options, setOptions] = useState<Options | null>(null);
  const [username, setUsername] = useState(props.username ?? '');
  const [password, setPassword] = useState('');
  const [token, setTokenValue] = useState('');
  const [error, setError] = useState<ApiError | null>(props.problem ?? errorInAddress());
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    get<Options>('/auth/options').then(setOptions, () => setOptions({ password: true, oidc: null }));
  }, []);
  const withPassword = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      setToken(null);
      await api('POST', '/auth/simple/login', { username: username.trim(), password });
      setPassword('');
      if (location.hash.startsWith('#/signin')) location.hash = '#/';
      props.onSignedIn();
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const withToken = async (e: Event) => {
    e.preventDefault();
    setToken(token.trim());
    try {
      await api('GET', '/api/admin/user');
    } catch (err) {
      setToken(null);
      setError(err as ApiError);
      return;
    }
    props.onSignedIn();
  };
  return html`<main class="signin" id="main">
    <h1>Fanion</h1>
    ${options?.password !== false ? html`<form onSubmit=${withPassword} aria-label="Sign in">
      <${Field} label="Email or username" value=${username} onInput=${setUsername} required autocomplete="username" autofocus=${!props.username} />
      <${Field} label="Password" type="password" value=${password} onInput=${setPassword} required autocomplete="current-password" autofocus=${!!props.username} />
      <div class="form-actions"><button type="submit" class="primary" disabled=${busy}>Sign in</button></div>
    </form>` : null}
    ${options?.oidc ? html`<p><a class="button primary" href=${options.oidc.url}>Sign in with ${options.oidc.name}</a></p>` : null}
    <${ErrorNote} error=${error} />
    <details class="token-signin"><summary>Use an admin API token instead</summary>
      <form onSubmit=${withToken} aria-label="Sign in with a token">
        <${Field} label="Admin API token" type="password" autocomplete="off" value=${token} onInput=${setTokenValue} required placeholder="*:*.your-admin-token"
          hint="Kept for this tab only. Fanion printed one at its first start, or use one from INIT_ADMIN_API_TOKENS." />
        <div class="form-actions"><button type="submit">Sign in with the token</button></div>
      </form>
    </details>
  </main>`;
}
