// Work the leading node does on a clock (release-plan progressions, safeguards, scheduled change
// requests): a look every `checkMs` on the node that leads (on a cluster, the webhook leader; a
// single server always), each decision written through the engine as an ordinary change.
import type { Logger } from '../logger.js';
import type { StateChange } from '../state/change.js';
import type { Engine } from './engine.js';

export interface SchedulerOptions {
  clock: () => Date;
  checkMs: number;
  /** Whether this node acts (on a cluster, the webhook leader). */
  leads: () => boolean;
}

/** Work the leading node does on a timer, written through the engine (progressions, safeguards). */
export abstract class LeaderTicker {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    protected readonly engine: Engine,
    protected readonly opts: SchedulerOptions,
    protected readonly log: Logger,
  ) {}

  /** One look; called every `checkMs`. */
  abstract check(): Promise<void>;

  start(): void {
    this.timer = setInterval(() => void this.check(), this.opts.checkMs);
    this.timer.unref();
  }

  protected stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/**
 * A LeaderTicker that also looks right after a durable change with one of the ops in `wakes` (the
 * changes that can make work due that was not), never two looks at once: a look asked for during
 * one runs after it.
 */
export abstract class WakingTicker extends LeaderTicker {
  private soon: NodeJS.Immediate | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  protected closed = false;

  /** Ops after which there may be work that was not there before. */
  protected abstract readonly wakes: ReadonlySet<string>;
  /** One look at the work (only on the node that leads: the look checks). */
  protected abstract look(): Promise<void>;
  /** Nothing to look at (no safeguard set, say): a change wakes nothing. */
  protected idle(): boolean {
    return false;
  }
  /** After a look that no other follows at once. */
  protected afterLook(): void {}

  /** A change listener: a durable change that can make work due brings the next look forward. */
  onChange(change: StateChange, kind: 'applied' | 'durable' | 'rolled-back'): void {
    if (kind !== 'durable' || this.closed || this.soon || this.idle()) return;
    if (change.ops.some((op) => this.wakes.has(op.o))) this.lookSoon();
  }

  /** A look on the next turn of the event loop. */
  protected lookSoon(): void {
    this.soon ??= setImmediate(() => {
      this.soon = null;
      void this.check();
    });
  }

  check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.look().finally(() => {
      this.running = null;
      if (this.closed) return;
      if (this.again) {
        this.again = false;
        void this.check();
      } else {
        this.afterLook();
      }
    });
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopTimer();
    if (this.soon) clearImmediate(this.soon);
    this.soon = null;
    await this.running;
  }
}
