import { nameSchema } from '../../core/state/names.js';

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

// Answers.
const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };
const count = { type: 'integer', minimum: 0 };
const projectProperties = {
  id: str, name: str, description: nullableStr, mode: str, defaultStickiness: str, createdAt: str, updatedAt: nullableStr,
  featureCount: count, staleFeatureCount: count, archivedFeatureCount: count,
};
const project = { type: 'object', required: Object.keys(projectProperties), properties: projectProperties };
/** A capped list: how many there are, and the first of them. */
const listOf = (item: Record<string, unknown>) => ({
  type: 'object', required: ['count', 'items'],
  properties: { count, items: { type: 'array', items: { type: 'object', required: Object.keys(item), properties: item } } },
});

export const projectReplies = {
  projectSchema: project,
  projectsSchema: { type: 'object', required: ['version', 'projects'], properties: { version: { type: 'integer' }, projects: { type: 'array', items: project } } },
  /** One project with its environments and live flags (listed as in the project's flag list). */
  projectOverviewSchema: {
    type: 'object',
    required: ['version', ...Object.keys(projectProperties), 'environments', 'features'],
    properties: {
      version: { type: 'integer' },
      ...projectProperties,
      environments: { type: 'array', items: { type: 'object', required: ['environment', 'type', 'sortOrder'], properties: { environment: str, type: str, sortOrder: { type: 'integer' } } } },
      features: { type: 'array', items: { type: 'object', required: ['name', 'project'], properties: { name: str, project: str } } },
    },
  },
  /** A project at a glance (overview.ts): counts, and the flags that need attention. */
  projectCountsSchema: {
    type: 'object',
    required: ['version', 'id', 'name', 'featureCount', 'featureTypeCounts', 'environments', 'environmentCounts', 'health', 'technicalDebt', 'stale', 'potentiallyStale', 'neverEvaluated'],
    properties: {
      version: { type: 'integer' },
      id: str, name: str, description: nullableStr, mode: str, defaultStickiness: str, createdAt: str, updatedAt: nullableStr,
      featureCount: count,
      featureTypeCounts: { type: 'array', items: { type: 'object', required: ['type', 'count'], properties: { type: str, count } } },
      environments: { type: 'array', items: { type: 'object', required: ['environment', 'type'], properties: { environment: str, type: str } } },
      environmentCounts: {
        type: 'array',
        items: { type: 'object', required: ['environment', 'type', 'enabled', 'disabled'], properties: { environment: str, type: str, enabled: count, disabled: count } },
      },
      health: count,
      technicalDebt: count,
      stale: listOf({ name: str, type: str, createdAt: str }),
      potentiallyStale: listOf({ name: str, type: str, createdAt: str }),
      neverEvaluated: listOf({ name: str, environment: str }),
    },
  },
};
