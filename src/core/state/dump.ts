// A plain, deterministic picture of the whole state: maps become sorted arrays. Used to
// compare states (replay tests) and as the body of checkpoints.
import type { State } from './state.js';
import { emptyState } from './state.js';
import type { EventRecord } from './types.js';

const byKey = <V>(m: Map<string | number, V>) =>
  [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);

export interface StateDump {
  projects: unknown[];
  environments: unknown[];
  features: unknown[];
  featureEnvs: { feature: string; envs: unknown[] }[];
  strategies: unknown[];
  segments: unknown[];
  tagTypes: unknown[];
  tags: unknown[];
  featureTags: { feature: string; tags: unknown[] }[];
  strategyTypes: unknown[];
  contextFields: unknown[];
  apiTokens: unknown[];
  revokedTokens: unknown[];
  addons?: unknown[];
  addonCursors?: [number, number][];
  /** People, their sessions, personal tokens and password links (absent in checkpoints written before them). */
  users?: unknown[];
  sessions?: unknown[];
  personalTokens?: unknown[];
  passwordLinks?: unknown[];
  /** Impact metrics' series as [key, series] (absent in checkpoints written before them). */
  impactSeries?: [string, unknown][];
  impactCharts?: unknown[];
  /** Release templates and plans (absent in dumps written before them). */
  releaseTemplates?: unknown[];
  releasePlans?: unknown[];
  /** Safeguards (absent in dumps written before them). */
  safeguards?: unknown[];
  /** Change requests and their id counters (absent in dumps written before them). */
  changeRequests?: unknown[];
  nextChangeRequestId?: number;
  nextChangeId?: number;
  /** Change request rules (absent in dumps written before them). */
  changeRequestRules?: unknown[];
  nextSegmentId: number;
  nextStrategySeq: number;
  nextAddonId?: number;
  /** A cluster's webhook delivery term and its leader (absent in older dumps: none). */
  webhookTerm?: number;
  webhookLeader?: string;
  nextUserId?: number;
  nextPersonalTokenId?: number;
  events: EventRecord[];
}

