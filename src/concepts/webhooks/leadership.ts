// Webhooks once per cluster: one node delivers, the leader. Who tries to lead is settled by a
// session advisory lock (storage/postgres/session-lock.ts); what makes it safe is the log:
//   - a node that gets the lock appends a claim, term = last term + 1 (op webhooks.lead), and
//     sends nothing until TAKEOVER has passed since the claim was committed;
//   - every write a leader makes (each cursor move after a send, or a renewal when none was made
//     lately) restates its term in a fenced append, and is refused once another claim is in the
//     log: the command runs again against the state that holds the claim and throws DeposedError;
//   - a leader starts a send only within LEASE of the *start* of its last successful fenced write,
//     and a send is abandoned after WEBHOOK_TIMEOUT_MS.
// So every send of a deposed leader starts before (its last fenced write, which committed before
// the new claim) + LEASE, and ends before the claim + LEASE + WEBHOOK_TIMEOUT_MS; the new leader
// sends nothing before the claim + TAKEOVER, which is longer. A receiver therefore never gets an
// older event after a newer one (durations measured by each node's own monotonic clock, assumed to
// run at the same rate within the margin; no synchronized clocks needed). Events are sent at least
// once: the new leader starts after the last cursor the old one committed, so the old leader's last
// send (at most one per addon, unrecorded) may arrive twice, in order.
import type { Engine } from '../../core/engine/engine.js';
import type { Logger } from '../../core/logger.js';
import type { Actor } from '../../core/state/types.js';
import type { Command } from '../../core/engine/command.js';
import { claimWebhooks, DeposedError, leaderWrite } from './logic.js';

/** What decides who tries to lead: a lock that one session holds at a time. */
export interface LeaderLock {
  tryAcquire(): Promise<boolean>;
  stillHeld(): Promise<boolean>;
  drop(): void;
}

export interface LeadershipOptions {
  /** This node's id, as the log records it. */
  node: string;
  /** A send starts within this of the start of the leader's last fenced write. */
  leaseMs: number;
  /** A send is abandoned after this (WEBHOOK_TIMEOUT_MS). */
  sendTimeoutMs: number;
  /** How often a node tries the lock, or checks it still holds it. */
  checkMs: number;
}

const SYSTEM: Actor = Object.freeze({ name: 'fanion', userId: null });
/** Added to the takeover wait: what two monotonic clocks may drift apart over it, and then some. */
const MARGIN_MS = 1_000;

export class WebhookLeadership {
  /** The term this node leads, once its claim is committed; null while it does not lead. */
  term: number | null = null;
  /** Told when this node starts or stops leading. */
  onChange: (() => void) | null = null;
  private sendsFrom = 0;
  private leaseFrom = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  private closed = false;

  constructor(
    private readonly engine: Engine,
    private readonly lock: LeaderLock,
    private readonly opts: LeadershipOptions,
    private readonly log: Logger,
  ) {}

  get leading(): boolean {
    return this.term !== null;
  }

  /** How long a new leader waits after its claim before its first send. */
  get takeoverMs(): number {
    return this.opts.leaseMs + this.opts.sendTimeoutMs + MARGIN_MS;
  }

  start(): void {
    this.timer = setInterval(() => void this.check(), this.opts.checkMs);
    this.timer.unref();
    void this.check();
  }

  /** A claim in the log (this node's or another's): another node's term ends this node's. */
  noticeTerm(term: number): void {
    if (this.term !== null && term !== this.term) this.stepDown(`node ${this.engine.state.webhookLeader} took over webhook delivery (term ${term})`);
  }

  private async check(): Promise<void> {
    if (this.checking || this.closed) return;
    this.checking = true;
    try {
      if (this.term === null) {
        if (await this.lock.tryAcquire()) await this.claim();
      } else if (!(await this.lock.stillHeld())) {
        this.stepDown('lost the session that holds the webhook lock');
      } else if (this.engine.state.webhookTerm !== this.term) {
        this.noticeTerm(this.engine.state.webhookTerm);
      }
    } finally {
      this.checking = false;
    }
  }

  private async claim(): Promise<void> {
    const started = performance.now();
    try {
      const term = await this.engine.run(SYSTEM, claimWebhooks(this.opts.node));
      if (this.closed) return;
      this.term = term;
      this.leaseFrom = started;
      this.sendsFrom = performance.now() + this.takeoverMs;
      this.log.info({ term, firstSendInMs: this.takeoverMs }, 'this node delivers webhooks now');
      this.onChange?.();
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not claim webhook delivery; will try again');
      this.lock.drop();
    }
  }

  private stepDown(reason: string): void {
    if (this.term === null) return;
    this.log.warn({ term: this.term, reason }, 'this node stops delivering webhooks');
    this.term = null;
    this.lock.drop();
    this.onChange?.();
  }

  /**
   * Before a send: 0 when it may start now, a wait in ms (the takeover, or a renewal that could not
   * be written), or null when this node does not lead.
   */
  async readyToSend(): Promise<number | null> {
    if (this.term === null) return null;
    const now = performance.now();
    if (now < this.sendsFrom) return Math.ceil(this.sendsFrom - now);
    if (now - this.leaseFrom < this.opts.leaseMs) return 0;
    if (await this.fenced(leaderWrite(this.term, this.opts.node))) return 0;
    return this.term === null ? null : this.opts.checkMs;
  }

  /** Records an addon's cursor in a fenced write; false if it could not (not leading, deposed, or the log refused). */
  moveCursor(id: number, eventId: number): Promise<boolean> {
    if (this.term === null) return Promise.resolve(false);
    return this.fenced(leaderWrite(this.term, this.opts.node, { id, eventId }));
  }

  private async fenced(command: Command<null>): Promise<boolean> {
    const term = this.term;
    if (term === null) return false;
    const started = performance.now();
    try {
      await this.engine.run(SYSTEM, command);
      if (this.term === term) this.leaseFrom = started;
      return true;
    } catch (err) {
      if (err instanceof DeposedError) this.stepDown(err.message);
      else this.log.warn({ err: (err as Error).message }, 'could not record webhook progress; delivery waits until it can');
      return false;
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.term = null;
    this.lock.drop();
  }
}
