// Acts on safeguards that fire (logic.ts triggeredSafeguards), on the node that leads (as release
// plan progressions: one node of a cluster, a single server always). It looks right after a change
// that can make one fire is durable (impact metrics written, a safeguard set, an environment or a
// plan changed), so a report's flush is followed at once by the decision, and every `checkMs` for
// windows that move with the clock. Nothing here runs on an SDK's poll. Each firing is one
// ordinary change (fireSafeguard) that decides again against the state it lands on, so a firing
// decided twice (two looks, or a node that took over) applies once.
import type { Actor } from '../../core/state/types.js';
import { WakingTicker } from '../../core/engine/ticker.js';
import { fireSafeguard, triggeredSafeguards } from './logic.js';

const SYSTEM: Actor = Object.freeze({ name: 'fanion', userId: null });

/** Ops after which a safeguard may fire that did not before. */
const WAKES = new Set(['impact.put', 'safeguard.put', 'featureEnv.put', 'releasePlan.put', 'webhooks.lead']);

export class SafeguardScheduler extends WakingTicker {
  protected readonly wakes = WAKES;

  protected override idle(): boolean {
    return this.engine.state.safeguards.size === 0;
  }

  protected look(): Promise<void> {
    return this.runFiring();
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
}
