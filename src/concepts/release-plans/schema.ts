import { constraintListSchema } from '../constraints/constraints.js';
import { variantListSchema } from '../variants/weights.js';
import { constraintReply, parametersSchema, variantReply } from '../strategies/schema.js';
import { nameSchema } from '../../core/state/names.js';
import { MAX_MILESTONE_STRATEGIES, MAX_MILESTONES } from './logic.js';

const id = { type: 'string', minLength: 1, maxLength: 100 };

const milestoneStrategy = {
  type: 'object',
  required: ['strategyName'],
  properties: {
    id,
    strategyName: { type: 'string', minLength: 1, maxLength: 100 },
    title: { type: ['string', 'null'], maxLength: 200 },
    sortOrder: { type: 'integer', minimum: -1000000, maximum: 1000000 },
    parameters: parametersSchema,
    constraints: constraintListSchema,
    variants: variantListSchema,
    segments: { type: 'array', maxItems: 5, uniqueItems: true, items: { type: 'integer', minimum: 1 } },
  },
};

const milestone = {
  type: 'object',
  required: ['name'],
  properties: {
    id,
    name: { type: 'string', minLength: 1, maxLength: 200 },
    sortOrder: { type: 'integer', minimum: -1000000, maximum: 1000000 },
    strategies: { type: 'array', maxItems: MAX_MILESTONE_STRATEGIES, items: milestoneStrategy },
  },
};

const template = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: ['string', 'null'], maxLength: 5000 },
    milestones: { type: 'array', maxItems: MAX_MILESTONES, items: milestone },
  },
};

export const releasePlanSchemas = {
  releasePlanTemplateSchema: template,
  releasePlanMilestoneSchema: milestone,
  releasePlanMilestoneStrategySchema: milestoneStrategy,
  createReleasePlanSchema: { type: 'object', required: ['templateId'], properties: { templateId: nameSchema } },
  changeMilestoneProgressionSchema: {
    type: 'object',
    required: ['targetMilestone', 'transitionCondition'],
    properties: {
      targetMilestone: id,
      transitionCondition: {
        type: 'object',
        required: ['intervalMinutes'],
        // A year at most: a progression further off is a date, not a rollout step.
        properties: { intervalMinutes: { type: 'integer', minimum: 1, maximum: 525600 } },
      },
    },
  },
};

// Answers.
const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };
const strategyReply = {
  type: 'object',
  required: ['id', 'milestoneId', 'sortOrder', 'strategyName', 'parameters', 'constraints', 'variants', 'segments'],
  properties: {
    id: str, milestoneId: str, sortOrder: { type: 'integer' }, title: nullableStr, strategyName: str,
    parameters: { type: 'object', additionalProperties: str },
    constraints: { type: 'array', items: constraintReply },
    variants: { type: 'array', items: variantReply },
    segments: { type: 'array', items: { type: 'integer' } },
  },
};
const milestoneReply = {
  type: 'object',
  required: ['id', 'name', 'sortOrder', 'releasePlanDefinitionId', 'strategies'],
  properties: {
    id: str, name: str, sortOrder: { type: 'integer' }, releasePlanDefinitionId: str,
    startedAt: nullableStr, progressionExecutedAt: nullableStr, pausedAt: nullableStr,
    transitionCondition: { type: ['object', 'null'], properties: { intervalMinutes: { type: 'integer' } } },
    strategies: { type: 'array', items: strategyReply },
  },
};
const templateReply = {
  type: 'object',
  required: ['id', 'discriminator', 'name', 'description', 'createdByUserId', 'createdAt', 'milestones', 'archivedAt'],
  properties: {
    id: str, discriminator: { const: 'template' }, name: str, description: nullableStr, createdByUserId: { type: ['integer', 'null'] },
    createdAt: str, archivedAt: nullableStr, milestones: { type: 'array', items: milestoneReply },
  },
};
const planReply = {
  type: 'object',
  required: ['id', 'discriminator', 'name', 'featureName', 'environment', 'releasePlanTemplateId', 'activeMilestoneId', 'milestones', 'safeguards'],
  properties: {
    id: str, discriminator: { const: 'plan' }, name: str, description: nullableStr, featureName: str, environment: str,
    createdByUserId: { type: ['integer', 'null'] }, createdAt: str, releasePlanTemplateId: str, activeMilestoneId: nullableStr,
    milestones: { type: 'array', items: milestoneReply }, safeguards: { type: 'array' },
  },
};

export const releasePlanReplies = {
  releasePlanTemplateReply: templateReply,
  releasePlanTemplatesReply: { type: 'array', items: templateReply },
  releasePlanMilestoneReply: milestoneReply,
  releasePlanMilestonesReply: { type: 'array', items: milestoneReply },
  releasePlanMilestoneStrategyReply: strategyReply,
  releasePlanReply: planReply,
  releasePlansReply: { type: 'array', items: planReply },
  milestoneProgressionReply: {
    type: 'object',
    required: ['sourceMilestone', 'targetMilestone', 'transitionCondition'],
    properties: { sourceMilestone: str, targetMilestone: str, transitionCondition: { type: 'object', properties: { intervalMinutes: { type: 'integer' } } } },
  },
};
