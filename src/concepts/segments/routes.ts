import type { AppContext, RouteDef } from '../../http/route.js';
import type { State } from '../../core/state/state.js';
import { createSegment, deleteSegment, requireSegment, segmentView, strategiesUsing, updateSegment, type SegmentInput } from './logic.js';
import { segmentReplies, segmentSchemas } from './schema.js';
import { segmentPlaces, segmentReach } from '../../core/access/reach.js';

const BASE = '/api/admin/segments';
const TAG = 'Segments';
/**
 * A project segment is that project's business; a shared one (no project) acts on the whole
 * server. A change to one takes effect wherever a strategy uses it (auth/reach.ts).
 */
const segmentOf = (p: Record<string, string>, s: State) => (/^\d+$/.test(p.id) ? s.segments.get(Number(p.id)) : undefined);
const ofSegment = (p: Record<string, string>, s: State) => {
  const seg = segmentOf(p, s);
  return seg?.project ? { project: seg.project } : {};
};
const changedSegment = (p: Record<string, string>, s: State) => {
  const seg = segmentOf(p, s);
  if (!seg) return {};
  return seg.project ? { project: seg.project, reaches: segmentReach(s, seg.id) } : { places: segmentPlaces(s, seg.id) };
};

/**
 * Where a created or changed segment ends up: a project needs the permission there, and no
 * project (a shared segment) the permission on the whole server. A PUT without `project` keeps
 * the segment's own.
 */
const destinationOf = (body: SegmentInput, p: Record<string, string>, s: State) => {
  const project = body.project === undefined ? segmentOf(p, s)?.project ?? null : body.project;
  return [project ? { project } : {}];
};

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
      // The target project is in the body, out of the route scope's sight: before it is read, the
      // caller needs the permission in some project; then in that one (or everywhere).
      scope: () => ({ inSomeProject: true }), bodyScopes: destinationOf,
      responses: { 201: 'Created', 400: 'Invalid, unknown project, or over the limit of 300', 409: 'Name taken' },
      handler: async ({ body, actor }) => {
        const input = body as SegmentInput;
        return { status: 201, body: segmentView(await engine.run(actor, createSegment(input))) };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:id`, tag: TAG, summary: 'Replace a segment', body: segmentSchemas.updateSegmentSchema, permission: 'UPDATE_SEGMENT', scope: changedSegment, bodyScopes: destinationOf,
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
