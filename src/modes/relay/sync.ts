// The relay's pure core: an upstream answer (a full flag list, or delta events) becomes one command
// whose ops make the state's view of a scope (its environment, its projects) equal what the
// upstream sent. Diffed: a flag, strategy or segment that did not change gets no op, so ETags of
// the relay's own SDKs stay and their streams get nothing. Each change records an event per flag
// or segment (createdBy: the upstream), so the push hub's event ids move and the event log tells
// what came from upstream. The engine, the client snapshot, the push hub and the evaluator serve
// the result exactly as they serve changes made through the admin API.
import { isDeepStrictEqual } from 'node:util';
import type { Change, Command, CommandEnv, EventDraft, SlicedCommand } from '../../core/engine/command.js';
import { finish } from '../../core/slices.js';
import type { Op } from '../../core/state/ops.js';
import { strategiesOf, type State } from '../../core/state/state.js';
import type { Feature, Segment, Strategy } from '../../core/state/types.js';
import { MAX_UPSTREAM_FLAGS, UpstreamFormatError, type FullAnswer, type RemoteEvent, type RemoteFlag, type RemoteSegment } from './remote.js';
import { inScope, type RelayScope } from './scope.js';

/**
 * What to make true of a scope. `full`: `flags` and `segments` are everything the upstream has for
 * it, so what is missing goes. Otherwise they are changes: null means removed.
 */
export interface ScopeUpdate {
  full: boolean;
  flags: Map<string, RemoteFlag | null>;
  segments: Map<number, RemoteSegment | null>;
}

export interface SyncResult {
  /** Flags added to the scope or changed. */
  updated: number;
  /** Flags that left the scope. */
  removed: number;
  /** Segments added, changed or removed. */
  segments: number;
}

export function fullUpdate(answer: FullAnswer): ScopeUpdate {
  return {
    full: true,
    flags: new Map(answer.flags.map((f) => [f.name, f])),
    segments: new Map((answer.segments ?? []).map((s) => [s.id, s])),
  };
}

/** Folds delta events, in order, into one update: a hydration starts over from its full state. */
export function foldEvents(events: readonly RemoteEvent[]): ScopeUpdate {
  let u: ScopeUpdate = { full: false, flags: new Map(), segments: new Map() };
  for (const e of events) {
    switch (e.type) {
      case 'hydration':
        u = fullUpdate(e.answer);
        break;
      case 'feature-updated':
        u.flags.set(e.flag.name, e.flag);
        break;
      case 'feature-removed':
        // In a full update, absence is removal.
        if (u.full) u.flags.delete(e.featureName);
        else u.flags.set(e.featureName, null);
        break;
      case 'segment-updated':
        u.segments.set(e.segment.id, e.segment);
        break;
      case 'segment-removed':
        if (u.full) u.segments.delete(e.segmentId);
        else u.segments.set(e.segmentId, null);
        break;
    }
  }
  return u;
}

const sameFlag = (f: Feature, want: Feature) =>
  f.project === want.project && f.type === want.type && f.description === want.description && f.impressionData === want.impressionData &&
  f.stale === want.stale && !f.archived && isDeepStrictEqual(f.dependencies, want.dependencies);

const sameStrategy = (s: Strategy, want: Strategy) =>
  s.name === want.name && s.projectId === want.projectId && s.sortOrder === want.sortOrder && !s.disabled && s.title === null &&
  isDeepStrictEqual(s.parameters, want.parameters) && isDeepStrictEqual(s.constraints, want.constraints) &&
  isDeepStrictEqual(s.variants, want.variants) && isDeepStrictEqual(s.segments, want.segments);

/**
 * The command that brings `scope` in the state to `update`. `source` is what events name as the
 * origin (the upstream's URL). Pure: reads the state, returns ops and event drafts.
 */
export function syncScope(scope: RelayScope, update: ScopeUpdate, source: string): Command<SyncResult> {
  return (state, env) => finish(syncSteps(scope, update, source, state, env));
}

