// What a limited admin token sees of the event log (docs/reference/authentication.md, "Events seen by…"): an event of one of
// its projects and, if the token has one environment, of that environment or of none. Events of
// no project (environments, tag types, tokens, …) are server-wide, like the routes that make
// them, so only an unlimited token sees them; Unleash likewise hides project-less events from
// everyone but root admins. Events about what only an Admin may list (people, personal and API
// tokens, webhooks: their data holds emails, roles, scopes, addresses) are hidden from every
// caller who may not list those (a Viewer, an Editor, a limited token), whatever the door. The
// rule itself is applied by the log's search (EventFilter.visible), per row, so totals, cursors
// and free-text queries work as for any other filter.
import { describeLimits, type AdminView } from '../../core/access/access.js';
import { NoAccessError } from '../../core/errors.js';
import type { EventFilter, EventLog, EventPage } from '../../core/state/events/event-log.js';
import { ADMIN_ONLY_EVENT_TYPES } from './types.js';

export function isUnlimited(view: AdminView): boolean {
  return view.environment === '*' && view.projects.includes('*');
}

/**
 * `log.search` restricted to what `view` may see. Asking for a project outside the view is a
 * 403, as any other admin action outside a token's projects, rather than an empty answer.
 */
export function searchVisible(log: EventLog, filter: EventFilter, limit: number, offset: number, view: AdminView): EventPage {
  const hiddenTypes = view.hideAdminEvents ? ADMIN_ONLY_EVENT_TYPES : undefined;
  if (isUnlimited(view)) return log.search(hiddenTypes ? { ...filter, visible: { projects: null, environment: '*', hiddenTypes } } : filter, limit, offset);
  const allProjects = view.projects.includes('*');
  if (filter.project !== undefined && !allProjects && !view.projects.includes(filter.project)) {
    throw new NoAccessError(
      `You need permission=READ to perform this action on environment=${view.environment} in project=${filter.project}: ` +
        `this token is limited to ${describeLimits(view)}.`,
    );
  }
  return log.search({ ...filter, visible: { projects: allProjects ? '*' : view.projects, environment: view.environment, hiddenTypes } }, limit, offset);
}
