// The recent-changes window: what each recent change touched, by the id of its last event. A
// delta poll or a reconnecting stream that names an id inside the window gets just what changed
// since (built from the current state); an older, unknown or future id gets a hydration. Changes
// enter when applied and leave if rolled back, so the window always matches the state.
import { emptyTouch, isEmpty, mergeTouch, type Touch } from '../../core/state/touch.js';

interface Entry {
  lsn: number;
  eventId: number;
  touch: Touch;
  items: number;
}

export class RecentChanges {
  private entries: Entry[] = [];
  private items = 0;
  /** Every change after this event id that touched anything is in the window. */
  private floor: number;

  constructor(
    lastEventId: number,
    private readonly maxChanges = 10_000,
    /** Flags and segments held over all entries: one large import should not pin memory. */
    private readonly maxItems = 200_000,
  ) {
    this.floor = lastEventId;
  }

  /** A change just applied; `eventId` is the id of its last event. */
  add(lsn: number, eventId: number, touch: Touch): void {
    if (isEmpty(touch)) return;
    const items = touch.flags.size + touch.segments.size;
    this.entries.push({ lsn, eventId, touch, items });
    this.items += items;
    while (this.entries.length > this.maxChanges || (this.items > this.maxItems && this.entries.length > 0)) {
      const gone = this.entries.shift()!;
      this.items -= gone.items;
      this.floor = gone.eventId;
    }
  }

  /** Forget everything: only ids from `eventId` on can be answered with changes. */
  restart(eventId: number): void {
    this.entries = [];
    this.items = 0;
    this.floor = eventId;
  }

  /** The change with `lsn` and every later one were rolled back. */
  dropFrom(lsn: number): void {
    while (this.entries.length > 0 && this.entries[this.entries.length - 1].lsn >= lsn) this.items -= this.entries.pop()!.items;
  }

  /**
   * What changed after event `since`, up to `last` (the newest event id), merged; null when the
   * window cannot say (older than the window, or an id this server never gave).
   */
  since(since: number, last: number): Touch | null {
    if (!Number.isSafeInteger(since) || since < this.floor || since > last) return null;
    const out = emptyTouch();
    for (let i = this.entries.length - 1; i >= 0 && this.entries[i].eventId > since; i--) mergeTouchBefore(out, this.entries[i].touch);
    return out;
  }
}

/**
 * Merges walking backwards (newest first): the oldest change's `before` must win, so each older
 * entry overwrites `before` of flags and segments already seen.
 */
function mergeTouchBefore(into: Touch, older: Touch): void {
  mergeTouch(into, older);
  for (const [name, f] of older.flags) into.flags.get(name)!.before = f.before;
  for (const [id, before] of older.segments) into.segments.set(id, before);
}
