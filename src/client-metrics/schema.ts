// Bodies of POST /api/client/register and /api/client/metrics, as the Node SDK sends them.
// Extra properties are allowed: SDKs add fields over time (impactMetrics, sdkFlavor, …).
const dateTime = { type: 'string', format: 'date-time' };
const count = { type: 'integer', minimum: 0 };

export const clientMetricsSchemas = {
  clientRegisterSchema: {
    type: 'object',
    required: ['appName', 'strategies', 'started', 'interval'],
    properties: {
      appName: { type: 'string', minLength: 1, maxLength: 255 },
      instanceId: { type: 'string', maxLength: 255 },
      connectionId: { type: 'string', maxLength: 255 },
      sdkVersion: { type: 'string', maxLength: 255 },
      environment: { type: 'string' },
      strategies: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 255 } },
      started: { anyOf: [dateTime, { type: 'number' }] },
      interval: { type: 'number', minimum: 0 },
      platformName: { type: 'string' },
      platformVersion: { type: 'string' },
      yggdrasilVersion: { type: ['string', 'null'] },
      specVersion: { type: 'string' },
    },
  },
  clientMetricsSchema: {
    type: 'object',
    required: ['appName'],
    properties: {
      appName: { type: 'string', minLength: 1, maxLength: 255 },
      instanceId: { type: 'string', maxLength: 255 },
      connectionId: { type: 'string', maxLength: 255 },
      environment: { type: 'string' },
      bucket: {
        type: 'object',
        required: ['start', 'stop', 'toggles'],
        properties: {
          start: dateTime,
          stop: dateTime,
          toggles: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              properties: {
                yes: count,
                no: count,
                variants: { type: 'object', additionalProperties: count },
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
