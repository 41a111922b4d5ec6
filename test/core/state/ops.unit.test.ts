// applyOp's undo is what the engine relies on when a WAL write fails: it must put the state
// back exactly, for every kind of op, in every situation (new key, replaced key, missing key).
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { applyRecord } from '../../../src/core/state/apply.js';
import { storeEvent } from '../../../src/core/state/events/stored.js';
import { dumpState, loadDump } from '../../../src/core/state/dump.js';
import { applyOp, type Op } from '../../../src/core/state/ops.js';
import { strategiesOf, type State } from '../../../src/core/state/state.js';
import { ROOT } from '../../helpers/paths.js';
import { builtinReleaseTemplate } from '../../../src/core/state/defaults.js';
import { addon, changeRequest, feature, featureEnv, fixtureState, releasePlan, safeguard, snapshot, strategy, T0, user } from './fixture.js';

const T1 = '2026-03-03T03:03:03.000Z';

interface Case {
  name: string;
  op: Op;
  /** Whether the op changes the fixture state at all (no-ops must stay no-ops). */
  changes: boolean;
}

const CASES: Record<string, Case[]> = {
  'project.put': [
    { name: 'adds a project', changes: true, op: { o: 'project.put', project: { id: 'p2', name: 'P2', description: 'd', mode: 'open', defaultStickiness: 'default', createdAt: T1, updatedAt: null } } },
    { name: 'replaces a project', changes: true, op: { o: 'project.put', project: { id: 'default', name: 'Renamed', description: null, mode: 'open', defaultStickiness: 'default', createdAt: T0, updatedAt: T1 } } },
  ],
  'project.del': [
    { name: 'removes a project', changes: true, op: { o: 'project.del', id: 'other' } },
    { name: 'is a no-op for an unknown project', changes: false, op: { o: 'project.del', id: 'nope' } },
  ],
  'env.put': [
    { name: 'adds an environment', changes: true, op: { o: 'env.put', environment: { name: 'staging', type: 'test', enabled: true, protected: false, sortOrder: 150 } } },
    { name: 'replaces an environment', changes: true, op: { o: 'env.put', environment: { name: 'production', type: 'production', enabled: false, protected: true, sortOrder: 1 } } },
  ],
  'env.del': [
    { name: 'removes an environment', changes: true, op: { o: 'env.del', name: 'production' } },
    { name: 'is a no-op for an unknown environment', changes: false, op: { o: 'env.del', name: 'nope' } },
  ],
  'feature.put': [
    { name: 'adds a flag', changes: true, op: { o: 'feature.put', feature: feature('gamma') } },
    { name: 'replaces a flag', changes: true, op: { o: 'feature.put', feature: feature('alpha', { stale: true, description: 'changed' }) } },
  ],
  'feature.del': [
    { name: 'removes a flag with its environments and tags', changes: true, op: { o: 'feature.del', name: 'alpha' } },
    { name: 'removes a flag without tags', changes: true, op: { o: 'feature.del', name: 'gone' } },
    { name: 'is a no-op for an unknown flag', changes: false, op: { o: 'feature.del', name: 'nope' } },
  ],
  'featureEnv.put': [
    { name: 'creates the first environment of a flag', changes: true, op: { o: 'featureEnv.put', feature: 'gamma', env: featureEnv('development') } },
    { name: 'adds an environment to a flag', changes: true, op: { o: 'featureEnv.put', feature: 'beta', env: featureEnv('production', { enabled: true }) } },
    { name: 'replaces an environment of a flag', changes: true, op: { o: 'featureEnv.put', feature: 'alpha', env: featureEnv('development', { enabled: false, lastSeenAt: T1 }) } },
  ],
  'featureEnv.del': [
    { name: 'removes an environment of a flag', changes: true, op: { o: 'featureEnv.del', feature: 'alpha', environment: 'production' } },
    { name: 'is a no-op for an unknown flag', changes: false, op: { o: 'featureEnv.del', feature: 'nope', environment: 'production' } },
    { name: 'is a no-op for an unconfigured environment', changes: false, op: { o: 'featureEnv.del', feature: 'beta', environment: 'production' } },
  ],
  'strategy.put': [
    { name: 'appends to an existing flag/environment list', changes: true, op: { o: 'strategy.put', strategy: strategy('s9', 'alpha', 'development', 9) } },
    { name: 'starts a new flag/environment list', changes: true, op: { o: 'strategy.put', strategy: strategy('s9', 'beta', 'development', 9) } },
    { name: 'replaces a strategy in place', changes: true, op: { o: 'strategy.put', strategy: strategy('s2', 'alpha', 'development', 2, { sortOrder: -5, disabled: true }) } },
    { name: 'keeps nextStrategySeq when the seq is old', changes: true, op: { o: 'strategy.put', strategy: strategy('s9', 'alpha', 'production', 1) } },
  ],
  'strategy.del': [
    { name: 'removes a strategy from the middle of its list', changes: true, op: { o: 'strategy.del', id: 's2' } },
    { name: 'removes the only strategy of a list', changes: true, op: { o: 'strategy.del', id: 's4' } },
    { name: 'is a no-op for an unknown strategy', changes: false, op: { o: 'strategy.del', id: 'nope' } },
  ],
  'segment.put': [
    { name: 'adds a segment and moves nextSegmentId', changes: true, op: { o: 'segment.put', segment: { id: 5, name: 's5', description: null, project: 'default', constraints: [], createdAt: T1, createdBy: 'x' } } },
    { name: 'replaces a segment', changes: true, op: { o: 'segment.put', segment: { id: 1, name: 'seg2', description: 'd', project: null, constraints: [], createdAt: T0, createdBy: 'admin' } } },
  ],
  'segment.del': [
    { name: 'removes a segment', changes: true, op: { o: 'segment.del', id: 1 } },
    { name: 'is a no-op for an unknown segment', changes: false, op: { o: 'segment.del', id: 99 } },
  ],
  'tagType.put': [
    { name: 'adds a tag type', changes: true, op: { o: 'tagType.put', tagType: { name: 'area', description: '', icon: null } } },
    { name: 'replaces a tag type', changes: true, op: { o: 'tagType.put', tagType: { name: 'team', description: 'changed', icon: 'x' } } },
  ],
  'tagType.del': [
    { name: 'removes a tag type', changes: true, op: { o: 'tagType.del', name: 'team' } },
    { name: 'is a no-op for an unknown tag type', changes: false, op: { o: 'tagType.del', name: 'nope' } },
  ],
  'tag.put': [
    { name: 'adds a tag', changes: true, op: { o: 'tag.put', tag: { type: 'simple', value: 'y' } } },
    { name: 'puts an existing tag again', changes: false, op: { o: 'tag.put', tag: { type: 'simple', value: 'x' } } },
  ],
  'tag.del': [
    { name: 'removes a tag', changes: true, op: { o: 'tag.del', tag: { type: 'team', value: 'core' } } },
    { name: 'is a no-op for an unknown tag', changes: false, op: { o: 'tag.del', tag: { type: 'team', value: 'nope' } } },
  ],
  'featureTag.add': [
    { name: 'tags a flag that has tags', changes: true, op: { o: 'featureTag.add', feature: 'beta', tag: { type: 'team', value: 'core' } } },
    { name: 'tags a flag that had none', changes: true, op: { o: 'featureTag.add', feature: 'gone', tag: { type: 'simple', value: 'x' } } },
    { name: 'is a no-op for a tag the flag has', changes: false, op: { o: 'featureTag.add', feature: 'alpha', tag: { type: 'simple', value: 'x' } } },
  ],
  'featureTag.del': [
    { name: 'removes one of several tags', changes: true, op: { o: 'featureTag.del', feature: 'alpha', tag: { type: 'simple', value: 'x' } } },
    { name: 'removes the last tag of a flag', changes: true, op: { o: 'featureTag.del', feature: 'beta', tag: { type: 'simple', value: 'x' } } },
    { name: 'is a no-op for a flag without tags', changes: false, op: { o: 'featureTag.del', feature: 'gone', tag: { type: 'simple', value: 'x' } } },
    { name: 'is a no-op for a tag the flag lacks', changes: false, op: { o: 'featureTag.del', feature: 'beta', tag: { type: 'team', value: 'core' } } },
  ],
  'strategyType.put': [
    { name: 'adds a strategy type', changes: true, op: { o: 'strategyType.put', strategyType: { name: 'custom', title: null, displayName: 'C', description: '', editable: true, deprecated: false, parameters: [] } } },
    { name: 'replaces a strategy type', changes: true, op: { o: 'strategyType.put', strategyType: { name: 'default', title: 't', displayName: null, description: 'x', editable: false, deprecated: true, parameters: [] } } },
  ],
  'strategyType.del': [
    { name: 'removes a strategy type', changes: true, op: { o: 'strategyType.del', name: 'gradualRolloutRandom' } },
    { name: 'is a no-op for an unknown strategy type', changes: false, op: { o: 'strategyType.del', name: 'nope' } },
  ],
  'contextField.put': [
    { name: 'adds a context field', changes: true, op: { o: 'contextField.put', field: { name: 'tier', description: 'd', legalValues: [], stickiness: true, sortOrder: 1, createdAt: T0 } } },
    { name: 'replaces a context field', changes: true, op: { o: 'contextField.put', field: { name: 'country', description: 'x', legalValues: [], stickiness: false, sortOrder: 10, createdAt: T0 } } },
  ],
  'contextField.del': [
    { name: 'removes a context field', changes: true, op: { o: 'contextField.del', name: 'country' } },
    { name: 'is a no-op for an unknown context field', changes: false, op: { o: 'contextField.del', name: 'nope' } },
  ],
  'token.put': [
    { name: 'adds a token', changes: true, op: { o: 'token.put', token: { hash: 'h2', tokenName: 't2', type: 'admin', environment: '*', projects: ['*'], expiresAt: null, createdAt: T1, prefix: '*:*' } } },
    { name: 'replaces a token', changes: true, op: { o: 'token.put', token: { hash: 'h1', tokenName: 't1', type: 'client', environment: 'development', projects: ['*'], expiresAt: T1, createdAt: T0, prefix: 'default:dev' } } },
  ],
  'token.del': [
    { name: 'removes a token', changes: true, op: { o: 'token.del', hash: 'h1' } },
    { name: 'is a no-op for an unknown token', changes: false, op: { o: 'token.del', hash: 'nope' } },
  ],
  'token.revoke': [
    { name: 'records a revoked token', changes: true, op: { o: 'token.revoke', revoked: { hash: 'h1', revokedAt: T1 } } },
    { name: 'records a token revoked again', changes: true, op: { o: 'token.revoke', revoked: { hash: 'h0', revokedAt: T1 } } },
  ],
  'addon.put': [
    { name: 'adds an addon and moves nextAddonId', changes: true, op: { o: 'addon.put', addon: addon(7) } },
    { name: 'replaces an addon', changes: true, op: { o: 'addon.put', addon: addon(1, { enabled: false, events: ['feature-created'] }) } },
  ],
  'addon.del': [
    { name: 'removes an addon and its cursor', changes: true, op: { o: 'addon.del', id: 1 } },
    { name: 'is a no-op for an unknown addon', changes: false, op: { o: 'addon.del', id: 99 } },
  ],
  'webhooks.lead': [
    { name: 'hands webhook delivery to a node, in a new term', changes: true, op: { o: 'webhooks.lead', term: 1, node: 'node-a' } },
  ],
  'metrics.report': [
    { name: 'keeps nothing of a node\'s SDK metrics report', changes: false, op: { o: 'metrics.report', node: 'node-a', report: { apps: [], instances: [], counts: [], unknown: [] } } },
  ],
  'addon.cursor': [
    { name: 'moves a cursor', changes: true, op: { o: 'addon.cursor', id: 1, eventId: 2 } },
    { name: 'is a no-op for an unknown addon', changes: false, op: { o: 'addon.cursor', id: 99, eventId: 2 } },
  ],
  'user.put': [
    { name: 'adds a person and moves nextUserId', changes: true, op: { o: 'user.put', user: user(5, { rootRole: 'Viewer' }) } },
    { name: 'replaces a person', changes: true, op: { o: 'user.put', user: user(1, { active: false, projects: [{ project: 'other', role: 'Member' }] }) } },
  ],
  'user.del': [
    { name: 'removes a person', changes: true, op: { o: 'user.del', id: 1 } },
    { name: 'is a no-op for an unknown person', changes: false, op: { o: 'user.del', id: 99 } },
  ],
  'session.put': [
    { name: 'adds a session', changes: true, op: { o: 'session.put', session: { hash: 's2', userId: 1, method: 'oidc', createdAt: T1, expiresAt: T1, seenAt: T1 } } },
    { name: 'notes when a session was seen', changes: true, op: { o: 'session.put', session: { hash: 's1', userId: 1, method: 'password', createdAt: T0, expiresAt: '2026-01-03T00:00:00.000Z', seenAt: T1 } } },
  ],
  'session.del': [
    { name: 'removes a session', changes: true, op: { o: 'session.del', hash: 's1' } },
    { name: 'is a no-op for an unknown session', changes: false, op: { o: 'session.del', hash: 'nope' } },
  ],
  'pat.put': [
    { name: 'adds a personal token and moves nextPersonalTokenId', changes: true, op: { o: 'pat.put', token: { hash: 'p2', id: 4, userId: 1, description: 'x', expiresAt: T1, createdAt: T1, seenAt: null } } },
    { name: 'notes when a personal token was seen', changes: true, op: { o: 'pat.put', token: { hash: 'p1', id: 1, userId: 1, description: 'ci', expiresAt: '2027-01-01T00:00:00.000Z', createdAt: T0, seenAt: T1 } } },
  ],
  'pat.del': [
    { name: 'removes a personal token', changes: true, op: { o: 'pat.del', hash: 'p1' } },
    { name: 'is a no-op for an unknown personal token', changes: false, op: { o: 'pat.del', hash: 'nope' } },
  ],
  'passwordLink.put': [
    { name: 'adds a password link', changes: true, op: { o: 'passwordLink.put', link: { hash: 'l2', userId: 1, kind: 'reset', createdAt: T1, expiresAt: T1, createdBy: 'admin' } } },
  ],
  'passwordLink.del': [
    { name: 'removes a password link', changes: true, op: { o: 'passwordLink.del', hash: 'l1' } },
    { name: 'is a no-op for an unknown link', changes: false, op: { o: 'passwordLink.del', hash: 'nope' } },
  ],
  'impact.put': [
    { name: 'adds a series', changes: true, op: { o: 'impact.put', key: 'new', head: { name: 'new', help: '', type: 'gauge', labels: [], le: [], total: [1] } } },
    { name: 'sets a series\' total, keeping its points', changes: true, op: { o: 'impact.put', key: 'errors', head: { name: 'errors', help: 'h', type: 'counter', labels: [['origin', 'sdk']], le: [], total: [5] } } },
    { name: 'starts a series of another type over', changes: true, op: { o: 'impact.put', key: 'errors', head: { name: 'errors', help: 'h', type: 'gauge', labels: [['origin', 'sdk']], le: [], total: [5] } } },
  ],
  'impact.point': [
    { name: 'adds a point, dropping those before since', changes: true, op: { o: 'impact.point', key: 'errors', tier: 0, point: { t: 180, v: [1] }, since: 120 } },
    { name: 'replaces the point of the same time', changes: true, op: { o: 'impact.point', key: 'errors', tier: 0, point: { t: 60, v: [9] }, since: 0 } },
    { name: 'adds a tier', changes: true, op: { o: 'impact.point', key: 'errors', tier: 2, point: { t: 0, v: [1] }, since: 0 } },
    { name: 'is a no-op for an unknown series', changes: false, op: { o: 'impact.point', key: 'nope', tier: 0, point: { t: 60, v: [1] }, since: 0 } },
  ],
  'impact.del': [
    { name: 'removes a series', changes: true, op: { o: 'impact.del', key: 'errors' } },
    { name: 'is a no-op for an unknown series', changes: false, op: { o: 'impact.del', key: 'nope' } },
  ],
  'impactChart.put': [
    { name: 'adds a chart', changes: true, op: { o: 'impactChart.put', chart: { id: 'c2', metricName: 'm', timeRange: 'day', yAxisMin: 'zero', aggregationMode: 'rps', labelSelectors: { appName: ['a'] }, feature: 'alpha', createdAt: T1 } } },
    { name: 'replaces a chart', changes: true, op: { o: 'impactChart.put', chart: { id: 'c1', title: 'Errors', metricName: 'errors', timeRange: 'week', yAxisMin: 'auto', aggregationMode: 'count', labelSelectors: {}, feature: null, createdAt: T0 } } },
  ],
  'impactChart.del': [
    { name: 'removes a chart', changes: true, op: { o: 'impactChart.del', id: 'c1' } },
    { name: 'is a no-op for an unknown chart', changes: false, op: { o: 'impactChart.del', id: 'nope' } },
  ],
  'releaseTemplate.put': [
    { name: 'adds a template', changes: true, op: { o: 'releaseTemplate.put', template: { ...builtinReleaseTemplate(T1), id: 'tpl2', name: 'Other' } } },
    { name: 'replaces the built-in one', changes: true, op: { o: 'releaseTemplate.put', template: { ...builtinReleaseTemplate(T0), archivedAt: T1 } } },
  ],
  'releaseTemplate.del': [
    { name: 'removes a template', changes: true, op: { o: 'releaseTemplate.del', id: builtinReleaseTemplate(T0).id } },
    { name: 'is a no-op for an unknown template', changes: false, op: { o: 'releaseTemplate.del', id: 'nope' } },
  ],
  'releasePlan.put': [
    { name: 'applies a plan to a flag environment', changes: true, op: { o: 'releasePlan.put', plan: releasePlan('rp2', 'alpha', 'development') } },
    { name: 'starts a milestone (replaces the plan)', changes: true, op: { o: 'releasePlan.put', plan: releasePlan('rp1', 'gone', 'development', { activeMilestoneId: 'rp1-m1' }) } },
  ],
  'releasePlan.del': [
    { name: 'removes a plan', changes: true, op: { o: 'releasePlan.del', feature: 'gone', environment: 'development' } },
    { name: 'is a no-op where there is none', changes: false, op: { o: 'releasePlan.del', feature: 'beta', environment: 'development' } },
  ],
  'safeguard.put': [
    { name: 'adds a safeguard', changes: true, op: { o: 'safeguard.put', safeguard: safeguard('sg3', 'beta', 'development') } },
    { name: 'records a firing (replaces the safeguard)', changes: true, op: { o: 'safeguard.put', safeguard: safeguard('sg1', 'alpha', 'development', { triggeredAt: T1 }) } },
  ],
  'safeguard.del': [
    { name: 'removes a safeguard', changes: true, op: { o: 'safeguard.del', id: 'sg1' } },
    { name: 'is a no-op for an unknown safeguard', changes: false, op: { o: 'safeguard.del', id: 'nope' } },
  ],
  'changeRequest.put': [
    { name: 'adds a change request (and moves the id counters past it)', changes: true, op: { o: 'changeRequest.put', request: changeRequest(7, 'beta', 'production') } },
    { name: 'moves one along (replaces it)', changes: true, op: { o: 'changeRequest.put', request: changeRequest(1, 'alpha', 'production', { state: 'In review' }) } },
  ],
  'changeRequest.del': [
    { name: 'removes a change request (a draft discarded)', changes: true, op: { o: 'changeRequest.del', id: 1 } },
    { name: 'is a no-op for an unknown one', changes: false, op: { o: 'changeRequest.del', id: 99 } },
  ],
  'changeRule.put': [
    { name: 'protects an environment', changes: true, op: { o: 'changeRule.put', rule: { project: 'default', environment: 'development', enabled: true, requiredApprovals: 1 } } },
    { name: 'replaces a rule', changes: true, op: { o: 'changeRule.put', rule: { project: 'default', environment: 'production', enabled: false, requiredApprovals: 2 } } },
  ],
  lastSeen: [
    { name: 'moves lastSeenAt forward (in place)', changes: true, op: { o: 'lastSeen', feature: 'alpha', environment: 'development', at: T1 } },
    { name: 'is a no-op for an unknown flag', changes: false, op: { o: 'lastSeen', feature: 'nope', environment: 'development', at: T1 } },
    { name: 'is a no-op for an unconfigured environment', changes: false, op: { o: 'lastSeen', feature: 'beta', environment: 'production', at: T1 } },
  ],
};

