// The typed in-memory model. Everything here is plain data so it can be written to the WAL
// and to checkpoints with msgpack and read back unchanged.

export interface Project {
  id: string;
  name: string;
  description: string | null;
  mode: string;
  defaultStickiness: string;
  createdAt: string;
  updatedAt: string | null;
  /**
   * Environments taken out of the project (Unleash's project environments): every environment is
   * a project's unless named here, so a new environment is every project's, as before this existed.
   * Absent when none was taken out.
   */
  removedEnvironments?: string[];
}

export interface Environment {
  name: string;
  type: string;
  enabled: boolean;
  protected: boolean;
  sortOrder: number;
}

export interface Constraint {
  contextName: string;
  operator: string;
  values?: string[];
  value?: string;
  caseInsensitive: boolean;
  inverted: boolean;
}

export interface VariantPayload {
  type: string;
  value: string;
}

export interface VariantOverride {
  contextName: string;
  values: string[];
}

export interface Variant {
  name: string;
  weight: number;
  weightType: 'fix' | 'variable';
  /** Absent only in imported data: a strategy's variant then follows the strategy's stickiness (SDK rule). */
  stickiness?: string;
  payload?: VariantPayload;
  overrides?: VariantOverride[];
}

export interface Strategy {
  id: string;
  featureName: string;
  projectId: string;
  environment: string;
  name: string;
  title: string | null;
  disabled: boolean;
  sortOrder: number;
  constraints: Constraint[];
  parameters: Record<string, string>;
  variants: Variant[];
  segments: number[];
  createdAt: string;
  /** Creation order, the tie-breaker after sortOrder. */
  seq: number;
}

export interface FeatureEnv {
  environment: string;
  enabled: boolean;
  variants: Variant[];
  lastSeenAt: string | null;
}

export interface Dependency {
  feature: string;
  enabled: boolean;
  variants: string[];
}

export interface Feature {
  name: string;
  project: string;
  type: string;
  description: string | null;
  impressionData: boolean;
  stale: boolean;
  archived: boolean;
  archivedAt: string | null;
  createdAt: string;
  lastSeenAt: string | null;
  dependencies: Dependency[];
}

export interface Segment {
  id: number;
  name: string;
  description: string | null;
  project: string | null;
  constraints: Constraint[];
  createdAt: string;
  createdBy: string;
}

export interface TagType {
  name: string;
  description: string;
  icon: string | null;
}

export interface Tag {
  type: string;
  value: string;
}

export interface StrategyParameterDef {
  name: string;
  type: string;
  description: string;
  required: boolean;
}

export interface StrategyType {
  name: string;
  title: string | null;
  displayName: string | null;
  description: string;
  editable: boolean;
  deprecated: boolean;
  parameters: StrategyParameterDef[];
}

/** A custom context field (the built-in ones are constants: state/defaults.ts). */
export interface ContextField {
  name: string;
  description: string;
  /** When not empty, new constraints over this field may only use these values. */
  legalValues: { value: string; description: string }[];
  /** Offered as a stickiness for gradual rollouts and variants. */
  stickiness: boolean;
  sortOrder: number;
  createdAt: string;
}

export type TokenType = 'admin' | 'client' | 'frontend';

export interface ApiToken {
  /** Keyed hash of the secret: the secret itself is never stored. */
  hash: string;
  tokenName: string;
  type: TokenType;
  environment: string;
  projects: string[];
  expiresAt: string | null;
  createdAt: string;
  /** Shown in listings so an operator can tell tokens apart without the secret. */
  prefix: string;
  /** When it was last used, to within METRICS_FLUSH_MS (absent in data written before it was kept). */
  seenAt?: string | null;
}

/** A token that was deleted stays known by hash so seeding never brings it back. */
export interface RevokedToken {
  hash: string;
  revokedAt: string;
}

/** An addon (Unleash's name for an integration): today the `webhook` provider. */
export interface Addon {
  id: number;
  provider: string;
  description: string | null;
  enabled: boolean;
  /** The provider's settings, as Unleash keeps them: url, contentType, authorization, customHeaders, bodyTemplate. */
  parameters: Record<string, string>;
  /** Event types sent; `*` for all. */
  events: string[];
  /** Only events of these projects (empty or `*`: all). */
  projects: string[];
  /** Only events of these environments (empty or `*`: all). */
  environments: string[];
  /** Keys the HMAC-SHA256 signature receivers check (made at creation, or given). */
  signingSecret: string;
  createdAt: string;
}

/** A person's role on the whole server, as Unleash names them. */
export type RootRole = 'Admin' | 'Editor' | 'Viewer';

/** A person's role in one project, beyond their root role. */
export type ProjectRole = 'Owner' | 'Member' | 'Viewer';

export interface ProjectBinding {
  project: string;
  role: ProjectRole;
}

