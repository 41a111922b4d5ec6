// What a relay answers besides the SDK APIs, under Unleash Edge's names: its health and readiness
// (503 until every configured token has its flags, saying which are missing; GET /ready says the
// same as Unleash does), and the Frontend API again under /api/proxy.
import type { AppContext, RouteDef } from '../http/route.js';
import type { Readiness } from '../operations/readiness.js';

const TAG = 'Relay';

export const relaySchemas = {
  relayStatusSchema: {
    type: 'object',
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['OK', 'READY', 'NOT_READY'] },
      waiting: { type: 'array', items: { type: 'string' }, description: 'What readiness still waits for (one line per configured token)' },
    },
  },
};

export function relayRoutes(ctx: AppContext, readiness: Readiness): RouteDef[] {
  ctx.schemas.describe(relaySchemas);
  const status = relaySchemas.relayStatusSchema;
  const ready = (): { status: number; body: unknown } =>
    readiness.ready ? { status: 200, body: { status: 'READY' } } : { status: 503, body: { status: 'NOT_READY', waiting: readiness.pending() } };
  const readyResponses = { 200: 'Every configured token has its flags (from the upstream, or from the data folder)', 503: 'Some configured token has no flags yet (or the relay is still starting): `waiting` says what' };
  return [
    {
      method: 'GET', path: '/internal-backstage/health', tag: TAG, reply: status, summary: 'The relay process lives (Unleash Edge\'s health check)',
      responses: { 200: 'Alive' }, handler: () => ({ status: 200, body: { status: 'OK' } }),
    },
    { method: 'GET', path: '/internal-backstage/ready', tag: TAG, reply: status, errorReply: status, summary: 'Whether the relay can serve every configured token (Unleash Edge\'s readiness check)', responses: readyResponses, handler: ready },
  ];
}

/** Unleash Edge serves the Frontend API under /api/proxy too: the same routes, under that path. */
export function proxyAliases(frontend: RouteDef[]): RouteDef[] {
  return frontend
    .filter((r) => r.path.startsWith('/api/frontend'))
    .map((r) => ({ ...r, path: r.path.replace(/^\/api\/frontend/, '/api/proxy'), summary: `${r.summary} (Unleash Edge's path for the Frontend API)` }));
}

/**
 * POST /edge/validate on a relay answers for the tokens it holds; a relay downstream asks about
 * tokens it has not seen, so those are checked with this relay's own upstream first (each hop
 * grants no more than the one above it).
 */
export function validateThroughUpstream(routes: RouteDef[], check: (tokens: readonly string[]) => Promise<void>): RouteDef[] {
  return routes.map((r) => (r.path !== '/edge/validate' ? r : {
    ...r,
    handler: async (call) => {
      await check((call.body as { tokens: string[] }).tokens);
      return r.handler(call);
    },
  }));
}
