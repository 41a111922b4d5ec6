// Pure commands over several flags of a project at once (switch on/off in an environment,
// archive, tag), and a person's favourite flags. Each bulk command checks every named flag first
// and then returns one Change: either all the flags change in one log record or none does.
import type { Change, Command, CommandEnv } from '../../core/engine/command.js';
import { inSequence } from '../../core/engine/sequence.js';
import { NotFoundError } from '../../core/errors.js';
import type { State } from '../../core/state/state.js';
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

/**
 * One Change made of the commands' changes, each on its own flag, each run against the state the
 * ones before it leave (inSequence): a tag new to the server that several flags get is made, and
 * its `tag-created` recorded, once, because the flags after the first find it there.
 */
function together(state: State, env: CommandEnv, commands: Command<unknown>[]): Change<null> {
  const { ops, events } = inSequence(state, env, commands);
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

/** Unleash's bulk tagging (`PUT /api/admin/projects/:p/tags`): the same tags added to and removed from every flag. */
export function updateTagsMany(project: string, names: string[], added: TagInput[], removed: TagInput[]) {
  return (state: State, env: CommandEnv): Change<null> =>
    together(state, env, liveFlags(state, project, names).map((name) => updateFeatureTags(name, added, removed)));
}

/** The flags a person marked as favourites (a name deleted since stays until their next star or unstar). */
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
