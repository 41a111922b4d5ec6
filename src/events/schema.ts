import { EVENT_TYPES } from './types.js';

export const MAX_EVENT_PAGE = 100;

export const eventSchemas = {
  /** decisions.md § Events: unknown fields, an unknown type and out-of-range numbers are 400s. */
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
