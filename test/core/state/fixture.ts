// A small but varied state for pure-core tests: defaults, two projects, flags with per-environment
// configuration, several strategies (so index order matters), a segment, tags and a token.
import type { CommandEnv } from '../../../src/core/engine/command.js';
import { EventLog } from '../../../src/core/state/events/event-log.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { storeEvent } from '../../../src/core/state/events/stored.js';
import { defaultOps } from '../../../src/core/state/defaults.js';
import { dumpState, loadDump, type StateDump } from '../../../src/core/state/dump.js';
import type { Op } from '../../../src/core/state/ops.js';
import { emptyState, type State } from '../../../src/core/state/state.js';
import type { Addon, ChangeRequest, Constraint, Feature, FeatureEnv, ReleasePlan, Safeguard, Strategy, User } from '../../../src/core/state/types.js';

export const T0 = '2026-01-01T00:00:00.000Z';

export function feature(name: string, extra: Partial<Feature> = {}): Feature {
  return {
    name, project: 'default', type: 'release', description: null, impressionData: false, stale: false, archived: false,
    archivedAt: null, createdAt: T0, lastSeenAt: null, dependencies: [], ...extra,
  };
}

export function featureEnv(environment: string, extra: Partial<FeatureEnv> = {}): FeatureEnv {
  return { environment, enabled: false, variants: [], lastSeenAt: null, ...extra };
}

export function strategy(id: string, featureName: string, environment: string, seq: number, extra: Partial<Strategy> = {}): Strategy {
  return {
    id, featureName, projectId: 'default', environment, name: 'default', title: null, disabled: false, sortOrder: 0,
    constraints: [], parameters: {}, variants: [], segments: [], createdAt: T0, seq, ...extra,
  };
}

const constraint: Constraint = { contextName: 'userId', operator: 'IN', values: ['1', '2'], caseInsensitive: false, inverted: false };

