// Flag names SDKs report metrics for that this server does not have: a typo in an application, a
// flag deleted while code still asks for it, an SDK pointed at the wrong server. Kept per (name,
// application, environment) with when it was last reported, in memory, within a byte budget:
// past it the least recently reported go first, as in the metrics store (store.ts). Reports older
// than a day are dropped, and a name that exists by now is no longer listed, as Unleash does.
import type { State } from '../../core/state/state.js';
import { ENTRY_BYTES, objectBytes, strBytes } from './sizes.js';

interface Report {
  name: string;
  appName: string;
  environment: string;
  seenAt: string;
  bytes: number;
}

/** One name in GET /api/admin/metrics/unknown-flags, in Unleash 8.2's shape. */
export interface UnknownFlagView {
  name: string;
  lastSeenAt: string;
  /** The last event about a flag of that name (one that was deleted, say), or null. */
  lastEventAt: string | null;
  reports: { appName: string; environments: { environment: string; seenAt: string }[] }[];
}

/** Unleash lists at most this many names, the first by name. */
export const MAX_LISTED_UNKNOWN_FLAGS = 1000;
/** Unleash forgets reports after a day. */
export const UNKNOWN_FLAG_RETENTION_MS = 24 * 60 * 60 * 1000;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class UnknownFlags {
  /** JSON of [name, appName, environment] → report, least recently reported first (names may hold any character, \0 included). */
  private readonly reports = new Map<string, Report>();
  private bytes = 0;

  constructor(
    /** UNKNOWN_FLAGS_MAX_BYTES. */
    private readonly maxBytes: number,
    private readonly retentionMs = UNKNOWN_FLAG_RETENTION_MS,
  ) {}

  report(name: string, appName: string, environment: string, now: string): void {
    const key = JSON.stringify([name, appName, environment]);
    let r = this.reports.get(key);
    if (r) {
      this.reports.delete(key); // to the end: most recently reported
      r.seenAt = now;
    } else {
      r = { name, appName, environment, seenAt: now, bytes: 0 };
      r.bytes = ENTRY_BYTES + objectBytes(5) + strBytes(key) + strBytes(name) + strBytes(appName) + strBytes(environment) + strBytes(now);
      this.bytes += r.bytes;
    }
    this.reports.set(key, r);
    this.forget(Date.parse(now));
  }

  /** Estimated bytes held, never above the budget once a report is in. */
  size(): { bytes: number; reports: number } {
    return { bytes: this.bytes, reports: this.reports.size };
  }

  /**
   * The names still unknown (a flag of that name, archived or not, takes it off the list), by
   * name, at most MAX_LISTED_UNKNOWN_FLAGS; per name its applications by name, per application its
   * environments by name.
   */
  list(state: State, nowMs: number): UnknownFlagView[] {
    this.forget(nowMs);
    const byName = new Map<string, Report[]>();
    for (const r of this.reports.values()) {
      if (state.features.has(r.name)) continue;
      const list = byName.get(r.name);
      if (list) list.push(r);
      else byName.set(r.name, [r]);
    }
    const names = [...byName.keys()].sort(byText).slice(0, MAX_LISTED_UNKNOWN_FLAGS);
    return names.map((name) => {
      const reports = byName.get(name)!;
      const apps = new Map<string, { environment: string; seenAt: string }[]>();
      let lastSeenAt = '';
      for (const r of reports) {
        if (r.seenAt > lastSeenAt) lastSeenAt = r.seenAt;
        const envs = apps.get(r.appName);
        if (envs) envs.push({ environment: r.environment, seenAt: r.seenAt });
        else apps.set(r.appName, [{ environment: r.environment, seenAt: r.seenAt }]);
      }
      return {
        name,
        lastSeenAt,
        lastEventAt: lastEventAt(state, name),
        reports: [...apps.keys()].sort(byText).map((appName) => ({
          appName,
          environments: apps.get(appName)!.sort((a, b) => byText(a.environment, b.environment)),
        })),
      };
    });
  }

  /** Drops reports past the budget and older than the retention, least recently reported first. */
  private forget(nowMs: number): void {
    const oldest = new Date(nowMs - this.retentionMs).toISOString();
    for (const [key, r] of this.reports) {
      if (this.bytes <= this.maxBytes && r.seenAt >= oldest) break;
      this.reports.delete(key);
      this.bytes -= r.bytes;
    }
  }
}

function lastEventAt(state: State, name: string): string | null {
  const rows = state.events.feature.rowsOf(name);
  return rows && rows.length > 0 ? state.events.decode(rows[rows.length - 1]).createdAt : null;
}
