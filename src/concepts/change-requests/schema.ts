// Bodies and answers of the change request configuration routes, as Unleash Enterprise names them.
import { MAX_APPROVALS } from './config.js';

export const changeRequestConfigSchemas = {
  updateChangeRequestEnvironmentConfigSchema: {
    type: 'object',
    required: ['changeRequestsEnabled'],
    properties: {
      changeRequestsEnabled: { type: 'boolean', description: '`true` if a change in this environment of the project needs a change request.' },
      // 0 passes here and is refused by the command unless change requests are being turned off.
      requiredApprovals: { type: 'integer', minimum: 0, maximum: MAX_APPROVALS, description: 'Approvals a change request needs here, 1 to 10; left out keeps the current number.' },
    },
  },
};

const environmentConfig = {
  type: 'object',
  required: ['environment', 'type', 'changeRequestEnabled', 'requiredApprovals'],
  properties: {
    environment: { type: 'string' },
    type: { type: 'string' },
    changeRequestEnabled: { type: 'boolean' },
    requiredApprovals: { type: ['integer', 'null'] },
  },
};

export const changeRequestConfigReplies = {
  changeRequestConfigSchema: { type: 'array', items: environmentConfig },
};
