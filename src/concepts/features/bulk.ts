// Pure commands over several flags of a project at once (switch on/off in an environment,
// archive, tag), and a person's favourite flags. Each bulk command checks every named flag first
// and then returns one Change: either all the flags change in one log record or none does.
import type { Change, Command, CommandEnv, EventDraft } from '../../core/engine/command.js';
import { NotFoundError } from '../../core/errors.js';
import type { Op } from '../../core/state/ops.js';
import type { State } from '../../core/state/state.js';
import type { Tag } from '../../core/state/types.js';
import type { TagInput } from '../tags/logic.js';
import { updateFeatureTags } from '../tags/logic.js';
import { requireFeature, requireProject } from '../../core/state/lookup.js';
import { archiveFeature, setEnvironmentEnabled } from './logic.js';

/** The names once each, in the order given, every one a live flag of `project` (404 on the first that is not). */
function liveFlags(state: State, project: string, names: string[]): string[] {
  requireProject(state, project);
  const out = [...new Set(names)];
  for (const name of out) requireFeature(state, project, name);
  return out;
}

/** What makes two ops (or events) of different flags the same: a key, or null when each is its own. */
interface Shared {
  op(op: Op): string | null;
  event(e: EventDraft): string | null;
}
const NOTHING_SHARED: Shared = { op: () => null, event: () => null };

/**
 * One Change made of the commands' changes, each on its own flag. Commands that could make the
 * same shared record (a tag new to the server, when several flags get it) name it by `shared`:
 * the first op and event for a key are kept, the others are the same record again.
 */
function together(state: State, env: CommandEnv, commands: Command<unknown>[], shared = NOTHING_SHARED): Change<null> {
  const ops: Op[] = [];
  const events: EventDraft[] = [];
  const seen = new Set<string>();
  /** Whether this is the first op or event under `key` (always, without one). */
  const first = (kind: string, key: string | null) => {
    if (key === null) return true;
    if (seen.has(`${kind} ${key}`)) return false;
    seen.add(`${kind} ${key}`);
    return true;
  };
  for (const command of commands) {
    const change = command(state, env);
    ops.push(...change.ops.filter((op) => first('op', shared.op(op))));
    events.push(...change.events.filter((e) => first('event', shared.event(e))));
  }
  return { ops, events, result: null };
}

/** Unleash's bulk switch: the flags on (each with a default strategy if it has none served) or off in one environment. */
export function setEnvironmentEnabledMany(project: string, names: string[], environment: string, enabled: boolean) {
  return (state: State, env: CommandEnv): Change<null> =>
    together(state, env, liveFlags(state, project, names).map((name) => setEnvironmentEnabled(project, name, environment, enabled)));
}

/** Unleash's bulk archive. A flag others depend on may go only with all of them. */
export function archiveMany(project: string, names: string[]) {
  return (state: State, env: CommandEnv): Change<null> => {
    const flags = liveFlags(state, project, names);
    const going = new Set(flags);
    return together(state, env, flags.map((name) => archiveFeature(project, name, going)));
  };
}

/** A tag new to the server, made (and its `tag-created` recorded) once for every flag that gets it. */
const NEW_TAG: Shared = {
  op: (op) => (op.o === 'tag.put' ? `${op.tag.type}:${op.tag.value}` : null),
  event: (e) => (e.type === 'tag-created' ? `${(e.data as Tag).type}:${(e.data as Tag).value}` : null),
};

/** Unleash's bulk tagging (`PUT /api/admin/projects/:p/tags`): the same tags added to and removed from every flag. */
export function updateTagsMany(project: string, names: string[], added: TagInput[], removed: TagInput[]) {
  return (state: State, env: CommandEnv): Change<null> =>
    together(state, env, liveFlags(state, project, names).map((name) => updateFeatureTags(name, added, removed)), NEW_TAG);
}

/** The flags a person marked as favourites (names of flags that still exist). */
export function favoritesOf(state: State, userId: number | null | undefined): Set<string> {
  if (userId === null || userId === undefined) return new Set();
  return new Set(state.users.get(userId)?.favorites ?? []);
}

/** Marks (or unmarks) a flag as one of a person's favourites; doing it twice is nothing to do. */
export function setFavorite(userId: number, project: string, name: string, favorite: boolean) {
  return (state: State): Change<null> => {
    requireFeature(state, project, name);
    const user = state.users.get(userId);
    if (!user) throw new NotFoundError(`Could not find person ${userId}.`);
    const current = user.favorites ?? [];
    if (current.includes(name) === favorite) return { ops: [], events: [], result: null };
    // Names of flags deleted for good since are dropped on the way.
    const kept = current.filter((n) => n !== name && state.features.has(n));
    const favorites = favorite ? [...kept, name].sort() : kept;
    return {
      ops: [{ o: 'user.put', user: { ...user, favorites } }],
      events: [{ type: favorite ? 'feature-favorited' : 'feature-unfavorited', project, featureName: name, data: { feature: name } }],
      result: null,
    };
  };
}
