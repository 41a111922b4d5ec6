import { variantReply } from '../strategies/schema.js';
import { nameSchema } from '../../core/state/names.js';
import { variantListSchema } from './weights.js';

export { MAX_VARIANTS } from './weights.js';

const variants = variantListSchema;

export const variantSchemas = {
  variantsSchema: variants,
  pushVariantsSchema: {
    type: 'object',
    required: ['environments', 'variants'],
    properties: {
      environments: { type: 'array', minItems: 1, maxItems: 50, uniqueItems: true, items: nameSchema },
      variants,
    },
  },
};

export const variantReplies = {
  variantsReplySchema: { type: 'object', required: ['version', 'variants'], properties: { version: { type: 'integer' }, variants: { type: 'array', items: variantReply } } },
};
