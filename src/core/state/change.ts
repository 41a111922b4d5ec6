// A resolved change at its place in the history: what the engine applies, what change listeners
// receive, and (as a WAL record) what the log stores and replays.
import type { StoredEvent } from './events/stored.js';
import type { Op } from './ops.js';

export interface StateChange {
  /** Log sequence number: 1, 2, 3 … across segments and restarts. */
  lsn: number;
  ops: Op[];
  events: StoredEvent[];
}
