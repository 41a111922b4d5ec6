// GET /internal-backstage/prometheus: the metrics in Prometheus' text format, for an admin token
// (or anyone, with PROMETHEUS_OPEN=true, for a scraper on a private network).
import { NOSNIFF } from '../../http/respond.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import type { FanionMetrics } from './metrics.js';

export function operationsRoutes(ctx: AppContext, metrics: FanionMetrics): RouteDef[] {
  return [
    {
      method: 'GET', path: '/internal-backstage/prometheus', tag: 'Operations', eventual: true, ...(ctx.config.metrics.prometheusOpen ? {} : { permission: 'ADMIN' }),
      summary: 'Metrics in Prometheus\' text format (an admin token, unless PROMETHEUS_OPEN=true)',
      responses: { 200: 'The metrics (text/plain; version=0.0.4)' },
      handler: async ({ res }) => {
        const text = await metrics.registry.metrics();
        res.writeHead(200, ['Content-Type', metrics.registry.contentType, 'Content-Length', String(Buffer.byteLength(text)), 'Cache-Control', 'no-store', ...NOSNIFF]);
        res.end(text);
      },
    },
  ];
}