export function fixtureOps(): Op[] {
  return [
    ...defaultOps(T0),
    { o: 'project.put', project: { id: 'other', name: 'Other', description: null, mode: 'open', defaultStickiness: 'userId', createdAt: T0, updatedAt: null } },
    { o: 'feature.put', feature: feature('alpha', { description: 'first' }) },
    { o: 'featureEnv.put', feature: 'alpha', env: featureEnv('development', { enabled: true }) },
    { o: 'featureEnv.put', feature: 'alpha', env: featureEnv('production') },
    { o: 'feature.put', feature: feature('beta', { dependencies: [{ feature: 'alpha', enabled: true, variants: [] }] }) },
    { o: 'featureEnv.put', feature: 'beta', env: featureEnv('development') },
    { o: 'feature.put', feature: feature('gone', { archived: true, archivedAt: T0 }) },
    { o: 'featureEnv.put', feature: 'gone', env: featureEnv('development') },
    { o: 'strategy.put', strategy: strategy('s1', 'alpha', 'development', 1, { constraints: [constraint] }) },
    { o: 'strategy.put', strategy: strategy('s2', 'alpha', 'development', 2, { sortOrder: 1, segments: [1] }) },
    { o: 'strategy.put', strategy: strategy('s3', 'alpha', 'development', 3, { sortOrder: 2 }) },
    { o: 'strategy.put', strategy: strategy('s4', 'alpha', 'production', 4) },
    { o: 'segment.put', segment: { id: 1, name: 'seg', description: null, project: null, constraints: [constraint], createdAt: T0, createdBy: 'admin' } },
    { o: 'tagType.put', tagType: { name: 'team', description: 'owning team', icon: null } },
    { o: 'contextField.put', field: { name: 'country', description: '', legalValues: [{ value: 'NO', description: '' }], stickiness: false, sortOrder: 10, createdAt: T0 } },
    { o: 'tag.put', tag: { type: 'simple', value: 'x' } },
    { o: 'tag.put', tag: { type: 'team', value: 'core' } },
    { o: 'featureTag.add', feature: 'alpha', tag: { type: 'simple', value: 'x' } },
    { o: 'featureTag.add', feature: 'alpha', tag: { type: 'team', value: 'core' } },
    { o: 'featureTag.add', feature: 'beta', tag: { type: 'simple', value: 'x' } },
    {
      o: 'token.put',
      token: { hash: 'h1', tokenName: 't1', type: 'client', environment: 'development', projects: ['*'], expiresAt: null, createdAt: T0, prefix: 'default:dev' },
    },
    { o: 'token.revoke', revoked: { hash: 'h0', revokedAt: T0 } },
    { o: 'addon.put', addon: addon(1) },
    { o: 'addon.cursor', id: 1, eventId: 1 },
    { o: 'user.put', user: user(1) },
    { o: 'session.put', session: { hash: 's1', userId: 1, method: 'password', createdAt: T0, expiresAt: '2026-01-03T00:00:00.000Z', seenAt: T0 } },
    { o: 'pat.put', token: { hash: 'p1', id: 1, userId: 1, description: 'ci', expiresAt: '2027-01-01T00:00:00.000Z', createdAt: T0, seenAt: null } },
    { o: 'passwordLink.put', link: { hash: 'l1', userId: 1, kind: 'invite', createdAt: T0, expiresAt: '2026-01-02T00:00:00.000Z', createdBy: 'admin' } },
    { o: 'impact.put', key: 'errors', head: { name: 'errors', help: 'h', type: 'counter', labels: [['origin', 'sdk']], le: [], total: [3] } },
    { o: 'impact.point', key: 'errors', tier: 0, point: { t: 60, v: [3] }, since: 0 },
    { o: 'impactChart.put', chart: { id: 'c1', metricName: 'errors', timeRange: 'hour', yAxisMin: 'auto', aggregationMode: 'count', labelSelectors: {}, feature: null, createdAt: T0 } },
    { o: 'releasePlan.put', plan: releasePlan('rp1', 'gone', 'development') },
    { o: 'safeguard.put', safeguard: safeguard('sg1', 'alpha', 'development') },
    { o: 'safeguard.put', safeguard: safeguard('sg2', 'gone', 'development', { action: { type: 'pauseReleasePlanProgressions', id: 'rp1' } }) },
    { o: 'changeRequest.put', request: changeRequest(1, 'alpha', 'production') },
    { o: 'changeRule.put', rule: { project: 'default', environment: 'production', enabled: true, requiredApprovals: 2 } },
    { o: 'changeRule.put', rule: { project: 'other', environment: 'production', enabled: true, requiredApprovals: 1 } },
  ];
}

/** A draft change request switching a flag on, as the fixture and the op tests use it. */
export function changeRequest(id: number, feature: string, environment: string, over: Partial<ChangeRequest> = {}): ChangeRequest {
  const by = { id: 1, username: 'admin' };
  return {
    id, title: null, project: 'default', environment, minApprovals: 1, state: 'Draft', stateTimestamps: { Draft: T0 },
    features: [{ name: feature, changes: [{ id: id * 10, action: 'updateEnabled', payload: { enabled: true }, createdAt: T0, createdBy: by, base: null }] }],
    segments: [], approvals: [], rejections: [], comments: [], createdBy: by, createdAt: T0, ...over,
  };
}

/** A safeguard on a flag's environment (errors over the last hour above 5), as the fixture and the op tests use it. */
export function safeguard(id: string, featureName: string, environment: string, over: Partial<Safeguard> = {}): Safeguard {
  return {
    id, featureName, environment, action: { type: 'disableFeatureEnvironment', project: 'default', featureName, environment },
    impactMetric: { id: `${id}-m`, metricName: 'errors', timeRange: 'hour', aggregationMode: 'count', labelSelectors: {} },
    triggerCondition: { operator: '>', threshold: 5 }, createdAt: T0, triggeredAt: null, ...over,
  };
}

