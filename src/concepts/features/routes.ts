import type jsonPatch from 'fast-json-patch';
import { NameExistsError, NoAccessError } from '../../core/errors.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { checkFlagName } from '../../core/state/names.js';
import type { State } from '../../core/state/state.js';
import { applyPatch } from '../../http/patch.js';
import {
  addDependency, archiveFeature, createFeature, deleteArchivedFeature, patchFeature, removeDependency, reviveFeature,
  setEnvironmentEnabled, type CreateFeatureInput, type DependencyInput,
} from './logic.js';
import { requireFeature, requireProject } from '../../core/state/lookup.js';
import { featureReplies, featureSchemas } from './schema.js';
import { featureSummary, featureView } from './view.js';
import { jsonPatchSchema } from '../../http/patch.js';
import { searchFeatures, type FeatureSearch } from './search.js';
import { FLAG_TYPES } from './flag-types.js';
import { archiveReach, flagOnIn } from '../../core/access/reach.js';
import { favoritesOf } from './bulk.js';
import { bulkFeatureRoutes } from './bulk-routes.js';

const P = '/api/admin/projects/:projectId/features';
const TAG = 'Features';
const inProject = (p: Record<string, string>) => ({ project: p.projectId });
const inEnv = (p: Record<string, string>) => ({ project: p.projectId, environment: p.environment });
// Doors that name no environment but change how a flag evaluates in some (auth/reach.ts): a
// caller limited to some environments must have every one of them.
/** A flag's dependencies count where the flag is on. */
const dependencyScope = (p: Record<string, string>, s: State) => ({ project: p.projectId, reaches: flagOnIn(s, p.featureName, p.projectId) });
/** Archiving takes a flag out of every environment where it is on. */
const archiveScope = (p: Record<string, string>, s: State) => ({ project: p.projectId, reaches: archiveReach(s, p.featureName, p.projectId) });
/** Deleting an archived flag drops it from the dependencies of live flags, where those are on. */
const deleteArchivedScope = (p: Record<string, string>, s: State) => ({ project: s.features.get(p.featureName)?.project, reaches: archiveReach(s, p.featureName) });
/** Reviving turns a flag off everywhere: it reaches no environment. */
const reviveScope = (p: Record<string, string>, s: State) => ({ project: s.features.get(p.featureName)?.project });

