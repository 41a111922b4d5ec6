// Writes buffered lastSeen times to the WAL every METRICS_FLUSH_MS as one record, so a storm of
// metrics posts costs one fsync per interval instead of one per post. A crash loses at most the
// last interval of lastSeen updates (and the in-memory counts); admin changes are unaffected.
import type { Engine } from '../engine/engine.js';
import type { Logger } from '../log.js';
import type { Actor } from '../state/types.js';
import { recordLastSeen } from './logic.js';
import type { ClientMetricsStore } from './store.js';

const METRICS_ACTOR: Actor = { name: 'client-metrics', userId: null };

export class MetricsFlusher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly engine: Engine, private readonly store: ClientMetricsStore, private readonly log: Logger) {}

  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Writes what is pending; concurrent calls share one write. */
  flush(): Promise<void> {
    this.running ??= this.write().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.flush();
  }

  private async write(): Promise<void> {
    const pending = this.store.takePending();
    if (pending.length === 0) return;
    try {
      await this.engine.run(METRICS_ACTOR, recordLastSeen(pending));
    } catch (err) {
      this.store.restorePending(pending);
      this.log.warn({ err: (err as Error).message, pending: pending.length }, 'could not write client metrics; will retry at the next flush');
    }
  }
}
