// The resolved change: a list of primitive operations, each touching one entry of one map.
// Commands produce them (with every generated id and timestamp already filled in), the WAL
// stores them, and `applyOp` replays them; so a replay reaches exactly the same state.
import type {
  Addon, ApiToken, ChangeRequest, ChangeRequestRule, ContextField, Environment, Feature, FeatureEnv, ImpactChart, ImpactPoint, ImpactSeries, PasswordLink, PersonalToken, Project, ReleasePlan, ReleaseTemplate, RevokedToken, Safeguard, Segment, Session, Strategy, StrategyType, Tag, TagType, User,
} from './types.js';
import { changeRuleKey, featureEnvKey, tagKey, type State } from './state.js';

export type Op =
  | { o: 'project.put'; project: Project }
  | { o: 'project.del'; id: string }
  | { o: 'env.put'; environment: Environment }
  | { o: 'env.del'; name: string }
  | { o: 'feature.put'; feature: Feature }
  | { o: 'feature.del'; name: string }
  | { o: 'featureEnv.put'; feature: string; env: FeatureEnv }
  | { o: 'featureEnv.del'; feature: string; environment: string }
  | { o: 'strategy.put'; strategy: Strategy }
  | { o: 'strategy.del'; id: string }
  | { o: 'segment.put'; segment: Segment }
  | { o: 'segment.del'; id: number }
  | { o: 'tagType.put'; tagType: TagType }
  | { o: 'tagType.del'; name: string }
  | { o: 'tag.put'; tag: Tag }
  | { o: 'tag.del'; tag: Tag }
  | { o: 'featureTag.add'; feature: string; tag: Tag }
  | { o: 'featureTag.del'; feature: string; tag: Tag }
  | { o: 'strategyType.put'; strategyType: StrategyType }
  | { o: 'strategyType.del'; name: string }
  | { o: 'contextField.put'; field: ContextField }
  | { o: 'contextField.del'; name: string }
  | { o: 'token.put'; token: ApiToken }
  | { o: 'token.del'; hash: string }
  | { o: 'token.revoke'; revoked: RevokedToken }
  | { o: 'lastSeen'; feature: string; environment: string; at: string }
  | { o: 'addon.put'; addon: Addon }
  | { o: 'addon.del'; id: number }
  /** Delivery of an addon reached this event id: written after sends, not acknowledged to anyone. */
  | { o: 'addon.cursor'; id: number; eventId: number }
  /**
   * On a cluster: `node` delivers webhooks from now on, in `term` (one more than the last). Cursor
   * moves name their term, and one of a deposed leader's no longer applies (addons/leadership.ts).
   */
  | { o: 'webhooks.lead'; term: number; node: string }
  /**
   * On a cluster: what SDKs reported to `node` lately (client-metrics/store.ts MetricsReport),
   * for the other nodes' views. The state keeps nothing of it.
   */
  | { o: 'metrics.report'; node: string; report: unknown }
  | { o: 'user.put'; user: User }
  | { o: 'user.del'; id: number }
  | { o: 'session.put'; session: Session }
  | { o: 'session.del'; hash: string }
  | { o: 'pat.put'; token: PersonalToken }
  | { o: 'pat.del'; hash: string }
  | { o: 'passwordLink.put'; link: PasswordLink }
  | { o: 'passwordLink.del'; hash: string }
  /**
   * An impact metric's series described and its total set; its history is kept when its type and
   * bucket bounds are unchanged, else it starts over (as Unleash recreates such a metric).
   */
  | { o: 'impact.put'; key: string; head: Omit<ImpactSeries, 'tiers'> }
  /** A point of a series' tier set (replacing one of the same time); points before `since` are dropped. */
  | { o: 'impact.point'; key: string; tier: number; point: ImpactPoint; since: number }
  | { o: 'impact.del'; key: string }
  | { o: 'impactChart.put'; chart: ImpactChart }
  | { o: 'impactChart.del'; id: string }
  | { o: 'releaseTemplate.put'; template: ReleaseTemplate }
  | { o: 'releaseTemplate.del'; id: string }
  /** Puts the plan on its flag's environment (replacing the one there): a milestone start is a put too. */
  | { o: 'releasePlan.put'; plan: ReleasePlan }
  | { o: 'releasePlan.del'; feature: string; environment: string }
  /** Puts a safeguard (a new one, or one that fired: its triggeredAt set). */
  | { o: 'safeguard.put'; safeguard: Safeguard }
  | { o: 'safeguard.del'; id: string }
  /** Puts a change request (a new one, or one whose changes, approvals, comments or state moved). */
  | { o: 'changeRequest.put'; request: ChangeRequest }
  | { o: 'changeRequest.del'; id: number }
  /** Sets whether a project's environment needs change requests, and how many approvals (replacing the rule there). */
  | { o: 'changeRule.put'; rule: ChangeRequestRule };

