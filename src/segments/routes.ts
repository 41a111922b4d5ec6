import type { AppContext, RouteDef } from '../http/router.js';
import type { State } from '../state/state.js';
import { createSegment, deleteSegment, requireSegment, segmentView, strategiesUsing, updateSegment, type SegmentInput } from './logic.js';
import { segmentSchemas } from './schema.js';

const BASE = '/api/admin/segments';
const TAG = 'Segments';
/** A project segment is that project's business for scoped admin tokens. */
const ofSegment = (p: Record<string, string>, s: State) => {
  const seg = /^\d+$/.test(p.id) ? s.segments.get(Number(p.id)) : undefined;
  return seg?.project ? { project: seg.project } : {};
};

/** Routes of `/api/admin/segments`, and which strategies use a segment. */
export function segmentRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(segmentSchemas);
  const { engine } = ctx;
  return [
    {
      method: 'GET', path: BASE, tag: TAG, summary: 'List segments', permission: 'READ',
      handler: () => ({ status: 200, body: { segments: [...engine.state.segments.values()].sort((a, b) => a.id - b.id).map(segmentView) } }),
    },
    {
      method: 'GET', path: `${BASE}/:id`, tag: TAG, summary: 'Get a segment', permission: 'READ', scope: ofSegment,
      handler: ({ params }) => ({ status: 200, body: segmentView(requireSegment(engine.state, params.id)) }),
    },
    {
      method: 'GET', path: `${BASE}/:id/strategies`, tag: TAG, summary: 'List the strategies that use a segment', permission: 'READ', scope: ofSegment,
      handler: ({ params }) => {
        const seg = requireSegment(engine.state, params.id);
        const strategies = strategiesUsing(engine.state, seg.id).map((s) => ({
          id: s.id, featureName: s.featureName, projectId: s.projectId, environment: s.environment, strategyName: s.name,
        }));
        return { status: 200, body: { strategies } };
      },
    },
    {
      method: 'POST', path: BASE, tag: TAG, summary: 'Create a segment', body: 'createSegmentSchema', permission: 'CREATE_SEGMENT',
      responses: { 201: 'Created', 400: 'Invalid, unknown project, or over the limit of 300', 409: 'Name taken' },
      handler: async ({ req, body, actor }) => {
        const input = body as SegmentInput;
        // The target project is in the body, which the route's scope cannot see.
        if (input.project) ctx.auth.admin(req, 'CREATE_SEGMENT', { project: input.project });
        return { status: 201, body: segmentView(await engine.run(actor, createSegment(input))) };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:id`, tag: TAG, summary: 'Replace a segment', body: 'updateSegmentSchema', permission: 'UPDATE_SEGMENT', scope: ofSegment,
      responses: { 204: 'Updated', 400: 'Invalid, or a project its users are not in', 404: 'Unknown segment', 409: 'Name taken' },
      handler: async ({ req, params, body, actor }) => {
        const input = body as SegmentInput;
        if (input.project) ctx.auth.admin(req, 'UPDATE_SEGMENT', { project: input.project });
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