t.test('every op kind declared in src/core/state/ops.ts has undo cases here', async (t) => {
  const source = fs.readFileSync(path.join(ROOT, 'src/core/state/ops.ts'), 'utf8');
  const declared = [...source.matchAll(/\{\s*o:\s*'([^']+)'/g)].map((m) => m[1]);
  t.ok(declared.length >= 20, 'found the Op union');
  for (const kind of new Set(declared)) t.ok(CASES[kind]?.length, `op kind ${kind} is tested`);
});

for (const [kind, cases] of Object.entries(CASES)) {
  t.test(`${kind}: applying then undoing restores dumpState exactly`, async (t) => {
    for (const c of cases) {
      const s = fixtureState();
      const before = snapshot(s);
      const undo = applyOp(s, c.op);
      const during = snapshot(s);
      if (c.changes) t.notSame(during, before, `${c.name}: the op changes the state`);
      else t.strictSame(during, before, `${c.name}: the op changes nothing`);
      undo();
      t.strictSame(snapshot(s), before, `${c.name}: undo restores it`);
      // Applying the same op after the undo must give the same result (undo left no residue).
      applyOp(s, c.op);
      t.strictSame(snapshot(s), during, `${c.name}: re-applying after undo gives the same state`);
    }
  });
}

t.test('a release plan goes with its flag, or with its flag\'s environment, and comes back on undo', async (t) => {
  const key = 'gone\u0000development';
  for (const op of [{ o: 'feature.del', name: 'gone' }, { o: 'featureEnv.del', feature: 'gone', environment: 'development' }] as Op[]) {
    const s = fixtureState();
    t.ok(s.releasePlans.has(key));
    const undo = applyOp(s, op);
    t.notOk(s.releasePlans.has(key), `${op.o}: the plan is gone`);
    undo();
    t.ok(s.releasePlans.has(key), `${op.o}: undone, the plan is back`);
  }
});

t.test('a safeguard goes with its flag, its flag\'s environment or its plan, and comes back on undo', async (t) => {
  const cases: [Op, string[]][] = [
    [{ o: 'feature.del', name: 'alpha' }, ['sg1']],
    [{ o: 'featureEnv.del', feature: 'alpha', environment: 'development' }, ['sg1']],
    [{ o: 'feature.del', name: 'gone' }, ['sg2']],
    [{ o: 'releasePlan.del', feature: 'gone', environment: 'development' }, ['sg2']],
    [{ o: 'featureEnv.del', feature: 'alpha', environment: 'production' }, []],
  ];
  for (const [op, gone] of cases) {
    const s = fixtureState();
    const before = snapshot(s);
    const undo = applyOp(s, op);
    t.same([...s.safeguards.keys()].sort(), ['sg1', 'sg2'].filter((id) => !gone.includes(id)), `${op.o}: ${gone.join(', ') || 'none'} gone`);
    undo();
    t.strictSame(snapshot(s), before, `${op.o}: undone, everything is back`);
  }
});

t.test('a change request moves the id counters past its own ids, and undo puts them back', async (t) => {
  const s = fixtureState();
  const before = snapshot(s);
  const undo = applyOp(s, { o: 'changeRequest.put', request: changeRequest(7, 'beta', 'production') });
  t.equal(s.nextChangeRequestId, 8, 'next request id after 7');
  t.equal(s.nextChangeId, 71, 'next change id after its change 70');
  undo();
  t.strictSame(snapshot(s), before, 'undone, the counters are back');
});

t.test("a change request rule goes with its project or its environment, and comes back on undo", async (t) => {
  const cases: [Op, string[]][] = [
    [{ o: 'project.del', id: 'other' }, ['default\u0000production']],
    [{ o: 'env.del', name: 'production' }, []],
    [{ o: 'env.del', name: 'development' }, ['default\u0000production', 'other\u0000production']],
  ];
  for (const [op, left] of cases) {
    const s = fixtureState();
    const before = snapshot(s);
    const undo = applyOp(s, op);
    t.same([...s.changeRequestRules.keys()].sort(), left, `${op.o}: ${left.length} left`);
    undo();
    t.strictSame(snapshot(s), before, `${op.o}: undone, everything is back`);
    t.same([...s.changeRequestRules.keys()], ['default\u0000production', 'other\u0000production'], `${op.o}: in their order`);
  }
});

t.test('lastSeen never moves lastSeenAt backwards', async (t) => {
  const s = fixtureState();
  applyOp(s, { o: 'lastSeen', feature: 'alpha', environment: 'development', at: T1 });
  const undo = applyOp(s, { o: 'lastSeen', feature: 'alpha', environment: 'development', at: T0 });
  t.equal(s.featureEnvs.get('alpha')!.get('development')!.lastSeenAt, T1);
  t.equal(s.features.get('alpha')!.lastSeenAt, T1);
  undo();
  t.equal(s.featureEnvs.get('alpha')!.get('development')!.lastSeenAt, T1);
});

t.test('strategy.put refuses to move a strategy to another flag/environment', async (t) => {
  const s = fixtureState();
  t.throws(() => applyOp(s, { o: 'strategy.put', strategy: strategy('s1', 'beta', 'development', 1) }), /cannot move/);
});

t.test('strategy.del undo puts the id back at its old index position', async (t) => {
  const s = fixtureState();
  const order = () => strategiesOf(s, 'alpha', 'development').map((x) => x.id);
  const idx = () => [...s.strategiesByFeatureEnv.get('alpha\u0000development')!];
  t.same(order(), ['s1', 's2', 's3']);
  const before = idx();
  const undo = applyOp(s, { o: 'strategy.del', id: 's1' });
  t.same(idx(), ['s2', 's3']);
  undo();
  t.same(idx(), before);
});

t.test('a chain of ops undone newest first restores the state', async (t) => {
  const s = fixtureState();
  const before = snapshot(s);
  const undos = Object.values(CASES).flatMap((cases) => cases.filter((c) => c.changes).slice(0, 1)).map((c) => applyOp(s, c.op));
  t.notSame(snapshot(s), before);
  for (let i = undos.length - 1; i >= 0; i--) undos[i]();
  t.strictSame(snapshot(s), before);
});

t.test('applyRecord undo removes the events and restores maps and revision', async (t) => {
  const s = fixtureState();
  const before = snapshot(s);
  const revision = s.revision;
  const lastId = s.events.lastId;
  const rec = {
    lsn: 2,
    ops: [CASES['feature.put'][0].op, CASES['featureEnv.put'][0].op, CASES['strategy.put'][1].op, CASES['feature.del'][0].op],
    events: [lastId + 1, lastId + 2].map((id) => ({
      id, type: 'feature-created', createdAt: T1, createdBy: 'x', createdByUserId: null, environment: null, project: null,
      featureName: 'gamma', data: null, preData: null, tags: null,
    })).map(storeEvent),
  };
  const undo = applyRecord(s, rec, true)!;
  t.equal(s.events.lastId, lastId + 2);
  t.equal(s.revision, revision + 1);
  undo();
  t.equal(s.events.lastId, lastId);
  t.equal(s.revision, revision);
  t.strictSame(snapshot(s), before);
  t.equal(applyRecord(s, rec, false), null, 'without undo nothing is returned');
});

t.test('applyRecord refuses events that would leave a gap in the event ids', async (t) => {
  const s = fixtureState();
  const ev = { id: s.events.lastId + 2, type: 'x', createdAt: T1, createdBy: 'x', createdByUserId: null, environment: null, project: null, featureName: null, data: null, preData: null, tags: null };
  t.throws(() => applyRecord(s, { lsn: 2, ops: [], events: [storeEvent(ev)] }, false), /gap/);
});

t.test('dumpState → loadDump → dumpState is a round trip (events included)', async (t) => {
  const s = fixtureState();
  // Touch every part of the state so the round trip covers it.
  applyOp(s, CASES['lastSeen'][0].op);
  applyOp(s, CASES['segment.put'][0].op);
  applyOp(s, CASES['strategy.put'][2].op);
  const d1 = snapshot(s);
  const restored = loadDump(structuredClone(d1));
  t.same(snapshot(restored), d1);
  t.strictSame(JSON.stringify(dumpState(restored)), JSON.stringify(d1), 'byte-identical as JSON, in the same order');
  t.same(strategiesOf(restored, 'alpha', 'development').map((x) => x.id), strategiesOf(s, 'alpha', 'development').map((x) => x.id));
  t.equal(restored.events.lastId, s.events.lastId);
  t.equal(restored.nextSegmentId, 6);
});

t.test('dumpState is deterministic whatever the insertion order of the maps', async (t) => {
  const a = fixtureState();
  const b = fixtureState();
  // Rebuild b's maps in reverse insertion order.
  for (const key of ['projects', 'environments', 'features', 'segments', 'tagTypes', 'tags', 'strategyTypes', 'contextFields', 'apiTokens'] as const) {
    const m = b[key] as Map<unknown, unknown>;
    const entries = [...m.entries()].reverse();
    m.clear();
    for (const [k, v] of entries) m.set(k, v);
  }
  t.strictSame(JSON.stringify(dumpState(b)), JSON.stringify(dumpState(a)));
});

t.test('dumpState can leave events out', async (t) => {
  t.same(dumpState(fixtureState(), { events: false }).events, []);
});

/** Every map of the state as [key, …] lists in iteration order (what listings and checkpoints follow). */
function orders(s: State): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [name, value] of Object.entries(s)) if (value instanceof Map) out[name] = [...value.keys()];
  out.featureEnvs = [...s.featureEnvs].map(([f, envs]) => [f, [...envs.keys()]]);
  return out;
}

t.test('undoing a delete puts the entry back at its old place in iteration order, not at the end', async (t) => {
  for (const [name, cases] of Object.entries(CASES)) {
    for (const c of cases.filter((x) => x.changes && (x.op.o.endsWith('.del')))) {
      const s = fixtureState();
      const before = orders(s);
      const undo = applyOp(s, c.op);
      undo();
      t.strictSame(orders(s), before, `${name}: ${JSON.stringify(c.op)}`);
    }
  }
});

t.test('undoing a record that deletes the first of several entries restores every map order', async (t) => {
  const s = fixtureState();
  const first = [...s.features.keys()][0];
  const firstStrategy = [...s.strategies.keys()][0];
  const before = orders(s);
  const undo = applyRecord(s, { lsn: 2, ops: [{ o: 'strategy.del', id: firstStrategy }, { o: 'feature.del', name: first }], events: [] }, true)!;
  t.notSame(orders(s), before);
  undo();
  t.strictSame(orders(s), before);
  t.equal([...s.features.keys()][0], first, 'the deleted flag is first again');
});
