// The state document (docs/reference/import-export.md, "State import and export"), as the import accepts it. Items
// may carry more fields than listed (real Unleash exports do: counts, owners, favourites…);
// those are ignored. What is listed is checked for type, so a bad item is a 400 naming it.
import { importedConstraintListSchema } from '../constraints/constraints.js';
import { dependencyVariantsSchema } from '../features/schema.js';
import type { ImpactChart, Safeguard } from '../../core/state/types.js';
import { flagNameSchema, nameSchema, segmentNameSchema } from '../../core/state/names.js';
import { MAX_STRATEGY_TYPE_PARAMETERS } from '../strategy-types/schema.js';
import { parametersSchema, strategyIdSchema } from '../strategies/schema.js';
import { variantListSchema } from '../variants/weights.js';
import { MAX_MILESTONE_STRATEGIES, MAX_MILESTONES } from '../release-plans/logic.js';
import { chartProperties } from '../impact-metrics/schema.js';

const str = (max = 5000) => ({ type: 'string', maxLength: max });
const nullableStr = (max = 5000) => ({ type: ['string', 'null'], maxLength: max });
const bool = { type: 'boolean' };
const nullableBool = { type: ['boolean', 'null'] };
const date = { type: ['string', 'null'], maxLength: 100 };
const int = { type: 'integer', minimum: -1000000000, maximum: 1000000000 };
const list = (items: unknown) => ({ type: 'array', items });
const variants = variantListSchema;

const feature = {
  type: 'object',
  required: ['name'],
  properties: {
    name: flagNameSchema,
    project: nameSchema,
    type: { type: 'string', minLength: 1, maxLength: 100 },
    description: nullableStr(),
    stale: bool,
    impressionData: bool,
    archived: bool,
    archivedAt: date,
    createdAt: date,
    lastSeenAt: date,
    dependencies: list({
      type: 'object',
      required: ['feature'],
      properties: { feature: str(100), enabled: bool, variants: dependencyVariantsSchema },
    }),
  },
};

const featureStrategy = {
  type: 'object',
  required: ['featureName', 'environment'],
  // Unleash exports name the strategy type `strategyName`; the admin API calls it `name`.
  anyOf: [{ required: ['strategyName'] }, { required: ['name'] }],
  properties: {
    id: strategyIdSchema,
    featureName: str(100),
    projectId: str(100),
    environment: str(100),
    strategyName: { type: 'string', minLength: 1, maxLength: 100 },
    name: { type: 'string', minLength: 1, maxLength: 100 },
    title: nullableStr(200),
    disabled: nullableBool,
    sortOrder: int,
    parameters: parametersSchema,
    constraints: importedConstraintListSchema,
    variants,
    segments: list({ type: 'integer', minimum: 1 }),
    createdAt: date,
  },
};

const featureEnvironment = {
  type: 'object',
  required: ['featureName', 'environment'],
  properties: { featureName: str(100), environment: str(100), enabled: bool, variants, lastSeenAt: date },
};

const environment = {
  type: 'object',
  required: ['name'],
  properties: { name: nameSchema, type: { type: 'string', minLength: 1, maxLength: 100 }, enabled: bool, protected: bool, sortOrder: int },
};

const project = {
  type: 'object',
  required: ['id'],
  properties: {
    id: nameSchema,
    name: { type: 'string', minLength: 1, maxLength: 100 },
    description: nullableStr(),
    mode: { enum: ['open', 'protected', 'private'] },
    defaultStickiness: { type: 'string', minLength: 1, maxLength: 100 },
    createdAt: date,
    updatedAt: date,
  },
};

const segment = {
  type: 'object',
  required: ['id', 'name'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    name: segmentNameSchema,
    description: nullableStr(),
    project: { type: ['string', 'null'], maxLength: 100 },
    constraints: importedConstraintListSchema,
    createdAt: date,
    createdBy: nullableStr(200),
  },
};

const tagTypeName = { type: 'string', minLength: 2, maxLength: 50, pattern: "^[A-Za-z0-9\\-_.!~*'()]+$" };
const tagValue = { type: 'string', minLength: 2, maxLength: 50 };

/** A strategy type: named and bounded as POST /api/admin/strategies takes one (its name is in that API's paths). */
const strategyDefinition = {
  type: 'object',
  required: ['name'],
  properties: {
    name: nameSchema,
    title: nullableStr(200),
    displayName: nullableStr(200),
    description: nullableStr(),
    editable: bool,
    deprecated: bool,
    parameters: {
      type: 'array',
      maxItems: MAX_STRATEGY_TYPE_PARAMETERS,
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, type: str(100), description: nullableStr(1000), required: bool } },
    },
  },
};

