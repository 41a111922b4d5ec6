// Webhook delivery: at least once, in event order, from the event log, outside the requests that
// made the changes. Each enabled addon has a worker that walks the log from its cursor (the last
// event it delivered or passed over) up to the newest *durable* event, sends what it wants one
// request at a time, and moves the cursor on. The cursor is kept in the WAL (op `addon.cursor`),
// written without waiting for the disk: a crash can lose the last moves, and then those events
// are sent again, which at-least-once allows; it never loses one.
//
// A failed send is retried after 1, 2, 4 … seconds (WEBHOOK_RETRY_BASE_MS doubling, at most
// WEBHOOK_RETRY_MAX_DELAY_MS apart) for up to WEBHOOK_RETRY_FOR_MS (24 h); then the event is
// dropped, logged and counted, and delivery goes on with the next. A worker waits on its own
// receiver only: admin writes never wait for a webhook.
//
// On a cluster only the leader delivers (leadership.ts): its cursor writes are fenced appends,
// awaited before the next send, and a send starts only while its lease holds. Other nodes keep
// their workers' cursors at the leader's, from the log, ready to take over.
//
// Nothing here runs long without yielding: a worker whose addon was deleted or switched off waits,
// without running again, until that change is durable and stops it (restarting itself at once
// instead spun in microtasks, so the write that would stop it never completed, and nothing else
// ran either); a worker goes on from a new turn of the event loop; passing over events it does not
// want yields every so often; and a body template renders within its budget (template.ts).
import type { Engine } from '../../core/engine/engine.js';
import type { Logger } from '../../core/logger.js';
import type { StateChange } from '../../core/state/change.js';
import type { Actor } from '../../core/state/types.js';
import type { Addon, EventRecord } from '../../core/state/types.js';
import type { WebhookLeadership } from './leadership.js';
import { moveCursor, wants, webhookRequest, type WebhookRequest } from './logic.js';
import type { Send, SendResult } from './sender.js';
import { TemplateBudgetError, type TemplateBudget } from './template.js';

export interface DeliveryOptions {
  /** The first retry's delay; each next one doubles it. */
  retryBaseMs: number;
  /** The longest wait between two attempts. */
  retryMaxDelayMs: number;
  /** How long one event is retried before it is dropped. */
  retryForMs: number;
  /** What rendering a body template may cost. */
  template: TemplateBudget;
}

export interface DeliveryDeps {
  engine: Engine;
  send: Send;
  log: Logger;
  options: DeliveryOptions;
  /** The clock, in ms (tests move it). */
  now?: () => number;
  /** On a cluster: who delivers. Without it this node always does. */
  leadership?: WebhookLeadership;
}

/** What GET /api/admin/addons/:id shows of an addon's delivery. */
export interface DeliveryStatus {
  lastEventId: number;
  pendingEvents: number;
  attempts: number;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  lastDeliveredAt: string | null;
  delivered: number;
  failed: number;
  dropped: number;
}

/**
 * Cursor moves over events an addon does not want are written once this far ahead of the last
 * write, and the worker lets the event loop turn after passing over this many.
 */
const PASSED_OVER_WRITE_EVERY = 1000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const SYSTEM: Actor = Object.freeze({ name: 'fanion', userId: null });

class Worker {
  /** The last event delivered or passed over (in memory; the WAL's copy may lag). */
  cursor: number;
  /** The cursor as last written to the WAL. */
  written: number;
  attempts = 0;
  firstFailureAt: number | null = null;
  lastError: string | null = null;
  lastAttemptAt: number | null = null;
  nextAttemptAt: number | null = null;
  lastDeliveredAt: number | null = null;
  delivered = 0;
  failed = 0;
  dropped = 0;
  running = false;
  timer: NodeJS.Timeout | null = null;
  /** A cursor write in flight; the next waits for it, so they reach the WAL in order. */
  writing: Promise<void> = Promise.resolve();
  stopped = false;

  constructor(readonly id: number, cursor: number) {
    this.cursor = cursor;
    this.written = cursor;
  }
}

/** Delivers every durable event to the addons that want it. */
export class WebhookDeliverer {
  private readonly workers = new Map<number, Worker>();
  /** The newest event that is durable: nothing after it may be sent (it could still be rolled back). */
  private durableEventId: number;
  private readonly abort = new AbortController();
  private closed = false;
  private readonly now: () => number;
  /** Since start, over every addon (deleted ones included): what metrics count. */
  private readonly sums = { delivered: 0, failed: 0, dropped: 0 };

  constructor(private readonly deps: DeliveryDeps) {
    this.now = deps.now ?? Date.now;
    // Everything replayed at start-up is durable.
    this.durableEventId = deps.engine.state.events.lastId;
    if (deps.leadership) deps.leadership.onChange = () => this.restart();
    this.sync();
  }

  /**
   * This node started or stopped leading: every worker starts again from the cursor the log
   * holds (the last one a leader committed), not from what this node last thought.
   */
  private restart(): void {
    if (this.closed) return;
    for (const w of [...this.workers.values()]) this.stop(w);
    this.sync();
  }

