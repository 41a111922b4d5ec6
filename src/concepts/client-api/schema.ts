// The answers of the client API, as SDKs read them (docs/reference/client-api.md).
import { constraintReply, variantReply } from '../strategies/schema.js';

const str = { type: 'string' };
const strategy = {
  type: 'object',
  required: ['name', 'parameters', 'constraints'],
  properties: {
    name: str,
    parameters: { type: 'object', additionalProperties: str },
    constraints: { type: 'array', items: constraintReply },
    variants: { type: 'array', items: variantReply },
    segments: { type: 'array', items: { type: 'integer' } },
  },
};
const clientFeature = {
  type: 'object',
  required: ['name', 'type', 'enabled', 'stale', 'project', 'impressionData', 'strategies', 'variants'],
  properties: {
    name: str,
    type: str,
    enabled: { type: 'boolean' },
    stale: { type: 'boolean' },
    project: str,
    description: { type: ['string', 'null'] },
    impressionData: { type: 'boolean' },
    strategies: { type: 'array', items: strategy },
    variants: { type: 'array', items: variantReply },
    dependencies: {
      type: 'array',
      items: { type: 'object', required: ['feature', 'enabled'], properties: { feature: str, enabled: { type: 'boolean' }, variants: { type: 'array', items: str } } },
    },
  },
};

export const clientReplies = {
  clientFeatureSchema: clientFeature,
  clientFeaturesSchema: {
    type: 'object',
    required: ['version', 'features'],
    properties: { version: { type: 'integer' }, features: { type: 'array', items: clientFeature }, query: { type: 'object' } },
  },
};