/**
 * Every op this version knows, checked against `Op` by the compiler (a name missing or extra does
 * not build): a record from elsewhere (another program, a newer Fanion) is refused whole before any
 * of it is applied, rather than failing half-way through.
 */
const OP_NAMES: Record<Op['o'], true> = {
  'project.put': true, 'project.del': true, 'env.put': true, 'env.del': true, 'feature.put': true,
  'feature.del': true, 'featureEnv.put': true, 'featureEnv.del': true, 'strategy.put': true,
  'strategy.del': true, 'segment.put': true, 'segment.del': true, 'tagType.put': true, 'tagType.del': true,
  'tag.put': true, 'tag.del': true, 'featureTag.add': true, 'featureTag.del': true, 'strategyType.put': true,
  'strategyType.del': true, 'contextField.put': true, 'contextField.del': true, 'token.put': true,
  'token.del': true, 'token.revoke': true, 'lastSeen': true, 'addon.put': true, 'addon.del': true,
  'addon.cursor': true, 'webhooks.lead': true, 'metrics.report': true, 'user.put': true, 'user.del': true,
  'session.put': true, 'session.del': true, 'pat.put': true, 'pat.del': true, 'passwordLink.put': true,
  'passwordLink.del': true, 'impact.put': true, 'impact.point': true, 'impact.del': true,
  'impactChart.put': true, 'impactChart.del': true,
  'releaseTemplate.put': true, 'releaseTemplate.del': true, 'releasePlan.put': true, 'releasePlan.del': true,
  'safeguard.put': true, 'safeguard.del': true, 'changeRequest.put': true, 'changeRequest.del': true, 'changeRule.put': true,
};

/** Whether `op` names an op this version applies. */
export function isKnownOp(op: unknown): boolean {
  const o = (op as { o?: unknown } | null)?.o;
  return typeof o === 'string' && Object.hasOwn(OP_NAMES, o);
}

export type Undo = () => void;

/** What replay gets back: it never undoes, so it allocates no inverse. */
const NO_UNDO: Undo = () => {};

function putIn<K, V>(map: Map<K, V>, key: K, value: V, undo: boolean): Undo {
  if (!undo) {
    map.set(key, value);
    return NO_UNDO;
  }
  return putInUndoable(map, key, value);
}

function putInUndoable<K, V>(map: Map<K, V>, key: K, value: V): Undo {
  const had = map.has(key);
  const prev = map.get(key);
  map.set(key, value);
  return () => {
    if (had) map.set(key, prev as V);
    else map.delete(key);
  };
}

function delIn<K, V>(map: Map<K, V>, key: K, undo: boolean, order: OrderKeeper | null = null): Undo {
  if (!undo) {
    map.delete(key);
    return NO_UNDO;
  }
  return delInUndoable(map, key, order);
}

function delInUndoable<K, V>(map: Map<K, V>, key: K, order: OrderKeeper | null): Undo {
  if (!map.has(key)) return NO_UNDO;
  const prev = map.get(key) as V;
  const keeper = order ?? new OrderKeeper();
  keeper.note(map);
  map.delete(key);
  return () => {
    map.set(key, prev);
    if (!order) keeper.restore();
  };
}

/** Puts an entity with a numeric id, moving the state's next-id counter past it. */
function putNumbered<K, V extends { id: number }>(
  s: State, map: Map<K, V>, key: K, value: V, counter: 'nextSegmentId' | 'nextAddonId' | 'nextUserId' | 'nextPersonalTokenId', withUndo: boolean,
): Undo {
  const prevNext = s[counter];
  const undo = putIn(map, key, value, withUndo);
  if (value.id >= s[counter]) s[counter] = value.id + 1;
  if (!withUndo) return NO_UNDO;
  return () => {
    undo();
    s[counter] = prevNext;
  };
}

