// What a relay answers besides the SDK APIs, under Unleash Edge's names: its health and readiness
// (503 until every configured token has its flags, saying which are missing; GET /ready says the
// same as Unleash does), and the Frontend API again under /api/proxy.
import { inClientScope } from '../../core/access/access.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import type { Readiness } from '../../concepts/operations/readiness.js';
import { strategiesOf, type State } from '../../core/state/state.js';
import { PRETRUSTED_TOKEN_NAME } from './grants.js';

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

const backstageReplies = {
  backstageFeaturesSchema: {
    type: 'object', description: 'The flags held, by environment: only the calling token\'s environment and projects',
    additionalProperties: {
      type: 'object', required: ['features'],
      properties: {
        features: {
          type: 'array',
          items: { type: 'object', required: ['name', 'project', 'enabled', 'strategies'], properties: { name: { type: 'string' }, project: { type: 'string' }, enabled: { type: 'boolean' }, strategies: { type: 'integer' } } },
        },
      },
    },
  },
  backstageTokensSchema: {
    type: 'object', required: ['tokens'],
    properties: {
      tokens: {
        type: 'array',
        items: {
          type: 'object', required: ['token', 'status'],
          properties: {
            token: { type: 'string', description: 'The token\'s scope and a short fingerprint, never its secret: `<project>:<environment>.****<fingerprint>`' },
            type: { type: 'string', enum: ['client', 'frontend'] },
            environment: { type: 'string' }, projects: { type: 'array', items: { type: 'string' } },
            status: { type: 'string', enum: ['validated', 'trusted', 'unknown'], description: 'validated: granted (by the upstream, or offline mode\'s settings); trusted: PRETRUSTED_TOKENS; unknown: a TOKENS entry not granted (not yet, or refused by the upstream)' },
          },
        },
      },
    },
  },
};

/**
 * Unleash Edge's views of what it holds: GET /internal-backstage/features (the flags, by
 * environment) and /internal-backstage/tokens (the tokens and their status). Both take a client
 * token held here: the flags are only those of its scope, and tokens are shown by scope and a
 * fingerprint of their keyed hash, never their secret. `pending` lists TOKENS entries not granted yet.
 */
export function backstageRoutes(ctx: AppContext, state: () => State, pending: () => string[]): RouteDef[] {
  ctx.schemas.describe(backstageReplies);
  return [
    {
      method: 'GET', path: '/internal-backstage/features', tag: TAG, auth: 'client', reply: backstageReplies.backstageFeaturesSchema,
      summary: 'The flags held for the calling client token\'s environment and projects (Unleash Edge\'s path)', responses: { 200: 'By environment', 401: 'No token, or one not held here', 403: 'Not a client token' },
      handler: ({ client: scope }) => {
        const s = state();
        const features = [];
        for (const [name, f] of s.features) {
          const fe = s.featureEnvs.get(name)?.get(scope!.environment);
          if (f.archived || !fe || !inClientScope(scope!, f.project)) continue;
          features.push({ name, project: f.project, enabled: fe.enabled, strategies: strategiesOf(s, name, scope!.environment).length });
        }
        return { status: 200, body: { [scope!.environment]: { features } } };
      },
    },
    {
      method: 'GET', path: '/internal-backstage/tokens', tag: TAG, auth: 'client', reply: backstageReplies.backstageTokensSchema,
      summary: 'The tokens held and their status, without their secrets (Unleash Edge\'s path)', responses: { 200: 'The tokens', 401: 'No token, or one not held here', 403: 'Not a client token' },
      handler: () => {
        const tokens = [];
        for (const t of state().apiTokens.values()) {
          if (t.type === 'admin') continue;
          tokens.push({
            token: `${t.prefix}****${t.hash.slice(0, 8)}`, type: t.type, environment: t.environment, projects: t.projects,
            status: t.tokenName === PRETRUSTED_TOKEN_NAME ? 'trusted' : 'validated',
          });
        }
        for (const label of pending()) tokens.push({ token: `${label}****`, status: 'unknown' });
        return { status: 200, body: { tokens } };
      },
    },
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
