import { chartProperties } from '../impact-metrics/schema.js';

const str = { type: 'string' };
const { metricName, timeRange, aggregationMode, labelSelectors } = chartProperties;

export const safeguardSchemas = {
  safeguardSchema: {
    type: 'object',
    required: ['impactMetric', 'triggerCondition'],
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 100 },
      impactMetric: {
        type: 'object',
        required: ['metricName', 'timeRange', 'aggregationMode'],
        properties: { metricName, timeRange, aggregationMode, labelSelectors },
      },
      triggerCondition: {
        type: 'object',
        required: ['operator', 'threshold'],
        properties: { operator: { enum: ['>', '<'] }, threshold: { type: 'number' } },
      },
    },
  },
};

const safeguard = {
  type: 'object',
  required: ['id', 'action', 'triggerCondition', 'impactMetric'],
  properties: {
    id: str,
    action: { type: 'object', required: ['type'], properties: { type: { enum: ['pauseReleasePlanProgressions', 'disableFeatureEnvironment'] }, id: str, project: str, featureName: str, environment: str } },
    triggerCondition: { type: 'object', properties: { operator: { enum: ['>', '<'] }, threshold: { type: 'number' } } },
    impactMetric: { type: 'object', properties: { id: str, metricName: str, timeRange, aggregationMode, labelSelectors: { type: 'object' } } },
    createdAt: str,
    triggeredAt: { type: ['string', 'null'] },
  },
};

export const safeguardReplies = {
  safeguardReply: safeguard,
  safeguardsReply: { type: 'array', items: safeguard },
};
