// What the delta API answers (the stream's frames carry the same `{events}` objects).
import { clientReplies } from '../client-api/schema.js';

const eventId = { type: 'integer', minimum: 0 };
const feature = clientReplies.clientFeatureSchema;
const segment = {
  type: 'object',
  required: ['id', 'name', 'constraints'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, constraints: { type: 'array', items: { type: 'object' } } },
};

const event = {
  oneOf: [
    {
      type: 'object', required: ['type', 'eventId', 'features', 'segments'],
      properties: { type: { const: 'hydration' }, eventId, features: { type: 'array', items: feature }, segments: { type: 'array', items: segment } },
    },
    { type: 'object', required: ['type', 'eventId', 'feature'], properties: { type: { const: 'feature-updated' }, eventId, feature } },
    {
      type: 'object', required: ['type', 'eventId', 'featureName', 'project'],
      properties: { type: { const: 'feature-removed' }, eventId, featureName: { type: 'string' }, project: { type: 'string' } },
    },
    { type: 'object', required: ['type', 'eventId', 'segment'], properties: { type: { const: 'segment-updated' }, eventId, segment } },
    { type: 'object', required: ['type', 'eventId', 'segmentId'], properties: { type: { const: 'segment-removed' }, eventId, segmentId: { type: 'integer' } } },
  ],
};

export const pushReplies = {
  deltaSchema: { type: 'object', required: ['events'], properties: { events: { type: 'array', items: event } } },
};
