// Bodies of /api/admin/context.
import { nameSchema } from '../../core/state/names.js';

const legalValue = {
  type: 'object',
  required: ['value'],
  properties: { value: { type: 'string', minLength: 1, maxLength: 100 }, description: { type: ['string', 'null'], maxLength: 1000 } },
};
/** A field's legal values, in every door (admin API and the features-batch import). */
export const legalValuesSchema = { type: 'array', maxItems: 1000, items: legalValue };
const fields = {
  description: { type: ['string', 'null'], maxLength: 5000 },
  legalValues: legalValuesSchema,
  stickiness: { type: 'boolean' },
  sortOrder: { type: 'integer', minimum: -1000000, maximum: 1000000 },
};

export const contextFieldSchemas = {
  createContextFieldSchema: { type: 'object', required: ['name'], properties: { name: nameSchema, ...fields } },
  updateContextFieldSchema: { type: 'object', properties: { name: { type: 'string' }, ...fields } },
  nameSchema: { type: 'object', required: ['name'], properties: { name: nameSchema } },
};

export interface ContextFieldInput {
  name?: string;
  description?: string | null;
  legalValues?: { value: string; description?: string | null }[];
  stickiness?: boolean;
  sortOrder?: number;
}

// Answers.
const contextField = {
  type: 'object',
  required: ['name', 'description', 'legalValues', 'stickiness', 'sortOrder', 'createdAt'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    legalValues: { type: 'array', items: { type: 'object', required: ['value', 'description'], properties: { value: { type: 'string' }, description: { type: 'string' } } } },
    stickiness: { type: 'boolean' },
    sortOrder: { type: 'integer' },
    createdAt: { type: 'string' },
  },
};

export const contextFieldReplies = {
  contextFieldSchema: contextField,
  contextFieldsSchema: { type: 'array', items: contextField },
};
