// What floats above a page: a question asked before a change that matters (confirm-dialog.ts), a
// note saying what was just done with a few seconds to undo it, and modal forms (a new flag, a new
// context field) that leave the page under them as it was. The question and the notes are drawn
// once, by the app shell (Overlays).
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ConfirmDialog } from './confirm-dialog.js';
import { html } from './html.js';

export { ask } from './confirm-dialog.js';

interface Note { id: number; text: string; undo?: () => Promise<unknown>; problem?: string; link?: [string, string] }

/** How long a note (and its Undo) stays. */
export const UNDO_MS = 8_000;

let notes: Note[] = [];
let noteIds = 0;
const listeners = new Set<() => void>();
const redraw = () => listeners.forEach((l) => l());

/** Says what was done; with `undo`, offers to take it back for UNDO_MS; with `link` (its words, its address), where to see it. */
export function tell(text: string, undo?: () => Promise<unknown>, link?: [string, string]): void {
  const id = ++noteIds;
  notes = [...notes.slice(-2), { id, text, undo, link }];
  redraw();
  setTimeout(() => drop(id), UNDO_MS);
}

function drop(id: number): void {
  notes = notes.filter((n) => n.id !== id);
  redraw();
}

/** A modal dialog, open while it is drawn; Escape or the close button calls `onClose`. */
export function Modal(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [id] = useState(() => `modal${++noteIds}`);
  useEffect(() => {
    ref.current?.showModal();
    (ref.current?.querySelector('input, select, textarea, button:not(.close)') as HTMLElement | null)?.focus();
  }, []);
  return html`<dialog ref=${ref} class="modal" aria-labelledby=${id} onCancel=${(e: Event) => (e.preventDefault(), props.onClose())}>
    <header class="modal-head"><h2 id=${id}>${props.title}</h2><button type="button" class="close link" aria-label="Close" onClick=${props.onClose}>✕</button></header>
    ${props.children}
  </dialog>`;
}

function NoteLine({ n }: { n: Note }) {
  const [busy, setBusy] = useState(false);
  const undo = async () => {
    setBusy(true);
    try {
      await n.undo!();
      drop(n.id);
    } catch (e) {
      n.problem = (e as Error).message;
      setBusy(false);
      redraw();
    }
  };
  return html`<div class="toast"><span>${n.text}</span>${n.link ? html` <a href=${n.link[1]}>${n.link[0]}</a>` : null}
    ${n.undo ? html`<button type="button" class="link" aria-disabled=${busy} onClick=${() => !busy && void undo()}>Undo</button>` : null}
    <button type="button" class="link close" aria-label="Dismiss" onClick=${() => drop(n.id)}>✕</button>
    ${n.problem ? html`<p class="error" role="alert">${n.problem}</p>` : null}</div>`;
}

/** The open question (confirm-dialog.ts) and the notes; drawn once by the app shell. */
export function Overlays() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return html`<${ConfirmDialog} />
    <div class="notes" role="status" aria-live="polite">${notes.map((n) => html`<${NoteLine} key=${n.id} n=${n} />`)}</div>`;
}