/** A person who signs in to the console (or acts through a personal access token). */
export interface User {
  id: number;
  name: string | null;
  /** Unique among people, compared without case. */
  email: string | null;
  /** Unique among people (and among emails), compared without case. */
  username: string | null;
  rootRole: RootRole;
  /** Roles in projects, sorted by project. */
  projects: ProjectBinding[];
  /** The environments in which the person may change anything; null for every one. */
  environments: string[] | null;
  /**
   * The scrypt hash of the password, in PHC form (`$scrypt$ln=…,r=…,p=…$salt$hash`); null when
   * the person has none (invited and not yet accepted, or single sign-on only). Kept in the state
   * and the WAL like a token's hash, never in an event or an answer.
   */
  passwordHash: string | null;
  /** A deactivated person cannot sign in, and their sessions and personal tokens stop working. */
  active: boolean;
  /** The single sign-on identity the person signs in with, once they have. */
  sso: { issuer: string; subject: string } | null;
  createdAt: string;
  /** When the person last signed in. */
  seenAt: string | null;
  /** Names of the flags the person starred (absent in records written before favourites existed). */
  favorites?: string[];
}

/** A signed-in browser: the cookie holds a random id, the state only its keyed hash. */
export interface Session {
  hash: string;
  userId: number;
  /** How the person signed in. */
  method: 'password' | 'oidc';
  createdAt: string;
  /** The absolute end of the session (SESSION_MAX_AGE_MS after it began). */
  expiresAt: string;
  /** Its last use, to within METRICS_FLUSH_MS: the idle timeout counts from here after a restart. */
  seenAt: string;
}

/** A personal access token: an API credential that acts as its person. */
export interface PersonalToken {
  /** Keyed hash of the secret. */
  hash: string;
  id: number;
  userId: number;
  description: string;
  expiresAt: string;
  createdAt: string;
  seenAt: string | null;
}

/** A one-time link that sets a person's password: an invitation or a reset. Only its hash is kept. */
export interface PasswordLink {
  hash: string;
  userId: number;
  kind: 'invite' | 'reset';
  createdAt: string;
  expiresAt: string;
  /** Who made it (shown to the person who opens it). */
  createdBy: string;
}

/**
 * One series of an impact metric (what an application's SDK reports of itself, concepts/impact-metrics):
 * its description, its running total since it was first kept, and its history in tiers of coarser
 * steps. Points are immutable; an op replaces a series' arrays rather than changing them.
 */
export interface ImpactSeries {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  /** Label name → value, sorted by name (`origin` included). */
  labels: [string, string][];
  /** A histogram's finite bucket bounds, ascending ([] for the others; `+Inf` is implied). */
  le: number[];
  /** Counter: [sum]; gauge: [last value]; histogram: [count, sum, count per bound (cumulative)…, count at +Inf]. */
  total: number[];
  /** One array per tier (concepts/impact-metrics/logic.ts TIERS), oldest point first. */
  tiers: ImpactPoint[][];
}

/** A chart of an impact metric someone saved (Unleash's impact-metrics config), for the console or one flag's page. */
export interface ImpactChart {
  id: string;
  title?: string;
  metricName: string;
  timeRange: 'hour' | 'day' | 'week' | 'month';
  yAxisMin: 'auto' | 'zero';
  aggregationMode: 'rps' | 'count' | 'avg' | 'sum' | 'p50' | 'p95' | 'p99';
  labelSelectors: Record<string, string[]>;
  /** The flag whose page shows it, or null for the impact metrics page. */
  feature: string | null;
  createdAt: string;
}

/**
 * What one step of a tier received, starting at `t` (Unix seconds). Counter: [sum of deltas];
 * gauge: [last value, sum of values, number of values]; histogram: as ImpactSeries.total, deltas.
 */
export interface ImpactPoint {
  t: number;
  v: number[];
}

export interface EventRecord {
  id: number;
  type: string;
  createdAt: string;
  createdBy: string;
  createdByUserId: number | null;
  environment: string | null;
  project: string | null;
  featureName: string | null;
  data: unknown;
  preData: unknown;
  tags: Tag[] | null;
}

/** Who is calling. Route code receives it so events carry `createdBy`. */
export interface Actor {
  name: string;
  userId: number | null;
}

/**
 * One strategy of a release template's milestone, as Unleash shapes it (`strategyName`, not
 * `name`). In a template, parameters may hold `{{featureName}}`, replaced when the template is
 * applied to a flag.
 */
export interface MilestoneStrategy {
  id: string;
  sortOrder: number;
  title: string | null;
  strategyName: string;
  parameters: Record<string, string>;
  constraints: Constraint[];
  variants: Variant[];
  segments: number[];
}

/** A step of a release template: the strategies served while it is the active one. */
export interface TemplateMilestone {
  id: string;
  name: string;
  sortOrder: number;
  strategies: MilestoneStrategy[];
}

/** A reusable sequence of milestones (Unleash's release plan template). */
export interface ReleaseTemplate {
  id: string;
  name: string;
  description: string | null;
  createdByUserId: number | null;
  createdAt: string;
  milestones: TemplateMilestone[];
  /** Archived templates can no longer be applied; plans made from them go on. */
  archivedAt: string | null;
}

/** A milestone moves on by itself this long after it started (a progression). */
export interface TransitionCondition {
  intervalMinutes: number;
}

