// The filters of GET /api/client/features, combined with the token's scope into one normalized
// filter. Two requests with the same normalized filter get the same bytes, so the filter (not the
// raw query string, not the token) is what the snapshot cache is keyed by.
import type { ClientScope } from '../../core/access/access.js';
import { ValidationError } from '../../core/errors.js';
import { tagKey, type State } from '../../core/state/state.js';
import type { Feature } from '../../core/state/types.js';

export interface ClientFilter {
  environment: string;
  /** Sorted, deduplicated; null = every project. An empty list matches nothing. */
  projects: string[] | null;
  /** Sorted `type:value` keys, OR'ed; null = no tag filter. */
  tags: string[] | null;
  namePrefix: string | null;
}

const sortedUnique = (list: string[]) => [...new Set(list)].sort();

function checkTag(raw: string): string {
  const at = raw.indexOf(':');
  if (at <= 0 || at === raw.length - 1) {
    throw new ValidationError(`Request validation failed: "tag" must be "type:value", got "${raw}".`, [
      { path: 'tag', message: `"tag" must be "type:value", got "${raw}"` },
    ]);
  }
  return raw;
}

/** `search` is the raw query string, with or without its leading "?". */
export function clientFilter(scope: ClientScope, search: string): ClientFilter {
  const params = new URLSearchParams(search);
  const tags = [...params.getAll('tag'), ...params.getAll('tag[]')].map(checkTag);
  const asked = [...params.getAll('project'), ...params.getAll('project[]')].filter((p) => p !== '');
  const prefix = params.get('namePrefix');

  const tokenAll = scope.projects.includes('*');
  const askedAll = asked.length === 0 || asked.includes('*');
  let projects: string[] | null;
  if (tokenAll) projects = askedAll ? null : sortedUnique(asked);
  else if (askedAll) projects = sortedUnique(scope.projects);
  // A project outside the token's scope yields nothing rather than an error, like Unleash.
  else projects = sortedUnique(asked.filter((p) => scope.projects.includes(p)));

  return {
    environment: scope.environment,
    projects,
    tags: tags.length ? sortedUnique(tags) : null,
    namePrefix: prefix ? prefix : null,
  };
}

export function filterKey(f: ClientFilter): string {
  return JSON.stringify([f.environment, f.projects, f.tags, f.namePrefix]);
}

/** Whether the filter selects a flag: live, in its projects, with its name prefix and one of its tags. */
export function selects(state: State, filter: ClientFilter, f: Feature): boolean {
  if (f.archived) return false;
  if (filter.namePrefix !== null && !f.name.startsWith(filter.namePrefix)) return false;
  if (filter.projects !== null && !filter.projects.includes(f.project)) return false;
  if (filter.tags !== null) {
    const tags = state.featureTags.get(f.name) ?? [];
    if (!tags.some((t) => filter.tags!.includes(tagKey(t)))) return false;
  }
  return true;
}
