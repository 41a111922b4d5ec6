// Small pieces every page uses: loading data (again when the server changes), showing an API error
// where the action was, labelled form fields, buttons and switches that report their own failure,
// breadcrumbs, copy buttons and what an empty page says to do next.
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { blockedBy, needAttributes, type Need } from './access.js';
import { ApiError } from './api.js';
import { asQuestion, ask } from './confirm-dialog.js';
import { html } from './html.js';
import { useLive } from './live.js';

type ErrorDetail = NonNullable<ApiError['details']>[number];

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | null;
  reload: () => void;
}

/** Runs `load` now, when `deps` change, and when the server's state changes (live.ts). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const live = useLive();
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [nonce, setNonce] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (d) => current && (setData(d), setError(null)),
      (e) => current && setError(e instanceof ApiError ? e : new ApiError(0, 'Error', String(e))),
    );
    return () => {
      current = false;
    };
  }, [...deps, live, nonce]);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { data, error, reload };
}

/** A field's problem in the words of its label: `"name" must be…` under "Segment name" reads "Segment name must be…". */
function inWords(message: string, path: string | undefined, label?: string): string {
  return label && path && message.startsWith(`"${path}"`) ? `${label}${message.slice(path.length + 2)}` : message;
}

/** What an API error says, in words: the message (per field for a validation error), never the error's name. */
export function plainMessage(error: ApiError): string {
  return error.details?.length ? error.details.map((d) => `${inWords(d.message, d.path)}.`).join(' ') : error.message;
}

/** An API error, in the API's words, next to what caused it. */
export function ErrorNote({ error }: { error: ApiError | null | undefined }) {
  if (!error) return null;
  return html`<p class="error" role="alert">${plainMessage(error)}</p>`;
}

/**
 * A form's last error and the API names of its fields (Field `name`), so that a field shows what
 * concerns it, under it, and the form only what concerns no field.
 */
interface FormErrors { error: ApiError | null; names: Set<string> }
const FormErrorsContext = createContext<FormErrors | null>(null);

/** Whether `error` is about the field the API calls `name`: a detail naming it, or (409) a name or id already taken. */
function concerns(error: ApiError, name: string): ErrorDetail | null {
  const d = error.details?.find((x) => x.path === name);
  if (d) return d;
  return error.status === 409 && !error.details?.length && (name === 'name' || name === 'id') ? { message: error.message, path: name } : null;
}

/** What of `error` no field in `names` shows: the rest, or null when the fields show it all. */
function leftOver(error: ApiError | null, names: Set<string>): ApiError | null {
  if (!error) return null;
  const details = error.details ?? [];
  if (details.length === 0) return [...names].some((n) => concerns(error, n)) ? null : error;
  const rest = details.filter((d) => !d.path || !names.has(d.path));
  if (rest.length === details.length) return error;
  return rest.length === 0 ? null : new ApiError(error.status, error.errorName, error.message, error.id, rest);
}

/** Runs an async action at most once at a time, keeping its API error to show. */
function useRunner(action: () => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'Error', String(e)));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

/**
 * An on/off switch: its state shown by position and colour (and `aria-checked`), what pressing it
 * does in its label. While its change is on its way it stays focusable (aria-disabled), so a
 * keyboard user keeps their place.
 */
export function Switch(props: { on: boolean; label: string; onToggle: () => Promise<unknown>; blocked?: string | null; need?: Need | null }) {
  const { busy, error, run } = useRunner(props.onToggle);
  // `blocked`: why the signed-in person may not switch it (access.ts whyNot): disabled, the reason as its title.
  const blocked = props.blocked ?? blockedBy(props.need);
  return html`<span class="action"><button type="button" role="switch" class="switch" aria-checked=${props.on ? 'true' : 'false'} aria-label=${props.label} title=${blocked ?? props.label}
    ...${needAttributes(props.need)} disabled=${!!blocked} aria-disabled=${busy ? 'true' : undefined} onClick=${() => !busy && void run()}><span class="knob" aria-hidden="true"></span></button><${ErrorNote} error=${error} /></span>`;
}

/** Puts `text` on the clipboard; says so for a moment. */
export function CopyButton({ text, label = 'Copy', title }: { text: string; label?: string; title?: string }) {
  const [copied, setCopied] = useState(false);
  return html`<button type="button" class="copy" title=${title} onClick=${async () => {
    await navigator.clipboard.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 2_000);
  }}>${copied ? 'Copied' : label}</button>`;
}

