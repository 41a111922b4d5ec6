// State import (spec endpoint 4, deprecated but supported) and export.
import { invalid } from '../../core/errors.js';
import type { AppContext, Call, RouteDef } from '../../http/route.js';
import { exportState } from './export.js';
import { importState } from './import.js';
import { stateReplies, stateSchemas, type StateDocument } from './schema.js';

const TAG = 'State';

function flag(query: Call['query'], name: string, fallback: boolean): boolean {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const v = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (v === 'true' || v === '1' || v === '') return true;
  if (v === 'false' || v === '0') return false;
  throw invalid(name, `"${name}" must be true or false, got "${v}"`);
}

/** The state import (one atomic change) and export. */
export function stateRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(stateSchemas);
  ctx.schemas.describe(stateReplies);
  const { engine } = ctx;
  return [
    {
      method: 'POST', path: '/api/admin/state/import', tag: TAG,
      summary: 'Import a state document atomically (?drop=false&keep=true as in Unleash 5.12). Deprecated in the spec, fully supported.',
      body: stateSchemas.stateSchema, bodyLimit: ctx.config.http.importBodyLimit, largeBody: true, permission: 'ADMIN',
      responses: { 202: 'Imported', 400: 'Invalid document or dangling reference; nothing imported', 413: 'Larger than IMPORT_BODY_LIMIT_BYTES', 415: 'Not JSON' },
      handler: async ({ body, query, actor }) => {
        const opts = { drop: flag(query, 'drop', false), keep: flag(query, 'keep', true) };
        await engine.runInSlices(actor, importState(body as StateDocument, opts));
        return { status: 202 };
      },
    },
    {
      method: 'GET', path: '/api/admin/state/export', tag: TAG, permission: 'ADMIN',
      summary: 'Export every kind the import takes, in the same shape (?download=true to save it as a file)', reply: stateReplies.stateExportSchema,
      handler: ({ query }) => {
        const download = flag(query, 'download', false);
        const headers: Record<string, string> = download ? { 'Content-Disposition': 'attachment; filename="export.json"' } : {};
        return { status: 200, body: exportState(engine.state), headers };
      },
    },
  ];
}
