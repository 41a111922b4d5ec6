// Unleash's routes over several flags of a project (switch in an environment, archive, tag) and
// a person's favourite flags. What they do is in bulk.ts.
import { NoAccessError } from '../../core/errors.js';
import { archiveReach } from '../../core/access/reach.js';
import type { State } from '../../core/state/state.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { tagSchemas } from '../tags/schema.js';
import type { TagInput } from '../tags/logic.js';
import { archiveMany, setEnvironmentEnabledMany, setFavorite, updateTagsMany } from './bulk.js';
import { MAX_SEARCH_LIMIT } from './search.js';

const PROJECT = '/api/admin/projects/:projectId';
const TAG = 'Features';
// As many flags as a search answers in one page: what a person can select at once.
const names = { type: 'array', maxItems: MAX_SEARCH_LIMIT, items: { type: 'string', minLength: 1, maxLength: 255 } };

const bulkSchemas = {
  bulkToggleFeaturesSchema: {
    type: 'object', required: ['features'],
    // Unleash 8.2 takes shouldActivateDisabledStrategies and, true, still leaves disabled strategies
    // disabled and adds the default one: so does this.
    properties: { features: names, shouldActivateDisabledStrategies: { type: 'boolean' } },
  },
  batchFeaturesSchema: { type: 'object', required: ['features'], properties: { features: names } },
  tagsBulkAddSchema: {
    type: 'object', required: ['features', 'tags'],
    properties: { features: names, tags: tagSchemas.updateTagsSchema },
  },
};

const inProject = (p: Record<string, string>) => ({ project: p.projectId });
const inEnv = (p: Record<string, string>) => ({ project: p.projectId, environment: p.environment });
/** Archiving takes each flag out of every environment where it is on. */
const archiveScopes = (body: { features: string[] }, p: Record<string, string>, s: State) => {
  const reaches = new Set<string>();
  for (const name of body.features) for (const e of archiveReach(s, name, p.projectId)) reaches.add(e);
  return [{ project: p.projectId, reaches: [...reaches].sort() }];
};

export function bulkFeatureRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(bulkSchemas);
  const { engine } = ctx;
  const onOff = (enabled: boolean): RouteDef => ({
    method: 'POST', path: `${PROJECT}/bulk_features/environments/:environment/${enabled ? 'on' : 'off'}`, tag: TAG,
    summary: `Switch several flags ${enabled ? 'on' : 'off'} in an environment, all or none`, body: bulkSchemas.bulkToggleFeaturesSchema,
    permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: inEnv,
    responses: { 200: `Switched ${enabled ? 'on' : 'off'}`, 400: 'Invalid body', 404: 'Unknown project, environment, or a flag not in the project' },
    handler: async ({ params, body, actor }) => {
      await engine.run(actor, setEnvironmentEnabledMany(params.projectId, (body as { features: string[] }).features, params.environment, enabled));
      return { status: 200 };
    },
  });
  const favorite = (on: boolean): RouteDef => ({
    method: on ? 'POST' : 'DELETE', path: `${PROJECT}/features/:featureName/favorites`, tag: TAG, anyContentType: true,
    summary: on ? 'Star a flag: one of your favourites (a person only)' : 'Unstar a flag (a person only)',
    // Starring changes nothing anyone else sees: whoever may read the project may star its flags.
    permission: 'READ', scope: inProject,
    responses: { 200: on ? 'Starred' : 'Unstarred', 403: 'An API token: favourites belong to a person', 404: 'Unknown flag' },
    handler: async ({ params, actor }) => {
      if (actor.userId === null) throw new NoAccessError('Starring a flag is for a signed-in person; an API token is not one.');
      await engine.run(actor, setFavorite(actor.userId, params.projectId, params.featureName, on));
      return { status: 200 };
    },
  });
  return [
    onOff(true),
    onOff(false),
    {
      method: 'POST', path: `${PROJECT}/archive`, tag: TAG, summary: 'Archive several flags, all or none', body: bulkSchemas.batchFeaturesSchema,
      permission: 'DELETE_FEATURE', scope: inProject, bodyScopes: archiveScopes,
      responses: { 202: 'Archived', 400: 'Invalid body', 403: 'A flag others depend on, without them', 404: 'Unknown project, or a flag not in the project' },
      handler: async ({ params, body, actor }) => {
        await engine.run(actor, archiveMany(params.projectId, (body as { features: string[] }).features));
        return { status: 202 };
      },
    },
    {
      method: 'PUT', path: `${PROJECT}/tags`, tag: TAG, summary: 'Add and remove the same tags on several flags, all or none', body: bulkSchemas.tagsBulkAddSchema,
      permission: 'UPDATE_FEATURE', scope: inProject,
      responses: { 200: 'Tagged', 400: 'Invalid tag, unknown tag type, or a tag both added and removed', 404: 'Unknown project, or a flag not in the project' },
      handler: async ({ params, body, actor }) => {
        const { features, tags } = body as { features: string[]; tags: { addedTags: TagInput[]; removedTags: TagInput[] } };
        await engine.run(actor, updateTagsMany(params.projectId, features, tags.addedTags, tags.removedTags));
        return { status: 200 };
      },
    },
    favorite(true),
    favorite(false),
  ];
}