/**
 * A flag's environments with `env` set, as a new Map (copy-on-write): a checkpoint snapshot may
 * share the old one. Kept out of applyOp so that replay's in-place path there captures nothing
 * (a captured variable costs a context allocation per call, a million times in a replay).
 */
function replaceFeatureEnvs(s: State, feature: string, envs: Map<string, FeatureEnv> | undefined, env: FeatureEnv, withUndo: boolean): Undo {
  const next = new Map(envs ?? []);
  next.set(env.environment, env);
  s.featureEnvs.set(feature, next);
  if (!withUndo) return NO_UNDO;
  return () => {
    if (envs) s.featureEnvs.set(feature, envs);
    else s.featureEnvs.delete(feature);
  };
}

/**
 * Removes the safeguards `gone` picks: a safeguard never outlives what it acts on (its flag, its
 * flag's environment, its plan), whatever removed that. Costs nothing without safeguards.
 */
function dropSafeguards(s: State, gone: (sg: Safeguard) => boolean, withUndo: boolean, order: OrderKeeper | null): Undo[] {
  if (s.safeguards.size === 0) return [];
  const undos: Undo[] = [];
  for (const sg of [...s.safeguards.values()]) if (gone(sg)) undos.push(delIn(s.safeguards, sg.id, withUndo, order));
  return undos;
}

/** Puts a change request, moving the counters past its id and the ids of its changes and comments. */
function putChangeRequest(s: State, cr: ChangeRequest, withUndo: boolean): Undo {
  const [prevRequest, prevChange] = [s.nextChangeRequestId, s.nextChangeId];
  const undo = putIn(s.changeRequests, cr.id, cr, withUndo);
  if (cr.id >= s.nextChangeRequestId) s.nextChangeRequestId = cr.id + 1;
  let top = 0;
  for (const f of cr.features) for (const c of f.changes) top = Math.max(top, c.id);
  for (const c of cr.segments) top = Math.max(top, c.id);
  for (const c of cr.comments) top = Math.max(top, c.id);
  if (top >= s.nextChangeId) s.nextChangeId = top + 1;
  if (!withUndo) return NO_UNDO;
  return () => {
    undo();
    s.nextChangeRequestId = prevRequest;
    s.nextChangeId = prevChange;
  };
}

/** Removes the change request rules `gone` picks (those of a deleted project or environment). Costs nothing without rules. */
function dropChangeRules(s: State, gone: (r: ChangeRequestRule) => boolean, withUndo: boolean, order: OrderKeeper | null): Undo[] {
  if (s.changeRequestRules.size === 0) return [];
  const undos: Undo[] = [];
  for (const [key, r] of [...s.changeRequestRules]) if (gone(r)) undos.push(delIn(s.changeRequestRules, key, withUndo, order));
  return undos;
}

/**
 * Remembers the key order of maps a change deletes from, so that undoing the change puts every
 * entry back where it was, not at the end: listings follow Map order, and after a rollback they
 * must read as before (and as a replay of the log rebuilds them). One snapshot per map per
 * change, taken at its first delete, so a large import pays it once, not once per delete.
 */
export class OrderKeeper {
  private readonly saved = new Map<Map<unknown, unknown>, unknown[]>();

  note(map: Map<unknown, unknown> | Map<never, unknown>): void {
    const m = map as Map<unknown, unknown>;
    if (!this.saved.has(m)) this.saved.set(m, [...m.keys()]);
  }

  /** Call after every op of the change is undone: the maps then hold the same keys as before. */
  restore(): void {
    for (const [map, keys] of this.saved) {
      const entries = new Map(map);
      map.clear();
      for (const k of keys) if (entries.has(k)) map.set(k, entries.get(k));
      for (const [k, v] of entries) if (!map.has(k)) map.set(k, v);
    }
  }
}

/**
 * Applies one op. Ops are validated by the command that produced them, so application never
 * fails on a live server; during replay an impossible op means a corrupt log and throws.
 * Returns the inverse, used to roll back changes whose WAL write failed; replay passes
 * `withUndo: false` and gets a shared no-op instead (a million replayed ops would otherwise
 * allocate a million closures that are thrown away).
 */
