// Read-your-writes across nodes, without stickiness. A change acknowledged by one node is in the
// log; another node applies it within the follow delay (milliseconds, up to a second when a
// notification is lost). An admin request that reached that node meanwhile would have read the old
// state: a flag created on node A and switched on through node B at once got 404 from B. So before
// an admin request reads or changes the state, the node asks the database for the log's head (one
// index lookup) and applies the log up to there first. Whatever any node acknowledged before the
// request arrived is then in what the request sees.
//
// Concurrent requests share the lookup: one in flight serves every request that arrived before it
// was sent; a request arriving while one is in flight waits for the next, which starts when that
// one ends (a lookup sent before a request arrived may miss what was acknowledged just before the
// request, so it cannot serve it). SDK reads (the poll, streams, the Frontend API, OFREP) do not
// wait: they stay eventually consistent, and as fast as on one node.
import type pg from 'pg';
import { ServiceUnavailableError } from '../../errors.js';
import { FreshFlight } from '../../single-flight.js';
import { describe, pause, withClient } from '../../log/postgres/connect.js';
import type { Follower } from './follower.js';
import type { PgLog } from '../../log/postgres/pg-log.js';

export interface BarrierOptions {
  pool: pg.Pool;
  log: PgLog;
  follower: Follower;
  /** DATABASE_TIMEOUT_MS: the lookup's deadline, and how long a request waits in all. */
  timeoutMs: number;
}

export class LogBarrier {
  /** One lookup at a time, each serving the requests that arrived before it was sent. */
  private readonly lookups = new FreshFlight(() => this.lookup());
  private waits = 0;

  constructor(private readonly opts: BarrierOptions) {}

  /** Requests that waited, and lookups of the head they shared. */
  get counts(): { waits: number; lookups: number } {
    return { waits: this.waits, lookups: this.lookups.started };
  }

  /**
   * Resolves once this node has applied the log up to its head as of a moment after this call;
   * throws a ServiceUnavailableError (a 503 saying why) when it cannot within DATABASE_TIMEOUT_MS.
   */
  async wait(): Promise<void> {
    const { log, follower, timeoutMs } = this.opts;
    const deadline = Date.now() + timeoutMs;
    this.waits++;
    if (follower.unreadable) throw new ServiceUnavailableError(follower.unreadable);
    const head = await this.lookups.run();
    while (log.durableLsn < head) {
      if (follower.unreadable) throw new ServiceUnavailableError(follower.unreadable);
      if (Date.now() >= deadline) {
        throw new ServiceUnavailableError(
          `This node has applied the shared log up to record ${log.durableLsn} but other nodes have written up to record ${head}, and it could not catch up within ` +
            `${timeoutMs} ms (DATABASE_TIMEOUT_MS); it answers nothing it may not have up to date. Try again, or another node.`,
        );
      }
      // The read in progress (woken by the writer's notification, usually) may bring the head;
      // if not, one that starts now (Follower.poll reads again after one in progress).
      const reading = follower.reading;
      if (reading) await reading;
      else if (!(await follower.poll())) await pause(50);
    }
  }

  private async lookup(): Promise<number> {
    const { pool, timeoutMs } = this.opts;
    try {
      // max() of the primary key: one step down the index's right edge.
      const res = await withClient(pool, timeoutMs, (query) => query('SELECT max(seq) AS seq FROM fanion_log'));
      return Number(res.rows[0]?.seq ?? 0);
    } catch (err) {
      throw new ServiceUnavailableError(
        `The database cannot be reached (${describe(err)}) to make sure this node has every change the other nodes acknowledged; ` +
          'it answers nothing it may not have up to date, and nothing was changed. Try again later.',
      );
    }
  }
}
