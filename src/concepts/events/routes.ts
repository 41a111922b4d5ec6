// Event search (spec endpoint 5) and Unleash's plain event listings.
import { invalid } from '../../core/errors.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import type { EventFilter } from '../../core/state/events/event-log.js';
import { eventReplies, eventSchemas, MAX_EVENT_PAGE, type SearchEventsBody } from './schema.js';
import { searchVisible } from './search-visible.js';
import { EVENT_TYPES } from './types.js';

const TAG = 'Events';
/** Any admin token may list events; a limited one sees only its own (search-visible.ts). */
const visibleOnly = () => ({ visibleOnly: true });

/** A single-valued query parameter; a repeated one is ambiguous, so it is refused. */
function one(query: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) throw invalid(name, `"${name}" may be given once`);
  return v;
}

/** `?limit=` of the plain listing: the console's cursor asks for the newest event alone. */
function limitOf(raw: string | undefined): number {
  if (raw === undefined) return MAX_EVENT_PAGE;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_EVENT_PAGE) throw invalid('limit', `"limit" must be a whole number from 1 to ${MAX_EVENT_PAGE}`);
  return Number(raw);
}

/** Routes of the event log: search, the newest events, one flag's events (each seen through the caller's scope). */
export function eventRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(eventSchemas);
  ctx.schemas.describe(eventReplies);
  const { engine } = ctx;
  const search = (req: Parameters<typeof ctx.auth.adminView>[0], filter: EventFilter, limit: number, offset: number) => {
    return searchVisible(engine.state.events, filter, limit, offset, ctx.auth.adminView(req));
  };
  return [
    {
      method: 'POST', path: '/api/admin/events/search', tag: TAG,
      summary: 'Search events, newest first (type, project, feature exact; query case-insensitive; offset is an event-id cursor)', reply: eventReplies.eventsSchema,
      body: eventSchemas.searchEventsSchema, permission: 'READ', scope: visibleOnly,
      responses: { 200: '{version: 1, events, totalEvents}', 400: 'Invalid search', 403: 'A project outside the token\'s limits', 415: 'Not JSON' },
      handler: ({ req, body }) => {
        const b = body as SearchEventsBody;
        const wall = performance.now();
        const cpu = process.cpuUsage();
        const filter = { type: b.type, project: b.project, feature: b.feature, query: b.query };
        const page = search(req, filter, b.limit ?? MAX_EVENT_PAGE, b.offset ?? 0);
        // Server-Timing lets an operator (and bench/event-search.ts) tell search time from transfer
        // time, and wall time from CPU time on a busy machine.
        const used = process.cpuUsage(cpu);
        const timing = `search;dur=${(performance.now() - wall).toFixed(2)}, cpu;dur=${((used.user + used.system) / 1000).toFixed(2)}`;
        return { status: 200, body: { version: 1, events: page.events, totalEvents: page.total }, headers: { 'Server-Timing': timing } };
      },
    },
    {
      method: 'GET', path: '/api/admin/event-types', tag: TAG, permission: 'READ', scope: visibleOnly, reply: eventReplies.eventTypesSchema,
      summary: 'The event types the search takes (what the console offers to filter by)',
      handler: () => ({ status: 200, body: { types: [...EVENT_TYPES].sort() } }),
    },
    {
      method: 'GET', path: '/api/admin/events', tag: TAG, permission: 'READ', scope: visibleOnly, background: true,
      summary: `The newest events (?limit=, 1 to ${MAX_EVENT_PAGE}, ${MAX_EVENT_PAGE} when absent), optionally only those of a project (?project=) or a flag (?feature=)`,
      reply: eventReplies.eventsSchema,
      handler: ({ req, query }) => {
        const filter = { project: one(query, 'project'), feature: one(query, 'feature') };
        const page = search(req, filter, limitOf(one(query, 'limit')), 0);
        return { status: 200, body: { version: 1, events: page.events, totalEvents: page.total } };
      },
    },
    {
      method: 'GET', path: '/api/admin/events/:featureName', tag: TAG, permission: 'READ', scope: visibleOnly,
      summary: "The newest 100 events of one flag", reply: eventReplies.eventsSchema,
      handler: ({ req, params }) => {
        const page = search(req, { feature: params.featureName }, MAX_EVENT_PAGE, 0);
        return { status: 200, body: { version: 1, toggleName: params.featureName, events: page.events, totalEvents: page.total } };
      },
    },
  ];
}
