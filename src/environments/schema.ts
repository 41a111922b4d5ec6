import { nameSchema } from '../state/names.js';

const type = { type: 'string', minLength: 1, maxLength: 100 };
const sortOrder = { type: 'integer', minimum: -1000000, maximum: 1000000 };

export const environmentSchemas = {
  createEnvironmentSchema: {
    type: 'object',
    required: ['name', 'type'],
    properties: { name: nameSchema, type, sortOrder },
  },
  updateEnvironmentSchema: {
    type: 'object',
    properties: { type, sortOrder },
  },
};
