// Constraints and strategies in words ("25% of users, by userId"; "country is one of NO, SE"), as
// the flag's page and the history show them. Pure: no DOM, no Preact (test/ui/words.test.ts
// bundles it on its own).

/** A constraint as the API takes it and answers it (mirrors the server's ConstraintInput, which the browser build cannot import). */
export interface Constraint {
  contextName: string;
  operator: string;
  values?: string[];
  value?: string;
  caseInsensitive?: boolean;
  inverted?: boolean;
}

export interface Variant {
  name: string;
  weight: number;
  weightType: 'variable' | 'fix';
  stickiness?: string;
  payload?: { type: string; value: string };
}

export interface Strategy {
  id?: string;
  name: string;
  title?: string | null;
  disabled?: boolean;
  sortOrder?: number;
  parameters: Record<string, string>;
  constraints: Constraint[];
  segments: number[];
  variants: Variant[];
}

interface OperatorInfo { label: string; list: boolean; hint: string; caseInsensitive?: boolean }

/** Every operator of the API, what it means, and whether it takes a list. */
export const OPERATORS: Record<string, OperatorInfo> = {
  IN: { label: 'is one of', list: true, hint: 'values, comma-separated' },
  NOT_IN: { label: 'is not one of', list: true, hint: 'values, comma-separated' },
  STR_CONTAINS: { label: 'contains', list: true, hint: 'texts, comma-separated', caseInsensitive: true },
  STR_STARTS_WITH: { label: 'starts with', list: true, hint: 'texts, comma-separated', caseInsensitive: true },
  STR_ENDS_WITH: { label: 'ends with', list: true, hint: 'texts, comma-separated', caseInsensitive: true },
  NUM_EQ: { label: '= (number)', list: false, hint: 'a number' },
  NUM_GT: { label: '> (number)', list: false, hint: 'a number' },
  NUM_GTE: { label: '≥ (number)', list: false, hint: 'a number' },
  NUM_LT: { label: '< (number)', list: false, hint: 'a number' },
  NUM_LTE: { label: '≤ (number)', list: false, hint: 'a number' },
  DATE_AFTER: { label: 'after (date)', list: false, hint: 'an ISO date, e.g. 2026-12-01T00:00:00Z' },
  DATE_BEFORE: { label: 'before (date)', list: false, hint: 'an ISO date, e.g. 2026-12-01T00:00:00Z' },
  SEMVER_EQ: { label: '= (version)', list: false, hint: 'a semantic version, e.g. 1.2.3' },
  SEMVER_GT: { label: '> (version)', list: false, hint: 'a semantic version' },
  SEMVER_GTE: { label: '≥ (version)', list: false, hint: 'a semantic version' },
  SEMVER_LT: { label: '< (version)', list: false, hint: 'a semantic version' },
  SEMVER_LTE: { label: '≤ (version)', list: false, hint: 'a semantic version' },
  REGEX: { label: 'matches (regular expression)', list: false, hint: 'a regular expression (RE2)', caseInsensitive: true },
  IN_CIDR: { label: 'in network (CIDR)', list: true, hint: 'addresses or ranges, e.g. 10.0.0.0/8, comma-separated' },
};

export function describeConstraint(c: Constraint): string {
  const info = OPERATORS[c.operator];
  const op = info?.label ?? c.operator;
  // The API answers both fields (one of them empty), as Unleash does: the operator says which counts.
  const value = (info?.list ?? true) ? (c.values ?? []).join(', ') : (c.value ?? '');
  return `${c.contextName} ${c.inverted ? 'NOT ' : ''}${op} ${value}${c.caseInsensitive ? ' (any case)' : ''}`;
}

/** The built-in stickiness choices, before context fields marked as usable for it. */
export const STICKINESS = ['default', 'userId', 'sessionId', 'random'];

function stickinessWords(stickiness: string | undefined): string {
  if (!stickiness || stickiness === 'default') return 'users, by userId (else sessionId, else at random)';
  if (stickiness === 'random') return 'requests, at random';
  return `users, by ${stickiness}`;
}

/** The share a strategy rolls out to, in percent, or null for those that have none. */
export function rolloutOf(s: Pick<Strategy, 'name' | 'parameters'>): number | null {
  const raw = s.name === 'flexibleRollout' ? s.parameters.rollout : /^gradualRollout/.test(s.name) ? s.parameters.percentage : undefined;
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) ? Math.max(0, Math.min(100, n)) : null;
}

const listed = (v: string | undefined) => (v ?? '').split(',').map((x) => x.trim()).filter(Boolean).join(', ') || 'none';

/** Who a strategy is on for, in words, without its constraints and segments. */
export function strategyWords(s: Pick<Strategy, 'name' | 'parameters'>): string {
  const p = s.parameters ?? {};
  const share = rolloutOf(s);
  switch (s.name) {
    case 'default':
      return 'Everyone';
    case 'flexibleRollout':
      return `${share ?? 0}% of ${stickinessWords(p.stickiness)}`;
    case 'gradualRolloutUserId':
      return `${share ?? 0}% of users, by userId`;
    case 'gradualRolloutSessionId':
      return `${share ?? 0}% of sessions`;
    case 'gradualRolloutRandom':
      return `${share ?? 0}% of requests, at random`;
    case 'userWithId':
      return `Users ${listed(p.userIds)}`;
    case 'remoteAddress':
      return `IP addresses ${listed(p.IPs)}`;
    case 'applicationHostname':
      return `Hosts ${listed(p.hostNames)}`;
    default: {
      const params = Object.entries(p).map(([k, v]) => `${k} ${v}`).join(', ');
      return params ? `${s.name}: ${params}` : s.name;
    }
  }
}

/** A strategy in one line: who, where (its constraints) and which segments. */
export function strategySentence(s: Strategy, segmentName: (id: number) => string = (id) => `#${id}`): string {
  const parts = [strategyWords(s)];
  if (s.constraints.length > 0) parts.push(`where ${s.constraints.map(describeConstraint).join(' and ')}`);
  if (s.segments.length > 0) parts.push(`in segment${s.segments.length > 1 ? 's' : ''} ${s.segments.map(segmentName).join(', ')}`);
  return parts.join(', ');
}
