// Impact metrics' routes: the totals in Prometheus' text format where Unleash shows them
// (`/internal-backstage/impact/metrics`), and the kept series answered by Fanion itself on the
// routes Unleash Enterprise answers through Prometheus (`/api/admin/impact-metrics/…`).
import { ValidationError } from '../../core/errors.js';
import { NOSNIFF } from '../../http/respond.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { AGGREGATIONS, RANGES, metricList, prometheusText, timeSeries, type Aggregation, type LabelSelectors, type Range } from './logic.js';
import { requireFeature } from '../../core/state/lookup.js';
import { chartsOf, deleteChart, saveChart, type ChartInput } from './charts.js';
import { impactMetricsReplies, impactMetricsSchemas } from './schema.js';
import type { ImpactStore } from './store.js';

const TAG = 'Impact metrics';

function one(raw: string | string[] | undefined, name: string): string | undefined {
  if (Array.isArray(raw)) throw new ValidationError(`"${name}" may be given once.`, [{ path: name, message: 'given more than once' }]);
  return raw;
}

function choice<T extends string>(raw: string | string[] | undefined, name: string, allowed: readonly T[], fallback: T): T {
  const v = one(raw, name);
  if (v === undefined || v === '') return fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new ValidationError(`"${name}" must be one of ${allowed.join(', ')}.`, [{ path: name, message: `must be one of ${allowed.join(', ')}` }]);
  return v as T;
}

