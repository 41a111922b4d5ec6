// Schemas of the change request workflow's bodies and answers. A change's payload is checked
// against its action's schema (the direct route's, actions.ts) by ajv, as the direct route would.
import { nameSchema } from '../../core/state/names.js';
import { ACTION_NAMES, ACTIONS } from './actions.js';
import { MAX_CHANGES } from './workflow.js';

const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };

const change = {
  type: 'object',
  required: ['action'],
  properties: { feature: nameSchema, action: { enum: ACTION_NAMES }, payload: {} },
  // The payload's schema follows the action (ajv names the field: `payload.name`, `[2].payload.id`).
  allOf: ACTION_NAMES.map((name) => ({
    if: { required: ['action'], properties: { action: { const: name } } },
    then: { required: name === 'archiveFeature' ? [] : ['payload'], properties: { payload: ACTIONS[name].payload } },
  })),
};

const person = { type: 'object', required: ['username'], properties: { id: { type: ['integer', 'null'] }, username: str, imageUrl: nullableStr } };
const changeReply = {
  type: 'object',
  required: ['id', 'action', 'payload', 'createdAt', 'createdBy'],
  properties: { id: { type: 'integer' }, action: str, payload: {}, createdAt: str, createdBy: person, name: str, conflict: str },
};
const changeRequestReply = {
  type: 'object',
  required: ['id', 'environment', 'project', 'minApprovals', 'state', 'stateTimestamps', 'features', 'segments', 'approvals', 'rejections', 'comments', 'createdBy', 'createdAt'],
  properties: {
    id: { type: 'integer' }, title: str, environment: str, project: str, minApprovals: { type: 'integer' },
    state: { enum: ['Draft', 'In review', 'Approved', 'Scheduled', 'Applied', 'Rejected', 'Cancelled'] },
    stateTimestamps: { type: 'object' },
    features: { type: 'array', items: { type: 'object', required: ['name', 'changes'], properties: { name: str, changes: { type: 'array', items: changeReply }, conflict: str } } },
    segments: { type: 'array', items: changeReply },
    approvals: { type: 'array', items: { type: 'object', properties: { createdBy: person, createdAt: str } } },
    rejections: { type: 'array', items: { type: 'object', properties: { createdBy: person, createdAt: str } } },
    comments: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, text: str, createdBy: person, createdAt: str } } },
    createdBy: person,
    createdAt: str,
    schedule: {
      type: 'object',
      required: ['scheduledAt', 'status'],
      properties: { scheduledAt: str, status: { enum: ['pending', 'failed', 'suspended'] }, reason: str, failureReason: str },
    },
  },
};

export const workflowSchemas = {
  changeRequestChangeSchema: change,
  changeRequestChangesSchema: { type: 'array', minItems: 1, maxItems: MAX_CHANGES, items: change },
  /** One change or a list of them; checked further by the two schemas above (so errors name the field). */
  changeRequestCreateSchema: { type: ['object', 'array'] },
  changeRequestStateSchema: {
    type: 'object',
    required: ['state'],
    properties: {
      state: { enum: ['In review', 'Approved', 'Scheduled', 'Applied', 'Rejected', 'Cancelled'] },
      comment: { type: 'string', maxLength: 10_000 },
      // With `Scheduled`: when to apply it (in the future, within MAX_SCHEDULE_AHEAD_DAYS; the workflow checks).
      scheduledAt: { type: 'string', format: 'date-time', maxLength: 100 },
    },
  },
  changeRequestTitleSchema: { type: 'object', required: ['title'], properties: { title: { type: 'string', maxLength: 500 } } },
  changeRequestAddCommentSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string', minLength: 1, maxLength: 10_000 } } },
};

export const workflowReplies = {
  changeRequestSchema: changeRequestReply,
  changeRequestsSchema: { type: 'array', items: changeRequestReply },
  changeRequestsCountSchema: {
    type: 'object',
    required: ['total', 'approved', 'applied', 'rejected', 'reviewRequired', 'scheduled'],
    properties: { total: { type: 'integer' }, approved: { type: 'integer' }, applied: { type: 'integer' }, rejected: { type: 'integer' }, reviewRequired: { type: 'integer' }, scheduled: { type: 'integer' } },
  },
  changeRequestsScheduledSchema: {
    type: 'array',
    items: { type: 'object', required: ['id', 'environment'], properties: { id: { type: 'integer' }, environment: str, title: str } },
  },
  actionableChangeRequestsSchema: { type: 'object', required: ['total'], properties: { total: { type: 'integer' } } },
  availableChangeRequestReviewersSchema: {
    type: 'object',
    required: ['reviewers'],
    properties: { reviewers: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: nullableStr, email: nullableStr, username: nullableStr, imageUrl: nullableStr } } } },
  },
};
