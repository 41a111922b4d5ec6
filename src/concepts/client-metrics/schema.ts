// Bodies of POST /api/client/register and /api/client/metrics, as the Node SDK sends them, and of
// /api/client/metrics/bulk, as Unleash Edge sends them for the SDKs behind it. Since Unleash 8.0
// SDKs leave `environment` out: the token's applies (a body's own is not trusted anyway).
// Extra properties are allowed: SDKs add fields over time (impactMetrics, yggdrasilVersion, …).
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
/** Edge writes every field it has no value for as null. */
const nullableText = { type: ['string', 'null'], maxLength: 255 };
const appName = { type: 'string', minLength: 1, maxLength: 255 };
const strategyNames = { type: 'array', maxItems: 100, items: text };
const variantCounts = { type: 'object', maxProperties: 1000, propertyNames: { maxLength: 255 }, additionalProperties: sdkCount };
/** What an SDK says of itself (Unleash 8.1 added the flavor: an integration built on the SDK). */
const sdkFields = { sdkFlavor: text, sdkFlavorVersion: text, platformName: text, platformVersion: text };

export const clientMetricsSchemas = {
  clientRegisterSchema: {
    type: 'object',
    required: ['appName', 'strategies', 'started', 'interval'],
    properties: {
      appName,
      instanceId: { type: 'string', maxLength: 255 },
      connectionId: { type: 'string', maxLength: 255 },
      sdkVersion: { type: 'string', maxLength: 255 },
      environment: text,
      strategies: strategyNames,
      started: dateOrMs,
      interval: { type: 'number', minimum: 0 },
      ...sdkFields,
      yggdrasilVersion: { type: ['string', 'null'], maxLength: 255 },
      specVersion: text,
    },
  },
  clientMetricsSchema: {
    type: 'object',
    required: ['appName'],
    properties: {
      appName,
      instanceId: { type: 'string', maxLength: 255 },
      connectionId: { type: 'string', maxLength: 255 },
      sdkVersion: text,
      environment: text,
      ...sdkFields,
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
                variants: variantCounts,
              },
            },
          },
        },
      },
    },
  },
  clientBulkMetricsSchema: {
    type: 'object',
    required: ['applications', 'metrics'],
    properties: {
      applications: {
        type: 'array',
        maxItems: 1000,
        items: {
          type: 'object',
          required: ['appName'],
          properties: {
            appName,
            instanceId: nullableText,
            connectionId: nullableText,
            environment: nullableText,
            sdkVersion: nullableText,
            sdkType: nullableText,
            sdkFlavor: nullableText,
            sdkFlavorVersion: nullableText,
            platformName: nullableText,
            platformVersion: nullableText,
            strategies: strategyNames,
            started: { anyOf: [dateOrMs, { type: 'null' }] },
            interval: { type: ['number', 'null'], minimum: 0 },
            projects: { type: ['array', 'null'], maxItems: 1000, items: text },
          },
        },
      },
      metrics: {
        type: 'array',
        maxItems: 10000,
        items: {
          type: 'object',
          required: ['featureName', 'appName'],
          properties: {
            featureName: { type: 'string', maxLength: 255 },
            appName,
            environment: nullableText,
            timestamp: { anyOf: [dateOrMs, { type: 'null' }] },
            yes: sdkCount,
            no: sdkCount,
            variants: { anyOf: [variantCounts, { type: 'null' }] },
          },
        },
      },
      // Any JSON: the impact-metrics store checks each entry on its own, so a bad one costs only itself.
      impactMetrics: { description: 'impact metrics of the SDKs behind the relay (checked entry by entry; see impact-metrics/schema.ts)' },
      /** Tokens the relay saw its SDKs use: counted as used (`seenAt`), like a request of their own. */
      seenTokens: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 1000 } },
    },
  },
};

/** What a registration says of an SDK instance (a relay's may leave anything but its name out, or null). */
export interface InstanceReport {
  appName: string;
  instanceId?: string | null;
  connectionId?: string | null;
  sdkVersion?: string | null;
  sdkFlavor?: string | null;
  sdkFlavorVersion?: string | null;
  strategies?: string[];
  started?: string | number | null;
  interval?: number | null;
  platformName?: string | null;
  platformVersion?: string | null;
}

export interface RegisterBody extends InstanceReport {
  strategies: string[];
  started: string | number;
  interval: number;
}

export interface ToggleCounts {
  yes?: number;
  no?: number;
  variants?: Record<string, number> | null;
}

export interface MetricsBody {
  appName: string;
  instanceId?: string;
  connectionId?: string;
  sdkVersion?: string;
  sdkFlavor?: string;
  sdkFlavorVersion?: string;
  platformName?: string;
  platformVersion?: string;
  bucket?: { start: string; stop: string; toggles: Record<string, ToggleCounts> };
}

export interface BulkMetricsBody {
  applications: (InstanceReport & { environment?: string | null })[];
  metrics: (ToggleCounts & { featureName: string; appName: string; environment?: string | null })[];
  seenTokens?: string[];
  /** Unchecked here: the impact-metrics store checks each entry. */
  impactMetrics?: unknown;
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
          instanceId: str, connectionId: nullableStr, sdkVersion: nullableStr, sdkFlavor: nullableStr, sdkFlavorVersion: nullableStr, environment: str,
          started: nullableStr, interval: { type: ['number', 'null'] }, platformName: nullableStr, platformVersion: nullableStr, firstSeen: str, lastSeen: str,
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

const unknownFlag = {
  type: 'object',
  required: ['name', 'lastSeenAt', 'lastEventAt', 'reports'],
  properties: {
    name: str,
    lastSeenAt: str,
    lastEventAt: nullableStr,
    reports: {
      type: 'array',
      items: {
        type: 'object',
        required: ['appName', 'environments'],
        properties: {
          appName: str,
          environments: { type: 'array', items: { type: 'object', required: ['environment', 'seenAt'], properties: { environment: str, seenAt: str } } },
        },
      },
    },
  },
};

/** One hour of one flag's counts in one environment for one application (Unleash's raw metrics entry). */
const usageEntry = {
  type: 'object',
  required: ['featureName', 'appName', 'environment', 'timestamp', 'yes', 'no', 'variants'],
  properties: { featureName: str, appName: str, environment: str, timestamp: str, yes: count, no: count, variants: { type: 'object', additionalProperties: count } },
};

export const clientMetricsReplies = {
  featureUsageRawSchema: {
    type: 'object',
    required: ['version', 'maturity', 'data'],
    properties: { version: { type: 'integer' }, maturity: str, data: { type: 'array', items: usageEntry } },
  },
  featureUsageSchema: {
    type: 'object',
    required: ['version', 'maturity', 'featureName', 'lastHourUsage', 'seenApplications'],
    properties: {
      version: { type: 'integer' },
      maturity: str,
      featureName: str,
      lastHourUsage: {
        type: 'array',
        items: { type: 'object', required: ['environment', 'timestamp', 'yes', 'no'], properties: { environment: str, timestamp: str, yes: count, no: count } },
      },
      seenApplications: { type: 'array', items: str },
    },
  },
  unknownFlagsSchema: { type: 'object', required: ['unknownFlags'], properties: { unknownFlags: { type: 'array', items: unknownFlag } } },
  applicationSchema: application,
  applicationsSchema: {
    type: 'object',
    required: ['total', 'offset', 'limit', 'truncated', 'applications'],
    properties: { total: count, offset: count, limit: count, truncated: { type: 'boolean' }, applications: { type: 'array', items: application } },
  },
};