/** syncScope for a large update (thousands of flags): the same change, built a slice at a time (Engine.runInSlices). */
export function syncScopeInSlices(scope: RelayScope, update: ScopeUpdate, source: string): SlicedCommand<SyncResult> {
  return (state, env, slicer) => slicer.run(syncSteps(scope, update, source, state, env));
}

/** The work of syncScope, yielding between flags. */
function* syncSteps(scope: RelayScope, update: ScopeUpdate, source: string, state: State, env: CommandEnv): Generator<void, Change<SyncResult>> {
  const ops: Op[] = [];
  const events: EventDraft[] = [];
  const result: SyncResult = { updated: 0, removed: 0, segments: 0 };
  const environment = scope.environment;
  // One answer holds at most MAX_UPSTREAM_FLAGS (remote.ts); deltas must not add up past it either.
  if (!update.full) {
    let adding = 0;
    for (const [name, r] of update.flags) if (r !== null && inScope(scope, r.project) && !state.featureEnvs.get(name)?.has(environment)) adding++;
    const held = adding > 0 ? flagsInScope(state, scope) : 0;
    if (held + adding > MAX_UPSTREAM_FLAGS) {
      throw new UpstreamFormatError(`the upstream's changes would make the scope hold more than ${MAX_UPSTREAM_FLAGS} flags (${held} + ${adding}): refused, the relay keeps serving what it has`);
    }
  }
  // Strategies this change deletes, and the segments of those it puts: which segments are still
  // named once it is applied.
  const deletedStrategies = new Set<string>();
  const putSegments = new Map<string, number[]>();
  let nextSeq = state.nextStrategySeq;

  if (!state.environments.has(environment)) {
    ops.push({ o: 'env.put', environment: { name: environment, type: environment, enabled: true, protected: false, sortOrder: 100 * (state.environments.size + 1) } });
  }
  const projectsAdded = new Set<string>();
  const ensureProject = (id: string) => {
    if (state.projects.has(id) || projectsAdded.has(id)) return;
    projectsAdded.add(id);
    ops.push({ o: 'project.put', project: { id, name: id, description: null, mode: 'open', defaultStickiness: 'default', createdAt: env.now, updatedAt: null } });
  };

  for (const [id, seg] of update.segments) {
    if (seg === null) continue;
    const had = state.segments.get(id);
    if (had && had.name === seg.name && isDeepStrictEqual(had.constraints, seg.constraints)) continue;
    const segment: Segment = {
      id, name: seg.name, description: had?.description ?? null, project: had?.project ?? null, constraints: seg.constraints,
      createdAt: had?.createdAt ?? env.now, createdBy: had?.createdBy ?? source,
    };
    ops.push({ o: 'segment.put', segment });
    events.push({ type: had ? 'segment-updated' : 'segment-created', data: { source, id, name: seg.name }, preData: had ? { name: had.name } : null });
    result.segments++;
  }

  const leave = (name: string) => {
    const f = state.features.get(name);
    const envs = state.featureEnvs.get(name);
    if (!f || !envs?.has(environment) || !inScope(scope, f.project)) return;
    const whole = envs.size === 1;
    // The flag goes with its last environment; otherwise only this environment's configuration.
    for (const e of whole ? envs.keys() : [environment]) {
      for (const s of strategiesOf(state, name, e)) {
        ops.push({ o: 'strategy.del', id: s.id });
        deletedStrategies.add(s.id);
      }
    }
    ops.push(whole ? { o: 'feature.del', name } : { o: 'featureEnv.del', feature: name, environment });
    events.push({ type: 'feature-deleted', featureName: name, project: f.project, environment, data: { source }, preData: { enabled: envs.get(environment)!.enabled } });
    result.removed++;
  };

  const put = (r: RemoteFlag) => {
    const had = state.features.get(r.name);
    const feature: Feature = {
      name: r.name, project: r.project, type: r.type, description: r.description, impressionData: r.impressionData, stale: r.stale,
      archived: false, archivedAt: null, createdAt: had?.createdAt ?? env.now, lastSeenAt: had?.lastSeenAt ?? null, dependencies: r.dependencies,
    };
    let changed = false;
    if (!had || !sameFlag(had, feature)) {
      ensureProject(r.project);
      ops.push({ o: 'feature.put', feature });
      changed = true;
    }
    const fe = state.featureEnvs.get(r.name)?.get(environment);
    if (!fe || fe.enabled !== r.enabled || !isDeepStrictEqual(fe.variants, r.variants)) {
      ops.push({ o: 'featureEnv.put', feature: r.name, env: { environment, enabled: r.enabled, variants: r.variants, lastSeenAt: fe?.lastSeenAt ?? null } });
      changed = true;
    }
    const current = had ? strategiesOf(state, r.name, environment) : [];
    const n = Math.max(current.length, r.strategies.length);
    for (let i = 0; i < n; i++) {
      const want = r.strategies[i];
      const have = current[i] as Strategy | undefined;
      if (!want) {
        ops.push({ o: 'strategy.del', id: have!.id });
        deletedStrategies.add(have!.id);
        changed = true;
        continue;
      }
      const strategy: Strategy = {
        id: have?.id ?? env.newId(), featureName: r.name, projectId: r.project, environment, name: want.name, title: null, disabled: false, sortOrder: i,
        constraints: want.constraints, parameters: want.parameters, variants: want.variants, segments: want.segments,
        createdAt: have?.createdAt ?? env.now, seq: have?.seq ?? nextSeq++,
      };
      if (have && sameStrategy(have, strategy)) continue;
      ops.push({ o: 'strategy.put', strategy });
      putSegments.set(strategy.id, strategy.segments);
      changed = true;
    }
    if (!changed) return;
    // The event says what came, from where; the flag itself is in the state (and the WAL's ops).
    events.push({
      type: had && state.featureEnvs.get(r.name)?.has(environment) ? 'feature-updated' : 'feature-created',
      featureName: r.name, project: r.project, environment, data: { source, enabled: r.enabled, strategies: r.strategies.length },
    });
    result.updated++;
  };

  for (const [name, r] of update.flags) {
    // A flag now outside the scope (moved to another project) has left it.
    if (r === null || !inScope(scope, r.project)) leave(name);
    else put(r);
    yield;
  }
  if (update.full) {
    for (const [name, f] of state.features) {
      if (!update.flags.has(name) && !f.archived && inScope(scope, f.project) && state.featureEnvs.get(name)?.has(environment)) leave(name);
      yield;
    }
  }

  // Segments the upstream no longer lists (or said were removed) go once no strategy names them.
  const gone: number[] = [];
  for (const [id, seg] of update.segments) if (seg === null && state.segments.has(id)) gone.push(id);
  if (update.full) for (const id of state.segments.keys()) if (!update.segments.has(id)) gone.push(id);
  if (gone.length > 0) {
    const named = new Set<number>();
    for (const s of state.strategies.values()) {
      if (!deletedStrategies.has(s.id) && !putSegments.has(s.id)) for (const id of s.segments) named.add(id);
      yield;
    }
    for (const segs of putSegments.values()) for (const id of segs) named.add(id);
    for (const id of gone) {
      if (named.has(id)) continue;
      ops.push({ o: 'segment.del', id });
      events.push({ type: 'segment-deleted', data: { source, segmentId: id }, preData: { name: state.segments.get(id)!.name } });
      result.segments++;
    }
  }
  return { ops, events, result };
}

/** Flags changed, or (for a full answer) flags held, past which an update is applied in slices. */
const LARGE_UPDATE = 1_000;

/** Whether `update` is worth building a slice at a time: a full one also looks at every flag the state holds. */
export function largeUpdate(update: ScopeUpdate, state: State): boolean {
  return update.flags.size + update.segments.size > LARGE_UPDATE || (update.full && state.features.size > 5 * LARGE_UPDATE);
}

/** How many flags of `scope` the state holds (for Prometheus). */
export function flagsInScope(state: State, scope: RelayScope): number {
  let n = 0;
  for (const [name, f] of state.features) if (!f.archived && inScope(scope, f.project) && state.featureEnvs.get(name)?.has(scope.environment)) n++;
  return n;
}
