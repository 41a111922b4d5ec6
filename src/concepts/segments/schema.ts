import { constraintListSchema } from '../constraints/constraints.js';
import { segmentNameSchema } from '../../core/state/names.js';
import { constraintReply } from '../strategies/schema.js';

const segment = {
  type: 'object',
  required: ['name', 'constraints'],
  properties: {
    name: segmentNameSchema,
    description: { type: ['string', 'null'], maxLength: 5000 },
    project: { type: ['string', 'null'], maxLength: 100 },
    constraints: constraintListSchema,
  },
};

export const segmentSchemas = {
  createSegmentSchema: segment,
  updateSegmentSchema: segment,
};

// Answers.
const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };
const segmentReply = {
  type: 'object',
  required: ['id', 'name', 'description', 'project', 'constraints', 'createdAt', 'createdBy'],
  properties: {
    id: { type: 'integer' }, name: str, description: nullableStr, project: nullableStr, constraints: { type: 'array', items: constraintReply }, createdAt: str, createdBy: nullableStr,
  },
};

export const segmentReplies = {
  segmentSchema: segmentReply,
  segmentsSchema: { type: 'object', required: ['segments'], properties: { segments: { type: 'array', items: segmentReply } } },
  segmentStrategiesSchema: {
    type: 'object',
    required: ['strategies'],
    properties: {
      strategies: {
        type: 'array',
        items: { type: 'object', required: ['id', 'featureName', 'projectId', 'environment', 'strategyName'], properties: { id: str, featureName: str, projectId: str, environment: str, strategyName: str } },
      },
    },
  },
};
