// Bodies and answers of the playground (docs/reference/admin-api.md, "Playground").

const MAX_FIELDS = 1000;
const MAX_VALUE = 10_000;
const scalar = { type: ['string', 'number', 'boolean'], maxLength: MAX_VALUE };
const name = { type: 'string', minLength: 1, maxLength: 100 };

/** A context as Unleash's playground takes it: `appName` required, any other field a scalar, `properties` one level. */
const contextSchema = {
  type: 'object',
  required: ['appName'],
  maxProperties: MAX_FIELDS,
  properties: {
    appName: scalar,
    properties: { type: 'object', maxProperties: MAX_FIELDS, additionalProperties: scalar },
  },
  additionalProperties: scalar,
};

const projects = { anyOf: [{ const: '*' }, { type: 'array', maxItems: 1000, items: name }] };

export const playgroundSchemas = {
  playgroundRequestSchema: {
    type: 'object',
    required: ['environment', 'context'],
    properties: { environment: name, projects, context: contextSchema },
  },
  advancedPlaygroundRequestSchema: {
    type: 'object',
    required: ['environments', 'context'],
    properties: { environments: { type: 'array', minItems: 1, maxItems: 100, items: name }, projects, context: contextSchema },
  },
};

const tri = { anyOf: [{ type: 'boolean' }, { const: 'unknown' }] };
const feature = {
  type: 'object',
  required: ['name', 'projectId', 'isEnabled', 'isEnabledInCurrentEnvironment', 'hasUnsatisfiedDependency', 'variant', 'variants', 'strategies'],
  properties: {
    name: { type: 'string' },
    projectId: { type: 'string' },
    isEnabled: { type: 'boolean' },
    isEnabledInCurrentEnvironment: { type: 'boolean' },
    hasUnsatisfiedDependency: { type: 'boolean' },
    variant: { type: 'object', required: ['name', 'enabled', 'feature_enabled'] },
    variants: { type: 'array', items: { type: 'object' } },
    strategies: {
      type: 'object',
      required: ['result', 'data'],
      properties: {
        result: tri,
        data: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'id', 'disabled', 'parameters', 'result', 'constraints', 'segments'],
            properties: {
              result: { type: 'object', required: ['enabled', 'evaluationStatus'], properties: { enabled: tri, evaluationStatus: { enum: ['complete', 'incomplete', 'unevaluated'] } } },
              constraints: { type: 'array', items: { type: 'object', required: ['contextName', 'operator', 'result'] } },
              segments: { type: 'array', items: { type: 'object', required: ['id', 'name', 'result', 'constraints'] } },
            },
          },
        },
      },
    },
  },
};

export const playgroundReplies = {
  playgroundResponseSchema: {
    type: 'object',
    required: ['input', 'features'],
    properties: { input: { type: 'object' }, features: { type: 'array', items: feature } },
  },
  advancedPlaygroundResponseSchema: {
    type: 'object',
    required: ['input', 'features'],
    properties: {
      input: { type: 'object' },
      features: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'projectId', 'environments'],
          properties: { environments: { type: 'object', additionalProperties: { type: 'array', items: feature } } },
        },
      },
    },
  },
};
