// Bodies of /api/admin/api-tokens. Types are accepted in either case and `backend` is Unleash's
// newer name for `client`; logic.ts normalizes them.
const TYPES = ['admin', 'client', 'backend', 'frontend'];

export const tokenSchemas = {
  createApiTokenSchema: {
    type: 'object',
    required: ['tokenName', 'type'],
    properties: {
      tokenName: { type: 'string', minLength: 1, maxLength: 200 },
      type: { type: 'string', enum: [...TYPES, ...TYPES.map((t) => t.toUpperCase())] },
      environment: { type: 'string', minLength: 1, maxLength: 100 },
      project: { type: 'string', minLength: 1, maxLength: 100 },
      projects: { type: 'array', minItems: 1, maxItems: 500, items: { type: 'string', minLength: 1, maxLength: 100 } },
      expiresAt: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  updateApiTokenSchema: {
    type: 'object',
    required: ['expiresAt'],
    properties: { expiresAt: { type: ['string', 'null'], format: 'date-time' } },
  },
};