/** Routes of flags in a project: create, read, patch, archive, revive, delete, on/off, dependencies. */
export function featureRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(featureSchemas);
  ctx.schemas.describe(featureReplies);
  ctx.schemas.add('patchesSchema', jsonPatchSchema);
  const { engine } = ctx;
  const onOff = (enabled: boolean): RouteDef => ({
    method: 'POST', path: `${P}/:featureName/environments/:environment/${enabled ? 'on' : 'off'}`, tag: TAG,
    summary: `Switch a flag ${enabled ? 'on' : 'off'} in an environment`, anyContentType: true,
    permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: inEnv,
    handler: async ({ params, actor }) => {
      await engine.run(actor, setEnvironmentEnabled(params.projectId, params.featureName, params.environment, enabled));
      return { status: 200 };
    },
  });
  return [
    {
      method: 'POST', path: P, tag: TAG, summary: 'Create a flag', reply: featureReplies.featureSchema, body: featureSchemas.createFeatureSchema, permission: 'CREATE_FEATURE', scope: inProject,
      responses: { 201: 'Created', 400: 'Invalid', 404: 'Unknown project', 409: 'Name taken' },
      handler: async ({ params, body, actor }) => {
        await engine.run(actor, createFeature(params.projectId, body as CreateFeatureInput));
        const f = engine.state.features.get((body as CreateFeatureInput).name)!;
        return { status: 201, body: featureView(engine.state, f) };
      },
    },
    {
      method: 'GET', path: P, tag: TAG, summary: "List a project's flags", reply: featureReplies.featuresSchema, permission: 'READ', scope: inProject,
      handler: ({ params, actor }) => {
        requireProject(engine.state, params.projectId);
        const features = [];
        const favorites = favoritesOf(engine.state, actor.userId);
        for (const f of engine.state.features.values()) {
          if (f.project === params.projectId && !f.archived) features.push(featureSummary(engine.state, f, favorites));
        }
        return { status: 200, body: { version: 2, features } };
      },
    },
    {
      method: 'GET', path: `${P}/:featureName`, tag: TAG, summary: 'Get a flag with its environments and strategies', reply: featureReplies.featureSchema, permission: 'READ', scope: inProject,
      handler: ({ params, actor }) => ({
        status: 200, body: featureView(engine.state, requireFeature(engine.state, params.projectId, params.featureName), favoritesOf(engine.state, actor.userId)),
      }),
    },
    {
      method: 'PATCH', path: `${P}/:featureName`, tag: TAG, summary: "Change a flag's metadata with JSON Patch", reply: featureReplies.featureSchema,
      body: jsonPatchSchema, permission: 'UPDATE_FEATURE', scope: inProject,
      handler: async ({ params, body, actor }) => {
        const ops = body as jsonPatch.Operation[];
        if (ops.some((op) => op.path.includes('/variants'))) {
          throw new NoAccessError('Changing variants through this endpoint is not allowed; use the environment variants endpoint (permission=UPDATE_FEATURE_ENVIRONMENT_VARIANTS).');
        }
        const f = requireFeature(engine.state, params.projectId, params.featureName);
        const doc = { name: f.name, project: f.project, type: f.type, description: f.description, stale: f.stale, impressionData: f.impressionData, archived: f.archived };
        const patched = ctx.schemas.check<Record<string, unknown>>(featureSchemas.featureMetadataSchema, applyPatch(doc, ops));
        await engine.run(actor, patchFeature(params.projectId, params.featureName, patched));
        return { status: 200, body: featureView(engine.state, engine.state.features.get(params.featureName)!, favoritesOf(engine.state, actor.userId)) };
      },
    },
    {
      method: 'DELETE', path: `${P}/:featureName`, tag: TAG, summary: 'Archive a flag', permission: 'DELETE_FEATURE', scope: archiveScope,
      responses: { 202: 'Archived', 403: 'Other flags depend on it', 404: 'Unknown flag' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, archiveFeature(params.projectId, params.featureName));
        return { status: 202 };
      },
    },
    onOff(true),
    onOff(false),
    {
      method: 'POST', path: `${P}/:featureName/dependencies`, tag: TAG, summary: 'Make a flag depend on a parent flag',
      body: featureSchemas.createDependentFeatureSchema, permission: 'UPDATE_FEATURE_DEPENDENCY', scope: dependencyScope,
      handler: async ({ params, body, actor }) => {
        await engine.run(actor, addDependency(params.projectId, params.featureName, body as DependencyInput));
        return { status: 200 };
      },
    },
    {
      method: 'DELETE', path: `${P}/:featureName/dependencies/:parent`, tag: TAG, summary: 'Remove one dependency',
      permission: 'UPDATE_FEATURE_DEPENDENCY', scope: dependencyScope,
      handler: async ({ params, actor }) => {
        await engine.run(actor, removeDependency(params.projectId, params.featureName, params.parent));
        return { status: 200 };
      },
    },
    {
      method: 'DELETE', path: `${P}/:featureName/dependencies`, tag: TAG, summary: 'Remove every dependency of a flag',
      permission: 'UPDATE_FEATURE_DEPENDENCY', scope: dependencyScope,
      handler: async ({ params, actor }) => {
        await engine.run(actor, removeDependency(params.projectId, params.featureName, null));
        return { status: 200 };
      },
    },
    {
      method: 'POST', path: '/api/admin/features/validate', tag: TAG, summary: 'Check that a flag name is valid and free',
      body: featureSchemas.validateFeatureSchema, permission: 'READ',
      handler: ({ body }) => {
        const name = checkFlagName('name', (body as { name: string }).name);
        if (engine.state.features.has(name)) throw new NameExistsError(`A flag named "${name}" already exists.`);
        return { status: 200 };
      },
    },
    {
      method: 'GET', path: '/api/admin/search/features', tag: TAG, permission: 'READ', scope: () => ({ visibleOnly: true }),
      summary: 'Search live or archived flags (query, project, tag, type, state, archived, enabledIn, disabledIn, favoritesFirst, sortBy, sortOrder, offset, limit), with the total before paging', reply: featureReplies.searchFeaturesSchema,
      responses: { 200: '{features, total}', 400: 'A filter that is not understood' },
      handler: ({ req, query, actor }) => {
        // A token limited to some projects finds only their flags.
        const view = ctx.auth.adminView(req);
        const one = (k: string) => (typeof query[k] === 'string' ? (query[k] as string) : undefined);
        const q: FeatureSearch = {
          query: one('query'), project: one('project'), tag: one('tag'), type: one('type'), state: one('state'),
          // Given twice it is a list, which Unleash refuses too: the filter sees it as one text and says 400.
          archived: query.archived === undefined ? undefined : String(query.archived),
          sortBy: one('sortBy'), sortOrder: one('sortOrder'), offset: one('offset'), limit: one('limit'), favoritesFirst: one('favoritesFirst'),
          enabledIn: one('enabledIn'), disabledIn: one('disabledIn'),
        };
        const visible = view.projects.includes('*') ? null : new Set(view.projects);
        return { status: 200, body: searchFeatures(engine.state, q, visible, engine.now().getTime(), favoritesOf(engine.state, actor.userId)) };
      },
    },
    {
      // Every admin token may read them, whatever its limits: they are the same for every project.
      method: 'GET', path: '/api/admin/feature-types', tag: TAG, summary: 'The flag types, each with its expected lifetime in days (null: permanent)',
      reply: featureReplies.featureTypesSchema, permission: 'READ', scope: () => ({ visibleOnly: true }),
      handler: () => ({ status: 200, body: { version: 1, types: FLAG_TYPES } }),
    },
    {
      method: 'GET', path: '/api/admin/archive/features', tag: TAG, summary: 'List archived flags', reply: featureReplies.featuresSchema, permission: 'READ',
      handler: () => ({
        status: 200,
        body: { version: 2, features: [...engine.state.features.values()].filter((f) => f.archived).map((f) => featureSummary(engine.state, f)) },
      }),
    },
    {
      method: 'POST', path: '/api/admin/archive/revive/:featureName', tag: TAG, summary: 'Revive an archived flag', anyContentType: true,
      permission: 'UPDATE_FEATURE', scope: reviveScope,
      handler: async ({ params, actor }) => {
        await engine.run(actor, reviveFeature(params.featureName));
        return { status: 200 };
      },
    },
    {
      method: 'DELETE', path: '/api/admin/archive/:featureName', tag: TAG, summary: 'Delete an archived flag for good', permission: 'DELETE_FEATURE', scope: deleteArchivedScope,
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteArchivedFeature(params.featureName));
        return { status: 200 };
      },
    },
    ...bulkFeatureRoutes(ctx),
  ];
}
