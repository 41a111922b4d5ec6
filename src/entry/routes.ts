// Route groups the compositions list their routes from: what SDKs call (every mode serves it), what
// a server and a cluster node serve around it (the admin API, admin.ts; the operations routes), and
// what Unleash Edge answers besides (a relay and offline mode serve it).
import { clientApiRoutes } from '../concepts/client-api/routes.js';
import { clientMetricsRoutes, clientMetricsViewRoutes } from '../concepts/client-metrics/routes.js';
import { edgeRoutes } from '../concepts/edge/routes.js';
import { frontendRoutes } from '../concepts/frontend/routes.js';
import { ofrepRoutes } from '../concepts/ofrep/routes.js';
import { operationsRoutes } from '../concepts/operations/routes.js';
import { pushRoutes } from '../concepts/push/routes.js';
import type { TokenAuthenticator } from '../concepts/tokens/token-authenticator.js';
import type { AppContext, RouteDef } from '../http/route.js';
import { backstageRoutes, proxyAliases, relayRoutes } from '../modes/relay/routes.js';
import { adminRoutes, type AdminSide } from './admin.js';
import type { Core, Tokens } from './core.js';
import { impactMetricsRoutes } from '../concepts/impact-metrics/routes.js';

/**
 * What SDKs call: the flags (polled, streamed, as deltas), their metrics, token validation for a
 * relay below, the Frontend API and OFREP.
 */
export function sdkRoutes(ctx: AppContext, parts: Core & { tokens: TokenAuthenticator }): RouteDef[] {
  return [
    ...clientApiRoutes(parts.snapshot, ctx.schemas, parts.frontDoor),
    ...pushRoutes(parts.push, ctx.schemas),
    ...clientMetricsRoutes(ctx, parts.metrics, parts.tokens),
    ...edgeRoutes(ctx, parts.tokens),
    ...frontendRoutes(ctx, parts.evaluator, parts.metrics),
    ...ofrepRoutes(ctx, parts.evaluator),
  ];
}

/**
 * A relay's (or offline mode's) list: the SDK routes it serves, then Unleash Edge's paths: its
 * health and readiness, its views of what it holds (`pending`: TOKENS entries not granted yet),
 * the Frontend API again under /api/proxy, and the metrics under /internal-backstage/metrics too.
 * The metrics are there only when PROMETHEUS_OPEN lets anyone read them (the default here): no
 * token a relay holds is an admin token.
 */
export function edgeSideRoutes(ctx: AppContext, core: Core, sdk: RouteDef[], pending: () => string[]): RouteDef[] {
  const metrics = operationsRoutes(ctx, core.operations).filter((r) => !r.permission);
  return [
    ...sdk,
    ...metrics,
    ...relayRoutes(ctx, core.readiness),
    ...backstageRoutes(ctx, () => ctx.engine.state, pending),
    ...proxyAliases(sdk),
    ...metrics.map((r) => ({ ...r, path: '/internal-backstage/metrics', summary: `${r.summary} (Unleash Edge's path)` })),
  ];
}

/**
 * A server's list, and a cluster node's (the same API over another log): the admin API before and
 * after the SDK routes, what SDKs reported as the admin API shows it, and the operations routes.
 */
export async function serverRoutes(ctx: AppContext, parts: Core & Tokens & { admin: AdminSide }): Promise<RouteDef[]> {
  const admin = await adminRoutes(ctx, parts, parts.admin);
  return [
    ...admin.before,
    ...sdkRoutes(ctx, parts),
    ...clientMetricsViewRoutes(ctx, parts.metrics),
    ...operationsRoutes(ctx, parts.operations),
    ...(parts.impact ? impactMetricsRoutes(ctx, parts.impact) : []),
    ...admin.after,
  ];
}
