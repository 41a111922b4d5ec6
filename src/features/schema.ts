import { flagNameSchema } from '../state/names.js';

export const FEATURE_TYPES = ['release', 'experiment', 'operational', 'kill-switch', 'permission'] as const;

const tag = { type: 'object', required: ['type', 'value'], properties: { type: { type: 'string', minLength: 2, maxLength: 50 }, value: { type: 'string', minLength: 2, maxLength: 50 } } };

export const featureSchemas = {
  createFeatureSchema: {
    type: 'object',
    required: ['name'],
    properties: {
      name: flagNameSchema,
      type: { enum: [...FEATURE_TYPES] },
      description: { type: ['string', 'null'], maxLength: 5000 },
      impressionData: { type: 'boolean' },
      tags: { type: 'array', maxItems: 100, items: tag },
    },
  },
  /** The flag metadata after a PATCH: what may change and what must stay. */
  featureMetadataSchema: {
    type: 'object',
    required: ['name', 'project'],
    properties: {
      name: { type: 'string' },
      project: { type: 'string' },
      type: { enum: [...FEATURE_TYPES] },
      description: { type: ['string', 'null'], maxLength: 5000 },
      stale: { type: 'boolean' },
      impressionData: { type: 'boolean' },
      archived: { type: 'boolean' },
    },
  },
  validateFeatureSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  createDependentFeatureSchema: {
    type: 'object',
    required: ['feature'],
    properties: {
      feature: { type: 'string', minLength: 1, maxLength: 100 },
      enabled: { type: 'boolean' },
      variants: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 } },
    },
  },
};