/** Where a page sits: links up to it, the page itself last. */
export function Crumbs({ trail }: { trail: [string, string | null][] }) {
  return html`<nav class="crumbs" aria-label="Breadcrumb"><ol>${trail.map(([label, href]) => html`<li>${href ? html`<a href=${href}>${label}</a>` : html`<span aria-current="page">${label}</span>`}</li>`)}</ol></nav>`;
}

/** What an empty list says: why it is empty and what to do next. */
export function Empty(props: { title: string; children?: ComponentChildren }) {
  return html`<div class="empty"><p><strong>${props.title}</strong></p>${props.children}</div>`;
}

/**
 * A button running an async action; its error appears beside it. `blocked` is why the signed-in
 * person may not (access.ts whyNot), or `need` what it needs (the reason then comes from
 * access.ts): the button is then disabled, with the reason as its title, and asks nothing.
 */
export function Action(props: {
  label: string; run: () => Promise<unknown>; kind?: 'danger' | 'primary' | 'link' | ''; confirm?: string; disabled?: boolean; title?: string; icon?: string; blocked?: string | null; need?: Need | null;
  /** Why nobody at all may do this (a built-in), whatever their role. */
  refused?: string | null;
  /** The confirmation's answer, when the label's first word is not the verb ("Yes, delete" by default). */
  answer?: string;
}) {
  const { busy, error, run } = useRunner(props.run);
  const blocked = props.refused ?? props.blocked ?? blockedBy(props.need);
  const click = async () => {
    if (blocked) return;
    // The console's own dialog (confirm-dialog.ts): its title names what is changed, its answer the
    // verb ("Yes, delete"), which is not this button's label, so the two are never taken for each other.
    if (props.confirm && !(await ask(asQuestion(props.confirm, props.answer ?? `Yes, ${props.label.split(' ')[0].toLowerCase()}`)))) return;
    void run();
  };
  return html`<span class="action"><button type="button" class=${props.kind ?? ''} disabled=${busy || props.disabled || !!blocked} title=${blocked ?? props.title}
    ...${needAttributes(props.need, props.refused)} aria-label=${props.icon ? props.label : undefined} onClick=${click}>${props.icon ?? props.label}</button><${ErrorNote} error=${error} /></span>`;
}

/**
 * A form whose submit runs an async action; the API's error is shown under it. `blocked` (or
 * `need`, see Action): why it may not be sent: shown, and the whole form disabled (a fieldset), so
 * nothing in it invites typing what could not be saved.
 */
export function Form(props: { onSubmit: () => Promise<unknown>; submit: string; children: ComponentChildren; label?: string; blocked?: string | null; need?: Need | null;
  /** Why what is typed cannot be sent yet (shown under its field): the submit is disabled, the fields stay open. */
  stop?: string | null;
}) {
  const { busy, error, run } = useRunner(props.onSubmit);
  const [names] = useState(() => new Set<string>());
  const blocked = props.blocked ?? blockedBy(props.need);
  const submit = (e: Event) => {
    e.preventDefault();
    // A form in a dialog opened from another form (a new context field from a strategy's): its
    // submit must not reach the form under it.
    e.stopPropagation();
    if (!blocked && !props.stop) void run();
  };
  return html`<form onSubmit=${submit} aria-label=${props.label}><${FormErrorsContext.Provider} value=${{ error, names }}>
    <fieldset class="bare" disabled=${!!blocked}>${props.children}</fieldset>
    <div class="form-actions"><button type="submit" class="primary" disabled=${busy || !!blocked || !!props.stop} title=${blocked ?? props.stop ?? undefined} ...${needAttributes(props.need)}>${props.submit}</button>
      ${blocked ? html`<span class="note">${blocked}</span>` : null}</div>
    <${ErrorNote} error=${leftOver(error, names)} />
  <//></form>`;
}

/**
 * A button that opens something (an edit form, a dialog) for a change that needs `need`: disabled,
 * with the reason as its title, when the signed-in person may not make that change.
 */
export function Opener(props: { label: string; onClick: () => void; need?: Need | null; blocked?: string | null; refused?: string | null; expanded?: boolean; kind?: string }) {
  const blocked = props.refused ?? props.blocked ?? blockedBy(props.need);
  return html`<button type="button" class=${props.kind ?? ''} aria-expanded=${props.expanded} disabled=${!!blocked} title=${blocked ?? undefined}
    ...${needAttributes(props.need, props.refused)} onClick=${props.onClick}>${props.label}</button>`;
}

let fieldIds = 0;
/**
 * A labelled input; `suggestions` are offered as it is typed (a datalist), any text still goes.
 * `name`: what the API calls it, so that the enclosing Form's error about it shows under it (or
 * `error`, a problem found before asking the API). `autocomplete` helps password managers;
 * `autofocus` takes the focus when it appears.
 */
