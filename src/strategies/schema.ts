import { constraintListSchema } from '../constraints/constraints.js';
import { variantSchema } from '../variants/weights.js';

const parameters = {
  type: 'object',
  additionalProperties: { type: ['string', 'number', 'boolean'] },
};
const common = {
  title: { type: ['string', 'null'], maxLength: 200 },
  disabled: { type: ['boolean', 'null'] },
  sortOrder: { type: 'integer', minimum: -1000000, maximum: 1000000 },
  constraints: constraintListSchema,
  variants: { type: 'array', maxItems: 100, items: variantSchema },
  parameters,
  segments: { type: 'array', maxItems: 5, uniqueItems: true, items: { type: 'integer', minimum: 1 } },
};

export const strategySchemas = {
  createFeatureStrategySchema: {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, ...common },
  },
  updateFeatureStrategySchema: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, ...common },
  },
  setStrategySortOrderSchema: {
    type: 'array',
    maxItems: 1000,
    items: {
      type: 'object',
      required: ['id', 'sortOrder'],
      properties: { id: { type: 'string' }, sortOrder: { type: 'integer', minimum: -1000000, maximum: 1000000 } },
    },
  },
};
