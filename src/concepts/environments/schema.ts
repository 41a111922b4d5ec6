import { nameSchema } from '../../core/state/names.js';

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

// Answers.
export const environment = {
  type: 'object',
  required: ['name', 'type', 'enabled', 'protected', 'sortOrder'],
  properties: { name: { type: 'string' }, type: { type: 'string' }, enabled: { type: 'boolean' }, protected: { type: 'boolean' }, sortOrder: { type: 'integer' } },
};

export const environmentReplies = {
  environmentSchema: environment,
  environmentsSchema: { type: 'object', required: ['version', 'environments'], properties: { version: { type: 'integer' }, environments: { type: 'array', items: environment } } },
};
