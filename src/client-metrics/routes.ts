// POST /api/client/register and /api/client/metrics (202, as Unleash answers the Node SDK),
// /api/client/metrics/bulk (what Unleash Edge sends for the SDKs behind it), and admin reads of
// what they gathered: applications, and flag names reported that the server does not have.
import { NotFoundError, ValidationError } from '../errors.js';
import type { AppContext, RouteDef } from '../http/route.js';
import { clientMetricsReplies, clientMetricsSchemas, type BulkMetricsBody, type MetricsBody, type RegisterBody } from './schema.js';
import { sdkHeaders } from './sdk-headers.js';
import type { ClientMetricsStore } from './store.js';

/** What the bulk route needs of the API tokens: counting those a relay saw as used. */
export interface SeenTokens {
  markSeen(credentials: readonly string[], environment: string): number;
}

const TAG = 'Client metrics';

function pageParam(raw: string | string[] | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = typeof raw === 'string' && /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!(n <= max)) throw new ValidationError(`"${name}" must be a whole number from 0 to ${max}.`, [{ path: name, message: `must be a whole number from 0 to ${max}` }]);
  return n;
}

/** The SDK metrics routes, over the store the composition root (app.ts) built and flushes. */
export function clientMetricsRoutes(ctx: AppContext, store: ClientMetricsStore, tokens: SeenTokens): RouteDef[] {
  ctx.schemas.addAll(clientMetricsSchemas);
  ctx.schemas.describe(clientMetricsReplies);
  const now = () => ctx.engine.now().toISOString();
  return [
    {
      method: 'POST', path: '/api/client/register', tag: TAG, auth: 'client', body: clientMetricsSchemas.clientRegisterSchema,
      summary: 'An SDK instance announces itself', responses: { 202: 'Accepted', 400: 'Malformed body', 415: 'Not JSON' },
      handler: ({ req, body, client }) => {
        store.register(client!, body as RegisterBody, now(), sdkHeaders(req.headers));
        return { status: 202 };
      },
    },
    {
      method: 'POST', path: '/api/client/metrics', tag: TAG, auth: 'client', body: clientMetricsSchemas.clientMetricsSchema,
      summary: 'An SDK reports how often each flag was evaluated', responses: { 202: 'Accepted', 400: 'Malformed body', 415: 'Not JSON' },
      handler: ({ req, body, client }) => {
        store.record(client!, body as MetricsBody, now(), sdkHeaders(req.headers));
        return { status: 202 };
      },
    },
    {
      method: 'POST', path: '/api/client/metrics/bulk', tag: TAG, auth: 'client', body: clientMetricsSchemas.clientBulkMetricsSchema,
      summary: "A relay (Unleash Edge) reports its SDKs' registrations and counts; only those of the token's environment and projects count",
      responses: { 202: 'Accepted', 400: 'Malformed body', 413: 'Body too large', 415: 'Not JSON' },
      handler: ({ body, client }) => {
        const b = body as BulkMetricsBody;
        store.recordBulk(client!, b, now());
        if (b.seenTokens?.length) tokens.markSeen(b.seenTokens, client!.environment);
        return { status: 202 };
      },
    },
    {
      method: 'GET', path: '/api/admin/metrics/unknown-flags', tag: TAG, permission: 'READ',
      summary: 'Flag names SDKs reported in the last 24 hours that the server does not have, by name (at most 1000), with who reported them where and when',
      reply: clientMetricsReplies.unknownFlagsSchema,
      handler: () => ({ status: 200, body: { unknownFlags: store.unknown.list(ctx.engine.state, ctx.engine.now().getTime()) } }),
    },
    {
      method: 'GET', path: '/api/admin/metrics/applications', tag: TAG, permission: 'READ',
      summary: 'Applications that registered or sent metrics since the server started, most recently seen first (?offset, ?limit up to 1000)', reply: clientMetricsReplies.applicationsSchema,
      handler: ({ query }) => {
        const offset = pageParam(query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
        const limit = pageParam(query.limit, 'limit', 100, 1000);
        const { total, applications } = store.applications(offset, limit);
        return { status: 200, body: { total, offset, limit, truncated: offset + applications.length < total, applications } };
      },
    },
    {
      method: 'GET', path: '/api/admin/metrics/applications/:appName', tag: TAG, permission: 'READ',
      summary: 'One application with its instances and per-flag counts', reply: clientMetricsReplies.applicationSchema,
      handler: ({ params }) => {
        const app = store.application(params.appName);
        if (!app) throw new NotFoundError(`No application named "${params.appName}" has registered or sent metrics since the server started.`);
        return { status: 200, body: app };
      },
    },
  ];
}
