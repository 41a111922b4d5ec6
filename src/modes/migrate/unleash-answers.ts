// What `fanion migrate` reads of an Unleash admin API (7.x and 8.x), as JSON schemas. An answer
// that does not fit is refused naming the field, so a broken or hostile Unleash stops the
// migration with one clear line instead of a stack trace or a half-understood copy. Only the
// parts the migration walks through are described here (Unleash sends much more: counts, owners,
// lifecycle…, all ignored); the leaves it carries over as they are (constraints, parameters,
// variants) are checked afterwards by the state import's own schema, the one every import meets.

import type { SegmentItem, StrategyDefinitionItem } from '../../concepts/state-io/schema.js';

const str = (max = 10_000) => ({ type: 'string', maxLength: max });
const nullableStr = (max = 10_000) => ({ type: ['string', 'null'], maxLength: max });
const name = { type: 'string', minLength: 1, maxLength: 1000 };
const bool = { type: ['boolean', 'null'] };
const date = nullableStr(100);
const int = { type: 'integer', minimum: -1_000_000_000, maximum: 1_000_000_000 };
const list = (items: unknown, maxItems = 1_000_000) => ({ type: 'array', maxItems, items });
const obj = (required: string[], properties: Record<string, unknown>) => ({ type: 'object', required, properties });
/** Carried over as given and checked later by the state schema; here only "a list". */
const anyList = { type: 'array', maxItems: 100_000 };

const strategy = obj(['name'], {
  id: nullableStr(100),
  name,
  title: nullableStr(1000),
  disabled: bool,
  sortOrder: { type: ['integer', 'null'], minimum: -1_000_000_000, maximum: 1_000_000_000 },
  milestoneId: nullableStr(100),
  parameters: { type: ['object', 'null'] },
  constraints: anyList,
  variants: anyList,
  segments: list({ type: 'integer' }, 10_000),
});

const flagFields = {
  name,
  project: name,
  type: nullableStr(100),
  description: nullableStr(),
  stale: bool,
  impressionData: bool,
  createdAt: date,
  archivedAt: date,
};

export const unleashAnswers = {
  unleashUiConfig: obj([], {
    versionInfo: obj([], { current: obj([], { oss: nullableStr(100), enterprise: nullableStr(100) }) }),
  }),
  unleashProjects: obj(['projects'], {
    projects: list(obj(['id'], { id: name, name: nullableStr(1000), description: nullableStr(), mode: nullableStr(100), createdAt: date }), 100_000),
  }),
  unleashEnvironments: obj(['environments'], {
    environments: list(obj(['name'], { name, type: nullableStr(100), enabled: bool, protected: bool, sortOrder: int }), 10_000),
  }),
  unleashProjectFeatures: obj(['features'], { features: list(obj(['name'], { name, tags: list(obj(['type', 'value'], { type: name, value: str(1000) }), 100_000) }), 1_000_000) }),
  unleashFeature: obj(['name'], {
    ...flagFields,
    lastSeenAt: date,
    dependencies: list(obj(['feature'], { feature: name, enabled: bool, variants: list(str(1000), 10_000) }), 10_000),
    environments: list(obj(['name'], { name, enabled: bool, lastSeenAt: date, variants: anyList, strategies: list(strategy, 100_000) }), 10_000),
  }),
  unleashArchivedSearch: obj(['features'], {
    total: int,
    features: list(obj(['name', 'project'], {
      ...flagFields,
      environments: list(obj(['name'], { name, enabled: bool, hasStrategies: bool, variantCount: { type: ['integer', 'null'], minimum: 0 } }), 10_000),
      tags: list(obj(['type', 'value'], { type: name, value: str(1000) }), 100_000),
    }), 10_000),
  }),
  unleashFeatureEnvironment: obj([], { enabled: bool, strategies: list(strategy, 100_000) }),
  unleashVariants: obj([], { variants: anyList }),
  unleashFeatureTags: obj(['tags'], { tags: list(obj(['type', 'value'], { type: name, value: str(1000) }), 100_000) }),
  unleashSegments: obj(['segments'], {
    segments: list(obj(['id', 'name'], { id: { type: 'integer', minimum: 1, maximum: 2_000_000_000 }, name: str(1000), description: nullableStr(), project: nullableStr(1000), constraints: anyList, createdAt: date, createdBy: nullableStr(1000) }), 100_000),
  }),
  unleashStrategyTypes: obj(['strategies'], {
    strategies: list(obj(['name'], { name, title: nullableStr(1000), displayName: nullableStr(1000), description: nullableStr(), editable: bool, deprecated: bool, parameters: anyList }), 10_000),
  }),
  unleashContextFields: list(obj(['name'], {
    name,
    description: nullableStr(),
    stickiness: bool,
    sortOrder: int,
    createdAt: date,
    legalValues: list(obj(['value'], { value: str(1000), description: nullableStr() }), 100_000),
  }), 10_000),
  unleashTagTypes: obj(['tagTypes'], { tagTypes: list(obj(['name'], { name, description: nullableStr(), icon: nullableStr(1000) }), 10_000) }),
  unleashTags: obj(['tags'], { tags: list(obj(['type', 'value'], { type: name, value: str(1000) }), 1_000_000) }),
  unleashApiTokens: obj(['tokens'], {
    tokens: list(obj(['secret', 'type'], {
      secret: { type: 'string', minLength: 1, maxLength: 2000 },
      tokenName: nullableStr(1000),
      username: nullableStr(1000),
      type: str(100),
      project: nullableStr(10_000),
      projects: list(name, 10_000),
      environment: nullableStr(1000),
      expiresAt: date,
      createdAt: date,
      secure: bool,
    }), 100_000),
  }),
  /** Only counted, for the list of what does not come over. */
  unleashUsers: obj(['users'], { users: anyList }),
  unleashAddons: obj(['addons'], { addons: list(obj([], { provider: nullableStr(1000) }), 100_000) }),
};