export function dumpState(s: State, opts: { events?: boolean } = {}): StateDump {
  return {
    projects: byKey(s.projects),
    environments: byKey(s.environments),
    features: byKey(s.features),
    featureEnvs: [...s.featureEnvs.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([feature, envs]) => ({ feature, envs: byKey(envs) })),
    // Strategies in index order so a restored state keeps creation order per flag/environment.
    strategies: [...s.strategiesByFeatureEnv.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .flatMap(([, ids]) => ids.map((id) => s.strategies.get(id)!)),
    segments: byKey(s.segments),
    tagTypes: byKey(s.tagTypes),
    tags: byKey(s.tags),
    featureTags: [...s.featureTags.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([feature, tags]) => ({ feature, tags })),
    strategyTypes: byKey(s.strategyTypes),
    contextFields: byKey(s.contextFields),
    apiTokens: byKey(s.apiTokens),
    revokedTokens: byKey(s.revokedTokens),
    addons: byKey(s.addons),
    addonCursors: [...s.addonCursors.entries()].sort(([a], [b]) => a - b),
    users: byKey(s.users),
    sessions: byKey(s.sessions),
    personalTokens: byKey(s.personalTokens),
    passwordLinks: byKey(s.passwordLinks),
    impactCharts: byKey(s.impactCharts),
    impactSeries: [...s.impactSeries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    releaseTemplates: byKey(s.releaseTemplates),
    releasePlans: byKey(s.releasePlans),
    safeguards: byKey(s.safeguards),
    changeRequests: byKey(s.changeRequests),
    nextChangeRequestId: s.nextChangeRequestId,
    nextChangeId: s.nextChangeId,
    changeRequestRules: byKey(s.changeRequestRules),
    nextSegmentId: s.nextSegmentId,
    nextStrategySeq: s.nextStrategySeq,
    nextAddonId: s.nextAddonId,
    webhookTerm: s.webhookTerm,
    webhookLeader: s.webhookLeader,
    nextUserId: s.nextUserId,
    nextPersonalTokenId: s.nextPersonalTokenId,
    events: opts.events === false ? [] : [...s.events.oldestFirst()],
  };
}

/** The inverse of dumpState (used to load checkpoints). */
export function loadDump(d: StateDump): State {
  const s = emptyState();
  const m = <V>(list: unknown[], key: (v: V) => string | number, into: Map<any, V>) => {
    for (const v of list as V[]) into.set(key(v), v);
  };
  m<any>(d.projects, (p) => p.id, s.projects);
  m<any>(d.environments, (e) => e.name, s.environments);
  m<any>(d.features, (f) => f.name, s.features);
  for (const { feature, envs } of d.featureEnvs) {
    const map = new Map();
    for (const e of envs as any[]) map.set(e.environment, e);
    s.featureEnvs.set(feature, map);
  }
  for (const st of d.strategies as any[]) {
    s.strategies.set(st.id, st);
    const key = `${st.featureName}\u0000${st.environment}`;
    const ids = s.strategiesByFeatureEnv.get(key);
    if (ids) ids.push(st.id);
    else s.strategiesByFeatureEnv.set(key, [st.id]);
  }
  m<any>(d.segments, (x) => x.id, s.segments);
  m<any>(d.tagTypes, (x) => x.name, s.tagTypes);
  m<any>(d.tags, (x) => `${x.type}:${x.value}`, s.tags);
  for (const { feature, tags } of d.featureTags) s.featureTags.set(feature, tags as any);
  m<any>(d.strategyTypes, (x) => x.name, s.strategyTypes);
  m<any>(d.contextFields ?? [], (x) => x.name, s.contextFields);
  m<any>(d.apiTokens, (x) => x.hash, s.apiTokens);
  m<any>(d.revokedTokens, (x) => x.hash, s.revokedTokens);
  m<any>(d.addons ?? [], (x) => x.id, s.addons);
  for (const [id, eventId] of d.addonCursors ?? []) s.addonCursors.set(id, eventId);
  m<any>(d.users ?? [], (x) => x.id, s.users);
  m<any>(d.sessions ?? [], (x) => x.hash, s.sessions);
  m<any>(d.personalTokens ?? [], (x) => x.hash, s.personalTokens);
  m<any>(d.passwordLinks ?? [], (x) => x.hash, s.passwordLinks);
  for (const [key, series] of d.impactSeries ?? []) s.impactSeries.set(key, series as any);
  m<any>(d.impactCharts ?? [], (x) => x.id, s.impactCharts);
  m<any>(d.releaseTemplates ?? [], (x) => x.id, s.releaseTemplates);
  m<any>(d.releasePlans ?? [], (x) => `${x.featureName}\u0000${x.environment}`, s.releasePlans);
  m<any>(d.safeguards ?? [], (x) => x.id, s.safeguards);
  m<any>(d.changeRequests ?? [], (x) => x.id, s.changeRequests);
  s.nextChangeRequestId = d.nextChangeRequestId ?? 1;
  s.nextChangeId = d.nextChangeId ?? 1;
  m<any>(d.changeRequestRules ?? [], (x) => `${x.project}\u0000${x.environment}`, s.changeRequestRules);
  s.nextUserId = d.nextUserId ?? 1;
  s.nextPersonalTokenId = d.nextPersonalTokenId ?? 1;
  s.nextSegmentId = d.nextSegmentId;
  s.nextAddonId = d.nextAddonId ?? 1;
  s.nextStrategySeq = d.nextStrategySeq;
  s.webhookTerm = d.webhookTerm ?? 0;
  s.webhookLeader = d.webhookLeader ?? '';
  // A relay's log keeps only its newest events: the first one's id need not be 1.
  if (d.events.length > 0) s.events.startAt(d.events[0].id);
  for (const e of d.events) s.events.append(e);
  return s;
}
