// Bodies of /api/admin/features-batch: the export query, and the import request whose `data` is
// a document in the format Unleash 6–8 export (a real one: `test/fixtures/unleash-8.2-export.json`).
// Items may carry more fields than listed (Unleash adds some between versions); those are ignored.
import { importedConstraintListSchema } from '../constraints/constraints.js';
import { legalValuesSchema } from '../context-fields/schema.js';
import { dependencyVariantsSchema } from '../features/schema.js';
import { flagNameSchema, nameSchema, segmentNameSchema } from '../../core/state/names.js';
import { parametersSchema, strategyIdSchema } from '../strategies/schema.js';
import { variantListSchema } from '../variants/weights.js';

const nullableStr = (max = 5000) => ({ type: ['string', 'null'], maxLength: max });
const str = (max = 100) => ({ type: 'string', minLength: 1, maxLength: max });
const bool = { type: 'boolean' };
const list = (items: unknown) => ({ type: 'array', items });
const variants = variantListSchema;
const tagTypeName = { type: 'string', minLength: 2, maxLength: 50, pattern: "^[A-Za-z0-9\\-_.!~*'()]+$", description: "2 to 50 characters among letters, digits and - _ . ! ~ * ' ( )" };
const tagValue = { type: 'string', minLength: 2, maxLength: 50 };

const feature = {
  type: 'object',
  required: ['name'],
  properties: {
    name: flagNameSchema,
    type: str(100),
    description: nullableStr(),
    project: { type: ['string', 'null'], maxLength: 100 },
    stale: bool,
    impressionData: bool,
    archived: bool,
  },
};

const featureStrategy = {
  type: 'object',
  required: ['name', 'featureName'],
  properties: {
    name: str(100),
    id: strategyIdSchema,
    featureName: str(100),
    title: nullableStr(200),
    disabled: { type: ['boolean', 'null'] },
    sortOrder: { type: 'integer', minimum: -1000000, maximum: 1000000 },
    parameters: parametersSchema,
    constraints: importedConstraintListSchema,
    variants,
    segments: list({ type: 'integer', minimum: 1 }),
  },
};

/** Unleash writes the flag's name twice (`featureName` and `name`); either is enough. */
const featureEnvironment = {
  type: 'object',
  anyOf: [{ required: ['featureName'] }, { required: ['name'] }],
  properties: { featureName: str(100), name: str(100), environment: str(100), enabled: bool, variants },
};

const contextField = {
  type: 'object',
  required: ['name'],
  properties: {
    name: str(100),
    description: nullableStr(),
    stickiness: bool,
    sortOrder: { type: 'integer', minimum: -1000000, maximum: 1000000 },
    legalValues: legalValuesSchema,
  },
};

const dependency = {
  type: 'object',
  required: ['feature', 'dependencies'],
  properties: {
    feature: str(100),
    dependencies: list({ type: 'object', required: ['feature'], properties: { feature: str(100), enabled: bool, variants: dependencyVariantsSchema } }),
  },
};

/** The document: what the export answers and the import takes as `data`. */
const batchDocument = {
  type: 'object',
  required: ['features'],
  properties: {
    features: list(feature),
    featureStrategies: list(featureStrategy),
    featureEnvironments: list(featureEnvironment),
    contextFields: list(contextField),
    featureTags: list({
      type: 'object',
      required: ['featureName', 'tagType', 'tagValue'],
      properties: { featureName: str(100), tagType: tagTypeName, tagValue },
    }),
    segments: list({ type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', minimum: 1 }, name: segmentNameSchema } }),
    tagTypes: list({ type: 'object', required: ['name'], properties: { name: tagTypeName, description: nullableStr(), icon: nullableStr(200) } }),
    dependencies: list(dependency),
    links: list({ type: 'object', required: ['feature'], properties: { feature: str(100), links: list({ type: 'object' }) } }),
  },
};

const problem = {
  type: 'object',
  required: ['message', 'affectedItems'],
  properties: { message: { type: 'string' }, affectedItems: list({ type: 'string' }) },
};

export const featuresBatchSchemas = {
  exportQuerySchema: {
    type: 'object',
    required: ['environment'],
    description: 'Which flags: `features` (names), `tag` (`type:value`, or a value of any type) or `project` (its live flags).',
    anyOf: [{ required: ['features'] }, { required: ['tag'] }, { required: ['project'] }],
    properties: {
      environment: nameSchema,
      features: { type: 'array', maxItems: 10000, items: str(100) },
      tag: str(101),
      project: nameSchema,
      downloadFile: bool,
    },
  },
  importTogglesSchema: {
    type: 'object',
    required: ['project', 'environment', 'data'],
    properties: { project: nameSchema, environment: nameSchema, data: batchDocument },
  },
  exportResultSchema: batchDocument,
  importTogglesValidateSchema: {
    type: 'object',
    required: ['errors', 'warnings', 'permissions'],
    properties: { errors: list(problem), warnings: list(problem), permissions: list(problem) },
  },
};

type Opt<T> = T | null | undefined;

export interface ExportQuery {
  environment: string;
  features?: string[];
  tag?: string;
  project?: string;
  downloadFile?: boolean;
}

export interface BatchStrategy {
  name: string;
  id?: string;
  featureName: string;
  title?: Opt<string>;
  disabled?: Opt<boolean>;
  sortOrder?: number;
  parameters?: Record<string, string | number | boolean>;
  constraints?: unknown[];
  variants?: unknown[];
  segments?: number[];
}

export interface BatchDocument {
  features: { name: string; type?: string; description?: Opt<string>; project?: Opt<string>; stale?: boolean; impressionData?: boolean; archived?: boolean }[];
  featureStrategies?: BatchStrategy[];
  featureEnvironments?: { featureName?: string; name?: string; environment?: string; enabled?: boolean; variants?: unknown[] }[];
  contextFields?: { name: string; description?: Opt<string>; stickiness?: boolean; sortOrder?: number; legalValues?: { value: string; description?: Opt<string> }[] }[];
  featureTags?: { featureName: string; tagType: string; tagValue: string }[];
  segments?: { id: number; name: string }[];
  tagTypes?: { name: string; description?: Opt<string>; icon?: Opt<string> }[];
  dependencies?: { feature: string; dependencies: { feature: string; enabled?: boolean; variants?: string[] }[] }[];
  links?: { feature: string; links?: unknown[] }[];
}

export interface ImportRequest {
  project: string;
  environment: string;
  data: BatchDocument;
}
