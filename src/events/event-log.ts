// The event log held in memory. Events are immutable once recorded; ids are gapless and
// increasing, so the log is an append-only array indexed by `id - firstId`.
import type { EventRecord } from '../state/types.js';

export class EventLog {
  private events: EventRecord[] = [];

  get lastId(): number {
    return this.events.length === 0 ? 0 : this.events[this.events.length - 1].id;
  }

  get size(): number {
    return this.events.length;
  }

  append(event: EventRecord): void {
    if (event.id !== this.lastId + 1) {
      throw new Error(`event id ${event.id} does not follow ${this.lastId}: the log would have a gap`);
    }
    this.events.push(event);
  }

  /** Undo of the newest append, used when a WAL write fails. */
  removeLast(expectedId: number): void {
    const last = this.events[this.events.length - 1];
    if (!last || last.id !== expectedId) throw new Error(`cannot undo event ${expectedId}: newest is ${last?.id}`);
    this.events.pop();
  }

  get(id: number): EventRecord | undefined {
    const first = this.events[0];
    if (!first) return undefined;
    return this.events[id - first.id];
  }

  /** Newest first. */
  *newestFirst(): IterableIterator<EventRecord> {
    for (let i = this.events.length - 1; i >= 0; i--) yield this.events[i];
  }

  *oldestFirst(): IterableIterator<EventRecord> {
    yield* this.events;
  }
}
