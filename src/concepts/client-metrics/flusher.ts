// Writes buffered lastSeen times (of flags, of API tokens, of sessions and personal access tokens)
// to the log every METRICS_FLUSH_MS as one record, so a storm of metrics posts or requests costs
// one fsync per interval instead of one each; the same record forgets sessions and password links
// that have ended. A crash loses at most the last interval of lastSeen updates (and the in-memory
// counts); admin changes are unaffected.
// On a cluster node the same record carries what SDKs reported here (applications, instances,
// counts, unknown names) for the other nodes, which merge it: every node's views are the cluster's.
import type { Engine } from '../../core/engine/engine.js';
import type { Logger } from '../../core/logger.js';
import type { Op } from '../../core/state/ops.js';
import type { Actor } from '../../core/state/types.js';
import { recordLastSeen } from './logic.js';
import type { ClientMetricsStore } from './store.js';
import { recordTokensSeen } from '../tokens/logic.js';
import { recordPeopleSeen, type Seen } from '../people/logic.js';
import { Flushing } from '../../core/single-flight.js';

/** The part of the token authenticator the flusher uses. */
export interface TokenUse {
  takeSeen(): { hash: string; at: string }[];
  restoreSeen(list: { hash: string; at: string }[]): void;
}

/** The part of the people authenticator the flusher uses, and how long a session may idle. */
export interface PeopleUse {
  takeSeen(): { sessions: Seen[]; tokens: Seen[] };
  restoreSeen(batch: { sessions: Seen[]; tokens: Seen[] }): void;
  idleMs: number;
}

const METRICS_ACTOR: Actor = { name: 'client-metrics', userId: null };

export class MetricsFlusher extends Flushing {

  constructor(
    private readonly engine: Engine,
    private readonly store: ClientMetricsStore,
    private readonly log: Logger,
    /** Where token uses come from (the token authenticator; none with AUTH_TYPE=none). */
    private readonly tokens: TokenUse | null = null,
    /** Where uses of sessions and personal tokens come from (none with AUTH_TYPE=none). */
    private readonly people: PeopleUse | null = null,
    /** On a cluster: this node's id, which its reports to the other nodes carry. */
    private readonly node: string | null = null,
  ) {
    super();
    if (node) store.share();
  }

  protected async write(): Promise<void> {
    const pending = this.store.takePending();
    const seen = this.tokens?.takeSeen() ?? [];
    const people = this.people?.takeSeen() ?? null;
    const report = this.node ? this.store.takeReport() : null;
    // With people, every flush also looks for ended sessions (a change only if there are some).
    if (pending.length === 0 && seen.length === 0 && people === null && !report) return;
    try {
      await this.engine.run(METRICS_ACTOR, (state, env) => {
        const flags = recordLastSeen(pending)(state);
        const tokens = recordTokensSeen(seen)(state);
        const persons = people ? recordPeopleSeen(people.sessions, people.tokens, this.people!.idleMs)(state, env).ops : [];
        const shared: Op[] = report ? [{ o: 'metrics.report', node: this.node!, report }] : [];
        return { ops: [...flags.ops, ...tokens.ops, ...persons, ...shared], events: [], result: flags.result + tokens.result + persons.length };
      });
    } catch (err) {
      this.store.restorePending(pending);
      this.tokens?.restoreSeen(seen);
      if (people) this.people!.restoreSeen(people);
      if (report) this.store.restoreReport(report);
      this.log.warn({ err: (err as Error).message, pending: pending.length + seen.length }, 'could not write client metrics; will retry at the next flush');
    }
  }
}
