// Acts on safeguards that fire (logic.ts triggeredSafeguards), on the node that leads (as release
// plan progressions: one node of a cluster, a single server always). It looks right after a change
// that can make one fire is durable (impact metrics written, a safeguard set, an environment or a
// plan changed), so a report's flush is followed at once by the decision, and every `checkMs` for
// windows that move with the clock. Nothing here runs on an SDK's poll. Each firing is one
// ordinary change (fireSafeguard) that decides again against the state it lands on, so a firing
// decided twice (two looks, or a node that took over) applies once.
import type { StateChange } from '../../core/state/change.js';
import type { Actor } from '../../core/state/types.js';
import { LeaderTicker } from '../release-plans/scheduler.js';
import { fireSafeguard, triggeredSafeguards } from './logic.js';

const SYSTEM: Actor = Object.freeze({ name: 'fanion', userId: null });

/** Ops after which a safeguard may fire that did not before. */
const WAKES = new Set(['impact.put', 'safeguard.put', 'featureEnv.put', 'releasePlan.put', 'webhooks.lead']);

export class SafeguardScheduler extends LeaderTicker {
  private soon: NodeJS.Immediate | null = null;
  private running: Promise<void> | null = null;
  /** Asked again while a look ran: look once more after it. */
  private again = false;
  private closed = false;

  /** A change listener: a durable change that can make a safeguard fire brings the next look forward. */
  onChange(change: StateChange, kind: 'applied' | 'durable' | 'rolled-back'): void {
    if (kind !== 'durable' || this.closed || this.engine.state.safeguards.size === 0 || this.soon) return;
    if (!change.ops.some((op) => WAKES.has(op.o))) return;
    this.soon = setImmediate(() => {
      this.soon = null;
      void this.check();
    });
  }

  /** One look at the safeguards; a look asked for during one runs after it. */
  check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.runFiring().finally(() => {
      this.running = null;
      if (this.again && !this.closed) {
        this.again = false;
        void this.check();
      }
    });
    return this.running;
  }

  private async runFiring(): Promise<void> {
    if (!this.opts.leads() || this.engine.state.safeguards.size === 0) return;
    for (const firing of triggeredSafeguards(this.engine.state, this.opts.clock().getTime())) {
      try {
        const fired = await this.engine.run(SYSTEM, fireSafeguard(firing.safeguardId));
        if (fired) this.log.warn({ safeguard: fired.safeguardId, metric: fired.metricName, value: fired.value, threshold: fired.threshold }, 'a safeguard fired');
      } catch (err) {
        // The log refused the write (an outage): the next look decides again.
        this.log.warn({ err, safeguard: firing.safeguardId }, 'a safeguard firing could not be written; retrying');
        return;
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopTimer();
    if (this.soon) clearImmediate(this.soon);
    this.soon = null;
    await this.running;
  }
}
