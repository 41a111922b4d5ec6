import type { AppContext, RouteDef } from '../http/route.js';
import type { State } from '../state/state.js';
import { createSegment, deleteSegment, requireSegment, segmentView, strategiesUsing, updateSegment, type SegmentInput } from './logic.js';
import { segmentReplies, segmentSchemas } from './schema.js';

const BASE = '/api/admin/segments';
const TAG = 'Segments';
/** A project segment is that project's business for scoped admin tokens. */
const ofSegment = (p: Record<string, string>, s: State) => {
  const seg = /^\d+$/.test(p.id) ? s.segments.get(Number(p.id)) : undefined;
  return seg?.project ? { project: seg.project } : {};
};

/** A segment moved into a project needs the permission in that project too. */
const projectOfBody = (body: SegmentInput) => (body.project ? [{ project: body.project }] : []);

/** Routes of `/api/admin/segments`, and which strategies use a segment. */
export function segmentRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(segmentSchemas);
  ctx.schemas.describe(segmentReplies);
  const { engine } = ctx;
  return [
    {
      method: 'GET', path: BASE, tag: TAG, summary: 'List segments', reply: segmentReplies.segmentsSchema, permission: 'READ',
      handler: () => ({ status: 200, body: { segments: [...engine.state.segments.values()].sort((a, b) => a.id - b.id).map(segmentView) } }),
    },
    {
      method: 'GET', path: `${BASE}/:id`, tag: TAG, summary: 'Get a segment', reply: segmentReplies.segmentSchema, permission: 'READ', scope: ofSegment,
      handler: ({ params }) => ({ status: 200, body: segmentView(requireSegment(engine.state, params.id)) }),
    },
    {
      method: 'GET', path: `${BASE}/:id/strategies`, tag: TAG, summary: 'List the strategies that use a segment', reply: segmentReplies.segmentStrategiesSchema, permission: 'READ', scope: ofSegment,
      handler: ({ params }) => {
        const seg = requireSegment(engine.state, params.id);
        const strategies = strategiesUsing(engine.state, seg.id).map((s) => ({
          id: s.id, featureName: s.featureName, projectId: s.projectId, environment: s.environment, strategyName: s.name,
        }));
        return { status: 200, body: { strategies } };
      },
    },
    {
      method: 'POST', path: BASE, tag: TAG, summary: 'Create a segment', reply: segmentReplies.segmentSchema, body: segmentSchemas.createSegmentSchema, permission: 'CREATE_SEGMENT',
      // The target project is in the body, out of the route scope's sight.
      bodyScopes: projectOfBody,
      responses: { 201: 'Created', 400: 'Invalid, unknown project, or over the limit of 300', 409: 'Name taken' },
      handler: async ({ body, actor }) => {
        const input = body as SegmentInput;
        return { status: 201, body: segmentView(await engine.run(actor, createSegment(input))) };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:id`, tag: TAG, summary: 'Replace a segment', body: segmentSchemas.updateSegmentSchema, permission: 'UPDATE_SEGMENT', scope: ofSegment, bodyScopes: projectOfBody,
      responses: { 204: 'Updated', 400: 'Invalid, or a project its users are not in', 404: 'Unknown segment', 409: 'Name taken' },
      handler: async ({ params, body, actor }) => {
        const input = body as SegmentInput;
        await engine.run(actor, updateSegment(params.id, input));
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:id`, tag: TAG, summary: 'Delete a segment no strategy uses', permission: 'DELETE_SEGMENT', scope: ofSegment,
      responses: { 204: 'Deleted', 403: 'Used by a strategy', 404: 'Unknown segment' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteSegment(params.id));
        return { status: 204 };
      },
    },
  ];
}
