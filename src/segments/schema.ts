import { constraintListSchema } from '../constraints/constraints.js';
import { segmentNameSchema } from '../state/names.js';

const segment = {
  type: 'object',
  required: ['name', 'constraints'],
  properties: {
    name: segmentNameSchema,
    description: { type: ['string', 'null'], maxLength: 5000 },
    project: { type: ['string', 'null'], maxLength: 100 },
    constraints: constraintListSchema,
  },
};

export const segmentSchemas = {
  createSegmentSchema: segment,
  updateSegmentSchema: segment,
};