export function Field(props: {
  label: string; value: string; onInput: (v: string) => void; type?: string; placeholder?: string; required?: boolean; hint?: string; multiline?: boolean; suggestions?: string[];
  name?: string; error?: string | null; autocomplete?: string; autofocus?: boolean;
}) {
  const [id] = useState(() => `f${++fieldIds}`);
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  useEffect(() => {
    if (props.autofocus) ref.current?.focus();
  }, []);
  const form = useContext(FormErrorsContext);
  if (form && props.name) form.names.add(props.name);
  const found = form?.error && props.name ? concerns(form.error, props.name) : null;
  const problem = props.error ?? (found ? inWords(found.message, found.path, props.label) : null);
  const list = props.suggestions ? `${id}-list` : undefined;
  const said = [props.hint ? `${id}-hint` : null, problem ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  const common = { id, ref, value: props.value, placeholder: props.placeholder, required: props.required, autocomplete: props.autocomplete, 'aria-invalid': problem ? 'true' : undefined, 'aria-describedby': said };
  const input = props.multiline
    ? html`<textarea ...${common} onInput=${(e: Event) => props.onInput((e.target as HTMLTextAreaElement).value)} />`
    : html`<input ...${common} type=${props.type ?? 'text'} list=${list} onInput=${(e: Event) => props.onInput((e.target as HTMLInputElement).value)} />`;
  return html`<div class="field"><label for=${id}>${props.label}</label>${input}${list ? html`<datalist id=${list}>${props.suggestions!.map((v) => html`<option value=${v} />`)}</datalist>` : null}${props.hint ? html`<small id=${`${id}-hint`}>${props.hint}</small>` : null}
    ${problem ? html`<small class="field-error" id=${`${id}-error`} role="alert">${problem}</small>` : null}</div>`;
}

/** A labelled select. */
export function Select(props: { label: string; value: string; options: (string | [string, string])[]; onChange: (v: string) => void; hint?: string }) {
  const [id] = useState(() => `f${++fieldIds}`);
  return html`<div class="field"><label for=${id}>${props.label}</label>
    <select id=${id} value=${props.value} onChange=${(e: Event) => props.onChange((e.target as HTMLSelectElement).value)}>
      ${props.options.map((o) => (Array.isArray(o) ? html`<option value=${o[0]}>${o[1]}</option>` : html`<option value=${o}>${o}</option>`))}
    </select>${props.hint ? html`<small>${props.hint}</small>` : null}</div>`;
}

/** A labelled checkbox. */
export function Check(props: { label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return html`<label class="check"><input type="checkbox" checked=${props.checked} onChange=${(e: Event) => props.onChange((e.target as HTMLInputElement).checked)} /> ${props.label}</label>`;
}

/** A table row's edit form, under the row it edits and across the table's width. */
export function EditRow(props: { columns: number; children: ComponentChildren }) {
  return html`<tr class="edit-row"><td colspan=${props.columns}>${props.children}</td></tr>`;
}

/** A page's frame: where it sits, a heading (with what goes beside it), actions, the content. */
export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren; crumbs?: [string, string | null][]; beside?: ComponentChildren }) {
  return html`<section class="page">${props.crumbs ? html`<${Crumbs} trail=${props.crumbs} />` : null}
    <header class="page-head"><div class="title"><h1>${props.title}</h1>${props.beside}</div><div class="page-actions">${props.actions}</div></header>${props.children}</section>`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const d = new Date(iso);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)}`;
}

/**
 * A ref for what was just made and is shown once (a secret, a link): when `value` changes it is
 * scrolled to the top of the window and its first button (Copy) takes the focus. It appears under
 * the form that made it, which with a long list above was below the fold, unseen.
 */
export function useShownOnce(value: unknown) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || value == null) return;
    el.scrollIntoView({ block: 'start' });
    el.querySelector('button')?.focus({ preventScroll: true });
  }, [value]);
  return ref;
}

/** A secret or one-time link shown once, with a button that copies it (scrolled to and focused: useShownOnce). */
export function ShownOnce(props: { message: ComponentChildren; value: string; name: string; copy?: string }) {
  const ref = useShownOnce(props.value);
  return html`<div class="secret" role="status" ref=${ref}><p>${props.message}</p>
    <code aria-label=${props.name}>${props.value}</code>
    <${CopyButton} text=${props.value} label=${props.copy ?? 'Copy'} /></div>`;
}
