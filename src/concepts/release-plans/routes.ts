import type { AppContext, RouteDef } from '../../http/route.js';
import { requireFeature, requireFeatureEnv } from '../../core/state/lookup.js';
import {
  addPlan, archiveTemplate, createMilestoneStrategy, createTemplate, createTemplateMilestone, deleteMilestoneStrategy, deletePlan, deleteTemplate,
  deleteTemplateMilestone, planAt, planView, requirePlan, requireTemplate, requireTemplateMilestone, startMilestone, templateMilestoneView, templateView,
  updateMilestoneStrategy, updateTemplate, updateTemplateMilestone, type MilestoneInput, type MilestoneStrategyInput, type PlanWhere, type TemplateInput,
} from './logic.js';
import { deleteProgression, resumeProgressions, setProgression } from './progressions.js';
import { releasePlanReplies, releasePlanSchemas } from './schema.js';
import type { ReleasePlan, TransitionCondition } from '../../core/state/types.js';
import { planSafeguards } from '../safeguards/logic.js';

const TEMPLATES = '/api/admin/release-plan-templates';
export const FLAG_ENV = '/api/admin/projects/:projectId/features/:featureName/environments/:environment';
const PLANS = `${FLAG_ENV}/release-plans`;
const PROGRESSIONS = `${FLAG_ENV}/progressions`;
const MILESTONES = `${TEMPLATES}/:templateId/milestones`;
const STRATEGIES = `${MILESTONES}/:milestoneId/strategies`;
const TAG = 'Release plans';

export const where = (p: Record<string, string>): PlanWhere => ({ project: p.projectId, feature: p.featureName, environment: p.environment });
/** A plan acts on its flag's environment: whoever may switch it may manage its plan. */
export const planScope = (p: Record<string, string>) => ({ project: p.projectId, environment: p.environment });

/**
 * Routes of release templates (`/api/admin/release-plan-templates`, for Admins and Editors) and of
 * the plans applied to a flag's environment (for whoever may change that environment).
 */
