// POST /api/client/register and /api/client/metrics (202, as Unleash answers the Node SDK),
// /api/client/metrics/bulk (what Unleash Edge sends for the SDKs behind it), and admin reads of
// what they gathered: applications, one flag's usage by the hour (Unleash's client-metrics
// routes), and flag names reported that the server does not have.
import { NotFoundError, ValidationError } from '../../core/errors.js';
import type { State } from '../../core/state/state.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { clientMetricsReplies, clientMetricsSchemas, type BulkMetricsBody, type MetricsBody, type RegisterBody } from './schema.js';
import { sdkHeaders } from './sdk-headers.js';
import { HOUR_MS, USAGE_HOURS, type ClientMetricsStore, type UsageEntry } from './store.js';

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

/** `?hoursBack=`: how far back one flag's usage goes, 1 to USAGE_HOURS hours (24 when absent, as in Unleash). */
function hoursBackParam(raw: string | string[] | undefined): number {
  if (raw === undefined) return 24;
  const n = typeof raw === 'string' && /^\d{1,3}(\.\d{1,6})?$/.test(raw) ? Number(raw) : NaN;
  if (!(n > 0 && n <= USAGE_HOURS)) throw new ValidationError(`"hoursBack" must be a number of hours above 0 and at most ${USAGE_HOURS}.`, [{ path: 'hoursBack', message: `must be above 0 and at most ${USAGE_HOURS}` }]);
  return n;
}

/** A flag's usage is seen by who may see its project (an unknown name: by any admin, and it is empty). */
const ofFeature = (p: Record<string, string>, s: State) => ({ project: s.features.get(p.name)?.project });

/** Per environment, the counts of the hours in `entries`, summed over applications. */
function byEnvironmentAndHour(entries: UsageEntry[]) {
  const sums = new Map<string, { environment: string; timestamp: string; yes: number; no: number }>();
  for (const e of entries) {
    const key = `${e.environment}\u0000${e.timestamp}`;
    const s = sums.get(key) ?? { environment: e.environment, timestamp: e.timestamp, yes: 0, no: 0 };
    s.yes = Math.min(s.yes + e.yes, Number.MAX_SAFE_INTEGER);
    s.no = Math.min(s.no + e.no, Number.MAX_SAFE_INTEGER);
    sums.set(key, s);
  }
  return [...sums.values()];
}

/** The routes SDKs report to, over the store the core (entry/core.ts) built and flushes. */
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
  ];
}

/**
 * What SDKs reported, as the admin API shows it: per flag, unknown flags, applications. A server's;
 * a relay keeps the store only to forward what its SDKs report.
 */
export function clientMetricsViewRoutes(ctx: AppContext, store: ClientMetricsStore): RouteDef[] {
  ctx.schemas.describe(clientMetricsReplies);
  return [
    {
      method: 'GET', path: '/api/admin/client-metrics/features/:name/raw', tag: TAG, permission: 'READ', scope: ofFeature, background: true,
      summary: `One flag's evaluations by the hour, per application and environment, from ?hoursBack= hours ago (24 when absent, at most ${USAGE_HOURS}); hours without any are left out`,
      reply: clientMetricsReplies.featureUsageRawSchema, responses: { 200: '{version, maturity, data}', 400: 'hoursBack out of range' },
      handler: ({ params, query }) => {
        const since = ctx.engine.now().getTime() - hoursBackParam(query.hoursBack) * HOUR_MS;
        return { status: 200, body: { version: 1, maturity: 'stable', data: store.usage(params.name, since) } };
      },
    },
    {
      method: 'GET', path: '/api/admin/client-metrics/features/:name', tag: TAG, permission: 'READ', scope: ofFeature, background: true,
      summary: "One flag's evaluations in the last hour per environment, and the applications that evaluated it in the last 48 hours",
      reply: clientMetricsReplies.featureUsageSchema,
      handler: ({ params }) => {
        const now = ctx.engine.now().getTime();
        const recent = store.usage(params.name, now - USAGE_HOURS * HOUR_MS);
        const lastHour = store.usage(params.name, now - HOUR_MS);
        const seenApplications = [...new Set(recent.map((e) => e.appName))].sort();
        return { status: 200, body: { version: 1, maturity: 'stable', featureName: params.name, lastHourUsage: byEnvironmentAndHour(lastHour), seenApplications } };
      },
    },
    {
      method: 'GET', path: '/api/admin/metrics/unknown-flags', tag: TAG, permission: 'READ', background: true,
      summary: 'Flag names SDKs reported in the last 24 hours that the server does not have, by name (at most 1000), with who reported them where and when',
      reply: clientMetricsReplies.unknownFlagsSchema,
      handler: () => ({ status: 200, body: { unknownFlags: store.unknown.list(ctx.engine.state, ctx.engine.now().getTime()) } }),
    },
    {
      method: 'GET', path: '/api/admin/metrics/applications', tag: TAG, permission: 'READ', background: true,
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
