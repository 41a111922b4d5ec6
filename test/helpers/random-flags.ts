// Random flag sets and contexts for tests that compare evaluators: every built-in deterministic
// strategy, every operator (inverted, case-insensitive), segments, strategy and environment
// variants with overrides and payloads, dependencies, disabled strategies. Drawn from a seeded
// generator (random.ts), so a failing run repeats.
import { HOSTNAME } from './evaluation.js';
import { chance, int, pick, type Rng } from './random.js';

export const FIELDS = ['userId', 'sessionId', 'remoteAddress', 'country', 'plan', 'version', 'age', 'email'];
export const words = ['NO', 'SE', 'dk', 'Free', 'pro', 'gold', 'a@x.io', 'b@y.com', '1.2.3', '2.0.0-beta.1', '10', '3.5', '', 'ÅSE'];

export function constraint(r: Rng) {
  const contextName = pick(r, FIELDS);
  const op = pick(r, ['IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS', 'NUM_EQ', 'NUM_GT', 'NUM_LTE', 'DATE_AFTER', 'DATE_BEFORE', 'SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'REGEX', 'IN_CIDR']);
  const c: Record<string, unknown> = { contextName, operator: op, inverted: chance(r, 0.2), caseInsensitive: chance(r, 0.3) };
  if (['IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS'].includes(op)) c.values = Array.from({ length: int(r, 1, 3) }, () => pick(r, words));
  else if (op === 'IN_CIDR') c.values = [pick(r, ['10.0.0.0/8', '192.168.1.0/24', '::1/128', '1.2.3.4', 'bad'])];
  else if (op.startsWith('NUM')) c.value = String(int(r, 0, 20));
  else if (op.startsWith('DATE')) c.value = pick(r, ['2020-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z']);
  else if (op.startsWith('SEMVER')) c.value = pick(r, ['1.2.3', '2.0.0', '2.0.0-beta.1']);
  else c.value = pick(r, ['^a', 'o$', 'P[a-z]+', '(']);
  return c;
}

export function variants(r: Rng, withOverrides: boolean) {
  const n = int(r, 0, 3);
  return Array.from({ length: n }, (_, i) => ({
    name: `v${i}`, weight: n === 0 ? 0 : Math.floor(1000 / n), weightType: 'variable', stickiness: pick(r, ['default', 'userId', 'sessionId', 'country']),
    ...(chance(r, 0.6) ? { payload: { type: pick(r, ['string', 'json', 'number']), value: pick(r, ['x', '{"a":1}', '42']) } } : {}),
    ...(withOverrides && chance(r, 0.3) ? { overrides: [{ contextName: pick(r, FIELDS), values: [pick(r, words)] }] } : {}),
  }));
}

export function strategy(r: Rng, segments: number[]) {
  const name = pick(r, ['default', 'userWithId', 'flexibleRollout', 'gradualRolloutUserId', 'gradualRolloutSessionId', 'remoteAddress', 'applicationHostname']);
  const parameters: Record<string, string> = {};
  if (name === 'userWithId') parameters.userIds = ['u1', 'u2', 'u7', 'u13'].filter(() => chance(r, 0.5)).join(', ');
  if (name === 'flexibleRollout') {
    parameters.rollout = String(pick(r, [0, 10, 50, 90, 100]));
    parameters.stickiness = pick(r, ['default', 'userId', 'sessionId', 'country']);
    if (chance(r, 0.7)) parameters.groupId = pick(r, ['g1', 'g2']);
  }
  if (name.startsWith('gradualRollout')) {
    parameters.percentage = String(int(r, 0, 100));
    parameters.groupId = 'g';
  }
  if (name === 'remoteAddress') parameters.IPs = pick(r, ['10.0.0.1', '10.0.0.0/24, 1.2.3.4', '192.168.1.0/24']);
  if (name === 'applicationHostname') parameters.hostNames = pick(r, [HOSTNAME, 'elsewhere']);
  return {
    name, parameters, disabled: chance(r, 0.1), constraints: Array.from({ length: int(r, 0, 2) }, () => constraint(r)),
    variants: chance(r, 0.3) ? variants(r, false) : [], segments: segments.filter(() => chance(r, 0.2)),
  };
}

export function randomContext(r: Rng): Record<string, unknown> {
  const ctx: Record<string, unknown> = { properties: {} };
  // Every field a stickiness may name is there and not empty: with one missing, the SDK draws at
  // random, and no two evaluators could agree.
  ctx.userId = `u${int(r, 0, 20)}`;
  ctx.sessionId = `s${int(r, 0, 50)}`;
  if (chance(r, 0.5)) ctx.remoteAddress = pick(r, ['10.0.0.1', '10.0.0.77', '1.2.3.4', '192.168.1.9', '::1']);
  if (chance(r, 0.5)) ctx.currentTime = pick(r, ['2025-06-01T00:00:00.000Z', '2019-01-01T00:00:00.000Z']);
  const props = ctx.properties as Record<string, string>;
  for (const f of ['plan', 'version', 'age', 'email']) if (chance(r, 0.7)) props[f] = pick(r, words);
  props.country = pick(r, words.filter((w) => w !== ''));
  return ctx;
}

/**
 * A state document (what POST /api/admin/state/import takes) of `count` random flags named
 * `${prefix}${i}` in `environment`, with three segments: dependencies point at earlier flags.
 */
export function randomFlagDocument(r: Rng, opts: { count: number; prefix: string; environment: string; project?: string; segmentIds?: number[] }) {
  const segIds = opts.segmentIds ?? [1, 2, 3];
  const flags: string[] = [];
  const doc = {
    version: 1, features: [] as unknown[], featureStrategies: [] as unknown[], featureEnvironments: [] as unknown[],
    segments: segIds.map((id) => ({ id, name: `${opts.prefix}seg${id}`, constraints: [constraint(r)] })),
  };
  for (let i = 0; i < opts.count; i++) {
    const name = `${opts.prefix}${i}`;
    const deps = i > 5 && chance(r, 0.3) ? [{ feature: `${opts.prefix}${int(r, 0, 5)}`, enabled: chance(r, 0.7), variants: chance(r, 0.3) ? ['v0'] : [] }] : [];
    flags.push(name);
    doc.features.push({ name, project: opts.project ?? 'default', dependencies: deps });
    doc.featureEnvironments.push({ featureName: name, environment: opts.environment, enabled: chance(r, 0.85), variants: chance(r, 0.4) ? variants(r, true) : [] });
    for (let k = int(r, 0, 3); k > 0; k--) doc.featureStrategies.push({ featureName: name, environment: opts.environment, ...strategy(r, segIds) });
  }
  return { doc, flags };
}
