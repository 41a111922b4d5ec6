// /api/admin/features-batch: export flags of one environment, and import them (or check an
// import first) into a project and environment, in the document format of Unleash 6–8.
import type { IncomingMessage } from 'node:http';
import { NoAccessError } from '../../core/errors.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { exportFeatures } from './export.js';
import { dependencyReach, importFeatures, reviewImport } from './import.js';
import { directChangeRefusal } from '../change-requests/enforcement.js';
import type { State } from '../../core/state/state.js';
import { featuresBatchSchemas, type ExportQuery, type ImportRequest } from './schema.js';

const BASE = '/api/admin/features-batch';
const TAG = 'Features batch';

/** Routes of `/api/admin/features-batch`: export, import, validate. */
export function featuresBatchRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(featuresBatchSchemas);
  const { engine, auth } = ctx;
  /** Context fields and tag types belong to no project: only an unlimited admin token may create them. */
  const mayCreateShared = (req: IncomingMessage): boolean => {
    try {
      auth.admin(req, 'CREATE_CONTEXT_FIELD', {});
      return true;
    } catch (err) {
      if (err instanceof NoAccessError) return false;
      throw err;
    }
  };
  const importScopes = (body: ImportRequest) => [{ project: body.project, environment: body.environment }];
  // An import that rewrites existing flags' dependencies also takes effect where those are on.
  const importReach = (body: ImportRequest, _p: Record<string, string>, state: State) => [{ project: body.project, environment: body.environment, reaches: dependencyReach(state, body) }];
  // Any admin token gets past the route's own check; what it may touch is named in the body
  // (bodyScopes) or found while exporting (each flag's project), and checked there.
  const inBody = () => ({ visibleOnly: true });
  return [
    {
      method: 'POST', path: `${BASE}/export`, tag: TAG, permission: 'READ',
      summary: 'Export flags (by name, tag or project) with their configuration in one environment, in Unleash 6–8\'s document format', reply: featuresBatchSchemas.exportResultSchema,
      body: featuresBatchSchemas.exportQuerySchema, scope: inBody, bodyScopes: (body: ExportQuery) => (body.project ? [{ project: body.project, environment: body.environment }] : []),
      responses: { 200: 'The document', 400: 'Invalid query', 403: 'A flag of a project the token does not reach', 404: 'Unknown environment or project' },
      handler: async ({ req, body, actor }) => {
        const query = body as ExportQuery;
        const document = await engine.run(actor, exportFeatures(query, (project) => void auth.admin(req, 'READ', { project, environment: query.environment })));
        const headers: Record<string, string> = query.downloadFile ? { 'Content-Disposition': 'attachment; filename="features-export.json"' } : {};
        return { status: 200, body: document, headers };
      },
    },
    {
      method: 'POST', path: `${BASE}/validate`, tag: TAG, permission: 'UPDATE_FEATURE',
      summary: 'Check an import without changing anything: its errors, warnings and missing permissions', reply: featuresBatchSchemas.importTogglesValidateSchema,
      body: featuresBatchSchemas.importTogglesSchema, bodyLimit: ctx.config.http.importBodyLimit, largeBody: true, scope: inBody, bodyScopes: importScopes, directChange: false,
      responses: { 200: 'The review (errors, warnings, permissions)', 400: 'Not a valid request', 404: 'Unknown project or environment', 413: 'Larger than IMPORT_BODY_LIMIT_BYTES' },
      // Run as a command that changes nothing: the review pauses between slices, and must not see
      // the state move (or half of another import) under it meanwhile.
      handler: async ({ req, body, actor }) => {
        const request = body as ImportRequest;
        const review = await engine.runInSlices(actor, async (state, _env, slicer) => ({
          ops: [], events: [], result: (await reviewImport(state, request, mayCreateShared(req), slicer)).review,
        }));
        // The import itself would meet the change-request gate: say so here, as a missing permission.
        const gated = directChangeRefusal(engine.state, importReach(request, {}, engine.state)[0], () => auth.caller(req));
        if (gated !== null) review.permissions.push({ message: gated, affectedItems: (request.data.features ?? []).map((f) => f.name) });
        return { status: 200, body: review };
      },
    },
    {
      method: 'POST', path: `${BASE}/import`, tag: TAG, permission: 'UPDATE_FEATURE',
      summary: 'Import flags into a project and environment atomically; their strategies there are replaced by the document\'s',
      body: featuresBatchSchemas.importTogglesSchema, bodyLimit: ctx.config.http.importBodyLimit, largeBody: true, scope: inBody, bodyScopes: importReach,
      responses: {
        200: 'Imported', 400: 'Invalid request or document (every error listed); nothing imported', 403: 'Would create context fields or tag types with a limited token',
        404: 'Unknown project or environment', 413: 'Larger than IMPORT_BODY_LIMIT_BYTES',
      },
      handler: async ({ req, body, actor }) => {
        await engine.runInSlices(actor, importFeatures(body as ImportRequest, mayCreateShared(req)));
        return { status: 200 };
      },
    },
  ];
}