// Release templates and plans, safeguards and impact metrics charts: the records Fanion keeps, so a
// round trip keeps ids, progress and progressions. Milestone strategies are data here, as a flag's
// strategies are (constraints and variants as given); their types and segments must exist.
const id = { type: 'string', minLength: 1, maxLength: 100 };
const milestoneStrategy = {
  type: 'object',
  required: ['id', 'strategyName'],
  properties: {
    id, strategyName: { type: 'string', minLength: 1, maxLength: 100 }, title: nullableStr(200), disabled: nullableBool, sortOrder: int,
    parameters: parametersSchema, constraints: importedConstraintListSchema, variants, segments: list({ type: 'integer', minimum: 1 }), createdAt: date,
  },
};
const milestoneStrategies = { type: 'array', maxItems: MAX_MILESTONE_STRATEGIES, items: milestoneStrategy };
const releasePlanTemplate = {
  type: 'object',
  required: ['id', 'name'],
  properties: {
    id, name: { type: 'string', minLength: 1, maxLength: 200 }, description: nullableStr(), createdByUserId: { type: ['integer', 'null'] }, createdAt: date, archivedAt: date,
    milestones: {
      type: 'array', maxItems: MAX_MILESTONES,
      items: { type: 'object', required: ['id', 'name'], properties: { id, name: { type: 'string', minLength: 1, maxLength: 200 }, sortOrder: int, strategies: milestoneStrategies } },
    },
  },
};
const releasePlan = {
  type: 'object',
  required: ['id', 'featureName', 'environment'],
  properties: {
    id, name: { type: 'string', minLength: 1, maxLength: 200 }, description: nullableStr(), createdByUserId: { type: ['integer', 'null'] }, createdAt: date,
    featureName: str(100), environment: str(100), releasePlanTemplateId: str(100), activeMilestoneId: { type: ['string', 'null'], maxLength: 100 },
    milestones: {
      type: 'array', maxItems: MAX_MILESTONES,
      items: {
        type: 'object',
        required: ['id', 'name'],
        properties: {
          id, name: { type: 'string', minLength: 1, maxLength: 200 }, sortOrder: int, startedAt: date, progressionExecutedAt: date, pausedAt: date,
          transitionCondition: { type: ['object', 'null'], required: ['intervalMinutes'], properties: { intervalMinutes: { type: 'integer', minimum: 1, maximum: 525600 } } },
          progressionTarget: { type: ['string', 'null'], maxLength: 100 },
          strategies: milestoneStrategies,
        },
      },
    },
  },
};
const { metricName, timeRange, aggregationMode, labelSelectors, yAxisMin, title } = chartProperties;
const safeguard = {
  type: 'object',
  required: ['id', 'featureName', 'environment', 'action', 'impactMetric', 'triggerCondition'],
  properties: {
    id, featureName: str(100), environment: str(100),
    action: {
      type: 'object',
      required: ['type'],
      properties: { type: { enum: ['pauseReleasePlanProgressions', 'disableFeatureEnvironment'] }, id: str(100), project: str(100), featureName: str(100), environment: str(100) },
    },
    impactMetric: { type: 'object', required: ['metricName', 'timeRange', 'aggregationMode'], properties: { id, metricName, timeRange, aggregationMode, labelSelectors } },
    triggerCondition: { type: 'object', required: ['operator', 'threshold'], properties: { operator: { enum: ['>', '<'] }, threshold: { type: 'number' } } },
    createdAt: date, triggeredAt: date,
  },
};
const impactChart = {
  type: 'object',
  required: ['id', 'metricName', 'timeRange', 'yAxisMin', 'aggregationMode'],
  properties: { id, title, metricName, timeRange, yAxisMin, aggregationMode, labelSelectors, feature: { type: ['string', 'null'], maxLength: 100 }, createdAt: date },
};

export const stateSchemas = {
  stateSchema: {
    type: 'object',
    required: ['version'],
    properties: {
      version: { type: 'integer', minimum: 1 },
      features: list(feature),
      strategies: list(strategyDefinition),
      tags: list({ type: 'object', required: ['type', 'value'], properties: { type: tagTypeName, value: tagValue } }),
      tagTypes: list({ type: 'object', required: ['name'], properties: { name: tagTypeName, description: nullableStr(), icon: nullableStr(200) } }),
      featureTags: list({
        type: 'object',
        required: ['featureName'],
        // Unleash writes tagType/tagValue; type/value is accepted as the obvious spelling.
        anyOf: [{ required: ['tagType', 'tagValue'] }, { required: ['type', 'value'] }],
        properties: { featureName: str(100), tagType: tagTypeName, tagValue, type: tagTypeName, value: tagValue },
      }),
      projects: list(project),
      featureStrategies: list(featureStrategy),
      featureEnvironments: list(featureEnvironment),
      environments: list(environment),
      segments: list(segment),
      featureStrategySegments: list({
        type: 'object',
        required: ['segmentId', 'featureStrategyId'],
        properties: { segmentId: { type: 'integer', minimum: 1 }, featureStrategyId: { type: 'string', minLength: 1, maxLength: 100 } },
      }),
      releasePlanTemplates: list(releasePlanTemplate),
      releasePlans: list(releasePlan),
      safeguards: list(safeguard),
      impactMetricsConfigs: list(impactChart),
    },
  },
};

type Opt<T> = T | null | undefined;

