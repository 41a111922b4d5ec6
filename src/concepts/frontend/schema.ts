// Bodies and answers of the Frontend API (docs/reference/frontend-api-and-ofrep.md).
import { MAX_PROPERTIES } from './context.js';

const scalar = { type: ['string', 'number', 'boolean', 'null'] };

/** A context as browsers send it; bounds beyond the schema's are checked while it is read (context.ts). */
export const contextSchema = {
  type: 'object',
  maxProperties: MAX_PROPERTIES,
  properties: { properties: { type: 'object', maxProperties: MAX_PROPERTIES, additionalProperties: scalar } },
  additionalProperties: scalar,
};

const variant = {
  type: 'object',
  required: ['name', 'enabled', 'feature_enabled', 'featureEnabled'],
  properties: {
    name: { type: 'string' },
    enabled: { type: 'boolean' },
    payload: { type: 'object', required: ['type', 'value'], properties: { type: { type: 'string' }, value: { type: 'string' } } },
    feature_enabled: { type: 'boolean' },
    featureEnabled: { type: 'boolean' },
  },
};

export const frontendSchemas = {
  frontendRequestSchema: { type: 'object', properties: { context: contextSchema } },
};

export const frontendReplies = {
  frontendTogglesSchema: {
    type: 'object',
    required: ['toggles'],
    properties: {
      toggles: {
        type: 'array',
        items: {
          type: 'object', required: ['name', 'enabled', 'impressionData', 'variant'],
          properties: { name: { type: 'string' }, enabled: { const: true }, impressionData: { type: 'boolean' }, variant },
        },
      },
    },
  },
};
