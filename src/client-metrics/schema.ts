// Bodies of POST /api/client/register and /api/client/metrics, as the Node SDK sends them.
// Extra properties are allowed: SDKs add fields over time (impactMetrics, sdkFlavor, …).
// Every string kept gets a maxLength (255, as Unleash's columns); lists and maps are bounded too.
// Every number kept is one the server can show: a date as epoch ms within what a Date can hold,
// counts within the integers a double holds exactly (their sums are held there, see store.ts).
const dateTime = { type: 'string', format: 'date-time', maxLength: 100 };
const text = { type: 'string', maxLength: 255 };
const count = { type: 'integer', minimum: 0 };
/** The largest epoch ms a JavaScript Date holds (±100,000,000 days). */
export const MAX_DATE_MS = 8.64e15;
/** An ISO date-time, or epoch ms (the Node SDK sends a string; others a number). */
const dateOrMs = {
  type: ['string', 'number'], format: 'date-time', maxLength: 100, minimum: -MAX_DATE_MS, maximum: MAX_DATE_MS,
  description: 'an ISO 8601 date-time, or epoch milliseconds from -8.64e15 to 8.64e15',
};
const sdkCount = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

export const clientMetricsSchemas = {
  clientRegisterSchema: {
    type: 'object',
    required: ['appName', 'strategies', 'started', 'interval'],
    properties: {
      appName: { type: 'string', minLength: 1, maxLength: 255 },
      instanceId: { type: 'string', maxLength: 255 },
      connectionId: { type: 'string', maxLength: 255 },
      sdkVersion: { type: 'string', maxLength: 255 },
      environment: text,
      strategies: { type: 'array', maxItems: 100, items: text },
      started: dateOrMs,
      interval: { type: 'number', minimum: 0 },
      platformName: text,
      platformVersion: text,
      yggdrasilVersion: { type: ['string', 'null'], maxLength: 255 },
      specVersion: text,
    },
  },
  clientMetricsSchema: {
    type: 'object',
    required: ['appName'],
    properties: {
      appName: { type: 'string', minLength: 1, maxLength: 255 },
      instanceId: { type: 'string', maxLength: 255 },
      connectionId: { type: 'string', maxLength: 255 },
      environment: text,
      bucket: {
        type: 'object',
        required: ['start', 'stop', 'toggles'],
        properties: {
          start: dateTime,
          stop: dateTime,
          toggles: {
            type: 'object',
            maxProperties: 10000,
            propertyNames: { maxLength: 255 },
            additionalProperties: {
              type: 'object',
              properties: {
                yes: sdkCount,
                no: sdkCount,
                variants: { type: 'object', maxProperties: 1000, propertyNames: { maxLength: 255 }, additionalProperties: sdkCount },
              },
            },
          },
        },
      },
    },
  },
};

export interface RegisterBody {
  appName: string;
  instanceId?: string;
  connectionId?: string;
  sdkVersion?: string;
  strategies: string[];
  started: string | number;
  interval: number;
  platformName?: string;
  platformVersion?: string;
}

export interface ToggleCounts {
  yes?: number;
  no?: number;
  variants?: Record<string, number>;
}

export interface MetricsBody {
  appName: string;
  instanceId?: string;
  connectionId?: string;
  bucket?: { start: string; stop: string; toggles: Record<string, ToggleCounts> };
}

// Answers.
const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };
const application = {
  type: 'object',
  required: ['appName', 'createdAt', 'lastSeen', 'strategies', 'instanceCount', 'instances', 'environments', 'toggles'],
  properties: {
    appName: str,
    createdAt: str,
    lastSeen: str,
    strategies: { type: 'array', items: str },
    instanceCount: count,
    instances: {
      type: 'array',
      items: {
        type: 'object',
        required: ['instanceId', 'environment', 'firstSeen', 'lastSeen'],
        properties: {
          instanceId: str, connectionId: nullableStr, sdkVersion: nullableStr, environment: str, started: nullableStr, interval: { type: ['number', 'null'] },
          platformName: nullableStr, platformVersion: nullableStr, firstSeen: str, lastSeen: str,
        },
      },
    },
    environments: { type: 'array', items: str },
    toggles: {
      type: 'array',
      items: {
        type: 'object',
        required: ['featureName', 'environment', 'yes', 'no', 'variants', 'lastSeen'],
        properties: { featureName: str, environment: str, yes: count, no: count, variants: { type: 'object', additionalProperties: count }, lastSeen: str },
      },
    },
  },
};

export const clientMetricsReplies = {
  applicationSchema: application,
  applicationsSchema: {
    type: 'object',
    required: ['total', 'offset', 'limit', 'truncated', 'applications'],
    properties: { total: count, offset: count, limit: count, truncated: { type: 'boolean' }, applications: { type: 'array', items: application } },
  },
};
