// Acts on due progressions (progressions.ts): every `checkMs`, if this node leads (one node of a
// cluster: the webhook leader; a single server always), each due start is written as an ordinary
// change. A crash between the decision and the write loses nothing: the next leader decides
// again from the log; a start written twice applies once (runProgression checks again).
import { LeaderTicker } from '../../core/engine/ticker.js';
import type { Actor } from '../../core/state/types.js';
import { dueProgressions, runProgression } from './progressions.js';

const SYSTEM: Actor = Object.freeze({ name: 'fanion', userId: null });

export class ProgressionScheduler extends LeaderTicker {
  private running: Promise<void> | null = null;

  /** One look at the clock; never two at once. */
  check(): Promise<void> {
    this.running ??= this.runDue().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async runDue(): Promise<void> {
    if (!this.opts.leads() || this.engine.state.releasePlans.size === 0) return;
    for (const due of dueProgressions(this.engine.state, this.opts.clock())) {
      try {
        // Said by the node that wrote it: on a cluster, which node acted is in that node's log only.
        if (await this.engine.run(SYSTEM, runProgression(due))) {
          this.log.info({ plan: due.planId, feature: due.where.feature, environment: due.where.environment, milestone: due.to }, 'a release plan progression started a milestone');
        }
      } catch (err) {
        // The log refused the write (an outage): the next check decides again.
        this.log.warn({ err, plan: due.planId }, 'a release plan progression could not be written; retrying');
        return;
      }
    }
  }

  async close(): Promise<void> {
    this.stopTimer();
    await this.running;
  }
}
