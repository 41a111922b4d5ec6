// POST /api/client/register and /api/client/metrics (202, as Unleash answers the Node SDK),
// and admin reads of what they gathered.
import { NotFoundError } from '../errors.js';
import type { AppContext, RouteDef } from '../http/router.js';
import { MetricsFlusher } from './flusher.js';
import { clientMetricsSchemas, type MetricsBody, type RegisterBody } from './schema.js';
import { ClientMetricsStore } from './store.js';

const TAG = 'Client metrics';

export function clientMetricsRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(clientMetricsSchemas);
  const store = new ClientMetricsStore(ctx.engine.state);
  const flusher = new MetricsFlusher(ctx.engine, store, ctx.log);
  flusher.start(ctx.config.metricsFlushMs);
  ctx.onClose?.(() => flusher.stop());
  const now = () => ctx.engine.now().toISOString();
  return [
    {
      method: 'POST', path: '/api/client/register', tag: TAG, auth: 'client', fastPath: true, body: 'clientRegisterSchema',
      summary: 'An SDK instance announces itself', responses: { 202: 'Accepted', 400: 'Malformed body', 415: 'Not JSON' },
      handler: ({ body, client }) => {
        store.register(client!, body as RegisterBody, now());
        return { status: 202 };
      },
    },
    {
      method: 'POST', path: '/api/client/metrics', tag: TAG, auth: 'client', fastPath: true, body: 'clientMetricsSchema',
      summary: 'An SDK reports how often each flag was evaluated', responses: { 202: 'Accepted', 400: 'Malformed body', 415: 'Not JSON' },
      handler: ({ body, client }) => {
        store.record(client!, body as MetricsBody, now());
        return { status: 202 };
      },
    },
    {
      method: 'GET', path: '/api/admin/metrics/applications', tag: TAG, permission: 'READ',
      summary: 'Applications that registered or sent metrics since the server started, with instances and counts',
      handler: () => ({ status: 200, body: { applications: store.applications() } }),
    },
    {
      method: 'GET', path: '/api/admin/metrics/applications/:appName', tag: TAG, permission: 'READ',
      summary: 'One application with its instances and per-flag counts',
      handler: ({ params }) => {
        const app = store.application(params.appName);
        if (!app) throw new NotFoundError(`No application named "${params.appName}" has registered or sent metrics since the server started.`);
        return { status: 200, body: app };
      },
    },
  ];
}
