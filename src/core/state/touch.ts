// What a change did to what SDKs see: which flags (in which environments) and which segments it
// touched, and which project each was in before, so that a removal is only announced to SDKs
// that could see the flag. Read from the change's ops right after they are applied; the mirrors
// here (strategy → flag, flag → project, segment → project) hold the state as it was before.
// One Toucher reads each change once for every reader of it: the client snapshot, the prepared
// flags of server-side evaluation and the push hub (entry/core.ts shares it).
import type { StateChange } from './change.js';
import type { State } from './state.js';
import type { ApiToken } from './types.js';
import type { Slicer } from '../slices.js';

export interface FlagTouch {
  /** The flag's project before the change (null: it did not exist, or was archived). */
  before: string | null;
  /** The environments the change touched, or null for all of them. */
  environments: Set<string> | null;
  /** Whether its tags changed (then a tag filter cannot tell whether it selected the flag before). */
  tags: boolean;
}

export interface Touch {
  flags: Map<string, FlagTouch>;
  /** Segment id → its project before the change (null: shared; undefined: it did not exist). */
  segments: Map<number, string | null | undefined>;
  /**
   * What a token gives access to changed (deleted, revoked, another type, environment, projects or
   * expiry): open streams must check theirs. Its last use (`seenAt`, written by every metrics
   * flush) is not such a change.
   */
  tokens: boolean;
  /** Environments created or deleted. */
  environments: Set<string>;
  /** The change did something this reader cannot tell apart (an op it does not know): start over. */
  everything: boolean;
}

export const isEmpty = (t: Touch) => t.flags.size === 0 && t.segments.size === 0;

/** Folds `next` (a later change) into `into`: the earlier `before` wins, environment sets merge. */
export function mergeTouch(into: Touch, next: Touch): void {
  for (const [name, f] of next.flags) {
    const prev = into.flags.get(name);
    if (!prev) into.flags.set(name, { before: f.before, environments: f.environments && new Set(f.environments), tags: f.tags });
    else if (prev.environments !== null) {
      if (f.environments === null) prev.environments = null;
      else for (const e of f.environments) prev.environments.add(e);
    }
  }
  for (const [id, before] of next.segments) if (!into.segments.has(id)) into.segments.set(id, before);
  into.tokens ||= next.tokens;
  into.everything ||= next.everything;
  for (const e of next.environments) into.environments.add(e);
  for (const [name, f] of next.flags) into.flags.get(name)!.tags ||= f.tags;
}

export const emptyTouch = (): Touch => ({ flags: new Map(), segments: new Map(), tokens: false, environments: new Set(), everything: false });

/** The strategies that name one of `segments`, as (flag, environment) pairs: segments are folded into them. */
export function segmentUsers(state: State, segments: Iterable<number>): { flag: string; environment: string }[] {
  const ids = new Set(segments);
  const out: { flag: string; environment: string }[] = [];
  if (ids.size === 0) return out;
  for (const s of state.strategies.values()) if (s.segments.some((id) => ids.has(id))) out.push({ flag: s.featureName, environment: s.environment });
  // Strategies of release milestones fold segments in too (only the active one is served, but any may start).
  for (const plan of state.releasePlans.values()) {
    if (plan.milestones.some((m) => m.strategies.some((s) => s.segments.some((id) => ids.has(id))))) out.push({ flag: plan.featureName, environment: plan.environment });
  }
  return out;
}

/** What a token lets its holder see, as one comparable string: everything but its name and uses. */
function accessOf(token: ApiToken): string {
  return JSON.stringify([token.type, token.environment, token.projects, token.expiresAt]);
}

/** Keeps the mirrors and reads each applied change against them. */
export class Toucher {
  private strategyFlag = new Map<string, { flag: string; environment: string }>();
  private flagProject = new Map<string, string>();
  private segmentProject = new Map<number, string | null>();
  /** Token hash → what it gives access to, as `accessOf` spells it. */
  private tokenAccess = new Map<string, string>();
  /** The last change read and what it touched: each reader of a change gets the same reading. */
  private last: { rec: StateChange; touch: Touch } | null = null;
  private lastRollback: StateChange | null = null;

  constructor(private readonly state: State) {
    this.resync();
  }

  /** What `rec` (just applied) touched, read once however many listeners ask. */
  touchOf(rec: StateChange): Touch {
    if (this.last?.rec !== rec) {
      const touch = emptyTouch();
      for (const step of this.read(rec, touch)) void step;
      this.last = { rec, touch };
    }
    return this.last.touch;
  }

  /**
   * touchOf for a large change (an import's half a million ops), read a slice at a time before its
   * listeners hear of it (Engine.onLargeChange): they then find the reading done.
   */
  async readInSlices(rec: StateChange, slicer: Slicer): Promise<void> {
    if (this.last?.rec === rec) return;
    const touch = emptyTouch();
    for (const step of this.read(rec, touch)) {
      void step;
      if (slicer.due()) await slicer.pause();
    }
    this.last = { rec, touch };
  }

  /** `rec` was rolled back (with every change after it): read the mirrors again, once. */
  rolledBack(rec: StateChange): void {
    if (this.lastRollback === rec) return;
    this.lastRollback = rec;
    this.last = null;
    this.resync();
  }

