// What a command is: a pure function of (state, environment) returning the resolved change.
// It may throw a FanionError (validation, not found, conflict); then nothing is applied.
// It must never mutate `state` or any object in it: it builds new objects and describes
// them with ops, which the engine writes to the WAL and then applies.
import type { Op } from '../state/ops.js';
import type { State } from '../state/state.js';
import type { Actor, EventRecord } from '../state/types.js';
import type { Slicer } from '../slices.js';

/** The edges a command may read: clock and id source are passed in so replay is deterministic. */
export interface CommandEnv {
  now: string;
  newId: () => string;
  actor: Actor;
}

/** An event as a command describes it; the engine adds id, createdAt and createdBy. */
export type EventDraft = Pick<EventRecord, 'type'> & Partial<Omit<EventRecord, 'id' | 'type'>>;

export interface Change<R> {
  ops: Op[];
  events: EventDraft[];
  result: R;
}

export type Command<R> = (state: State, env: CommandEnv) => Change<R>;

/**
 * A command over a large input (an import of tens of thousands of flags): as pure as a Command,
 * but it pauses between slices of its work (`slicer`), so the event loop serves other requests
 * meanwhile. Engine.runInSlices keeps every other change out until its change is applied, so the
 * state it reads does not move under it.
 */
export type SlicedCommand<R> = (state: State, env: CommandEnv, slicer: Slicer) => Promise<Change<R>>;

/** Fills in what every event carries. Pure: ids follow the log's last id. */
export function resolveEvents(state: State, env: CommandEnv, drafts: EventDraft[]): EventRecord[] {
  const first = state.events.lastId + 1;
  return drafts.map((d, i) => ({
    id: first + i,
    type: d.type,
    createdAt: d.createdAt ?? env.now,
    createdBy: d.createdBy ?? env.actor.name,
    createdByUserId: d.createdByUserId ?? env.actor.userId,
    environment: d.environment ?? null,
    project: d.project ?? null,
    featureName: d.featureName ?? null,
    data: d.data ?? null,
    preData: d.preData ?? null,
    tags: d.tags ?? null,
  }));
}