/** A release plan of two milestones (none started), as the fixture and the op tests use it. */
export function releasePlan(id: string, featureName: string, environment: string, over: Partial<ReleasePlan> = {}): ReleasePlan {
  const milestone = (n: number) => ({
    id: `${id}-m${n}`, name: `Step ${n}`, sortOrder: n, startedAt: null, transitionCondition: null, progressionTarget: null, progressionExecutedAt: null, pausedAt: null,
    strategies: [strategy(`${id}-s${n}`, featureName, environment, 0, { name: 'flexibleRollout', parameters: { rollout: String(50 * n), stickiness: 'default', groupId: featureName } })],
  });
  return {
    id, name: 'Plan', description: null, createdByUserId: null, createdAt: T0, featureName, environment, releasePlanTemplateId: 'tpl',
    activeMilestoneId: null, milestones: [milestone(1), milestone(2)], ...over,
  };
}

/** A person, as the fixture and the op tests use it. */
export function user(id: number, over: Partial<User> = {}): User {
  return {
    id, name: `Person ${id}`, email: `person${id}@example.com`, username: null, rootRole: 'Editor', projects: [], environments: null,
    passwordHash: null, active: true, sso: null, createdAt: T0, seenAt: null, ...over,
  };
}

/** A webhook addon, as the fixture and the op tests use it. */
export function addon(id: number, over: Partial<Addon> = {}): Addon {
  return {
    id, provider: 'webhook', description: null, enabled: true, parameters: { url: 'http://127.0.0.1:9/hook' }, events: ['*'], projects: [], environments: [],
    signingSecret: 'fixture-signing-secret', createdAt: T0, ...over,
  };
}

/** The fixture state; its one record also carries two events so the event log is not empty. */
export function fixtureState(): State {
  const s = emptyState();
  applyRecord(s, {
    lsn: 1,
    ops: fixtureOps(),
    events: [1, 2].map((id) => ({
      id, type: 'feature-created', createdAt: T0, createdBy: 'admin', createdByUserId: null, environment: null, project: 'default',
      featureName: id === 1 ? 'alpha' : 'beta', data: { n: id }, preData: null, tags: null,
    })).map(storeEvent),
  }, false);
  return s;
}

/** A deep copy of the dump: later in-place mutation of the state cannot leak into it. */
export function snapshot(s: State): StateDump {
  return structuredClone(dumpState(s));
}

/** A deterministic command environment: fixed clock, counter ids. */
export function fixedEnv(now = '2026-02-02T02:02:02.000Z'): CommandEnv {
  let n = 0;
  return { now, newId: () => `id-${++n}`, actor: { name: 'tester', userId: 7 } };
}

/** Freezes an object graph, Maps' values included, so a command that mutates its input throws. */
export function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  // Typed arrays cannot be frozen, and the event log keeps lazily built indexes that reads may
  // fill in; both stay unfrozen, and the before/after dump (events included) still catches changes.
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof EventLog) return value;
  seen.add(value);
  if (value instanceof Map) {
    for (const [k, v] of value) {
      deepFreeze(k, seen);
      deepFreeze(v, seen);
    }
    // A frozen Map can still be changed through set/delete; make those throw too.
    const m = value as unknown as Map<unknown, unknown>;
    const refuse = () => {
      throw new TypeError('mutating a frozen Map');
    };
    Object.defineProperty(m, 'set', { value: refuse });
    Object.defineProperty(m, 'delete', { value: refuse });
    Object.defineProperty(m, 'clear', { value: refuse });
  } else if (value instanceof Set) {
    for (const v of value) deepFreeze(v, seen);
  }
  for (const key of Reflect.ownKeys(value as object)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  return Object.freeze(value);
}

/** A factory of independent copies of `s` (for chaining pure runs: each run freezes its own copy). */
export function copiesOf(s: State): () => State {
  const d = snapshot(s);
  return () => loadDump(structuredClone(d));
}
