// Bodies of /api/admin/strategies: a strategy type and its parameter definitions.
import { nameSchema } from '../../core/state/names.js';

export const MAX_STRATEGY_TYPE_PARAMETERS = 50;

export const PARAMETER_TYPES = ['string', 'percentage', 'list', 'number', 'boolean'] as const;

const parameter = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100, not: { const: '__proto__' }, description: '1 to 100 characters and not "__proto__"' },
    type: { enum: [...PARAMETER_TYPES] },
    description: { type: ['string', 'null'], maxLength: 1000 },
    required: { type: 'boolean' },
  },
};

const fields = {
  displayName: { type: ['string', 'null'], maxLength: 200 },
  title: { type: ['string', 'null'], maxLength: 200 },
  description: { type: ['string', 'null'], maxLength: 5000 },
  editable: { type: 'boolean' },
  deprecated: { type: 'boolean' },
  parameters: { type: 'array', maxItems: MAX_STRATEGY_TYPE_PARAMETERS, items: parameter },
};

export const strategyTypeSchemas = {
  createStrategySchema: { type: 'object', required: ['name'], properties: { name: nameSchema, ...fields } },
  updateStrategySchema: { type: 'object', properties: { name: { type: 'string' }, ...fields } },
};

export interface StrategyTypeInput {
  name?: string;
  displayName?: string | null;
  title?: string | null;
  description?: string | null;
  parameters?: { name: string; type?: string; description?: string | null; required?: boolean }[];
}

// Answers.
const nullableStr = { type: ['string', 'null'] };
const strategyType = {
  type: 'object',
  required: ['name', 'displayName', 'title', 'description', 'editable', 'deprecated', 'parameters'],
  properties: {
    name: { type: 'string' },
    displayName: nullableStr,
    title: nullableStr,
    description: { type: 'string' },
    editable: { type: 'boolean' },
    deprecated: { type: 'boolean' },
    parameters: {
      type: 'array',
      items: { type: 'object', required: ['name', 'type', 'description', 'required'], properties: { name: { type: 'string' }, type: { type: 'string' }, description: { type: 'string' }, required: { type: 'boolean' } } },
    },
  },
};

export const strategyTypeReplies = {
  strategyTypeSchema: strategyType,
  strategyTypesSchema: { type: 'object', required: ['version', 'strategies'], properties: { version: { type: 'integer' }, strategies: { type: 'array', items: strategyType } } },
};
