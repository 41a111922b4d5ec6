// A one-time link (`#/invite/<secret>` or `#/reset/<secret>`): whom it is for, then a password to
// choose. The secret travels after the `#`, so it reaches no server log or Referer; the API checks
// it, and it works once.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, enc, get } from '../api.js';
import { ErrorNote, Field } from '../components.js';
import { html } from '../html.js';

interface LinkUser { name: string | null; email: string | null; username: string | null; createdBy: string; role: { name: string } }

export function PasswordLinkPage(props: { secret: string; kind: 'invite' | 'reset'; onDone: (login: string) => void }) {
  const [who, setWho] = useState<LinkUser | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [busy, setBusy] = useState(false);
  const [mismatch, setMismatch] = useState(false);
  useEffect(() => {
    get<LinkUser>(`/auth/reset/validate?token=${enc(props.secret)}`).then(setWho, (e) => setError(e as ApiError));
  }, [props.secret]);
  const submit = async (e: Event) => {
    e.preventDefault();
    setMismatch(password !== again);
    if (password !== again) return;
    setBusy(true);
    try {
      await api('POST', '/auth/reset/password', { token: props.secret, password });
      props.onDone(who?.email ?? who?.username ?? '');
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin" id="main">
    <h1>${props.kind === 'invite' ? 'Welcome to Fanion' : 'Choose a new password'}</h1>
    ${who ? html`<p>${who.name ?? who.email ?? who.username}${who.email ? html` (<strong>${who.email}</strong>)` : null}: ${props.kind === 'invite' ? `${who.createdBy} invited you as ${who.role.name}.` : 'choose your new password.'}</p>
      <form onSubmit=${submit} aria-label="Choose a password">
        <${Field} label="New password" type="password" autocomplete="new-password" autofocus value=${password} onInput=${setPassword} required hint="At least 12 characters, and not a common password." />
        <${Field} label="New password again" type="password" autocomplete="new-password" value=${again} onInput=${setAgain} required error=${mismatch ? 'The two passwords are not the same.' : null} />
        <div class="form-actions"><button type="submit" class="primary" disabled=${busy}>Set password</button></div>
      </form>` : error ? null : html`<p class="loading">Checking the link…</p>`}
    <${ErrorNote} error=${error} />
    <p><a href="#/">Back to sign-in</a></p>
  </main>`;
}
