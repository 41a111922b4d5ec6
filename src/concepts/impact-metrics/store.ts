// Impact metrics as they arrive: each `impactMetrics` entry checked on its own (a bad one is
// counted and skipped, never the body's other entries nor its flag counts), folded into what waits
// per series and minute, and written to the log every METRICS_FLUSH_MS as one change (logic.ts
// flushImpact). The state then holds them: kept across a restart like any change, and on a
// cluster every node applies every node's flush, so each answers with what all of them received.
// Memory: a series not kept yet is taken only while the budget (IMPACT_METRICS_MAX_BYTES) has
// room for it with every tier full; what does not fit is refused and counted.
// A report of a metric some safeguard watches is written within WATCHED_FLUSH_MS instead, so the
// safeguard's decision (taken right after the write) follows the SDK's post within a second.
import { Ajv, type ValidateFunction } from 'ajv';
import type { Engine } from '../../core/engine/engine.js';
import type { Logger } from '../../core/logger.js';
import type { State } from '../../core/state/state.js';
import type { Actor, ImpactSeries } from '../../core/state/types.js';
import { Flushing } from '../../core/single-flight.js';
import { continues, entryDeltas, flushImpact, foldPending, mergePoints, seriesBytes, stateBytes, type Delta, type ImpactEntry, type PendingSeries } from './logic.js';
import { MAX_ENTRIES_PER_BODY, impactEntrySchema } from './schema.js';

const ACTOR: Actor = { name: 'impact-metrics', userId: null };
/** How soon a report of a metric a safeguard watches is written (the others wait for the next flush). */
export const WATCHED_FLUSH_MS = 200;
const checkEntry: ValidateFunction = new Ajv({ allErrors: false, strict: false }).compile(impactEntrySchema);

/** Whether some safeguard (concepts/safeguards) watches the metric `name`: its reports are then worth writing soon. */
export function watched(state: State, name: string): boolean {
  if (state.safeguards.size === 0) return false;
  for (const sg of state.safeguards.values()) if (sg.impactMetric.metricName === name) return true;
  return false;
}

/**
 * The deltas of a body's `impactMetrics`, whatever it is: each entry checked on its own, those
 * that are malformed described in `problems` (at most the first 1,000 entries are read).
 */
export function readImpactMetrics(raw: unknown): { deltas: Delta[]; problems: string[] } {
  const out = { deltas: [] as Delta[], problems: [] as string[] };
  if (raw === undefined || raw === null) return out;
  if (!Array.isArray(raw)) return { deltas: [], problems: ['impactMetrics is not a list'] };
  for (const entry of raw.slice(0, MAX_ENTRIES_PER_BODY)) {
    if (checkEntry(entry)) out.deltas.push(...entryDeltas(entry as ImpactEntry));
    else out.problems.push(`${checkEntry.errors?.[0]?.instancePath || 'entry'} ${checkEntry.errors?.[0]?.message ?? 'is malformed'}`);
  }
  if (raw.length > MAX_ENTRIES_PER_BODY) out.problems.push(`more than ${MAX_ENTRIES_PER_BODY} entries`);
  return out;
}

/** Where the SDK metrics routes hand a body's `impactMetrics` (client-metrics/store.ts). */
export interface ImpactSink {
  received(raw: unknown, nowMs: number): void;
}

export class ImpactStore extends Flushing implements ImpactSink {
  private pending = new Map<string, PendingSeries>();
  /** Bytes reserved by waiting series the state does not hold yet. */
  private pendingBytes = 0;
  private cached = { revision: -1, bytes: 0 };
  /** Entries refused as malformed, series refused for the budget (since start). */
  readonly counts = { rejected: 0, refused: 0 };
  private lastProblem: string | null = null;
  /** The write brought forward for a watched metric, if one is due. */
  private soon: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly engine: Engine,
    private readonly log: Logger,
    /** IMPACT_METRICS_MAX_BYTES. */
    readonly maxBytes: number,
  ) {
    super();
  }

  /** The series kept (each node's reports included, on a cluster). */
  series(): Iterable<ImpactSeries> {
    return this.engine.state.impactSeries.values();
  }

  /** Bytes the budget counts: the series kept, and the new ones waiting. */
  get bytes(): number {
    return this.keptBytes() + this.pendingBytes;
  }

  private keptBytes(): number {
    const state = this.engine.state;
    if (this.cached.revision !== state.revision) this.cached = { revision: state.revision, bytes: stateBytes(state) };
    return this.cached.bytes;
  }

  /** A body's `impactMetrics`, whatever it is: what is well-formed is taken, the rest counted. */
  received(raw: unknown, nowMs: number): void {
    const { deltas, problems } = readImpactMetrics(raw);
    for (const why of problems) this.reject(why);
    for (const d of deltas) {
      const kept = this.engine.state.impactSeries.get(d.key);
      if (!(kept && continues(kept, d.head)) && !this.pending.has(d.key)) {
        const size = seriesBytes(d.head);
        if (this.bytes + size > this.maxBytes) {
          this.counts.refused++;
          continue;
        }
        this.pendingBytes += size;
      }
      foldPending(this.pending, d, nowMs);
      // A zero count (an idle counter's sample) cannot make a safeguard fire: it waits for the flush.
      const moves = d.head.type === 'gauge' || d.v[0] !== 0;
      if (moves && !this.soon && !this.stopped && watched(this.engine.state, d.head.name)) {
        this.soon = setTimeout(() => {
          this.soon = null;
          void this.flush();
        }, WATCHED_FLUSH_MS);
        this.soon.unref();
      }
    }
  }

  override async stop(): Promise<void> {
    this.stopped = true;
    if (this.soon) clearTimeout(this.soon);
    this.soon = null;
    await super.stop();
  }

  private reject(why: string): void {
    this.counts.rejected++;
    this.lastProblem = why;
  }

  protected async write(): Promise<void> {
    if (this.lastProblem) {
      this.log.warn({ rejected: this.counts.rejected, last: this.lastProblem }, 'impact metrics entries refused as malformed (the rest of their bodies was kept)');
      this.lastProblem = null;
    }
    if (this.pending.size === 0) return;
    const pending = this.pending;
    this.pending = new Map();
    const reserved = this.pendingBytes;
    this.pendingBytes = 0;
    try {
      const { refused } = await this.engine.run(ACTOR, flushImpact(pending, this.maxBytes, this.engine.now().getTime()));
      this.counts.refused += refused;
    } catch (err) {
      // Back with what came meanwhile, so the next flush writes both.
      for (const [key, p] of pending) {
        const now = this.pending.get(key);
        if (!now) {
          this.pending.set(key, p);
          continue;
        }
        if (!continues(p.head, now.head)) continue;
        for (const [minute, v] of p.minutes) {
          const newer = now.minutes.get(minute);
          now.minutes.set(minute, newer ? mergePoints(p.head.type, v, newer) : v);
        }
      }
      this.pendingBytes += reserved;
      this.log.warn({ err: (err as Error).message, series: pending.size }, 'could not write impact metrics; will retry at the next flush');
    }
  }
}
