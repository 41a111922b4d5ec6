// GET /api/admin/search/features: Unleash's flag search. Filters take Unleash's operator
// prefixes (`IS:`, `IS_ANY_OF:`, `IS_NOT:`, `IS_NONE_OF:` for project, type and state;
// `INCLUDE:`, `INCLUDE_ANY_OF:`, `INCLUDE_ALL_OF:`, `DO_NOT_INCLUDE:`, `EXCLUDE_IF_ANY_OF:`,
// `EXCLUDE_ALL:` for tags as `type:value`), or a bare value meaning `IS:` / `INCLUDE:`. A flag's
// state is `active` or `stale`, and also `potentially-stale` once it outlived its type's expected
// lifetime (flag-types.ts), as in Unleash. `archived` is Unleash 8's own switch between the live
// flags (the default, or `IS:false`) and the archive (`IS:true`); Unleash refuses any other value
// with a 400 (a bare `true` included), and so does this, rather than silently answer live flags.
import { invalid } from '../../core/errors.js';
import type { State } from '../../core/state/state.js';
import type { Feature, Tag } from '../../core/state/types.js';
import { isPotentiallyStale } from './flag-types.js';
import { featureSummary } from './view.js';

export interface FeatureSearch {
  query?: string;
  project?: string;
  tag?: string;
  type?: string;
  state?: string;
  archived?: string;
  sortBy?: string;
  sortOrder?: string;
  offset?: string;
  limit?: string;
  /** `true`: the caller's favourites come first, each group in the order asked. */
  favoritesFirst?: string;
  /** Fanion's own: flags switched on (or off) in this environment. */
  enabledIn?: string;
  disabledIn?: string;
}

export const MAX_SEARCH_LIMIT = 1000;
const SORTS = ['name', 'type', 'createdAt', 'lastSeenAt', 'project'] as const;

type Test<T> = (value: T) => boolean;

function split(raw: string): { op: string; values: string[] } {
  const m = /^([A-Z_]+):(.*)$/s.exec(raw);
  const [op, rest] = m && /^(IS|IS_ANY_OF|IS_NOT|IS_NONE_OF|INCLUDE|INCLUDE_ANY_OF|INCLUDE_ALL_OF|DO_NOT_INCLUDE|EXCLUDE_IF_ANY_OF|EXCLUDE_ALL)$/.test(m[1]) ? [m[1], m[2]] : ['', raw];
  return { op, values: rest.split(',').map((v) => v.trim()).filter(Boolean) };
}

/** A field's values that match, or those that must not. */
function isValues(field: string, raw: string | undefined): { set: Set<string>; negated: boolean } | null {
  if (raw === undefined || raw === '') return null;
  const { op, values } = split(raw);
  // Project ids and flag types cannot hold ":", so an upper-case prefix is an operator: a wrong one is an error.
  if (op === '' && /^[A-Z_]+:/.test(raw)) throw invalid(field, `"${field}" takes IS, IS_ANY_OF, IS_NOT or IS_NONE_OF, got "${raw.split(':')[0]}"`);
  switch (op) {
    case '':
    case 'IS':
    case 'IS_ANY_OF':
      return { set: new Set(values), negated: false };
    case 'IS_NOT':
    case 'IS_NONE_OF':
      return { set: new Set(values), negated: true };
    default:
      throw invalid(field, `"${field}" takes IS, IS_ANY_OF, IS_NOT or IS_NONE_OF, got "${op}"`);
  }
}

function isFilter(field: string, raw: string | undefined): Test<string> | null {
  const f = isValues(field, raw);
  if (!f) return null;
  const { set, negated } = f;
  return negated ? (v) => !set.has(v) : (v) => set.has(v);
}

/** A filter on several values at once (a flag's states): one of them is named, or none is. */
function anyOfFilter(field: string, raw: string | undefined): Test<string[]> | null {
  const f = isValues(field, raw);
  if (!f) return null;
  const { set, negated } = f;
  return (vs) => vs.some((v) => set.has(v)) !== negated;
}

function tagFilter(raw: string | undefined): Test<Tag[]> | null {
  if (raw === undefined || raw === '') return null;
  const { op, values } = split(raw);
  for (const v of values) if (!v.includes(':')) throw invalid('tag', `tags are written type:value, got "${v}"`);
  const has = (tags: Tag[], v: string) => tags.some((t) => `${t.type}:${t.value}` === v);
  switch (op) {
    case '':
    case 'INCLUDE':
    case 'INCLUDE_ANY_OF':
      return (tags) => values.some((v) => has(tags, v));
    case 'INCLUDE_ALL_OF':
      return (tags) => values.every((v) => has(tags, v));
    case 'DO_NOT_INCLUDE':
    case 'EXCLUDE_IF_ANY_OF':
      return (tags) => !values.some((v) => has(tags, v));
    case 'EXCLUDE_ALL':
      return (tags) => !values.every((v) => has(tags, v));
    default:
      throw invalid('tag', `"tag" takes INCLUDE, INCLUDE_ANY_OF, INCLUDE_ALL_OF, DO_NOT_INCLUDE, EXCLUDE_IF_ANY_OF or EXCLUDE_ALL, got "${op}"`);
  }
}