  /** After a rollback the mirrors may hold undone changes: read them again from the state. */
  private resync(): void {
    this.strategyFlag = new Map();
    for (const s of this.state.strategies.values()) this.strategyFlag.set(s.id, { flag: s.featureName, environment: s.environment });
    this.flagProject = new Map();
    for (const f of this.state.features.values()) if (!f.archived) this.flagProject.set(f.name, f.project);
    this.segmentProject = new Map();
    for (const s of this.state.segments.values()) this.segmentProject.set(s.id, s.project);
    this.tokenAccess = new Map();
    for (const tk of this.state.apiTokens.values()) this.tokenAccess.set(tk.hash, accessOf(tk));
  }

  /** What `rec` (just applied) touched, into `t`, an op per step; the mirrors move on to the state after it. */
  private *read(rec: StateChange, t: Touch): Generator<void> {
    const flag = (name: string, environment: string | null, tags = false) => {
      let f = t.flags.get(name);
      if (!f) t.flags.set(name, (f = { before: this.flagProject.get(name) ?? null, environments: environment === null ? null : new Set(), tags }));
      f.tags ||= tags;
      if (f.environments !== null) {
        if (environment === null) f.environments = null;
        else f.environments.add(environment);
      }
    };
    const segment = (id: number) => {
      if (!t.segments.has(id)) t.segments.set(id, this.segmentProject.has(id) ? this.segmentProject.get(id) : undefined);
    };
    for (const op of rec.ops) {
      switch (op.o) {
        case 'feature.put':
          flag(op.feature.name, null);
          break;
        case 'featureTag.add':
        case 'featureTag.del':
          flag(op.feature, null, true);
          break;
        case 'feature.del':
          flag(op.name, null);
          break;
        case 'featureEnv.put':
          flag(op.feature, op.env.environment);
          break;
        case 'featureEnv.del':
          flag(op.feature, op.environment);
          break;
        case 'strategy.put':
          flag(op.strategy.featureName, op.strategy.environment);
          break;
        case 'strategy.del': {
          const owner = this.strategyFlag.get(op.id);
          if (owner) flag(owner.flag, owner.environment);
          else t.everything = true;
          break;
        }
        // A plan's active milestone is served with the flag's strategies in its environment.
        case 'releasePlan.put':
          flag(op.plan.featureName, op.plan.environment);
          break;
        case 'releasePlan.del':
          flag(op.feature, op.environment);
          break;
        case 'segment.put':
          segment(op.segment.id);
          break;
        case 'segment.del':
          segment(op.id);
          break;
        case 'token.put': {
          // A token new to the mirror holds no stream yet; one whose access is unchanged (the
          // metrics flush writing when it was last seen) must not end the streams that use it.
          const before = this.tokenAccess.get(op.token.hash);
          if (before !== undefined && before !== accessOf(op.token)) t.tokens = true;
          break;
        }
        case 'token.del':
        case 'token.revoke':
          t.tokens = true;
          break;
        case 'env.put':
          t.environments.add(op.environment.name);
          break;
        case 'env.del':
          t.environments.add(op.name);
          break;
        // Nothing an SDK sees: metadata of other kinds, and metrics' lastSeen.
        case 'project.put':
        case 'project.del':
        case 'tagType.put':
        case 'tagType.del':
        case 'tag.put':
        case 'tag.del':
        case 'contextField.put':
        case 'contextField.del':
        case 'strategyType.put':
        case 'strategyType.del':
        case 'lastSeen':
        case 'addon.put':
        case 'addon.del':
        case 'addon.cursor':
        case 'webhooks.lead':
        case 'metrics.report':
        case 'impact.put':
        case 'impact.point':
        case 'impact.del':
        case 'impactChart.put':
        case 'impactChart.del':
        case 'releaseTemplate.put':
        case 'releaseTemplate.del':
          break;
        // A safeguard acts through ordinary ops (featureEnv.put, releasePlan.put) when it fires.
        case 'safeguard.put':
        case 'safeguard.del':
          break;
        // A change request changes nothing SDKs see until it is applied, through ordinary ops.
        case 'changeRequest.put':
        case 'changeRequest.del':
          break;
        // Who may change an environment directly is the admin API's business, not an SDK's.
        case 'changeRule.put':
          break;
        // People and their sessions, personal tokens and links: SDKs never authenticate with them
        // (client() takes client tokens only), so no stream or cached answer depends on them, and
        // the metrics flush writing when a session was last used touches nothing here.
        case 'user.put':
        case 'user.del':
        case 'session.put':
        case 'session.del':
        case 'pat.put':
        case 'pat.del':
        case 'passwordLink.put':
        case 'passwordLink.del':
          break;
        default:
          // An op kind added later that no reader knows yet: be correct, not fast.
          t.everything = true;
      }
      yield;
    }
    // Move the mirrors to the state after the change.
    for (const op of rec.ops) {
      if (op.o === 'token.put') this.tokenAccess.set(op.token.hash, accessOf(op.token));
      else if (op.o === 'token.del') this.tokenAccess.delete(op.hash);
      else if (op.o === 'strategy.put') this.strategyFlag.set(op.strategy.id, { flag: op.strategy.featureName, environment: op.strategy.environment });
      else if (op.o === 'strategy.del') this.strategyFlag.delete(op.id);
    }
    for (const name of t.flags.keys()) {
      const f = this.state.features.get(name);
      if (f && !f.archived) this.flagProject.set(name, f.project);
      else this.flagProject.delete(name);
      yield;
    }
    for (const id of t.segments.keys()) {
      const s = this.state.segments.get(id);
      if (s) this.segmentProject.set(id, s.project);
      else this.segmentProject.delete(id);
    }
  }
}