  /** The engine's change feed: durable events wake the workers; addon changes start, stop or redirect them. */
  onChange(change: StateChange, kind: 'applied' | 'durable' | 'rolled-back'): void {
    if (this.closed) return;
    if (kind === 'rolled-back') {
      // An addon's deletion or switch-off undone: its worker, waiting for it, goes on.
      for (const w of this.workers.values()) this.kick(w);
      return;
    }
    if (kind !== 'durable') return;
    const last = change.events.length > 0 ? change.events[change.events.length - 1][0] : 0;
    if (last > this.durableEventId) this.durableEventId = last;
    let addonsChanged = false;
    for (const op of change.ops) {
      if (op.o === 'addon.put' || op.o === 'addon.del') addonsChanged = true;
      if (op.o === 'addon.put') {
        // New settings (a fixed URL, say): retry what was failing now rather than after the backoff.
        const w = this.workers.get(op.addon.id);
        if (w?.timer) {
          clearTimeout(w.timer);
          w.timer = null;
          w.nextAttemptAt = null;
        }
      }
      if (op.o === 'webhooks.lead') this.deps.leadership?.noticeTerm(op.term);
      if (op.o === 'addon.cursor') {
        // Switched on again: the command moved the cursor past what happened while it was off.
        const w = this.workers.get(op.id);
        if (w && op.eventId > w.cursor && !w.running) w.cursor = w.written = op.eventId;
      }
    }
    if (addonsChanged) this.sync();
    if (last > 0) for (const w of this.workers.values()) this.kick(w);
  }

  /** Workers for exactly the enabled addons. */
  private sync(): void {
    const { state } = this.deps.engine;
    for (const [id, w] of this.workers) {
      const addon = state.addons.get(id);
      if (!addon || !addon.enabled) this.stop(w);
    }
    for (const addon of state.addons.values()) {
      if (!addon.enabled || this.workers.has(addon.id)) continue;
      const w = new Worker(addon.id, state.addonCursors.get(addon.id) ?? 0);
      this.workers.set(addon.id, w);
      this.kick(w);
    }
  }

  private stop(w: Worker): void {
    w.stopped = true;
    if (w.timer) clearTimeout(w.timer);
    w.timer = null;
    this.workers.delete(w.id);
  }

  private kick(w: Worker): void {
    if (w.running || w.timer || w.stopped || this.closed) return;
    w.running = true;
    this.run(w)
      .catch((err) => {
        // A bug: retried after the first backoff, never at once (that would be a tight loop).
        this.deps.log.error({ err, addon: w.id }, 'webhook delivery failed unexpectedly');
        if (!w.timer) this.later(w, this.deps.options.retryBaseMs);
      })
      .finally(() => {
        w.running = false;
        // Events that became durable while the last send was in flight: on, from the next turn of
        // the event loop. Not for an addon deleted or switched off: its worker waits for that
        // change to be durable (and stopped), or rolled back (and kicked).
        if (!w.timer && w.cursor < this.durableEventId && this.sends(w) && this.delivers()) setImmediate(() => this.kick(w));
      });
  }

  /** Whether this node delivers: always, unless a cluster's leadership says another node does. */
  private delivers(): boolean {
    return !this.deps.leadership || this.deps.leadership.leading;
  }

  /** The addon `w` delivers for, while it exists and is switched on. */
  private sends(w: Worker): Addon | null {
    const addon = this.deps.engine.state.addons.get(w.id);
    return addon && addon.enabled ? addon : null;
  }

  /** Sends, in order, every wanted event after the cursor, until none is left or a send fails. */
  private async run(w: Worker): Promise<void> {
    const { engine, log, options, leadership } = this.deps;
    // On a cluster, the leader delivers; and it records progress it made before anything further.
    if (!this.delivers()) return;
    if (leadership && w.cursor > w.written && !(await this.fencedCursor(w))) return;
    const events = engine.state.events;
    let passedOver = 0;
    while (!w.stopped && !this.closed && w.cursor < this.durableEventId) {
      const addon = this.sends(w);
      if (!addon) return;
      const event = events.get(w.cursor + 1)!;
      if (!wants(addon, event)) {
        w.cursor = event.id;
        if (w.cursor - w.written >= PASSED_OVER_WRITE_EVERY && !(await this.recordCursor(w))) return;
        if (++passedOver % PASSED_OVER_WRITE_EVERY === 0) await nextTurn();
        continue;
      }
      if (leadership) {
        const wait = await leadership.readyToSend();
        if (wait === null || w.stopped || this.closed) return;
        if (wait > 0) {
          this.later(w, wait);
          return;
        }
      }
      w.lastAttemptAt = this.now();
      const result = await this.attempt(addon, event);
      if (w.stopped || this.closed) return;
      if (result.ok) {
        w.cursor = event.id;
        w.attempts = 0;
        w.firstFailureAt = null;
        w.nextAttemptAt = null;
        w.lastDeliveredAt = this.now();
        w.delivered++;
        this.sums.delivered++;
        if (!(await this.recordCursor(w))) return;
        continue;
      }
      w.attempts++;
      w.failed++;
      this.sums.failed++;
      w.lastError = result.error;
      w.firstFailureAt ??= w.lastAttemptAt;
      if (this.now() - w.firstFailureAt >= options.retryForMs) {
        log.error({ addon: w.id, eventId: event.id, type: event.type, attempts: w.attempts, err: result.error }, 'webhook gave up on an event after retrying; going on with the next');
        w.dropped++;
        this.sums.dropped++;
        w.cursor = event.id;
        w.attempts = 0;
        w.firstFailureAt = null;
        if (!(await this.recordCursor(w))) return;
        continue;
      }
      const delay = Math.min(options.retryBaseMs * 2 ** Math.min(w.attempts - 1, 30), options.retryMaxDelayMs);
      log.warn({ addon: w.id, eventId: event.id, attempts: w.attempts, retryInMs: delay, err: result.error, detail: result.detail }, 'webhook send failed; will retry');
      this.later(w, delay);
      return;
    }
    if (w.cursor > w.written && w.cursor === this.durableEventId) await this.recordCursor(w);
  }