type Opt<T> = T | null | undefined;

export interface UStrategy {
  id?: Opt<string>;
  name: string;
  title?: Opt<string>;
  disabled?: Opt<boolean>;
  sortOrder?: Opt<number>;
  milestoneId?: Opt<string>;
  parameters?: Opt<Record<string, unknown>>;
  constraints?: unknown[];
  variants?: unknown[];
  segments?: number[];
}

interface UFlagFields {
  name: string;
  project: string;
  type?: Opt<string>;
  description?: Opt<string>;
  stale?: Opt<boolean>;
  impressionData?: Opt<boolean>;
  createdAt?: Opt<string>;
  /** Set by the reader: archived flags are read another way than the others. */
  archived?: boolean;
  archivedAt?: Opt<string>;
}

export interface UFeature extends UFlagFields {
  lastSeenAt?: Opt<string>;
  dependencies?: { feature: string; enabled?: Opt<boolean>; variants?: string[] }[];
  environments?: UFeatureEnvironment[];
}

export interface UFeatureEnvironment {
  name: string;
  enabled?: Opt<boolean>;
  lastSeenAt?: Opt<string>;
  variants?: unknown[];
  strategies?: UStrategy[];
}

export interface UArchivedFlag extends UFlagFields {
  /** Unleash 8 says whether there is anything to read in each (7.x may not: then it is read). */
  environments?: { name: string; enabled?: Opt<boolean>; hasStrategies?: Opt<boolean>; variantCount?: Opt<number> }[];
  /** Unleash 8's search lists each flag's tags (older ones do not). */
  tags?: UTag[];
}

export interface UProject {
  id: string;
  name?: Opt<string>;
  description?: Opt<string>;
  mode?: Opt<string>;
  createdAt?: Opt<string>;
}

export interface UEnvironment {
  name: string;
  type?: Opt<string>;
  enabled?: Opt<boolean>;
  protected?: Opt<boolean>;
  sortOrder?: number;
}

/** Segments and strategy types come as the state document has them (checked by its schema later). */
export type USegment = SegmentItem;
export type UStrategyType = StrategyDefinitionItem;

export interface UContextField {
  name: string;
  description?: Opt<string>;
  stickiness?: Opt<boolean>;
  sortOrder?: number;
  createdAt?: Opt<string>;
  legalValues?: { value: string; description?: Opt<string> }[];
}

export interface UTagType {
  name: string;
  description?: Opt<string>;
  icon?: Opt<string>;
}

export interface UTag {
  type: string;
  value: string;
}

export interface UApiToken {
  secret: string;
  tokenName?: Opt<string>;
  /** Unleash 4's name for tokenName. */
  username?: Opt<string>;
  type: string;
  project?: Opt<string>;
  projects?: string[];
  environment?: Opt<string>;
  expiresAt?: Opt<string>;
  createdAt?: Opt<string>;
  /** Unleash 8.1+: a v2 token, of which Unleash keeps only a verifier; `secret` then holds its selector. */
  secure?: Opt<boolean>;
}
