// Sign-in with an admin API token, kept for this tab only (sessionStorage).
import { useState } from 'preact/hooks';
import { api, ApiError, setToken } from '../api.js';
import { ErrorNote, Field } from '../components.js';
import { html } from '../html.js';

export function SignIn(props: { problem: ApiError | null; onSignedIn: () => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<ApiError | null>(props.problem);
  const submit = async (e: Event) => {
    e.preventDefault();
    setToken(value.trim());
    try {
      await api('GET', '/api/admin/projects');
    } catch (err) {
      const apiErr = err as ApiError;
      if (apiErr.status !== 403) {
        setToken(null);
        setError(apiErr);
        return;
      }
    }
    props.onSignedIn();
  };
  return html`<main class="signin" id="main">
    <h1>Fanion</h1>
    <form onSubmit=${submit} aria-label="Sign in">
      <${Field} label="Admin API token" type="password" value=${value} onInput=${setValue} required placeholder="*:*.your-admin-token"
        hint="Kept for this tab only. Fanion printed one at its first start, or use one from INIT_ADMIN_API_TOKENS." />
      <div class="form-actions"><button type="submit" class="primary">Sign in</button></div>
      <${ErrorNote} error=${error} />
    </form>
  </main>`;
}
