// POST /edge/validate, as Unleash Edge (and a relay in front of Fanion) asks an upstream which of
// its tokens are good. Bounded: Unleash takes 100 KB bodies; a relay has a handful of tokens.
export const MAX_VALIDATED_TOKENS = 1000;
export const EDGE_VALIDATE_BODY_LIMIT = 128 * 1024;

export const edgeSchemas = {
  tokenStringListSchema: {
    type: 'object',
    required: ['tokens'],
    properties: { tokens: { type: 'array', maxItems: MAX_VALIDATED_TOKENS, items: { type: 'string', maxLength: 1000 } } },
  },
};

const str = { type: 'string' };

export const edgeReplies = {
  validatedEdgeTokensSchema: {
    type: 'object',
    required: ['tokens'],
    properties: {
      tokens: {
        type: 'array',
        items: {
          type: 'object',
          required: ['token', 'type', 'projects', 'environment'],
          properties: { token: str, type: { enum: ['client', 'frontend'] }, projects: { type: 'array', items: str }, environment: str, expiresAt: { type: 'string', format: 'date-time' } },
        },
      },
    },
  },
};