/** `?labels=`: JSON `{label: [values]}` (a lone string counts as one value). */
function labelsParam(raw: string | string[] | undefined): LabelSelectors {
  const v = one(raw, 'labels');
  if (v === undefined || v === '') return {};
  const bad = () => new ValidationError('"labels" must be JSON of the form {"label": ["value", …]}.', [{ path: 'labels', message: 'must be {label: [values]}' }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    throw bad();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad();
  const out: LabelSelectors = {};
  for (const [k, vals] of Object.entries(parsed)) {
    const list = typeof vals === 'string' ? [vals] : vals;
    if (!Array.isArray(list) || list.some((x) => typeof x !== 'string') || list.length > 100) throw bad();
    out[k] = list as string[];
  }
  if (Object.keys(out).length > 16) throw bad();
  return out;
}

const CONFIG = '/api/admin/impact-metrics/config';
const FEATURE_CONFIG = '/api/admin/projects/:projectId/features/:featureName/impact-metrics/config';
const inProject = (p: Record<string, string>) => ({ project: p.projectId });

/** What a body says of a chart (the console sends fields of its own too). */
function chartInput(body: ChartInput): ChartInput {
  const { id, title, metricName, timeRange, yAxisMin, aggregationMode, labelSelectors } = body;
  return { ...(id !== undefined ? { id } : {}), ...(title !== undefined ? { title } : {}), metricName, timeRange, yAxisMin, aggregationMode, labelSelectors };
}

/** Saved charts (Unleash's impact-metrics config routes): the impact metrics page's, and each flag's. */
function chartRoutes(ctx: AppContext): RouteDef[] {
  const flag = (p: Record<string, string>) => requireFeature(ctx.engine.state, p.projectId, p.featureName).name;
  const saved = { reply: impactMetricsReplies.impactChartReplySchema, body: impactMetricsSchemas.impactChartSchema, responses: { 200: 'The chart as saved', 400: 'A field out of range', 404: 'No such chart (or flag)' } };
  return [
    {
      method: 'GET', path: CONFIG, tag: TAG, permission: 'READ', summary: 'The charts of the impact metrics page', reply: impactMetricsReplies.impactChartsSchema,
      handler: () => ({ status: 200, body: { configs: chartsOf(ctx.engine.state, null) } }),
    },
    {
      method: 'POST', path: CONFIG, tag: TAG, permission: 'ADMIN', summary: 'Save a chart of the impact metrics page (a new one, or the one of `id`)', ...saved,
      handler: async ({ body, actor }) => ({ status: 200, body: await ctx.engine.run(actor, saveChart(chartInput(body), null)) }),
    },
    {
      method: 'DELETE', path: `${CONFIG}/:id`, tag: TAG, permission: 'ADMIN', summary: 'Delete a chart of the impact metrics page', responses: { 204: 'Deleted', 404: 'No such chart' },
      handler: async ({ params, actor }) => {
        await ctx.engine.run(actor, deleteChart(params.id, null));
        return { status: 204 };
      },
    },
    {
      method: 'GET', path: FEATURE_CONFIG, tag: TAG, permission: 'READ', scope: inProject, summary: "The impact metrics charts of a flag's page", reply: impactMetricsReplies.impactChartsSchema,
      handler: ({ params }) => ({ status: 200, body: { configs: chartsOf(ctx.engine.state, flag(params)) } }),
    },
    {
      method: 'POST', path: FEATURE_CONFIG, tag: TAG, permission: 'UPDATE_FEATURE', scope: inProject, summary: "Save an impact metrics chart of a flag's page (a new one, or the one of `id`)", ...saved,
      handler: async ({ params, body, actor }) => ({ status: 200, body: await ctx.engine.run(actor, (s, env) => saveChart(chartInput(body), requireFeature(s, params.projectId, params.featureName).name)(s, env)) }),
    },
    {
      method: 'DELETE', path: `${FEATURE_CONFIG}/:id`, tag: TAG, permission: 'UPDATE_FEATURE', scope: inProject, summary: "Delete an impact metrics chart of a flag's page", responses: { 204: 'Deleted', 404: 'No such chart (or flag)' },
      handler: async ({ params, actor }) => {
        await ctx.engine.run(actor, (s, env) => deleteChart(params.id, requireFeature(s, params.projectId, params.featureName).name)(s, env));
        return { status: 204 };
      },
    },
  ];
}

export function impactMetricsRoutes(ctx: AppContext, store: ImpactStore): RouteDef[] {
  ctx.schemas.addAll(impactMetricsSchemas);
  ctx.schemas.describe(impactMetricsReplies);
  return [
    ...chartRoutes(ctx),
    {
      method: 'GET', path: '/internal-backstage/impact/metrics', tag: TAG, eventual: true, ...(ctx.config.metrics.prometheusOpen ? {} : { permission: 'ADMIN' }),
      summary: "Applications' impact metrics in Prometheus' text format, totals since they were first kept (an admin token, unless PROMETHEUS_OPEN=true)",
      responses: { 200: 'The metrics (text/plain; version=0.0.4)' },
      handler: ({ res }) => {
        const text = prometheusText(store.series());
        res.writeHead(200, ['Content-Type', 'text/plain; version=0.0.4; charset=utf-8', 'Content-Length', String(Buffer.byteLength(text)), 'Cache-Control', 'no-store', ...NOSNIFF]);
        res.end(text);
      },
    },
    {
      method: 'GET', path: '/api/admin/impact-metrics/metadata', tag: TAG, permission: 'READ', background: true,
      summary: 'The impact metrics kept, by name, with their type and help', reply: impactMetricsReplies.impactMetricsMetadataSchema,
      handler: () => ({ status: 200, body: { metrics: metricList(store.series()) } }),
    },
    {
      method: 'GET', path: '/api/admin/impact-metrics', tag: TAG, permission: 'READ', background: true,
      summary: 'One impact metric over the last hour, day, week or month (?metricName, ?range, ?aggregationMode, ?labels={label:[values]}), per step',
      reply: impactMetricsReplies.impactMetricsDataSchema, responses: { 200: '{start, end, step, series, labels}', 400: 'A parameter out of range' },
      handler: ({ query }) => {
        const metricName = one(query.metricName, 'metricName');
        if (!metricName) throw new ValidationError('"metricName" is required.', [{ path: 'metricName', message: 'is required' }]);
        const range = choice<Range>(query.range, 'range', RANGES, 'hour');
        const aggregation = choice<Aggregation>(query.aggregationMode, 'aggregationMode', AGGREGATIONS, 'count');
        const labels = labelsParam(query.labels);
        return { status: 200, body: timeSeries(store.series(), { metricName, range, aggregation, labels }, ctx.engine.now().getTime()) };
      },
    },
  ];
}
