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

// Answers: a token never shows its secret, except in the answer that created it.
const nullableStr = { type: ['string', 'null'] };
const tokenProperties = {
  id: { type: 'string' }, tokenName: { type: 'string' }, type: { enum: ['admin', 'client', 'frontend'] }, environment: { type: 'string' }, project: { type: 'string' },
  projects: { type: 'array', items: { type: 'string' } }, expiresAt: nullableStr, createdAt: { type: 'string' }, seenAt: nullableStr, alias: nullableStr, prefix: { type: 'string' },
};
const token = { type: 'object', required: Object.keys(tokenProperties), properties: tokenProperties, not: { required: ['secret'] } };

export const tokenReplies = {
  apiTokenSchema: token,
  apiTokensSchema: { type: 'object', required: ['tokens'], properties: { tokens: { type: 'array', items: token } } },
  createdApiTokenSchema: { type: 'object', required: ['secret', ...Object.keys(tokenProperties)], properties: { secret: { type: 'string' }, ...tokenProperties } },
};