/**
 * A milestone of a plan: its strategies are complete flag strategies (the flag, its project and
 * environment filled in), so SDK answers serve them like the flag's own.
 */
export interface PlanMilestone {
  id: string;
  name: string;
  sortOrder: number;
  strategies: Strategy[];
  startedAt: string | null;
  /** The progression from this milestone to `progressionTarget`, if any. */
  transitionCondition: TransitionCondition | null;
  progressionTarget: string | null;
  /** When the progression out of this milestone ran (it runs once per start). */
  progressionExecutedAt: string | null;
  /** When its progression was paused (the environment was switched off). */
  pausedAt: string | null;
}

/** A template applied to one flag in one environment (at most one per flag and environment). */
export interface ReleasePlan {
  id: string;
  name: string;
  description: string | null;
  createdByUserId: number | null;
  createdAt: string;
  featureName: string;
  environment: string;
  releasePlanTemplateId: string;
  /** The milestone whose strategies SDKs are served; null before the first start. */
  activeMilestoneId: string | null;
  milestones: PlanMilestone[];
}

/** What a safeguard does when it fires: pause its release plan's progressions, or switch its flag's environment off. */
export type SafeguardAction =
  | { type: 'pauseReleasePlanProgressions'; id: string }
  | { type: 'disableFeatureEnvironment'; project: string; featureName: string; environment: string };

/**
 * A threshold on an impact metric that acts on a flag's environment (directly, or through the
 * release plan there) when the metric, aggregated over its window, crosses it
 * (concepts/safeguards).
 */
export interface Safeguard {
  id: string;
  /** The flag and environment it acts on (a plan safeguard: its plan's). */
  featureName: string;
  environment: string;
  action: SafeguardAction;
  impactMetric: {
    id: string;
    metricName: string;
    timeRange: 'hour' | 'day' | 'week' | 'month';
    aggregationMode: 'rps' | 'count' | 'avg' | 'sum' | 'p50' | 'p95' | 'p99';
    labelSelectors: Record<string, string[]>;
  };
  triggerCondition: { operator: '>' | '<'; threshold: number };
  createdAt: string;
  /** When it last fired (null: never). */
  triggeredAt: string | null;
}

/** Where a change request stands (Unleash's names). */
export type ChangeRequestState = 'Draft' | 'In review' | 'Approved' | 'Scheduled' | 'Applied' | 'Rejected' | 'Cancelled';

/**
 * When a Scheduled request is to be applied (concepts/change-requests/schedule.ts): `pending` until
 * then; `suspended` when what it touches moved or its scheduler was deleted, `failed` when applying
 * it at that time failed, each with the reason. Present only while the request is Scheduled.
 */
export interface ChangeRequestSchedule {
  scheduledAt: string;
  status: 'pending' | 'failed' | 'suspended';
  reason: string | null;
  /** Who scheduled it last: the changes are applied in their name, and deleting them suspends it. */
  scheduledBy: ChangeRequestPerson;
}

/** Who did something in a change request, as Unleash shows them. */
export interface ChangeRequestPerson {
  id: number | null;
  username: string;
}

/** One change a request will make, kept as it was asked for and run through its command when applied. */
export interface RequestedChange {
  id: number;
  action: string;
  /** As the request gave it (an object, or a list for reorderStrategy), checked against the action's schema. */
  payload: unknown;
  createdAt: string;
  createdBy: ChangeRequestPerson;
  /**
   * A fingerprint of what the change was made against (the strategy, the variants, the segment),
   * or null when it depends on nothing that can move under it. The change conflicts when the
   * fingerprint of the state as it is now differs (concepts/change-requests/actions.ts).
   */
  base: string | null;
}

/**
 * A change request: the changes one person gathered for one project and environment, reviewed by
 * others and applied as one (concepts/change-requests). `features` lists flag changes by flag;
 * `segments` the changes of segments, which belong to no flag.
 */
export interface ChangeRequest {
  id: number;
  title: string | null;
  project: string;
  environment: string;
  /** Approvals it needs, fixed when it was made. */
  minApprovals: number;
  state: ChangeRequestState;
  /** When it entered each state it went through. */
  stateTimestamps: Partial<Record<ChangeRequestState, string>>;
  features: { name: string; changes: RequestedChange[] }[];
  segments: RequestedChange[];
  approvals: { createdBy: ChangeRequestPerson; createdAt: string }[];
  rejections: { createdBy: ChangeRequestPerson; createdAt: string }[];
  comments: { id: number; text: string; createdBy: ChangeRequestPerson; createdAt: string }[];
  createdBy: ChangeRequestPerson;
  createdAt: string;
  /** While Scheduled: when, and how it stands (absent otherwise, and in requests written before schedules existed). */
  schedule?: ChangeRequestSchedule;
}

/**
 * Whether changes to one project's environment need change requests (four eyes), and how many
 * approvals a request needs there (concepts/change-requests). Absent: off, one approval.
 */
export interface ChangeRequestRule {
  project: string;
  environment: string;
  enabled: boolean;
  /** 1–10. */
  requiredApprovals: number;
}
