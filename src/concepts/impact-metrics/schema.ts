// What an SDK sends as `impactMetrics` inside its metrics body (client, bulk and frontend routes),
// checked entry by entry on its own: the body's regular flag counts never depend on it. The
// bounds keep one entry's cost small (names, labels, buckets); the store bounds the series kept.
// Also the answers of the admin routes, for the OpenAPI document.
/** Bounds of one entry: longer names, more labels or buckets refuse the entry. */
export const MAX_ENTRIES_PER_BODY = 1000;
export const MAX_SAMPLES_PER_ENTRY = 1000;
export const MAX_LABELS_PER_SAMPLE = 16;
export const MAX_LABEL_VALUE_LENGTH = 255;
export const MAX_BUCKETS = 64;

const name = { type: 'string', minLength: 1, maxLength: 255 };
const labelValue = { type: ['string', 'number', 'boolean'], maxLength: MAX_LABEL_VALUE_LENGTH };
const count = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

/** One entry of `impactMetrics` (the Node SDK's shape, Unleash's client specification). */
export const impactEntrySchema = {
  type: 'object',
  required: ['name', 'type', 'samples'],
  properties: {
    name,
    help: { type: 'string', maxLength: 1000 },
    type: { enum: ['counter', 'gauge', 'histogram'] },
    samples: {
      type: 'array',
      maxItems: MAX_SAMPLES_PER_ENTRY,
      items: {
        type: 'object',
        properties: {
          labels: {
            type: ['object', 'null'], maxProperties: MAX_LABELS_PER_SAMPLE, propertyNames: { maxLength: 100 },
            additionalProperties: labelValue,
          },
          value: { type: 'number' },
          count,
          sum: { type: 'number' },
          buckets: {
            type: 'array',
            maxItems: MAX_BUCKETS,
            items: {
              type: 'object', required: ['le', 'count'],
              properties: { le: { anyOf: [{ type: 'number' }, { const: '+Inf' }] }, count },
            },
          },
        },
      },
    },
  },
  // What each type needs: a counter a count that only grows, a gauge a value, a histogram its buckets.
  allOf: [
    { if: { properties: { type: { const: 'counter' } } }, then: { properties: { samples: { items: { required: ['value'], properties: { value: { minimum: 0 } } } } } } },
    { if: { properties: { type: { const: 'gauge' } } }, then: { properties: { samples: { items: { required: ['value'] } } } } },
    { if: { properties: { type: { const: 'histogram' } } }, then: { properties: { samples: { items: { required: ['count', 'sum', 'buckets'] } } } } },
  ],
};

/** A chart's fields; a safeguard's impactMetric takes the same (safeguards/schema.ts). */
export const chartProperties = {
  id: { type: 'string', maxLength: 100 },
  title: { type: 'string', maxLength: 255 },
  metricName: name,
  timeRange: { enum: ['hour', 'day', 'week', 'month'] },
  yAxisMin: { enum: ['auto', 'zero'] },
  aggregationMode: { enum: ['rps', 'count', 'avg', 'sum', 'p50', 'p95', 'p99'] },
  labelSelectors: {
    type: 'object', maxProperties: MAX_LABELS_PER_SAMPLE, propertyNames: { maxLength: 100 },
    additionalProperties: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: MAX_LABEL_VALUE_LENGTH } },
  },
};

/** A chart to save (Unleash's console also sends fields of its own, such as `source` and `feature`: ignored). */
export const impactMetricsSchemas = {
  impactChartSchema: {
    type: 'object',
    required: ['metricName', 'timeRange', 'yAxisMin', 'aggregationMode', 'labelSelectors'],
    properties: chartProperties,
  },
};

const chart = {
  type: 'object',
  required: ['id', 'metricName', 'timeRange', 'yAxisMin', 'aggregationMode', 'labelSelectors', 'feature', 'createdAt'],
  properties: { ...chartProperties, feature: { type: ['string', 'null'] }, createdAt: { type: 'string' } },
};

export const impactMetricsReplies = {
  impactChartReplySchema: chart,
  impactChartsSchema: { type: 'object', required: ['configs'], properties: { configs: { type: 'array', items: chart } } },
  impactMetricsDataSchema: {
    type: 'object',
    required: ['start', 'end', 'step', 'series', 'labels'],
    properties: {
      start: { type: 'string' },
      end: { type: 'string' },
      step: { type: 'string' },
      series: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            metric: { type: 'object', additionalProperties: { type: 'string' } },
            data: { type: 'array', items: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 } },
          },
        },
      },
      labels: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    },
  },
  impactMetricsMetadataSchema: {
    type: 'object',
    required: ['metrics'],
    properties: {
      metrics: {
        type: 'array',
        items: {
          type: 'object',
          properties: { name: { type: 'string' }, displayName: { type: 'string' }, type: { type: 'string' }, help: { type: 'string' }, source: { type: 'string' } },
        },
      },
    },
  },
};
