// The durable part of client metrics: one command per flush, turning the buffered "seen at"
// times into 'lastSeen' ops. Pure, like every command.
import type { Change } from '../../core/engine/command.js';
import type { Op } from '../../core/state/ops.js';
import type { State } from '../../core/state/state.js';
import type { LastSeen } from './store.js';

export function recordLastSeen(entries: LastSeen[]) {
  return (state: State): Change<number> => {
    const ops: Op[] = [];
    for (const e of entries) {
      const fe = state.featureEnvs.get(e.feature)?.get(e.environment);
      // The flag may have been deleted, or the time may already be newer: then there is nothing to write.
      if (!fe || !state.features.has(e.feature) || (fe.lastSeenAt !== null && fe.lastSeenAt >= e.at)) continue;
      ops.push({ o: 'lastSeen', feature: e.feature, environment: e.environment, at: e.at });
    }
    return { ops, events: [], result: ops.length };
  };
}
