// Routes of a project's environments, on Unleash's paths and shapes: add one to the project, take
// one out, and list every environment with whether it is the project's. Adding and removing are
// settings of the project for that environment (UPDATE_PROJECT, within an environment limit), as
// turning change requests on there is.
import type { AppContext, RouteDef } from '../../http/route.js';
import { nameSchema } from '../../core/state/names.js';
import { addProjectEnvironment, projectEnvironmentsView, removeProjectEnvironment } from './environments.js';
import { environment } from '../environments/schema.js';

const TAG = 'Projects';

const projectEnvironmentSchemas = {
  projectEnvironmentSchema: {
    type: 'object',
    required: ['environment'],
    properties: { environment: nameSchema, changeRequestsEnabled: { type: 'boolean' } },
  },
};

const nullableInt = { type: ['integer', 'null'] };
const count = { type: 'integer', minimum: 0 };
const projectEnvironmentReplies = {
  environmentsProjectSchema: {
    type: 'object',
    required: ['version', 'environments'],
    properties: {
      version: { type: 'integer' },
      environments: {
        type: 'array',
        // An environment as everywhere, with what it is in this project.
        items: {
          ...environment,
          required: [...environment.required, 'requiredApprovals', 'projectApiTokenCount', 'projectEnabledToggleCount', 'visible'],
          properties: { ...environment.properties, requiredApprovals: nullableInt, projectApiTokenCount: count, projectEnabledToggleCount: count, visible: { type: 'boolean' } },
        },
      },
    },
  },
};

export function projectEnvironmentRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(projectEnvironmentSchemas);
  ctx.schemas.describe(projectEnvironmentReplies);
  const { engine } = ctx;
  return [
    {
      method: 'GET', path: '/api/admin/environments/project/:projectId', tag: TAG, permission: 'READ', scope: (p) => ({ project: p.projectId }),
      summary: "Every environment, with whether it is the project's (`visible`) and the project's counts there", reply: projectEnvironmentReplies.environmentsProjectSchema,
      responses: { 200: 'Every environment, in sort order', 404: 'Unknown project' },
      handler: ({ params }) => ({ status: 200, body: projectEnvironmentsView(engine.state, params.projectId) }),
    },
    {
      method: 'POST', path: '/api/admin/projects/:projectId/environments', tag: TAG, permission: 'UPDATE_PROJECT', scope: (p) => ({ project: p.projectId }),
      // The environment is named in the body: the caller needs the permission there too.
      bodyScopes: (body: { environment: string }, p) => [{ project: p.projectId, environment: body.environment }],
      summary: 'Add an environment to a project (its flags there come back switched off, with their strategies)',
      body: projectEnvironmentSchemas.projectEnvironmentSchema,
      responses: { 200: 'Added', 400: 'Unknown environment', 404: 'Unknown project', 409: 'Already an environment of the project' },
      handler: async ({ params, body, actor }) => {
        const { environment, changeRequestsEnabled } = body as { environment: string; changeRequestsEnabled?: boolean };
        await engine.run(actor, addProjectEnvironment(params.projectId, environment, changeRequestsEnabled));
        return { status: 200 };
      },
    },
    {
      method: 'DELETE', path: '/api/admin/projects/:projectId/environments/:environment', tag: TAG, permission: 'UPDATE_PROJECT',
      scope: (p) => ({ project: p.projectId, environment: p.environment }),
      summary: "Take an environment out of a project (its flags are switched off there first)",
      responses: { 200: 'Removed', 400: 'Change requests are on there', 404: 'Unknown project or environment, or not an environment of the project' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, removeProjectEnvironment(params.projectId, params.environment));
        return { status: 200 };
      },
    },
  ];
}
