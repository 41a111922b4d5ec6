// Changes made elsewhere (another tab, a script, an import) show up without a reload: every few
// seconds the console asks for the newest event it may see, and when its id moves, every view
// that depends on `useLive()` loads again.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

const EVERY_MS = 2_000;
let revision = 0;
let newest = -1;
const listeners = new Set<(r: number) => void>();
let timer: ReturnType<typeof setInterval> | null = null;

async function poll(): Promise<void> {
  try {
    const page = await api<{ events: { id: number }[] }>('POST', '/api/admin/events/search', { limit: 1 });
    const id = page.events[0]?.id ?? 0;
    if (newest !== -1 && id !== newest) {
      revision++;
      for (const l of listeners) l(revision);
    }
    newest = id;
  } catch {
    /* signed out or offline: the views show their own errors */
  }
}

/** Tells the poller a change was just made here, so the view need not wait for the next tick. */
export function changed(): void {
  revision++;
  for (const l of listeners) l(revision);
}

/** A number that moves whenever something changed on the server. */
export function useLive(): number {
  const [r, setR] = useState(revision);
  useEffect(() => {
    listeners.add(setR);
    if (!timer) {
      void poll();
      timer = setInterval(() => void poll(), EVERY_MS);
    }
    return () => {
      listeners.delete(setR);
    };
  }, []);
  return r;
}
