import { EVENT_TYPES } from './types.js';

export const MAX_EVENT_PAGE = 100;

export const eventSchemas = {
  /** docs/reference/events-and-webhooks.md, "Event search": unknown fields, an unknown type and out-of-range numbers are 400s. */
  searchEventsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      type: { type: 'string', enum: [...EVENT_TYPES] },
      project: { type: 'string', maxLength: 1000 },
      feature: { type: 'string', maxLength: 1000 },
      query: { type: 'string', maxLength: 1000 },
      limit: { type: 'integer', minimum: 1, maximum: MAX_EVENT_PAGE },
      offset: { type: 'integer', minimum: 0 },
    },
  },
};

export interface SearchEventsBody {
  type?: string;
  project?: string;
  feature?: string;
  query?: string;
  limit?: number;
  offset?: number;
}

// Answers.
const nullableStr = { type: ['string', 'null'] };
const event = {
  type: 'object',
  required: ['id', 'type', 'createdAt', 'createdBy', 'createdByUserId', 'environment', 'project', 'featureName', 'data', 'preData', 'tags'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    type: { type: 'string' },
    createdAt: { type: 'string' },
    createdBy: { type: 'string' },
    createdByUserId: { type: ['integer', 'null'] },
    environment: nullableStr,
    project: nullableStr,
    featureName: nullableStr,
    data: {},
    preData: {},
    tags: { type: ['array', 'null'], items: { type: 'object', required: ['type', 'value'], properties: { type: { type: 'string' }, value: { type: 'string' } } } },
  },
};

export const eventReplies = {
  eventTypesSchema: { type: 'object', required: ['types'], properties: { types: { type: 'array', items: { type: 'string' } } } },
  eventsSchema: {
    type: 'object',
    required: ['version', 'events', 'totalEvents'],
    properties: { version: { type: 'integer' }, toggleName: { type: 'string' }, events: { type: 'array', items: event }, totalEvents: { type: 'integer', minimum: 0 } },
  },
};
