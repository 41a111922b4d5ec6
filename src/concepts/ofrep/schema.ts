// OFREP 0.3 (docs/reference/frontend-api-and-ofrep.md): the request, the evaluation results and the error body.
import { contextSchema } from '../frontend/schema.js';

const REASONS = ['STATIC', 'TARGETING_MATCH', 'SPLIT', 'DISABLED', 'UNKNOWN', 'DEFAULT', 'ERROR'];

const result = {
  type: 'object',
  required: ['key', 'reason'],
  properties: {
    key: { type: 'string' },
    reason: { enum: REASONS },
    variant: { type: 'string' },
    value: {},
    metadata: { type: 'object' },
  },
};

export const ofrepSchemas = {
  ofrepRequestSchema: { type: 'object', properties: { context: contextSchema } },
};

export const ofrepReplies = {
  ofrepResultSchema: result,
  ofrepBulkSchema: { type: 'object', required: ['flags'], properties: { flags: { type: 'array', items: result } } },
  ofrepErrorSchema: {
    type: 'object',
    required: ['errorCode'],
    properties: {
      key: { type: 'string' },
      errorCode: { enum: ['PARSE_ERROR', 'TARGETING_KEY_MISSING', 'INVALID_CONTEXT', 'GENERAL', 'FLAG_NOT_FOUND'] },
      errorDetails: { type: 'string' },
    },
  },
};
