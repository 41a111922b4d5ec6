import { constraintListSchema } from '../constraints/constraints.js';
import { nameSchema } from '../../core/state/names.js';

/** Characters in one strategy parameter's value. */
export const MAX_PARAMETER_LENGTH = 100_000;
import { variantListSchema } from '../variants/weights.js';

/**
 * Strategy parameters, as the admin API and the import take them. "__proto__" is refused by name:
 * copied into a plain object it would set the prototype instead of a parameter, so it would be
 * silently dropped (or worse) rather than stored.
 */
export const parametersSchema = {
  type: 'object',
  maxProperties: 100,
  propertyNames: {
    type: 'string', minLength: 1, maxLength: 100, not: { const: '__proto__' },
    description: '1 to 100 characters and not "__proto__"',
  },
  // A group id (the flag's name by default) and a stickiness (a context field's name) are names;
  // other values (lists of user ids, hosts, addresses) may be long, but not without end: SDKs
  // receive them with every poll.
  properties: {
    groupId: { type: ['string', 'number', 'boolean'], maxLength: 100, description: 'a string, number or boolean of at most 100 characters' },
    stickiness: { type: ['string', 'number', 'boolean'], maxLength: 100, description: 'a string, number or boolean of at most 100 characters' },
  },
  additionalProperties: { type: ['string', 'number', 'boolean'], maxLength: MAX_PARAMETER_LENGTH, description: `a string, number or boolean of at most ${MAX_PARAMETER_LENGTH} characters` },
};

/**
 * A strategy id, as imports bring them (the admin API makes uuids): Unleash's uuids and ULIDs,
 * URL friendly since admin paths carry them.
 */
export const strategyIdSchema = nameSchema;
const parameters = parametersSchema;
const common = {
  title: { type: ['string', 'null'], maxLength: 200 },
  disabled: { type: ['boolean', 'null'] },
  sortOrder: { type: 'integer', minimum: -1000000, maximum: 1000000 },
  constraints: constraintListSchema,
  variants: variantListSchema,
  parameters,
  segments: { type: 'array', maxItems: 5, uniqueItems: true, items: { type: 'integer', minimum: 1 } },
};

export const strategySchemas = {
  createFeatureStrategySchema: {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, ...common },
  },
  updateFeatureStrategySchema: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, ...common },
  },
  setStrategySortOrderSchema: {
    type: 'array',
    maxItems: 1000,
    items: {
      type: 'object',
      required: ['id', 'sortOrder'],
      properties: { id: { type: 'string' }, sortOrder: { type: 'integer', minimum: -1000000, maximum: 1000000 } },
    },
  },
  copyEnvironmentSchema: {
    type: 'object',
    required: ['from'],
    additionalProperties: false,
    properties: { from: { type: 'string', minLength: 1, maxLength: 100, description: 'The environment whose strategies (and variants) are copied' } },
  },
};

// Answers. Loose on purpose (more fields may come), strict on what clients read.
const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };

/** A constraint as stored and shown: `values` always, `value` for the single-value operators. */
export const constraintReply = {
  type: 'object',
  required: ['contextName', 'operator', 'caseInsensitive', 'inverted'],
  properties: {
    contextName: str, operator: str, values: { type: 'array', items: str }, value: str, caseInsensitive: { type: 'boolean' }, inverted: { type: 'boolean' },
  },
};

/** A variant as stored and shown (imported ones may lack a stickiness). */
export const variantReply = {
  type: 'object',
  required: ['name', 'weight', 'weightType'],
  properties: {
    name: str,
    weight: { type: 'integer' },
    weightType: { enum: ['fix', 'variable'] },
    stickiness: str,
    payload: { type: 'object', required: ['type', 'value'], properties: { type: str, value: str } },
    overrides: { type: 'array', items: { type: 'object', required: ['contextName', 'values'], properties: { contextName: str, values: { type: 'array', items: str } } } },
  },
};

const strategyView = {
  type: 'object',
  required: ['id', 'name', 'title', 'disabled', 'featureName', 'sortOrder', 'segments', 'constraints', 'parameters', 'variants'],
  properties: {
    id: str,
    name: str,
    title: nullableStr,
    disabled: { type: 'boolean' },
    featureName: str,
    sortOrder: { type: 'integer' },
    segments: { type: 'array', items: { type: 'integer' } },
    constraints: { type: 'array', items: constraintReply },
    parameters: { type: 'object', additionalProperties: str },
    variants: { type: 'array', items: variantReply },
  },
};

export const strategyReplies = {
  featureStrategySchema: strategyView,
  featureStrategiesSchema: { type: 'array', items: strategyView },
  copiedEnvironmentSchema: {
    type: 'object',
    required: ['strategies', 'variants'],
    properties: { strategies: { type: 'array', items: strategyView }, variants: { type: ['array', 'null'], items: variantReply } },
  },
};
