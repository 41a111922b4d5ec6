// Getting to a flag from anywhere: Ctrl+K (⌘K on a Mac) opens a box that finds flags of every
// project as their name is typed (the server's flag search, favourites first); arrows choose,
// Enter opens the flag's page, Escape closes. `/` goes to the flags table's search, unless the
// person is typing somewhere already.
import { useEffect, useRef, useState } from 'preact/hooks';
import { enc, get } from './api.js';
import { useLoad } from './components.js';
import { Marked } from './flag-tools.js';
import { html } from './html.js';
import { navigate } from './router.js';

interface Hit { name: string; project: string; description: string | null; favorite?: boolean }

const typing = (el: EventTarget | null) => el instanceof HTMLElement && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));

/** The keys, listened to once for the whole console, and the box while it is open. */
export function Jump() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setOpen(true);
      } else if (e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !typing(e.target)) {
        const search = document.querySelector<HTMLInputElement>('[role=search] input');
        if (search) {
          e.preventDefault();
          search.focus();
          search.select();
        }
      }
    };
    addEventListener('keydown', key);
    return () => removeEventListener('keydown', key);
  }, []);
  const mac = /Mac|iP/.test(navigator.platform);
  return html`<button type="button" class="link jump-open" onClick=${() => setOpen(true)}>Jump to a flag <kbd>${mac ? '⌘K' : 'Ctrl K'}</kbd></button>
    ${open ? html`<${JumpBox} onClose=${() => setOpen(false)} />` : null}`;
}

function JumpBox({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState('');
  const [at, setAt] = useState(0);
  useEffect(() => {
    ref.current?.showModal();
    ref.current?.querySelector('input')?.focus();
  }, []);
  const q = new URLSearchParams({ query: text.trim(), limit: '10', sortBy: 'name', favoritesFirst: 'true' });
  const hits = useLoad(() => get<{ features: Hit[] }>(`/api/admin/search/features?${q}`).then((r) => r.features), [q.toString()]);
  const list = hits.data ?? [];
  const chosen = Math.min(at, list.length - 1);
  const go = (h: Hit | undefined) => {
    if (!h) return;
    onClose();
    navigate(`/projects/${enc(h.project)}/flags/${enc(h.name)}`);
  };
  const keys = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setAt(Math.max(0, Math.min(list.length - 1, chosen + (e.key === 'ArrowDown' ? 1 : -1))));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      go(list[chosen]);
    }
  };
  return html`<dialog ref=${ref} class="modal jump" aria-label="Jump to a flag" onCancel=${(e: Event) => (e.preventDefault(), onClose())}
    onClick=${(e: Event) => e.target === ref.current && onClose()}>
    <input role="combobox" aria-label="Jump to a flag" aria-expanded="true" aria-controls="jump-list" aria-autocomplete="list"
      aria-activedescendant=${chosen >= 0 ? `jump-${chosen}` : undefined} placeholder="Flag name, description or tag" value=${text}
      onInput=${(e: Event) => (setText((e.target as HTMLInputElement).value), setAt(0))} onKeyDown=${keys} />
    <ul id="jump-list" role="listbox" aria-label="Flags">${list.map((h, i) => html`<li id=${`jump-${i}`} role="option" aria-selected=${i === chosen ? 'true' : 'false'}
      onMouseDown=${(e: Event) => (e.preventDefault(), go(h))}>${h.favorite ? '★ ' : ''}<${Marked} text=${h.name} query=${text} /> <small class="muted">${h.project}</small></li>`)}
      ${hits.data && list.length === 0 ? html`<li class="muted">No flag matches.</li>` : null}</ul>
  </dialog>`;
}
