// Event listings for admin tokens with limits. The rule (README § Authentication): a limited
// token sees an event only when the event belongs to one of its projects and, if the token has
// one environment, to that environment or to none. Events of no project (environments, tag
// types, tokens, …) are server-wide, like the routes that make them, so only an unlimited token
// sees them; Unleash likewise hides project-less events from everyone but root admins.
//
// The log (event-log.ts) indexes type, project and flag but not environment, and its search
// takes one project. So: limited by projects only → one indexed search per project, merged;
// limited by an environment → exact filters are counted over the EnvironmentIndex's columns
// (search-index.ts); with a free-text `query` as well, the matches are walked in chunks and
// each decoded event is tested, since `totalEvents` must count only what the token sees.
import { describeLimits, type AdminView } from '../auth/authenticator.js';
import { NoAccessError } from '../errors.js';
import type { EventRecord } from '../state/types.js';
import type { EventFilter, EventLog, EventPage } from './event-log.js';
import type { EnvironmentIndex } from './search-index.js';

/** Decoded events held at once while walking; bounds memory on very large logs. */
const MAX_CHUNK = 20_000;
const MIN_CHUNK = 1_000;

export function isUnlimited(view: AdminView): boolean {
  return view.environment === '*' && view.projects.includes('*');
}

/** The visibility rule itself; everything else here computes the same answer faster. */
export function canSee(view: AdminView, e: Pick<EventRecord, 'project' | 'environment'>): boolean {
  if (isUnlimited(view)) return true;
  if (e.project === null) return false;
  if (!view.projects.includes('*') && !view.projects.includes(e.project)) return false;
  return view.environment === '*' || e.environment === null || e.environment === view.environment;
}

/**
 * `log.search` restricted to what `view` may see: the same filters, order, cursor and page size,
 * and `total` counts only visible events. Asking for a project outside the view is a 403, as
 * any other admin action outside a token's projects. `index` (of this log) makes searches under
 * an environment limit fast; without it they walk the matches.
 */
export function searchVisible(log: EventLog, filter: EventFilter, limit: number, offset: number, view: AdminView, index?: EnvironmentIndex): EventPage {
  if (isUnlimited(view)) return log.search(filter, limit, offset);
  const allProjects = view.projects.includes('*');
  if (filter.project !== undefined && !allProjects && !view.projects.includes(filter.project)) {
    throw new NoAccessError(
      `You need permission=READ to perform this action on environment=${view.environment} in project=${filter.project}: ` +
        `this token is limited to ${describeLimits(view)}.`,
    );
  }
  // null: every project, searched at once (project-less events are then removed by the walk).
  const projects = filter.project !== undefined ? [filter.project] : allProjects ? null : [...view.projects];
  if (view.environment === '*' && projects !== null) return mergeProjects(log, filter, projects, limit, offset);
  if (index !== undefined && index.log === log && !filter.query) {
    return index.search(filter, { projects: projects ?? ['*'], environment: view.environment }, limit, offset);
  }
  const pages = (projects ?? [undefined]).map((project) => walkVisible(log, project === undefined ? filter : { ...filter, project }, limit, offset, view));
  return merge(pages, limit);
}

/** Projects are disjoint, so totals add up and the newest `limit` of the union are among each project's newest `limit`. */
function mergeProjects(log: EventLog, filter: EventFilter, projects: string[], limit: number, offset: number): EventPage {
  return merge(projects.map((project) => log.search({ ...filter, project }, limit, offset)), limit);
}

function merge(pages: EventPage[], limit: number): EventPage {
  if (pages.length === 1) return pages[0];
  let total = 0;
  const events: EventRecord[] = [];
  for (const p of pages) {
    total += p.total;
    events.push(...p.events);
  }
  events.sort((a, b) => b.id - a.id);
  if (events.length > limit) events.length = limit;
  return { events, total };
}

/** Every match of `filter`, newest first, decoded chunk by chunk and tested one by one. */
function walkVisible(log: EventLog, filter: EventFilter, limit: number, offset: number, view: AdminView): EventPage {
  const first = log.search(filter, MIN_CHUNK, 0);
  // Each chunk's search re-walks the filter's matches to count them, so chunks are large enough
  // that this happens a handful of times, and small enough to bound the decoded events held.
  const chunk = Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, Math.ceil(first.total / 8)));
  const picked: EventRecord[] = [];
  let total = 0;
  let page = first;
  let size = MIN_CHUNK;
  for (;;) {
    for (const e of page.events) {
      if (!canSee(view, e)) continue;
      total++;
      if ((offset === 0 || e.id <= offset) && picked.length < limit) picked.push(e);
    }
    if (page.events.length < size) break;
    const cursor = page.events[page.events.length - 1].id - 1;
    if (cursor < 1) break;
    size = chunk;
    page = log.search(filter, size, cursor);
  }
  return { events: picked, total };
}
