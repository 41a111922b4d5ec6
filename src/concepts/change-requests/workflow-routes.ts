// The change request workflow on Unleash Enterprise's routes: changes gathered in their author's
// draft, read, moved through review, commented, edited, applied. Who may approve or apply is
// asked of the caller's grant here; what each state allows is the workflow's (workflow.ts).
import type { IncomingMessage } from 'node:http';
import type { AdminScope, AdminCaller } from '../../core/access/access.js';
import { mayApply, mayApprove, type Grant } from '../../core/access/permissions.js';
import type { Config } from '../../core/config.js';
import type { State } from '../../core/state/state.js';
import type { Actor, ChangeRequest } from '../../core/state/types.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { personCaller } from '../people/people-authenticator.js';
import { isSegmentAction } from './actions.js';
import { changeRequestRule } from './config.js';
import { actionable, countView, pendingFor, requestView, visibleRequests } from './views.js';
import {
  addChanges, addComment, deleteDraft, discardChange, editChange, isAuthor, OPEN, requireRequest, setState, setTitle, type ChangeInput, type Rights, type Rule,
} from './workflow.js';
import { workflowReplies, workflowSchemas } from './workflow-schema.js';
import { scheduledTouching } from './schedule.js';

const PROJECT = '/api/admin/projects/:projectId/change-requests';
const REQUEST = `${PROJECT}/:id`;
const TAG = 'Change requests';

/** What the workflow needs to know from the change request configuration and the permissions. */
export interface WorkflowDeps {
  rule: (state: State, project: string, environment: string) => Rule;
  mayApprove: (grant: Grant, project: string, environment: string) => boolean;
  mayApply: (grant: Grant, project: string, environment: string) => boolean;
  /** Admins may approve their own requests (a setting; off: four eyes for everyone). */
  adminSelfApprove: boolean;
}

/** The rule from the project's configuration; approving and applying are the caller's environment permissions. */
export function workflowDeps(config: Config): WorkflowDeps {
  return { rule: changeRequestRule, mayApprove, mayApply, adminSelfApprove: config.changeRequests.adminSelfApprove ?? false };
}

/**
 * A request's own environment is its scope once it exists: a person limited to development may
 * not move a production request. An unknown id is left to the handler's 404.
 */
function requestScope(params: Record<string, string>, state: State): AdminScope {
  const cr = /^[1-9]\d{0,15}$/.test(params.id ?? '') ? state.changeRequests.get(Number(params.id)) : undefined;
  return cr && cr.project === params.projectId ? { project: params.projectId, environment: cr.environment } : { project: params.projectId };
}

