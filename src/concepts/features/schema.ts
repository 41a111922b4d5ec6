import { flagNameSchema } from '../../core/state/names.js';
import { strategyReplies, variantReply } from '../strategies/schema.js';
import { FEATURE_TYPES } from './flag-types.js';

/** The parent's variants a dependency asks for, in every door (admin API and both imports). */
export const dependencyVariantsSchema = { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 } };

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
      variants: dependencyVariantsSchema,
    },
  },
};

// Answers.
const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };
const bool = { type: 'boolean' };
const tagReply = { type: 'object', required: ['type', 'value'], properties: { type: str, value: str } };
const envSummary = {
  type: 'object',
  required: ['name', 'environment', 'featureName', 'type', 'enabled', 'sortOrder', 'variantCount', 'lastSeenAt', 'hasStrategies', 'hasEnabledStrategies'],
  properties: {
    name: str, environment: str, featureName: str, type: str, enabled: bool, sortOrder: { type: 'integer' }, variantCount: { type: 'integer' },
    lastSeenAt: nullableStr, hasStrategies: bool, hasEnabledStrategies: bool,
  },
};
const summaryProperties = {
  name: str, type: str, description: nullableStr, project: str, stale: bool, favorite: bool, impressionData: bool, archived: bool,
  archivedAt: nullableStr, createdAt: str, lastSeenAt: nullableStr, tags: { type: 'array', items: tagReply },
};
const summaryRequired = ['name', 'type', 'description', 'project', 'stale', 'impressionData', 'archived', 'archivedAt', 'createdAt', 'lastSeenAt', 'environments', 'tags'];
/** A flag in listings: its environments without their strategies. */
const featureSummary = { type: 'object', required: summaryRequired, properties: { ...summaryProperties, environments: { type: 'array', items: envSummary } } };
const dependencyReply = { type: 'object', required: ['feature', 'enabled', 'variants'], properties: { feature: str, enabled: bool, variants: { type: 'array', items: str } } };

const strategy = strategyReplies.featureStrategySchema;
const variant = variantReply;
const envDetail = {
  ...envSummary,
  required: [...envSummary.required, 'strategies', 'variants'],
  properties: { ...envSummary.properties, strategies: { type: 'array', items: strategy }, variants: { type: 'array', items: variant } },
};

/** Schemas of answers (the strategy and variant items are the strategies module's). */
export const featureReplies = {
  featureSchema: {
    type: 'object',
    required: [...summaryRequired, 'enabled', 'dependencies', 'children'],
    properties: {
      ...summaryProperties,
      enabled: bool,
      environments: { type: 'array', items: envDetail },
      variants: { type: 'array', items: variant },
      dependencies: { type: 'array', items: dependencyReply },
      children: { type: 'array', items: str },
      lifecycle: { type: 'object', required: ['stage'], properties: { stage: str, enteredStageAt: nullableStr } },
    },
  },
  featuresSchema: {
    type: 'object', required: ['version', 'features'], properties: { version: { type: 'integer' }, features: { type: 'array', items: featureSummary } },
  },
  searchFeaturesSchema: {
    type: 'object', required: ['features', 'total'], properties: { features: { type: 'array', items: featureSummary }, total: { type: 'integer', minimum: 0 } },
  },
  featureTypesSchema: {
    type: 'object',
    required: ['version', 'types'],
    properties: {
      version: { type: 'integer' },
      types: {
        type: 'array',
        items: {
          type: 'object', required: ['id', 'name', 'description', 'lifetimeDays'],
          properties: { id: str, name: str, description: str, lifetimeDays: { type: ['integer', 'null'], minimum: 0 } },
        },
      },
    },
  },
};
