// Routes of change requests' configuration, on Unleash Enterprise's paths and shapes (its
// Terraform provider's `unleash_project_environment.change_requests_enabled` and
// `required_approvals` use them): read every environment's rule of a project, set one.
import type { AppContext, RouteDef } from '../../http/route.js';
import { changeRequestConfig, setChangeRequestRule, type ChangeRequestConfigInput } from './config.js';
import { changeRequestConfigReplies, changeRequestConfigSchemas } from './schema.js';

const TAG = 'Change requests';
const PROJECT = '/api/admin/projects/:projectId';

/** Routes of `/api/admin/projects/:p/…/change-requests/config`. */
export function changeRequestConfigRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(changeRequestConfigSchemas);
  ctx.schemas.describe(changeRequestConfigReplies);
  const { engine } = ctx;
  return [
    {
      method: 'GET', path: `${PROJECT}/change-requests/config`, tag: TAG, permission: 'READ', scope: (p) => ({ project: p.projectId }),
      summary: 'Whether each environment of a project needs change requests, and how many approvals', reply: changeRequestConfigReplies.changeRequestConfigSchema,
      responses: { 200: 'Every environment, in sort order', 404: 'Unknown project' },
      handler: ({ params }) => ({ status: 200, body: changeRequestConfig(engine.state, params.projectId) }),
    },
    {
      // A project setting: whoever may change the project (an Admin, its Owners, Editors) may
      // turn four eyes on or off, within an environment limit; the change is an event like any.
      method: 'PUT', path: `${PROJECT}/environments/:environment/change-requests/config`, tag: TAG, permission: 'UPDATE_PROJECT',
      scope: (p) => ({ project: p.projectId, environment: p.environment }),
      summary: 'Turn change requests on or off in an environment of a project, and set the approvals they need',
      body: changeRequestConfigSchemas.updateChangeRequestEnvironmentConfigSchema,
      responses: { 204: 'Set', 400: 'requiredApprovals outside 1 to 10', 404: 'Unknown project or environment' },
      handler: async ({ params, body, actor }) => {
        await engine.run(actor, setChangeRequestRule(params.projectId, params.environment, body as ChangeRequestConfigInput));
        return { status: 204 };
      },
    },
  ];
}