export function changeRequestWorkflowRoutes(ctx: AppContext, deps: WorkflowDeps): RouteDef[] {
  ctx.schemas.addAll(workflowSchemas);
  ctx.schemas.describe(workflowReplies);
  const { engine } = ctx;
  const view = (cr: ChangeRequest) => requestView(engine.state, cr);
  const rightsOf = (req: IncomingMessage, cr: { project: string; environment: string }): Rights => {
    const caller: AdminCaller = ctx.auth.caller(req);
    return {
      token: caller.via === 'token',
      mayApprove: deps.mayApprove(caller.grant, cr.project, cr.environment),
      mayApply: deps.mayApply(caller.grant, cr.project, cr.environment),
      // With AUTH_TYPE=none every caller is the same nobody: four eyes cannot be told apart, so none are asked for.
      maySelfApprove: caller.grant.kind === 'everything' || (deps.adminSelfApprove && caller.grant.kind === 'person' && caller.grant.role === 'Admin'),
    };
  };
  const list = (state: State, project: string, actor: Actor) => visibleRequests(state, project, actor).map(view);
  const projectScope = (p: Record<string, string>): AdminScope => ({ project: p.projectId });
  const read = { permission: 'READ', scope: projectScope, tag: TAG } as const;
  const one = { 200: 'The change request', 400: 'Invalid, or not allowed in its state', 403: 'Not yours to do', 404: 'Unknown project or change request (a draft is its author\'s alone)', 409: 'In conflict' };
  return [
    {
      method: 'POST', path: '/api/admin/projects/:projectId/environments/:environment/change-requests', tag: TAG, directChange: false,
      summary: "Add one change or a list of them to your draft for the environment (made if you have none)",
      body: workflowSchemas.changeRequestCreateSchema, reply: workflowReplies.changeRequestSchema,
      permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: (p) => ({ project: p.projectId, environment: p.environment }),
      // A shared segment's change acts on every project: the caller needs the permission on the whole server.
      bodyScopes: (body, p, state) => (Array.isArray(body) ? body : [body]).flatMap((c: ChangeInput) => {
        if (!isSegmentAction(c?.action)) return [];
        const seg = state.segments.get((c.payload as { id?: number } | undefined)?.id ?? 0);
        return seg && seg.project === null ? [{}] : [{ project: p.projectId, environment: p.environment }];
      }),
      responses: { 200: 'Your draft, with the changes', 400: 'Invalid change, or change requests are off there', 404: 'Unknown project, environment, flag or segment' },
      handler: async ({ params, body, actor }) => {
        const inputs = Array.isArray(body)
          ? ctx.schemas.check<ChangeInput[]>(workflowSchemas.changeRequestChangesSchema, body)
          : [ctx.schemas.check<ChangeInput>(workflowSchemas.changeRequestChangeSchema, body)];
        const where = { project: params.projectId, environment: params.environment };
        const cr = await engine.run(actor, addChanges(where, deps.rule(engine.state, where.project, where.environment), inputs));
        return { status: 200, body: view(cr) };
      },
    },
    {
      ...read, method: 'GET', path: PROJECT, summary: "List a project's change requests (drafts: your own)", reply: workflowReplies.changeRequestsSchema,
      handler: ({ params, actor }) => ({ status: 200, body: list(engine.state, params.projectId, actor) }),
    },
    {
      ...read, method: 'GET', path: `${PROJECT}/open`, summary: 'Your open change requests in a project (draft, in review, approved)', reply: workflowReplies.changeRequestsSchema,
      handler: ({ params, actor }) => ({
        status: 200,
        body: visibleRequests(engine.state, params.projectId, actor).filter((cr) => OPEN.includes(cr.state) && isAuthor(cr, actor)).map(view),
      }),
    },
    {
      ...read, method: 'GET', path: `${PROJECT}/pending`, summary: "A project's open change requests (in review or approved, and your drafts)", reply: workflowReplies.changeRequestsSchema,
      handler: ({ params, actor }) => ({ status: 200, body: visibleRequests(engine.state, params.projectId, actor).filter((cr) => OPEN.includes(cr.state)).map(view) }),
    },
    {
      ...read, method: 'GET', path: `${PROJECT}/pending/:featureName`, summary: 'Open change requests that change a flag', reply: workflowReplies.changeRequestsSchema,
      handler: ({ params, actor }) => ({ status: 200, body: pendingFor(engine.state, params.projectId, params.featureName, actor).map(view) }),
    },
    {
      ...read, method: 'GET', path: `${PROJECT}/count`, summary: "Counts of a project's change requests by state", reply: workflowReplies.changeRequestsCountSchema,
      handler: ({ params, actor }) => ({ status: 200, body: countView(engine.state, params.projectId, actor) }),
    },
    {
      ...read, method: 'GET', path: `${PROJECT}/scheduled`, summary: 'Scheduled change requests that change the flags named by `feature` (repeatable) or the strategy `strategyId`',
      reply: workflowReplies.changeRequestsScheduledSchema,
      handler: ({ params, query }) => {
        const features = [query.feature ?? []].flat();
        const strategyId = [query.strategyId ?? []].flat()[0];
        const found = scheduledTouching(engine.state, params.projectId, features, strategyId);
        return { status: 200, body: found.map((cr) => ({ id: cr.id, environment: cr.environment, ...(cr.title !== null ? { title: cr.title } : {}) })) };
      },
    },
    {
      ...read, method: 'GET', path: `${PROJECT}/actionable`, summary: 'How many change requests wait for you: to approve, or to apply', reply: workflowReplies.actionableChangeRequestsSchema,
      handler: ({ req, params, actor }) => {
        const caller = ctx.auth.caller(req);
        const may = (cr: ChangeRequest) => ({
          approve: caller.via !== 'token' && deps.mayApprove(caller.grant, cr.project, cr.environment),
          apply: deps.mayApply(caller.grant, cr.project, cr.environment),
        });
        return { status: 200, body: { total: actionable(engine.state, params.projectId, actor, may).length } };
      },
    },
    {
      ...read, method: 'GET', path: `${PROJECT}/available-reviewers/:environment`, summary: 'The people who may approve change requests in an environment',
      reply: workflowReplies.availableChangeRequestReviewersSchema,
      handler: ({ params, actor }) => {
        const reviewers = [...engine.state.users.values()]
          .filter((u) => u.active && u.id !== actor.userId && deps.mayApprove(personCaller(u, 'session').grant, params.projectId, params.environment))
          .map((u) => ({ id: u.id, name: u.name, email: u.email, username: u.username, imageUrl: null }));
        return { status: 200, body: { reviewers } };
      },
    },
    {
      ...read, method: 'GET', path: REQUEST, summary: 'One change request, with its conflicts', reply: workflowReplies.changeRequestSchema, responses: { 200: 'The change request', 404: one[404] },
      handler: ({ params, actor }) => ({ status: 200, body: view(requireRequest(engine.state, params.projectId, params.id, actor)) }),
    },
    {
      method: 'PUT', path: `${REQUEST}/state`, tag: TAG, directChange: false, summary: 'Move a change request on: send to review, approve, schedule, apply, reject or cancel',
      body: workflowSchemas.changeRequestStateSchema, reply: workflowReplies.changeRequestSchema, permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: requestScope, responses: one,
      handler: async ({ req, params, body, actor }) => {
        const { state, comment, scheduledAt } = body as { state: string; comment?: string; scheduledAt?: string };
        const cr = requireRequest(engine.state, params.projectId, params.id, actor);
        const done = await engine.run(actor, setState(params.projectId, params.id, state, comment, rightsOf(req, cr), scheduledAt));
        return { status: 200, body: view(done) };
      },
    },
    {
      method: 'PUT', path: `${REQUEST}/title`, tag: TAG, directChange: false, summary: 'Set the title of your change request',
      body: workflowSchemas.changeRequestTitleSchema, reply: workflowReplies.changeRequestSchema, permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: requestScope, responses: one,
      handler: async ({ params, body, actor }) => ({ status: 200, body: view(await engine.run(actor, setTitle(params.projectId, params.id, (body as { title: string }).title))) }),
    },
    {
      method: 'POST', path: `${REQUEST}/comments`, tag: TAG, directChange: false, summary: 'Comment on a change request',
      body: workflowSchemas.changeRequestAddCommentSchema, reply: workflowReplies.changeRequestSchema, permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: requestScope, responses: one,
      handler: async ({ params, body, actor }) => ({ status: 200, body: view(await engine.run(actor, addComment(params.projectId, params.id, (body as { text: string }).text))) }),
    },
    {
      method: 'PUT', path: `${REQUEST}/changes/:changeId`, tag: TAG, directChange: false, summary: 'Edit a change of your change request (its approvals are revoked)',
      body: workflowSchemas.changeRequestChangeSchema, reply: workflowReplies.changeRequestSchema, permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: requestScope, responses: one,
      handler: async ({ params, body, actor }) => ({
        status: 200, body: view(await engine.run(actor, editChange(params.projectId, params.id, params.changeId, body as ChangeInput))),
      }),
    },
    {
      method: 'DELETE', path: `${REQUEST}/changes/:changeId`, tag: TAG, directChange: false, summary: 'Discard a change of your change request (its approvals are revoked)',
      reply: workflowReplies.changeRequestSchema, permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: requestScope, responses: one,
      handler: async ({ params, actor }) => ({ status: 200, body: view(await engine.run(actor, discardChange(params.projectId, params.id, params.changeId))) }),
    },
    {
      method: 'DELETE', path: REQUEST, tag: TAG, directChange: false, summary: 'Delete your draft', permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: requestScope,
      responses: { 204: 'Deleted', 400: 'Not a draft (cancel it instead)', 404: one[404] },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteDraft(params.projectId, params.id));
        return { status: 204 };
      },
    },
  ];
}