export interface StateDocument {
  version: number;
  features?: FeatureItem[];
  strategies?: StrategyDefinitionItem[];
  tags?: { type: string; value: string }[];
  tagTypes?: { name: string; description?: Opt<string>; icon?: Opt<string> }[];
  featureTags?: { featureName: string; tagType?: string; tagValue?: string; type?: string; value?: string }[];
  projects?: ProjectItem[];
  featureStrategies?: FeatureStrategyItem[];
  featureEnvironments?: { featureName: string; environment: string; enabled?: boolean; variants?: unknown[]; lastSeenAt?: Opt<string> }[];
  environments?: { name: string; type?: string; enabled?: boolean; protected?: boolean; sortOrder?: number }[];
  segments?: SegmentItem[];
  featureStrategySegments?: { segmentId: number; featureStrategyId: string }[];
  releasePlanTemplates?: TemplateItem[];
  releasePlans?: PlanItem[];
  safeguards?: SafeguardItem[];
  impactMetricsConfigs?: ChartItem[];
}

/** A milestone strategy: a flag strategy's fields, its flag and environment those of its plan. */
export type MilestoneStrategyItem = Omit<FeatureStrategyItem, 'id' | 'featureName' | 'environment' | 'name' | 'strategyName'> & { id: string; strategyName: string };

export interface TemplateItem {
  id: string;
  name: string;
  description?: Opt<string>;
  createdByUserId?: number | null;
  createdAt?: Opt<string>;
  archivedAt?: Opt<string>;
  milestones?: { id: string; name: string; sortOrder?: number; strategies?: MilestoneStrategyItem[] }[];
}

export interface PlanMilestoneItem {
  id: string;
  name: string;
  sortOrder?: number;
  startedAt?: Opt<string>;
  progressionExecutedAt?: Opt<string>;
  pausedAt?: Opt<string>;
  transitionCondition?: { intervalMinutes: number } | null;
  progressionTarget?: Opt<string>;
  strategies?: MilestoneStrategyItem[];
}

export interface PlanItem {
  id: string;
  name?: string;
  description?: Opt<string>;
  createdByUserId?: number | null;
  createdAt?: Opt<string>;
  featureName: string;
  environment: string;
  releasePlanTemplateId?: string;
  activeMilestoneId?: Opt<string>;
  milestones?: PlanMilestoneItem[];
}

export interface SafeguardItem {
  id: string;
  featureName: string;
  environment: string;
  action: { type: 'pauseReleasePlanProgressions' | 'disableFeatureEnvironment'; id?: string; project?: string; featureName?: string; environment?: string };
  impactMetric: Omit<Safeguard['impactMetric'], 'id' | 'labelSelectors'> & { id?: string; labelSelectors?: Record<string, string[]> };
  triggerCondition: Safeguard['triggerCondition'];
  createdAt?: Opt<string>;
  triggeredAt?: Opt<string>;
}

export type ChartItem = Omit<ImpactChart, 'feature' | 'createdAt' | 'labelSelectors'> & { feature?: string | null; createdAt?: Opt<string>; labelSelectors?: Record<string, string[]> };

export interface FeatureItem {
  name: string;
  project?: string;
  type?: string;
  description?: Opt<string>;
  stale?: boolean;
  impressionData?: boolean;
  archived?: boolean;
  archivedAt?: Opt<string>;
  createdAt?: Opt<string>;
  lastSeenAt?: Opt<string>;
  dependencies?: { feature: string; enabled?: boolean; variants?: string[] }[];
}

export interface FeatureStrategyItem {
  id?: string;
  featureName: string;
  environment: string;
  strategyName?: string;
  name?: string;
  title?: Opt<string>;
  disabled?: Opt<boolean>;
  sortOrder?: number;
  parameters?: Record<string, string | number | boolean>;
  constraints?: unknown[];
  variants?: unknown[];
  segments?: number[];
  createdAt?: Opt<string>;
}

export interface ProjectItem {
  id: string;
  name?: string;
  description?: Opt<string>;
  mode?: string;
  defaultStickiness?: string;
  createdAt?: Opt<string>;
  updatedAt?: Opt<string>;
}

export interface SegmentItem {
  id: number;
  name: string;
  description?: Opt<string>;
  project?: Opt<string>;
  constraints?: unknown[];
  createdAt?: Opt<string>;
  createdBy?: Opt<string>;
}

export interface StrategyDefinitionItem {
  name: string;
  title?: Opt<string>;
  displayName?: Opt<string>;
  description?: Opt<string>;
  editable?: boolean;
  deprecated?: boolean;
  parameters?: { name: string; type?: string; description?: Opt<string>; required?: boolean }[];
}

/** The export: every kind the import takes, each a list (their items as the import reads them). */
export const stateReplies = {
  stateExportSchema: {
    type: 'object',
    required: ['version', 'features', 'strategies', 'projects', 'tagTypes', 'tags', 'featureTags', 'featureStrategies', 'environments', 'featureEnvironments', 'segments', 'featureStrategySegments',
      'releasePlanTemplates', 'releasePlans', 'safeguards', 'impactMetricsConfigs'],
    properties: stateSchemas.stateSchema.properties,
  },
};
