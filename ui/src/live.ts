// Changes made elsewhere (another tab, a script, an import) show up without a reload: every few
// seconds the console asks for the newest event it may see, and when its id moves, every view
// that depends on `useLive()` loads again. The question is a background read: the server does not
// write an access-log line for each.
import { useEffect, useState } from 'preact/hooks';
import { poll as ask } from './api.js';

const EVERY_MS = 2_000;
let revision = 0;
let newest = -1;
let asked = 0;
let answered = 0;
const listeners = new Set<(r: number) => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function bump(): void {
  revision++;
  for (const l of listeners) l(revision);
}

/** Asks for the newest event; views reload when it moved (or when `force`d, whatever it says). */
async function poll(force = false): Promise<void> {
  const mine = ++asked;
  try {
    const page = await ask<{ events: { id: number }[] }>('/api/admin/events?limit=1');
    // An answer overtaken by a later question (a tick and a change at once) says nothing new.
    if (mine < answered) return force ? bump() : undefined;
    answered = mine;
    const id = page.events[0]?.id ?? 0;
    const moved = newest !== -1 && id !== newest;
    newest = id;
    if (moved || force) bump();
  } catch {
    // Signed out or offline: the views show their own errors; a change made here still shows.
    if (force) bump();
  }
}

/**
 * Tells the poller a change was just made here, so views need not wait for the next tick. It
 * looks at once, taking in the change's event: the next tick then sees nothing new and the views
 * load once, not twice.
 */
export function changed(): void {
  void poll(true);
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
