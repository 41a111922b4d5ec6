// The console's one question before a change that matters (deleting, revoking, archiving, a switch
// in production): a modal dialog in the console's style that names what will change, and whose
// answer button says what it does ("Delete beta-testers", not "OK"). It replaces the browser's
// confirm(), which could not be styled, named nothing and looked like a phishing prompt.
// The keyboard: Tab stays inside the dialog, Escape cancels, Enter confirms (unless the focus is on
// Cancel). A question asked by surprise (a switch pressed) puts the focus on Cancel; one asked by
// a button whose label already said what it does puts it on the answer, so Enter confirms.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';

export interface Question {
  title: string;
  body: string;
  /** The answer button's label: what confirming does. */
  confirm: string;
  /** The answer takes the focus (Enter confirms at once); otherwise Cancel does. */
  focusConfirm?: boolean;
  danger?: boolean;
}
interface Asked extends Question { resolve: (yes: boolean) => void }

let question: Asked | null = null;
const listeners = new Set<() => void>();
const redraw = () => listeners.forEach((l) => l());

/** Asks `q` in the dialog; resolves true when the person confirms, false otherwise. */
export function ask(q: Question): Promise<boolean> {
  return new Promise((resolve) => {
    question?.resolve(false);
    question = { ...q, resolve };
    redraw();
  });
}

/**
 * A confirmation written as one text ("Delete segment beta? Strategies using it lose it.") as a
 * question: its first sentence the title, the rest the body.
 */
export function asQuestion(text: string, confirm: string): Question {
  const m = /^(.*?\?)\s+(.+)$/s.exec(text);
  return { title: m ? m[1] : text, body: m ? m[2] : '', confirm, focusConfirm: true, danger: true };
}

/** What may take the focus inside `root`, in order. */
function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>('button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])')].filter((el) => !el.hasAttribute('disabled'));
}

function Asking({ q }: { q: Asked }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    // Where the focus was (the button that asked): it goes back there when the dialog closes.
    const before = document.activeElement as HTMLElement | null;
    dialog.showModal();
    dialog.querySelector<HTMLElement>(q.focusConfirm ? '[data-answer="yes"]' : '[data-answer="no"]')?.focus();
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, []);
  const answer = (yes: boolean) => {
    if (question === q) question = null;
    q.resolve(yes);
    redraw();
  };
  const keys = (e: KeyboardEvent) => {
    const dialog = ref.current!;
    if (e.key === 'Enter' && !(e.target as HTMLElement).matches('[data-answer="no"]')) {
      e.preventDefault();
      answer(true);
    } else if (e.key === 'Tab') {
      // A modal dialog leaves the page inert, but Tab would still leave it for the browser's own
      // controls: it goes round inside instead.
      const all = focusables(dialog);
      const at = all.indexOf(document.activeElement as HTMLElement);
      const next = e.shiftKey ? (at <= 0 ? all.length - 1 : at - 1) : (at === all.length - 1 ? 0 : at + 1);
      e.preventDefault();
      all[next]?.focus();
    }
  };
  return html`<dialog ref=${ref} class="modal ask" aria-labelledby="ask-title" aria-describedby=${q.body ? 'ask-body' : undefined}
    onCancel=${(e: Event) => (e.preventDefault(), answer(false))} onKeyDown=${keys}>
    <h2 id="ask-title">${q.title}</h2>
    ${q.body ? html`<p id="ask-body">${q.body}</p>` : null}
    <div class="form-actions"><button type="button" data-answer="no" onClick=${() => answer(false)}>Cancel</button> <button type="button" data-answer="yes" class=${q.danger ? 'danger' : 'primary'} onClick=${() => answer(true)}>${q.confirm}</button></div>
  </dialog>`;
}

/** The open question, if any; drawn once, by the app shell (overlays.ts). */
export function ConfirmDialog() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return question ? html`<${Asking} key=${question.title} q=${question} />` : null;
}
