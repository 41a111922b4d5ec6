// Schemas of /api/admin/addons, in Unleash's shape (docs/reference/events-and-webhooks.md): the body an Unleash admin
// or its Terraform provider sends, and what they read back.

const nameList = (maxItems: number) => ({ type: 'array', maxItems, items: { type: 'string', minLength: 1, maxLength: 100 } });

/** What a create or a replace sends. Parameters are strings, as Unleash keeps them. */
const addonInput = {
  type: 'object',
  required: ['provider', 'enabled', 'parameters', 'events'],
  properties: {
    provider: { type: 'string', minLength: 1, maxLength: 100 },
    description: { type: ['string', 'null'], maxLength: 5000 },
    enabled: { type: 'boolean' },
    parameters: {
      type: 'object',
      maxProperties: 20,
      additionalProperties: { type: 'string', maxLength: 64 * 1024 },
    },
    events: nameList(200),
    projects: nameList(1000),
    environments: nameList(1000),
  },
};

export const addonSchemas = {
  createAddonSchema: addonInput,
  updateAddonSchema: addonInput,
};

// Answers.
const str = { type: 'string' };
const strList = { type: 'array', items: str };

/** Where delivery stands: Fanion's addition, so an operator sees a failing receiver. */
const deliveryReply = {
  type: 'object',
  required: ['lastEventId', 'pendingEvents', 'attempts', 'lastError', 'lastAttemptAt', 'nextAttemptAt', 'lastDeliveredAt', 'delivered', 'failed', 'dropped'],
  properties: {
    lastEventId: { type: 'integer', description: 'The last event delivered or passed over; delivery resumes after it' },
    pendingEvents: { type: 'integer', description: 'Events after it, up to the newest durable one (matching or not)' },
    attempts: { type: 'integer', description: 'Failed attempts at the event being sent now' },
    lastError: { type: ['string', 'null'] },
    lastAttemptAt: { type: ['string', 'null'] },
    nextAttemptAt: { type: ['string', 'null'] },
    lastDeliveredAt: { type: ['string', 'null'] },
    delivered: { type: 'integer', description: 'Events delivered since start' },
    failed: { type: 'integer', description: 'Failed attempts since start' },
    dropped: { type: 'integer', description: 'Events given up on after retrying for WEBHOOK_RETRY_FOR_MS, since start' },
  },
};

const addonReply = {
  type: 'object',
  required: ['id', 'provider', 'description', 'enabled', 'parameters', 'events', 'projects', 'environments', 'createdAt'],
  properties: {
    id: { type: 'integer' },
    provider: str,
    description: { type: ['string', 'null'] },
    enabled: { type: 'boolean' },
    parameters: { type: 'object', additionalProperties: str, description: 'Sensitive ones (authorization, signingSecret) read `*****`' },
    events: strList,
    projects: strList,
    environments: strList,
    createdAt: str,
    delivery: deliveryReply,
  },
};

const providerParameter = {
  type: 'object',
  required: ['name', 'displayName', 'type', 'required', 'sensitive'],
  properties: { name: str, displayName: str, type: str, description: str, placeholder: str, required: { type: 'boolean' }, sensitive: { type: 'boolean' } },
};

const providerReply = {
  type: 'object',
  required: ['name', 'displayName', 'description', 'parameters', 'events'],
  properties: { name: str, displayName: str, description: str, documentationUrl: str, parameters: { type: 'array', items: providerParameter }, events: strList },
};

export const addonReplies = {
  addonSchema: addonReply,
  addonsSchema: {
    type: 'object',
    required: ['addons', 'providers'],
    properties: { addons: { type: 'array', items: addonReply }, providers: { type: 'array', items: providerReply } },
  },
};
