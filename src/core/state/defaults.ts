// What exists on first start (docs/decisions/0029-first-start-defaults.md). Written as the first WAL record, so a
// data folder's whole history, defaults included, replays from the log.
import type { Op } from './ops.js';
import type { ReleaseTemplate, StrategyType } from './types.js';

const p = (name: string, type: string, description: string, required = false) => ({ name, type, description, required });

export const BUILTIN_STRATEGY_TYPES: StrategyType[] = [
  { name: 'default', title: null, displayName: 'Standard', description: 'On or off for everyone.', editable: false, deprecated: false, parameters: [] },
  {
    name: 'userWithId', title: null, displayName: 'UserIDs', description: 'On for the listed user ids.', editable: false, deprecated: false,
    parameters: [p('userIds', 'list', 'Comma-separated user ids')],
  },
  {
    name: 'applicationHostname', title: null, displayName: 'Hosts', description: 'On for the listed host names.', editable: false, deprecated: false,
    parameters: [p('hostNames', 'list', 'Comma-separated host names')],
  },
  {
    name: 'remoteAddress', title: null, displayName: 'IPs', description: 'On for the listed IP addresses or CIDR ranges.', editable: false, deprecated: false,
    parameters: [p('IPs', 'list', 'Comma-separated IPs or CIDR ranges')],
  },
  {
    name: 'flexibleRollout', title: null, displayName: 'Gradual rollout', description: 'On for a sticky percentage of users.', editable: false, deprecated: false,
    parameters: [
      p('rollout', 'percentage', 'Percentage 0-100'),
      p('stickiness', 'string', 'Context field used for stickiness'),
      p('groupId', 'string', 'Group id mixed into the hash'),
    ],
  },
  // Accepted so old data keeps working; marked deprecated as in Unleash 5+.
  {
    name: 'gradualRolloutRandom', title: null, displayName: null, description: 'Random percentage (deprecated).', editable: false, deprecated: true,
    parameters: [p('percentage', 'percentage', 'Percentage 0-100')],
  },
  {
    name: 'gradualRolloutSessionId', title: null, displayName: null, description: 'Percentage by session id (deprecated).', editable: false, deprecated: true,
    parameters: [p('percentage', 'percentage', 'Percentage 0-100'), p('groupId', 'string', 'Group id')],
  },
  {
    name: 'gradualRolloutUserId', title: null, displayName: null, description: 'Percentage by user id (deprecated).', editable: false, deprecated: true,
    parameters: [p('percentage', 'percentage', 'Percentage 0-100'), p('groupId', 'string', 'Group id')],
  },
];

/**
 * The release template a new server offers (as Unleash does): a gradual rollout to 25, 50, 75, then
 * 100 % of users, grouped by the flag's name. Its ids are fixed so that every new server, and every
 * node of a cluster, names it alike.
 */
export function builtinReleaseTemplate(now: string): ReleaseTemplate {
  const steps = [25, 50, 75, 100];
  return {
    id: '01JBYFRWNGYRKV0BHH8J6X0FTP',
    name: 'Gradual rollout',
    description: 'Roll the flag out to 25 %, 50 %, 75 %, then 100 % of users.',
    createdByUserId: null,
    createdAt: now,
    archivedAt: null,
    milestones: steps.map((rollout, i) => ({
      id: `01JBYFRWNGYRKV0BHH8J6X0FM${i}`,
      name: `Rollout ${rollout}%`,
      sortOrder: i,
      strategies: [{
        id: `01JBYFRWNGYRKV0BHH8J6X0FS${i}`,
        sortOrder: 0,
        title: null,
        strategyName: 'flexibleRollout',
        parameters: { rollout: String(rollout), stickiness: 'default', groupId: '{{featureName}}' },
        constraints: [],
        variants: [],
        segments: [],
      }],
    })),
  };
}

export function defaultOps(now: string): Op[] {
  return [
    {
      o: 'project.put',
      project: { id: 'default', name: 'Default', description: 'Default project', mode: 'open', defaultStickiness: 'default', createdAt: now, updatedAt: null },
    },
    { o: 'env.put', environment: { name: 'development', type: 'development', enabled: true, protected: false, sortOrder: 100 } },
    { o: 'env.put', environment: { name: 'production', type: 'production', enabled: true, protected: false, sortOrder: 200 } },
    ...BUILTIN_STRATEGY_TYPES.map((strategyType): Op => ({ o: 'strategyType.put', strategyType })),
    { o: 'tagType.put', tagType: { name: 'simple', description: 'Used to simplify filtering of features', icon: '#' } },
    // Only in the first record: a data folder made before release templates existed gets none on replay.
    { o: 'releaseTemplate.put', template: builtinReleaseTemplate(now) },
  ];
}
