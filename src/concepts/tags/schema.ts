// Tag values are trimmed before their 2–50 character rule applies, so the schema only bounds
// the raw string; logic.ts checks the trimmed length.
const tagTypeName = { type: 'string', minLength: 2, maxLength: 50, pattern: "^[A-Za-z0-9\\-_.!~*'()]+$" };

const tag = {
  type: 'object',
  required: ['type', 'value'],
  properties: { type: { type: 'string', minLength: 1, maxLength: 200 }, value: { type: 'string', maxLength: 200 } },
};

export const tagSchemas = {
  createTagTypeSchema: {
    type: 'object',
    required: ['name'],
    properties: {
      name: tagTypeName,
      description: { type: ['string', 'null'], maxLength: 5000 },
      icon: { type: ['string', 'null'], maxLength: 200 },
    },
  },
  updateTagTypeSchema: {
    type: 'object',
    properties: {
      description: { type: ['string', 'null'], maxLength: 5000 },
      icon: { type: ['string', 'null'], maxLength: 200 },
    },
  },
  tagSchema: tag,
  updateTagsSchema: {
    type: 'object',
    required: ['addedTags', 'removedTags'],
    properties: {
      addedTags: { type: 'array', maxItems: 100, items: tag },
      removedTags: { type: 'array', maxItems: 100, items: tag },
    },
  },
};

// Answers.
const version = { type: 'integer' };
const tagReply = { type: 'object', required: ['type', 'value'], properties: { type: { type: 'string' }, value: { type: 'string' } } };
const tagType = { type: 'object', required: ['name', 'description', 'icon'], properties: { name: { type: 'string' }, description: { type: 'string' }, icon: { type: ['string', 'null'] } } };
const tags = { type: 'object', required: ['version', 'tags'], properties: { version, tags: { type: 'array', items: tagReply } } };

export const tagReplies = {
  tagReplySchema: tagReply,
  tagTypeReplySchema: tagType,
  tagsReplySchema: tags,
  tagTypesReplySchema: { type: 'object', required: ['version', 'tagTypes'], properties: { version, tagTypes: { type: 'array', items: tagType } } },
  versionedTagTypeSchema: { type: 'object', required: ['version', 'tagType'], properties: { version, tagType } },
  versionedTagSchema: { type: 'object', required: ['version', 'tag'], properties: { version, tag: tagReply } },
  tagTypeValidSchema: { type: 'object', required: ['valid'], properties: { valid: { const: true } } },
};