export function releasePlanRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(releasePlanSchemas);
  ctx.schemas.describe(releasePlanReplies);
  const { engine } = ctx;
  const templateOf = (id: string) => requireTemplate(engine.state, id);
  const viewOf = (plan: ReleasePlan) => planView(plan, planSafeguards(engine.state, plan));
  return [
    {
      method: 'GET', path: TEMPLATES, tag: TAG, summary: 'List release plan templates (archived ones included)', reply: releasePlanReplies.releasePlanTemplatesReply, permission: 'READ',
      handler: () => ({ status: 200, body: [...engine.state.releaseTemplates.values()].map(templateView) }),
    },
    {
      method: 'POST', path: TEMPLATES, tag: TAG, summary: 'Create a release plan template', reply: releasePlanReplies.releasePlanTemplateReply,
      body: releasePlanSchemas.releasePlanTemplateSchema, permission: 'CREATE_RELEASE_TEMPLATE',
      responses: { 201: 'Created', 400: 'Invalid, or over a limit' },
      handler: async ({ body, actor }) => ({ status: 201, body: await engine.run(actor, createTemplate(body as TemplateInput)) }),
    },
    {
      method: 'GET', path: `${TEMPLATES}/:templateId`, tag: TAG, summary: 'Get a release plan template', reply: releasePlanReplies.releasePlanTemplateReply, permission: 'READ',
      handler: ({ params }) => ({ status: 200, body: templateView(templateOf(params.templateId)) }),
    },
    {
      method: 'PUT', path: `${TEMPLATES}/:templateId`, tag: TAG, summary: 'Replace a release plan template', reply: releasePlanReplies.releasePlanTemplateReply,
      body: releasePlanSchemas.releasePlanTemplateSchema, permission: 'UPDATE_RELEASE_TEMPLATE',
      responses: { 200: 'Updated', 400: 'Invalid, archived, or over a limit', 404: 'Unknown template' },
      handler: async ({ params, body, actor }) => ({ status: 200, body: await engine.run(actor, updateTemplate(params.templateId, body as TemplateInput)) }),
    },
    {
      method: 'DELETE', path: `${TEMPLATES}/:templateId`, tag: TAG, summary: 'Delete a release plan template (plans made from it stay)', permission: 'DELETE_RELEASE_TEMPLATE',
      responses: { 204: 'Deleted', 404: 'Unknown template' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteTemplate(params.templateId));
        return { status: 204 };
      },
    },
    {
      method: 'POST', path: `${TEMPLATES}/archive/:templateId`, tag: TAG, summary: 'Archive a release plan template: it can no longer be applied', permission: 'DELETE_RELEASE_TEMPLATE', anyContentType: true,
      responses: { 200: 'Archived', 404: 'Unknown template' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, archiveTemplate(params.templateId));
        return { status: 200 };
      },
    },
    {
      method: 'GET', path: MILESTONES, tag: TAG, summary: "List a template's milestones", reply: releasePlanReplies.releasePlanMilestonesReply, permission: 'READ',
      handler: ({ params }) => {
        const t = templateOf(params.templateId);
        return { status: 200, body: t.milestones.map((m) => templateMilestoneView(t, m)) };
      },
    },
    {
      method: 'GET', path: `${TEMPLATES}/:templateId/milestones/:milestoneId`, tag: TAG, summary: 'Get a milestone of a template', reply: releasePlanReplies.releasePlanMilestoneReply, permission: 'READ',
      handler: ({ params }) => {
        const t = templateOf(params.templateId);
        return { status: 200, body: templateMilestoneView(t, requireTemplateMilestone(t, params.milestoneId)) };
      },
    },
    // One milestone or one strategy at a time: changes of the template, for whoever may change it.
    {
      method: 'POST', path: MILESTONES, tag: TAG, summary: 'Add a milestone to a template (last unless its sortOrder says otherwise)',
      body: releasePlanSchemas.releasePlanMilestoneSchema, reply: releasePlanReplies.releasePlanMilestoneReply, permission: 'UPDATE_RELEASE_TEMPLATE',
      responses: { 201: 'Added', 400: 'Invalid, archived, or over a limit', 404: 'Unknown template' },
      handler: async ({ params, body, actor }) => ({ status: 201, body: await engine.run(actor, createTemplateMilestone(params.templateId, body as MilestoneInput)) }),
    },
    {
      method: 'PUT', path: `${MILESTONES}/:milestoneId`, tag: TAG, summary: 'Rename or move a milestone of a template (with strategies: replace them)',
      body: releasePlanSchemas.releasePlanMilestoneSchema, reply: releasePlanReplies.releasePlanMilestoneReply, permission: 'UPDATE_RELEASE_TEMPLATE',
      responses: { 200: 'Updated', 400: 'Invalid, archived, or over a limit', 404: 'Unknown template or milestone' },
      handler: async ({ params, body, actor }) => ({
        status: 200, body: await engine.run(actor, updateTemplateMilestone(params.templateId, params.milestoneId, body as MilestoneInput)),
      }),
    },
    {
      method: 'DELETE', path: `${MILESTONES}/:milestoneId`, tag: TAG, summary: 'Remove a milestone from a template (plans made from it keep theirs)', permission: 'UPDATE_RELEASE_TEMPLATE',
      responses: { 204: 'Removed', 400: 'Archived', 404: 'Unknown template or milestone' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteTemplateMilestone(params.templateId, params.milestoneId));
        return { status: 204 };
      },
    },
    {
      method: 'POST', path: STRATEGIES, tag: TAG, summary: 'Add a strategy to a milestone of a template (last unless its sortOrder says otherwise)',
      body: releasePlanSchemas.releasePlanMilestoneStrategySchema, reply: releasePlanReplies.releasePlanMilestoneStrategyReply, permission: 'UPDATE_RELEASE_TEMPLATE',
      responses: { 201: 'Added', 400: 'Invalid, archived, or over a limit', 404: 'Unknown template or milestone' },
      handler: async ({ params, body, actor }) => ({
        status: 201, body: await engine.run(actor, createMilestoneStrategy(params.templateId, params.milestoneId, body as MilestoneStrategyInput)),
      }),
    },
    {
      method: 'PUT', path: `${STRATEGIES}/:strategyId`, tag: TAG, summary: 'Replace a strategy of a milestone of a template',
      body: releasePlanSchemas.releasePlanMilestoneStrategySchema, reply: releasePlanReplies.releasePlanMilestoneStrategyReply, permission: 'UPDATE_RELEASE_TEMPLATE',
      responses: { 200: 'Updated', 400: 'Invalid or archived', 404: 'Unknown template, milestone or strategy' },
      handler: async ({ params, body, actor }) => ({
        status: 200,
        body: await engine.run(actor, updateMilestoneStrategy(params.templateId, params.milestoneId, params.strategyId, body as MilestoneStrategyInput)),
      }),
    },
    {
      method: 'DELETE', path: `${STRATEGIES}/:strategyId`, tag: TAG, summary: 'Remove a strategy from a milestone of a template', permission: 'UPDATE_RELEASE_TEMPLATE',
      responses: { 204: 'Removed', 400: 'Archived', 404: 'Unknown template, milestone or strategy' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteMilestoneStrategy(params.templateId, params.milestoneId, params.strategyId));
        return { status: 204 };
      },
    },
    {
      method: 'GET', path: PLANS, tag: TAG, summary: 'List the release plans of a flag in an environment', reply: releasePlanReplies.releasePlansReply, permission: 'READ', scope: planScope,
      handler: ({ params }) => {
        const w = where(params);
        requireFeatureEnv(engine.state, requireFeature(engine.state, w.project, w.feature), w.environment);
        const plan = planAt(engine.state, w);
        return { status: 200, body: plan ? [viewOf(plan)] : [] };
      },
    },
    {
      method: 'POST', path: PLANS, tag: TAG, summary: "Apply a release plan template to a flag's environment", reply: releasePlanReplies.releasePlanReply,
      body: releasePlanSchemas.createReleasePlanSchema, permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: planScope,
      responses: { 200: 'The plan (its first milestone started if the environment is on)', 400: 'Unknown or archived template, or a plan already there', 404: 'Unknown flag or environment' },
      handler: async ({ params, body, actor }) => ({ status: 200, body: await engine.run(actor, addPlan(where(params), (body as { templateId: string }).templateId)) }),
    },
    {
      method: 'GET', path: `${PLANS}/:planId`, tag: TAG, summary: 'Get a release plan', reply: releasePlanReplies.releasePlanReply, permission: 'READ', scope: planScope,
      handler: ({ params }) => ({ status: 200, body: viewOf(requirePlan(engine.state, where(params), params.planId).plan) }),
    },
    {
      method: 'DELETE', path: `${PLANS}/:planId`, tag: TAG, summary: "Remove a release plan (its milestone's strategies stop being served)", permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: planScope,
      responses: { 204: 'Removed', 404: 'Unknown flag, environment or plan' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deletePlan(where(params), params.planId));
        return { status: 204 };
      },
    },
    {
      method: 'POST', path: `${PLANS}/:planId/milestones/:milestoneId/start`, tag: TAG, summary: 'Start a milestone of a release plan (forward or back)',
      permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: planScope, anyContentType: true,
      responses: { 200: 'Started', 404: 'Unknown flag, environment, plan or milestone' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, startMilestone(where(params), params.planId, params.milestoneId));
        return { status: 200 };
      },
    },
    {
      method: 'PUT', path: `${PROGRESSIONS}/:sourceMilestoneId`, tag: TAG, summary: 'Set the progression out of a milestone: the target starts by itself after an interval',
      body: releasePlanSchemas.changeMilestoneProgressionSchema, reply: releasePlanReplies.milestoneProgressionReply, permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: planScope,
      responses: { 200: 'The progression', 400: 'Invalid, or a target outside the plan', 404: 'Unknown flag, environment, plan or milestone' },
      handler: async ({ params, body, actor }) => ({
        status: 200,
        body: await engine.run(actor, setProgression(where(params), params.sourceMilestoneId, body as { targetMilestone: string; transitionCondition: TransitionCondition })),
      }),
    },
    {
      method: 'DELETE', path: `${PROGRESSIONS}/:sourceMilestoneId`, tag: TAG, summary: 'Remove the progression out of a milestone', permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: planScope,
      responses: { 204: 'Removed', 404: 'Unknown flag, environment, plan, milestone or progression' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteProgression(where(params), params.sourceMilestoneId));
        return { status: 204 };
      },
    },
    {
      method: 'POST', path: `${PROGRESSIONS}/:planId/resume`, tag: TAG, summary: "Resume a paused plan's progressions (the interval counts from now)",
      permission: 'UPDATE_FEATURE_ENVIRONMENT', scope: planScope, anyContentType: true,
      responses: { 200: 'Resumed (or was not paused)', 404: 'Unknown flag, environment or plan' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, resumeProgressions(where(params), params.planId));
        return { status: 200 };
      },
    },
  ];
}
