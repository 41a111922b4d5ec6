import { nameSchema } from '../state/names.js';

export const PROJECT_MODES = ['open', 'protected', 'private'] as const;

const fields = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  description: { type: ['string', 'null'], maxLength: 5000 },
  mode: { enum: [...PROJECT_MODES] },
  defaultStickiness: { type: 'string', minLength: 1, maxLength: 100 },
};

export const projectSchemas = {
  createProjectSchema: {
    type: 'object',
    required: ['id', 'name'],
    properties: { id: nameSchema, ...fields },
  },
  // Unleash's update body also requires `name`; `id`, when sent, must match the path.
  updateProjectSchema: {
    type: 'object',
    required: ['name'],
    properties: { id: { type: 'string' }, ...fields },
  },
};
