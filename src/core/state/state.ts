// The whole server state: typed maps plus the event log. Only `applyOp` (ops.ts) mutates it.
import { EventLog } from './events/event-log.js';
import type {
  Addon, ApiToken, ChangeRequest, ChangeRequestRule, ContextField, Environment, Feature, FeatureEnv, ImpactChart, ImpactSeries, PasswordLink, PersonalToken, Project, ReleasePlan, ReleaseTemplate, RevokedToken, Safeguard, Segment, Session, Strategy, StrategyType, Tag, TagType, User,
} from './types.js';

export interface State {
  projects: Map<string, Project>;
  environments: Map<string, Environment>;
  features: Map<string, Feature>;
  /** feature name → environment name → configuration */
  featureEnvs: Map<string, Map<string, FeatureEnv>>;
  strategies: Map<string, Strategy>;
  /** `${feature}\u0000${environment}` → strategy ids in creation order (an index over `strategies`). */
  strategiesByFeatureEnv: Map<string, string[]>;
  segments: Map<number, Segment>;
  tagTypes: Map<string, TagType>;
  /** `${type}:${value}` → tag */
  tags: Map<string, Tag>;
  /** feature name → its tags */
  featureTags: Map<string, Tag[]>;
  strategyTypes: Map<string, StrategyType>;
  contextFields: Map<string, ContextField>;
  apiTokens: Map<string, ApiToken>;
  revokedTokens: Map<string, RevokedToken>;
  addons: Map<number, Addon>;
  /** addon id → id of the last event it delivered (or passed over): where delivery resumes after a restart. */
  addonCursors: Map<number, number>;
  users: Map<number, User>;
  /** Session hash → session. */
  sessions: Map<string, Session>;
  /** Personal access token hash → token. */
  personalTokens: Map<string, PersonalToken>;
  /** Invitation and reset link hash → link. */
  passwordLinks: Map<string, PasswordLink>;
  /** Impact metrics: series key (name and labels) → series, within IMPACT_METRICS_MAX_BYTES. */
  impactSeries: Map<string, ImpactSeries>;
  /** Saved impact metrics charts, by id. */
  impactCharts: Map<string, ImpactChart>;
  /** Release templates by id. */
  releaseTemplates: Map<string, ReleaseTemplate>;
  /** `${feature}\u0000${environment}` → the release plan applied there (one at most). */
  releasePlans: Map<string, ReleasePlan>;
  /** Safeguards by id. */
  safeguards: Map<string, Safeguard>;
  /** Change requests by id (drafts included). */
  changeRequests: Map<number, ChangeRequest>;
  /** `${project}\u0000${environment}` → its change request rule (only those ever configured). */
  changeRequestRules: Map<string, ChangeRequestRule>;
  events: EventLog;
  /** On a cluster: the webhook delivery term and the node that leads it (0 and '' before any). */
  webhookTerm: number;
  webhookLeader: string;
  nextSegmentId: number;
  nextStrategySeq: number;
  nextAddonId: number;
  nextUserId: number;
  nextPersonalTokenId: number;
  /** The next change request's id, and the next id of a change or comment in one (ids never reused). */
  nextChangeRequestId: number;
  nextChangeId: number;
  /** Bumped on every applied record; lets caches know something changed. */
  revision: number;
}

export function emptyState(): State {
  return {
    projects: new Map(),
    environments: new Map(),
    features: new Map(),
    featureEnvs: new Map(),
    strategies: new Map(),
    strategiesByFeatureEnv: new Map(),
    segments: new Map(),
    tagTypes: new Map(),
    tags: new Map(),
    featureTags: new Map(),
    strategyTypes: new Map(),
    contextFields: new Map(),
    apiTokens: new Map(),
    revokedTokens: new Map(),
    addons: new Map(),
    addonCursors: new Map(),
    users: new Map(),
    sessions: new Map(),
    personalTokens: new Map(),
    passwordLinks: new Map(),
    impactSeries: new Map(),
    impactCharts: new Map(),
    releaseTemplates: new Map(),
    releasePlans: new Map(),
    safeguards: new Map(),
    changeRequests: new Map(),
    changeRequestRules: new Map(),
    events: new EventLog(),
    webhookTerm: 0,
    webhookLeader: '',
    nextSegmentId: 1,
    nextStrategySeq: 1,
    nextAddonId: 1,
    nextUserId: 1,
    nextPersonalTokenId: 1,
    nextChangeRequestId: 1,
    nextChangeId: 1,
    revision: 0,
  };
}

export function featureEnvKey(feature: string, environment: string): string {
  return `${feature}\u0000${environment}`;
}

export function changeRuleKey(project: string, environment: string): string {
  return `${project}\u0000${environment}`;
}

export function tagKey(tag: Tag): string {
  return `${tag.type}:${tag.value}`;
}

/** Strategies of a flag in an environment, ordered by sortOrder then creation order. */
export function strategiesOf(state: State, feature: string, environment: string): Strategy[] {
  const ids = state.strategiesByFeatureEnv.get(featureEnvKey(feature, environment));
  if (!ids || ids.length === 0) return [];
  const list = ids.map((id) => state.strategies.get(id)!);
  list.sort((a, b) => a.sortOrder - b.sortOrder || a.seq - b.seq);
  return list;
}

/** The strategies of the active milestone of the release plan on a flag's environment (none without one). */
export function milestoneStrategiesOf(state: State, feature: string, environment: string): Strategy[] {
  if (state.releasePlans.size === 0) return [];
  const plan = state.releasePlans.get(featureEnvKey(feature, environment));
  if (!plan || plan.activeMilestoneId === null) return [];
  return plan.milestones.find((m) => m.id === plan.activeMilestoneId)?.strategies ?? [];
}

/**
 * What SDKs are served for a flag in an environment: the active release milestone's strategies
 * first, then the flag's own (as Unleash orders them). Admin views of the flag list only its own.
 */
export function servedStrategiesOf(state: State, feature: string, environment: string): Strategy[] {
  const own = strategiesOf(state, feature, environment);
  const milestone = milestoneStrategiesOf(state, feature, environment);
  return milestone.length === 0 ? own : [...milestone, ...own];
}