export function applyOp(s: State, op: Op, withUndo = true, order: OrderKeeper | null = null): Undo {
  switch (op.o) {
    case 'project.put':
      return putIn(s.projects, op.project.id, op.project, withUndo);
    case 'project.del': {
      // A project's change request rules go with it: a project made later under the same id
      // starts from the defaults, not from the rules of one that was deleted.
      const undos = [delIn(s.projects, op.id, withUndo, order), ...dropChangeRules(s, (r) => r.project === op.id, withUndo, order)];
      return () => undos.reverse().forEach((u) => u());
    }
    case 'env.put':
      return putIn(s.environments, op.environment.name, op.environment, withUndo);
    case 'env.del': {
      const undos = [delIn(s.environments, op.name, withUndo, order), ...dropChangeRules(s, (r) => r.environment === op.name, withUndo, order)];
      return () => undos.reverse().forEach((u) => u());
    }
    case 'feature.put':
      return putIn(s.features, op.feature.name, op.feature, withUndo);
    case 'feature.del': {
      const undos = [delIn(s.features, op.name, withUndo, order), delIn(s.featureEnvs, op.name, withUndo, order), delIn(s.featureTags, op.name, withUndo, order)];
      // A release plan never outlives its flag (whatever removed it: a delete, an import, a relay).
      if (s.releasePlans.size > 0) {
        for (const plan of [...s.releasePlans.values()]) {
          if (plan.featureName === op.name) undos.push(delIn(s.releasePlans, featureEnvKey(plan.featureName, plan.environment), withUndo, order));
        }
      }
      undos.push(...dropSafeguards(s, (sg) => sg.featureName === op.name, withUndo, order));
      return () => undos.reverse().forEach((u) => u());
    }
    case 'featureEnv.put': {
      // Replay (no undo) has no checkpoint snapshot to protect: it changes the nested Map in place.
      const envs = s.featureEnvs.get(op.feature);
      if (!withUndo && envs) {
        envs.set(op.env.environment, op.env);
        return NO_UNDO;
      }
      return replaceFeatureEnvs(s, op.feature, envs, op.env, withUndo);
    }
    case 'featureEnv.del': {
      const envs = s.featureEnvs.get(op.feature);
      if (!envs) return NO_UNDO;
      // Nor its flag's environment.
      const plan = s.releasePlans.size > 0 ? delIn(s.releasePlans, featureEnvKey(op.feature, op.environment), withUndo, order) : NO_UNDO;
      const guards = dropSafeguards(s, (sg) => sg.featureName === op.feature && sg.environment === op.environment, withUndo, order);
      if (!withUndo) return delIn(envs, op.environment, false);
      const next = new Map(envs);
      next.delete(op.environment);
      s.featureEnvs.set(op.feature, next);
      return () => {
        s.featureEnvs.set(op.feature, envs);
        guards.reverse().forEach((u) => u());
        plan();
      };
    }
    case 'strategy.put': {
      const st = op.strategy;
      const prev = s.strategies.get(st.id);
      const key = featureEnvKey(st.featureName, st.environment);
      const prevSeq = s.nextStrategySeq;
      if (prev && featureEnvKey(prev.featureName, prev.environment) !== key) {
        throw new Error(`strategy ${st.id} cannot move between flags or environments`);
      }
      s.strategies.set(st.id, st);
      if (st.seq >= s.nextStrategySeq) s.nextStrategySeq = st.seq + 1;
      if (prev) {
        if (!withUndo) return NO_UNDO;
        return () => {
          s.nextStrategySeq = prevSeq;
          s.strategies.set(st.id, prev);
        };
      }
      const ids = s.strategiesByFeatureEnv.get(key);
      if (!withUndo) {
        if (ids) ids.push(st.id);
        else s.strategiesByFeatureEnv.set(key, [st.id]);
        return NO_UNDO;
      }
      // Copy-on-write, as for featureEnv.put: a snapshot may share the old list.
      s.strategiesByFeatureEnv.set(key, ids ? [...ids, st.id] : [st.id]);
      return () => {
        s.nextStrategySeq = prevSeq;
        s.strategies.delete(st.id);
        if (ids) s.strategiesByFeatureEnv.set(key, ids);
        else s.strategiesByFeatureEnv.delete(key);
      };
    }
    case 'strategy.del': {
      const prev = s.strategies.get(op.id);
      if (!prev) return NO_UNDO;
      const key = featureEnvKey(prev.featureName, prev.environment);
      const ids = s.strategiesByFeatureEnv.get(key) ?? [];
      const at = ids.indexOf(op.id);
      if (!withUndo) {
        if (at >= 0) ids.splice(at, 1);
        if (ids.length === 0) s.strategiesByFeatureEnv.delete(key);
        s.strategies.delete(op.id);
        return NO_UNDO;
      }
      const keeper = order ?? new OrderKeeper();
      keeper.note(s.strategies);
      keeper.note(s.strategiesByFeatureEnv);
      const next = ids.filter((id) => id !== op.id);
      if (next.length === 0) s.strategiesByFeatureEnv.delete(key);
      else s.strategiesByFeatureEnv.set(key, next);
      s.strategies.delete(op.id);
      return () => {
        s.strategies.set(op.id, prev);
        s.strategiesByFeatureEnv.set(key, ids);
        if (!order) keeper.restore();
      };
    }
    case 'segment.put':
      return putNumbered(s, s.segments, op.segment.id, op.segment, 'nextSegmentId', withUndo);
    case 'segment.del':
      return delIn(s.segments, op.id, withUndo, order);
    case 'tagType.put':
      return putIn(s.tagTypes, op.tagType.name, op.tagType, withUndo);
    case 'tagType.del':
      return delIn(s.tagTypes, op.name, withUndo, order);
    case 'tag.put':
      return putIn(s.tags, tagKey(op.tag), op.tag, withUndo);
    case 'tag.del':
      return delIn(s.tags, tagKey(op.tag), withUndo, order);
    case 'featureTag.add': {
      const prev = s.featureTags.get(op.feature);
      const key = tagKey(op.tag);
      if (prev?.some((t) => tagKey(t) === key)) return NO_UNDO;
      s.featureTags.set(op.feature, [...(prev ?? []), op.tag]);
      return () => {
        if (prev) s.featureTags.set(op.feature, prev);
        else s.featureTags.delete(op.feature);
      };
    }
    case 'featureTag.del': {
      const prev = s.featureTags.get(op.feature);
      if (!prev) return NO_UNDO;
      const key = tagKey(op.tag);
      const next = prev.filter((t) => tagKey(t) !== key);
      const keeper = withUndo && next.length === 0 ? (order ?? new OrderKeeper()) : null;
      keeper?.note(s.featureTags);
      if (next.length === 0) s.featureTags.delete(op.feature);
      else s.featureTags.set(op.feature, next);
      if (!withUndo) return NO_UNDO;
      return () => {
        s.featureTags.set(op.feature, prev);
        if (keeper && !order) keeper.restore();
      };
    }
    case 'strategyType.put':
      return putIn(s.strategyTypes, op.strategyType.name, op.strategyType, withUndo);
    case 'strategyType.del':
      return delIn(s.strategyTypes, op.name, withUndo, order);
    case 'contextField.put':
      return putIn(s.contextFields, op.field.name, op.field, withUndo);
    case 'contextField.del':
      return delIn(s.contextFields, op.name, withUndo, order);
    case 'token.put':
      return putIn(s.apiTokens, op.token.hash, op.token, withUndo);
    case 'token.del':
      return delIn(s.apiTokens, op.hash, withUndo, order);
    case 'token.revoke':
      return putIn(s.revokedTokens, op.revoked.hash, op.revoked, withUndo);
    case 'lastSeen': {
      const fe = s.featureEnvs.get(op.feature)?.get(op.environment);
      const feature = s.features.get(op.feature);
      if (!fe || !feature) return NO_UNDO;
      const prevEnv = fe.lastSeenAt;
      const prevFeature = feature.lastSeenAt;
      if (!prevEnv || prevEnv < op.at) fe.lastSeenAt = op.at;
      if (!prevFeature || prevFeature < op.at) feature.lastSeenAt = op.at;
      return () => {
        fe.lastSeenAt = prevEnv;
        feature.lastSeenAt = prevFeature;
      };
    }
    case 'addon.put':
      return putNumbered(s, s.addons, op.addon.id, op.addon, 'nextAddonId', withUndo);
    case 'addon.del': {
      const undos = [delIn(s.addons, op.id, withUndo, order), delIn(s.addonCursors, op.id, withUndo, order)];
      return () => undos.reverse().forEach((u) => u());
    }
    case 'addon.cursor':
      // Only for an addon that still exists: a cursor written just after its addon was deleted is moot.
      if (!s.addons.has(op.id)) return NO_UNDO;
      return putIn(s.addonCursors, op.id, op.eventId, withUndo);
    case 'metrics.report':
      return NO_UNDO;
    case 'webhooks.lead': {
      const [term, node] = [s.webhookTerm, s.webhookLeader];
      s.webhookTerm = op.term;
      s.webhookLeader = op.node;
      return withUndo
        ? () => {
            s.webhookTerm = term;
            s.webhookLeader = node;
          }
        : NO_UNDO;
    }
    case 'user.put':
      return putNumbered(s, s.users, op.user.id, op.user, 'nextUserId', withUndo);
    case 'user.del':
      return delIn(s.users, op.id, withUndo, order);
    case 'session.put':
      return putIn(s.sessions, op.session.hash, op.session, withUndo);
    case 'session.del':
      return delIn(s.sessions, op.hash, withUndo, order);
    case 'pat.put':
      return putNumbered(s, s.personalTokens, op.token.hash, op.token, 'nextPersonalTokenId', withUndo);
    case 'pat.del':
      return delIn(s.personalTokens, op.hash, withUndo, order);
    case 'passwordLink.put':
      return putIn(s.passwordLinks, op.link.hash, op.link, withUndo);
    case 'passwordLink.del':
      return delIn(s.passwordLinks, op.hash, withUndo, order);
    case 'impact.put': {
      const had = s.impactSeries.get(op.key);
      const same = had && had.type === op.head.type && had.le.length === op.head.le.length && had.le.every((b, i) => b === op.head.le[i]);
      return putIn(s.impactSeries, op.key, { ...op.head, tiers: same ? had.tiers : [] }, withUndo);
    }
    case 'impact.point': {
      const had = s.impactSeries.get(op.key);
      if (!had) return NO_UNDO;
      // Copy-on-write: a checkpoint may be writing the old arrays in the background.
      const tiers = had.tiers.slice();
      while (tiers.length <= op.tier) tiers.push([]);
      const kept = tiers[op.tier].filter((p) => p.t >= op.since && p.t !== op.point.t);
      kept.push(op.point);
      kept.sort((a, b) => a.t - b.t);
      tiers[op.tier] = kept;
      return putIn(s.impactSeries, op.key, { ...had, tiers }, withUndo);
    }
    case 'impact.del':
      return delIn(s.impactSeries, op.key, withUndo, order);
    case 'impactChart.put':
      return putIn(s.impactCharts, op.chart.id, op.chart, withUndo);
    case 'impactChart.del':
      return delIn(s.impactCharts, op.id, withUndo, order);
    case 'releaseTemplate.put':
      return putIn(s.releaseTemplates, op.template.id, op.template, withUndo);
    case 'releaseTemplate.del':
      return delIn(s.releaseTemplates, op.id, withUndo, order);
    case 'releasePlan.put':
      return putIn(s.releasePlans, featureEnvKey(op.plan.featureName, op.plan.environment), op.plan, withUndo);
    case 'releasePlan.del': {
      // The plan's safeguards go with it (a plan applied there later is another plan).
      const undos = [
        delIn(s.releasePlans, featureEnvKey(op.feature, op.environment), withUndo, order),
        ...dropSafeguards(s, (sg) => sg.action.type === 'pauseReleasePlanProgressions' && sg.featureName === op.feature && sg.environment === op.environment, withUndo, order),
      ];
      return () => undos.reverse().forEach((u) => u());
    }
    case 'safeguard.put':
      return putIn(s.safeguards, op.safeguard.id, op.safeguard, withUndo);
    case 'safeguard.del':
      return delIn(s.safeguards, op.id, withUndo, order);
    case 'changeRequest.put':
      return putChangeRequest(s, op.request, withUndo);
    case 'changeRequest.del':
      return delIn(s.changeRequests, op.id, withUndo, order);
    case 'changeRule.put':
      return putIn(s.changeRequestRules, changeRuleKey(op.rule.project, op.rule.environment), op.rule, withUndo);
    default: {
      const never: never = op;
      throw new Error(`unknown op ${(never as { o: string }).o}`);
    }
  }
}
