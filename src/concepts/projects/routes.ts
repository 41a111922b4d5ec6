import { inProject as inProjectEnvs, requireProject } from '../../core/state/lookup.js';
import { favoritesOf } from '../features/bulk.js';
import { featureSummary } from '../features/view.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import type { Project } from '../../core/state/types.js';
import type { State } from '../../core/state/state.js';
import { everyEnvironment } from '../../core/access/reach.js';
import { projectOverview } from './overview.js';
import { countFlags, createProject, deleteProject, projectView, updateProject, type ProjectInput } from './logic.js';
import { projectReplies, projectSchemas } from './schema.js';
import { projectEnvironmentRoutes } from './environment-routes.js';

const BASE = '/api/admin/projects';
const TAG = 'Projects';
const inProject = (p: Record<string, string>) => ({ project: p.projectId });
/**
 * A project's own settings are shared by all its environments, and deleting it takes its SDK
 * tokens along: a caller limited to some environments may do neither (auth/reach.ts).
 */
const projectWide = (p: Record<string, string>, s: State) => ({ project: p.projectId, reaches: everyEnvironment(s) });

/** Routes of `/api/admin/projects`. */
export function projectRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(projectSchemas);
  ctx.schemas.describe(projectReplies);
  const { engine } = ctx;
  const view = (p: Project) => projectView(p, countFlags(engine.state));
  return [
    {
      method: 'GET', path: BASE, tag: TAG, summary: 'List projects with their flag counts', reply: projectReplies.projectsSchema, permission: 'READ',
      handler: () => {
        const counts = countFlags(engine.state);
        const projects = [...engine.state.projects.values()]
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .map((p) => projectView(p, counts));
        return { status: 200, body: { version: 1, projects } };
      },
    },
    {
      method: 'GET', path: `${BASE}/:projectId`, tag: TAG, summary: 'Get a project with its environments and flags', reply: projectReplies.projectOverviewSchema, permission: 'READ', scope: inProject,
      responses: { 200: 'The project', 404: 'Unknown project' },
      handler: ({ params, actor }) => {
        const state = engine.state;
        const p = requireProject(state, params.projectId);
        const favorites = favoritesOf(state, actor.userId);
        const environments = [...state.environments.values()].filter((e) => inProjectEnvs(state, p.id, e.name))
          .sort((a, b) => a.sortOrder - b.sortOrder || (a.name < b.name ? -1 : 1))
          .map((e) => ({ environment: e.name, type: e.type, sortOrder: e.sortOrder }));
        const features = [...state.features.values()].filter((f) => f.project === p.id && !f.archived).map((f) => featureSummary(state, f, favorites));
        return { status: 200, body: { version: 1, ...projectView(p, countFlags(state)), environments, features } };
      },
    },
    {
      method: 'GET', path: `${BASE}/:projectId/overview`, tag: TAG, permission: 'READ', scope: inProject,
      summary: 'A project at a glance: its live flags by type, state and environment, with the stale, potentially stale and never evaluated ones (at most 50 of each)',
      reply: projectReplies.projectCountsSchema, responses: { 200: 'The overview', 404: 'Unknown project' },
      handler: ({ params }) => ({ status: 200, body: projectOverview(engine.state, requireProject(engine.state, params.projectId), engine.now().getTime()) }),
    },
    {
      method: 'POST', path: BASE, tag: TAG, summary: 'Create a project', reply: projectReplies.projectSchema, body: projectSchemas.createProjectSchema, permission: 'CREATE_PROJECT',
      responses: { 201: 'Created', 400: 'Invalid or over the limit of 500', 409: 'Id taken' },
      handler: async ({ body, actor }) => {
        const p = await engine.run(actor, createProject(body as ProjectInput, ctx.config.changeRequests));
        return { status: 201, body: view(p) };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:projectId`, tag: TAG, summary: 'Update a project', reply: projectReplies.projectSchema, body: projectSchemas.updateProjectSchema,
      permission: 'UPDATE_PROJECT', scope: projectWide, responses: { 200: 'Updated', 400: 'Invalid', 404: 'Unknown project' },
      handler: async ({ params, body, actor }) => {
        const p = await engine.run(actor, updateProject(params.projectId, body as ProjectInput));
        return { status: 200, body: view(p) };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:projectId`, tag: TAG, summary: 'Delete a project that holds no flags',
      permission: 'DELETE_PROJECT', scope: projectWide,
      responses: { 200: 'Deleted', 403: 'The default project, or a project that still holds flags (archived included)', 404: 'Unknown project' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteProject(params.projectId));
        return { status: 200 };
      },
    },
    ...projectEnvironmentRoutes(ctx),
  ];
}
