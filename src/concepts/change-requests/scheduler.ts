// Acts on scheduled change requests (schedule.ts scheduleSteps), on the node that leads (as release
// plan progressions and safeguards: the webhook leader of a cluster, a single server always). It
// looks every `checkMs`, at once after a durable change that can suspend a schedule or add one, and
// at the moment the next one is due (a timer armed when that is less than `checkMs` away), so a
// request is applied within milliseconds of its time rather than within a second. Each step is one
// ordinary change (runScheduled) that decides again against the state it lands on: a step decided
// twice (two looks, or a deposed leader and its successor) is written once. A crash between the
// decision and the write loses nothing: the next leader decides again from the log.
import type { Actor } from '../../core/state/types.js';
import { WakingTicker } from '../../core/engine/ticker.js';
import { nextDue, scheduleSteps } from './schedule.js';
import { runScheduled } from './workflow.js';

/** Ops after which a schedule may be suspended or newly pending, or this node may have started leading. */
const WAKES = new Set(['changeRequest.put', 'feature.put', 'feature.del', 'strategy.put', 'strategy.del', 'user.del', 'project.del', 'webhooks.lead']);

export class ChangeRequestScheduler extends WakingTicker {
  protected readonly wakes = WAKES;
  private due: NodeJS.Timeout | null = null;
  /**
   * The state's revision at the last look that found nothing to write, and the next due time then:
   * suspensions change only with the state and applying only with the clock, so until one of them
   * moves a look has nothing to find (the looks every second and after each change stay cheap as
   * requests pile up).
   */
  private quiet: { revision: number; nextDue: number | null } | null = null;

  protected look(): Promise<void> {
    return this.runSteps();
  }

  protected override afterLook(): void {
    this.arm();
  }

  private async runSteps(): Promise<void> {
    if (!this.opts.leads()) return;
    const { state } = this.engine;
    const now = this.opts.clock().getTime();
    if (this.quiet?.revision === state.revision && (this.quiet.nextDue === null || this.quiet.nextDue > now)) return;
    const steps = scheduleSteps(state, new Date(now));
    this.quiet = steps.length === 0 ? { revision: state.revision, nextDue: nextDue(state) } : null;
    for (const step of steps) {
      const cr = this.engine.state.changeRequests.get(step.id);
      const by = cr?.schedule?.scheduledBy;
      if (!by) continue;
      // The changes are made in the name of the person who scheduled them, as if they applied them then.
      const actor: Actor = { name: by.username, userId: by.id };
      try {
        const done = await this.engine.run(actor, runScheduled(step.id, step.scheduledAt));
        // Said by the node that wrote it: on a cluster, which node acted is in that node's log only.
        if (done?.outcome === 'applied') {
          this.log.info({ changeRequest: done.id, project: cr!.project, environment: cr!.environment, scheduledAt: step.scheduledAt }, 'a scheduled change request was applied');
        } else if (done) {
          this.log.warn({ changeRequest: done.id, outcome: done.outcome, reason: done.reason }, `a scheduled change request was ${done.outcome}`);
        }
      } catch (err) {
        // The log refused the write (an outage): the next look decides again.
        this.log.warn({ err, changeRequest: step.id }, 'a scheduled change request could not be written; retrying');
        return;
      }
    }
  }

  /** A timer for the next due schedule, when it comes before the next regular look. */
  private arm(): void {
    if (this.due) clearTimeout(this.due);
    this.due = null;
    const at = this.quiet?.revision === this.engine.state.revision ? this.quiet.nextDue : nextDue(this.engine.state);
    if (at === null || !this.opts.leads()) return;
    const wait = at - this.opts.clock().getTime();
    if (wait >= this.opts.checkMs) return;
    this.due = setTimeout(() => {
      this.due = null;
      void this.check();
    }, Math.max(0, wait) + 1);
    this.due.unref();
  }

  override start(): void {
    super.start();
    // A schedule that fell due while the server was down is applied as soon as it runs.
    this.lookSoon();
  }

  override async close(): Promise<void> {
    if (this.due) clearTimeout(this.due);
    this.due = null;
    await super.close();
  }
}