  /**
   * Records the cursor: on a cluster in a fenced write the next send waits for (false if it could
   * not be made: the worker stops, and tries again later if this node still leads); else in the
   * background, as writeCursor does.
   */
  private async recordCursor(w: Worker): Promise<boolean> {
    if (!this.deps.leadership) {
      this.writeCursor(w);
      return true;
    }
    return this.fencedCursor(w);
  }

  private async fencedCursor(w: Worker): Promise<boolean> {
    const lead = this.deps.leadership!;
    const eventId = w.cursor;
    if (await lead.moveCursor(w.id, eventId)) {
      w.written = Math.max(w.written, eventId);
      return true;
    }
    if (lead.leading && !w.stopped && !this.closed && !w.timer) this.later(w, this.deps.options.retryBaseMs);
    return false;
  }

  /** Runs `w` again in `delay` ms. */
  private later(w: Worker, delay: number): void {
    w.nextAttemptAt = this.now() + delay;
    w.timer = setTimeout(() => {
      w.timer = null;
      w.nextAttemptAt = null;
      this.kick(w);
    }, delay);
    w.timer.unref();
  }

  /** One send of `event`; a failure, never a throw, when its request cannot be built or sent. */
  private async attempt(addon: Addon, event: EventRecord): Promise<SendResult> {
    let request: WebhookRequest;
    try {
      request = webhookRequest(addon, event, this.deps.options.template);
    } catch (err) {
      if (err instanceof TemplateBudgetError) return { ok: false, error: `bodyTemplate: ${err.message}` };
      return { ok: false, error: `could not build the request: ${(err as Error).message}` };
    }
    try {
      return await this.deps.send(request, this.abort.signal);
    } catch (err) {
      // A bug, not the receiver: still a failure with its backoff, never a tight loop.
      return { ok: false, error: `could not send: ${(err as Error).message}` };
    }
  }

  /** Writes the cursor to the WAL, after the previous write, without making anyone wait for the disk. */
  private writeCursor(w: Worker): void {
    const eventId = w.cursor;
    w.written = eventId;
    w.writing = w.writing.then(() =>
      this.deps.engine.run(SYSTEM, moveCursor(w.id, eventId), { durable: false }).then(
        () => undefined,
        (err) => this.deps.log.warn({ addon: w.id, err: (err as Error).message }, 'could not record webhook progress; events may be sent again after a restart'),
      ),
    );
  }

  status(id: number): DeliveryStatus {
    const { state } = this.deps.engine;
    const w = this.workers.get(id);
    const cursor = w?.cursor ?? state.addonCursors.get(id) ?? 0;
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return {
      lastEventId: cursor,
      pendingEvents: Math.max(0, this.durableEventId - cursor),
      attempts: w?.attempts ?? 0,
      lastError: w?.lastError ?? null,
      lastAttemptAt: iso(w?.lastAttemptAt ?? null),
      nextAttemptAt: iso(w?.nextAttemptAt ?? null),
      lastDeliveredAt: iso(w?.lastDeliveredAt ?? null),
      delivered: w?.delivered ?? 0,
      failed: w?.failed ?? 0,
      dropped: w?.dropped ?? 0,
    };
  }

  /** Totals over every addon since start (metrics). */
  totals(): Readonly<{ delivered: number; failed: number; dropped: number }> {
    return this.sums;
  }

  /**
   * Stops sending (a send in flight is abandoned: its event goes again at the next start) and
   * waits for the cursor writes already made, so a clean stop sends nothing twice.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    const writes: Promise<unknown>[] = [];
    for (const w of this.workers.values()) {
      if (w.timer) clearTimeout(w.timer);
      w.timer = null;
      if (w.cursor > w.written) {
        if (this.deps.leadership) writes.push(this.deps.leadership.moveCursor(w.id, w.cursor));
        else this.writeCursor(w);
      }
      writes.push(w.writing);
    }
    await Promise.all(writes);
  }
}