function whole(field: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) > max) throw invalid(field, `"${field}" must be a whole number from 0 to ${max}`);
  return Number(raw);
}

/** `archived`: exactly `IS:true` or `IS:false` (what Unleash 8 accepts); absent means live flags. */
function archivedFilter(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  const m = /^IS:(true|false)$/.exec(raw);
  if (!m) throw invalid('archived', `"archived" must be IS:true or IS:false, got "${raw}"`);
  return m[1] === 'true';
}

/** Live flags (or archived ones, with `archived=IS:true`) matching every filter, sorted and paged, with the total before paging. */
export function searchFeatures(state: State, q: FeatureSearch, visibleProjects: Set<string> | null = null, now = Date.now(), favorites: ReadonlySet<string> = new Set()) {
  const archived = archivedFilter(q.archived);
  const project = isFilter('project', q.project);
  const type = isFilter('type', q.type);
  const stale = anyOfFilter('state', q.state);
  const tag = tagFilter(q.tag);
  const text = q.query?.trim().toLowerCase() || null;
  const sortBy = q.sortBy ?? 'createdAt';
  if (!(SORTS as readonly string[]).includes(sortBy)) throw invalid('sortBy', `"sortBy" must be one of ${SORTS.join(', ')}`);
  const order = q.sortOrder ?? 'asc';
  if (order !== 'asc' && order !== 'desc') throw invalid('sortOrder', '"sortOrder" must be asc or desc');
  const offset = whole('offset', q.offset, 0, 1_000_000_000);
  const limit = whole('limit', q.limit, 50, MAX_SEARCH_LIMIT);
  if (q.favoritesFirst !== undefined && q.favoritesFirst !== 'true' && q.favoritesFirst !== 'false') throw invalid('favoritesFirst', '"favoritesFirst" must be true or false');
  const favFirst = q.favoritesFirst === 'true';
  const switched = switchFilter(state, q);

  const hits: Feature[] = [];
  for (const f of state.features.values()) {
    if (f.archived !== archived) continue;
    if (visibleProjects !== null && !visibleProjects.has(f.project)) continue;
    if (project && !project(f.project)) continue;
    if (type && !type(f.type)) continue;
    if (stale && !stale(isPotentiallyStale(f, now) ? ['active', 'potentially-stale'] : [f.stale ? 'stale' : 'active'])) continue;
    const tags = state.featureTags.get(f.name) ?? [];
    if (tag && !tag(tags)) continue;
    if (text !== null && !matchesText(f, tags, text)) continue;
    if (switched && !switched(f)) continue;
    hits.push(f);
  }
  const key = (f: Feature): string => (sortBy === 'lastSeenAt' ? (f.lastSeenAt ?? '') : String(f[sortBy as 'name' | 'type' | 'createdAt' | 'project']));
  const sign = order === 'asc' ? 1 : -1;
  hits.sort((a, b) => {
    if (favFirst && favorites.has(a.name) !== favorites.has(b.name)) return favorites.has(a.name) ? -1 : 1;
    const ka = key(a);
    const kb = key(b);
    return (ka < kb ? -1 : ka > kb ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0) * sign;
  });
  return { features: hits.slice(offset, offset + limit).map((f) => featureSummary(state, f, favorites)), total: hits.length };
}

/** `enabledIn` / `disabledIn`: an environment's name; a flag matches by its switch there. */
function switchFilter(state: State, q: FeatureSearch): Test<Feature> | null {
  const ask = q.enabledIn ? { env: q.enabledIn, on: true, field: 'enabledIn' } : q.disabledIn ? { env: q.disabledIn, on: false, field: 'disabledIn' } : null;
  if (!ask) return null;
  if (q.enabledIn && q.disabledIn) throw invalid('disabledIn', 'give "enabledIn" or "disabledIn", not both');
  if (!state.environments.has(ask.env)) throw invalid(ask.field, `there is no environment named "${ask.env}"`);
  return (f) => (state.featureEnvs.get(f.name)?.get(ask.env)?.enabled ?? false) === ask.on;
}

function matchesText(f: Feature, tags: Tag[], text: string): boolean {
  if (f.name.toLowerCase().includes(text)) return true;
  if (f.description?.toLowerCase().includes(text)) return true;
  return tags.some((t) => `${t.type}:${t.value}`.toLowerCase().includes(text));
}
