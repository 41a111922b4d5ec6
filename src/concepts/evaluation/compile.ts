// Flags prepared for evaluation, once per change: every constraint becomes a closure with its
// values already cleaned, parsed and compiled (sets for IN, numbers, dates, semver versions, RE2
// programs, CIDR ranges), segments are folded into the strategies that use them, and parameters
// are parsed. Evaluating a flag then only reads the context.
//
// The semantics are the official Node SDK's (unleash-client 6.12), which the client specification
// and a property test hold this to; the libraries are the ones it uses (semver, ip-address, re2js,
// whose linear-time matching keeps a hostile context from stalling the server on a regex).
import { Address4, Address6 } from 'ip-address';
import { RE2JS } from 're2js';
import semver from 'semver';
import type { Constraint, Segment, Strategy } from '../../core/state/types.js';
import { fieldReader, type EvalContext } from './context.js';
import { strategyBucket } from './murmur.js';
import { variantSet, type VariantSet } from './variants.js';

/** What evaluation may draw on besides the context: injected, so tests can fix them. */
export interface Runtime {
  /** A float in [0, 1). */
  random(): number;
  /** Epoch ms. */
  now(): number;
  /** This server's host name, lower case (the applicationHostname strategy). */
  hostname: string;
  /** Set when an answer drew on the clock or on chance: then it is not worth caching. */
  volatile: boolean;
  /** Context values already read as versions during this answer: each flag need not parse them again. */
  versions?: Map<string, semver.SemVer | null>;
}

/** The context value as a version, or null when the SDK would not take it (invalid, or "v1.2.3"). */
function versionOf(value: string, rt: Runtime): semver.SemVer | null {
  const memo = (rt.versions ??= new Map());
  let v = memo.get(value);
  if (v === undefined) {
    v = semver.valid(value) && !value.startsWith('v') ? new semver.SemVer(value) : null;
    memo.set(value, v);
  }
  return v;
}

export type Check = (ctx: EvalContext, rt: Runtime) => boolean;

const NEVER: Check = () => false;
const ALWAYS: Check = () => true;

const cleanValues = (values: string[] | undefined) => (values ?? []).filter((v) => !!v).map((v) => v.trim());

function stringCheck(c: Constraint): Check {
  const read = fieldReader(c.contextName);
  const insensitive = c.caseInsensitive;
  const values = cleanValues(c.values).map((v) => (insensitive ? v.toLocaleLowerCase() : v));
  const test =
    c.operator === 'STR_STARTS_WITH' ? (s: string, v: string) => s.startsWith(v)
      : c.operator === 'STR_ENDS_WITH' ? (s: string, v: string) => s.endsWith(v)
        : (s: string, v: string) => s.includes(v);
  return (ctx) => {
    let value = read(ctx);
    if (value === undefined) return false;
    if (insensitive) value = value.toLocaleLowerCase();
    const s = value;
    return values.some((v) => test(s, v));
  };
}

function regexCheck(c: Constraint): Check {
  const read = fieldReader(c.contextName);
  if (c.value === undefined) return NEVER;
  let re: RE2JS;
  try {
    re = RE2JS.compile(c.value, c.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch {
    return NEVER;
  }
  return (ctx) => {
    const value = read(ctx);
    if (value === undefined) return false;
    try {
      return re.matcher(value).find();
    } catch {
      return false;
    }
  };
}

const SEMVER_COMPARE: Record<string, (a: semver.SemVer, b: semver.SemVer) => boolean> = {
  SEMVER_EQ: (a, b) => a.compare(b) === 0,
  SEMVER_GT: (a, b) => a.compare(b) > 0,
  SEMVER_LT: (a, b) => a.compare(b) < 0,
  SEMVER_GTE: (a, b) => a.compare(b) >= 0,
  SEMVER_LTE: (a, b) => a.compare(b) <= 0,
};

function semverCheck(c: Constraint): Check {
  const read = fieldReader(c.contextName);
  let target: semver.SemVer;
  try {
    target = new semver.SemVer(c.value ?? '');
  } catch {
    return NEVER;
  }
  const compare = SEMVER_COMPARE[c.operator];
  return (ctx, rt) => {
    const value = read(ctx);
    if (!value) return false;
    // The SDK takes only plain versions from the context: valid, and not "v1.2.3".
    const version = versionOf(value, rt);
    return version !== null && compare(version, target);
  };
}

function cidrCheck(c: Constraint): Check {
  const read = fieldReader(c.contextName);
  const ranges = cleanValues(c.values).map((r) => ({
    v4: Address4.isValid(r) ? new Address4(r) : null,
    v6: Address6.isValid(r) ? new Address6(r) : null,
  }));
  return (ctx) => {
    const value = read(ctx);
    if (value === undefined) return false;
    if (Address4.isValid(value)) {
      const ip = new Address4(value);
      return ranges.some((r) => r.v4 !== null && (ip.correctForm() === r.v4.correctForm() || ip.isInSubnet(r.v4)));
    }
    if (Address6.isValid(value)) {
      const ip = new Address6(value);
      return ranges.some((r) => r.v6 !== null && (ip.correctForm() === r.v6.correctForm() || ip.isInSubnet(r.v6)));
    }
    return false;
  };
}

function dateCheck(c: Constraint): Check {
  const at = new Date(c.value ?? '').getTime();
  const after = c.operator === 'DATE_AFTER';
  return (ctx, rt) => {
    let now: number;
    if (ctx.currentTime) now = new Date(ctx.currentTime).getTime();
    else {
      rt.volatile = true;
      now = rt.now();
    }
    return after ? now > at : now < at;
  };
}

function numberCheck(c: Constraint): Check {
  const read = fieldReader(c.contextName);
  const target = Number(c.value);
  if (Number.isNaN(target)) return NEVER;
  const op = c.operator;
  return (ctx) => {
    const n = Number(read(ctx));
    if (Number.isNaN(n)) return false;
    switch (op) {
      case 'NUM_EQ': return n === target;
      case 'NUM_GT': return n > target;
      case 'NUM_GTE': return n >= target;
      case 'NUM_LT': return n < target;
      default: return n <= target;
    }
  };
}

function operatorCheck(c: Constraint): Check | null {
  switch (c.operator) {
    case 'IN':
    case 'NOT_IN': {
      const read = fieldReader(c.contextName);
      const values = new Set(cleanValues(c.values));
      const isIn = c.operator === 'IN';
      return (ctx) => {
        const v = read(ctx);
        return (v !== undefined && values.has(v)) === isIn;
      };
    }
    case 'STR_STARTS_WITH':
    case 'STR_ENDS_WITH':
    case 'STR_CONTAINS':
      return stringCheck(c);
    case 'NUM_EQ':
    case 'NUM_GT':
    case 'NUM_GTE':
    case 'NUM_LT':
    case 'NUM_LTE':
      return numberCheck(c);
    case 'DATE_AFTER':
    case 'DATE_BEFORE':
      return dateCheck(c);
    case 'SEMVER_EQ':
    case 'SEMVER_GT':
    case 'SEMVER_LT':
    case 'SEMVER_GTE':
    case 'SEMVER_LTE':
      return semverCheck(c);
    case 'REGEX':
      return regexCheck(c);
    case 'IN_CIDR':
      return cidrCheck(c);
    default:
      return null;
  }
}

/** One constraint; an operator this evaluator does not know is false, inverted or not (as in the SDK). */
export function compileConstraint(c: Constraint): Check {
  const check = operatorCheck(c);
  if (check === null) return NEVER;
  return c.inverted ? (ctx, rt) => !check(ctx, rt) : check;
}

function all(checks: Check[]): Check {
  if (checks.length === 0) return ALWAYS;
  if (checks.length === 1) return checks[0];
  return (ctx, rt) => {
    for (const check of checks) if (!check(ctx, rt)) return false;
    return true;
  };
}

const split = (list: string | undefined) => (list ? list.split(/\s*,\s*/) : []);

/** The random stickiness id the SDK makes up when a context has none to give. */
const randomId = (rt: Runtime) => {
  rt.volatile = true;
  return `${Math.round(rt.random() * 10000) + 1}`;
};

function rollout(percentage: number, id: string | undefined, groupId: string): boolean {
  if (!id) return false;
  return percentage > 0 && strategyBucket(id, groupId) <= percentage;
}

/** A strategy's own rule (constraints aside); an unknown strategy type is never on. */
export function parameterCheck(name: string, p: Record<string, string>, hostname: string): Check {
  switch (name) {
    case 'default':
      return ALWAYS;
    case 'userWithId': {
      const ids = new Set(split(p.userIds));
      return (ctx) => ctx.userId !== undefined && ids.has(ctx.userId);
    }
    case 'applicationHostname': {
      const on = p.hostNames ? p.hostNames.toLowerCase().split(/\s*,\s*/).includes(hostname) : false;
      return on ? ALWAYS : NEVER;
    }
    case 'remoteAddress': {
      if (!p.IPs) return NEVER;
      const ranges = split(p.IPs).map((r) => {
        try {
          return { text: r, v4: new Address4(r) };
        } catch {
          return { text: r, v4: null };
        }
      });
      return (ctx) => {
        let ip: Address4 | null;
        try {
          ip = new Address4(ctx.remoteAddress || '');
        } catch {
          ip = null;
        }
        return ranges.some((r) => r.text === ctx.remoteAddress || (ip !== null && r.v4 !== null && ip.isInSubnet(r.v4)));
      };
    }
    case 'flexibleRollout': {
      const groupId = p.groupId || '';
      const percentage = Number(p.rollout);
      const stickiness = p.stickiness || 'default';
      if (stickiness === 'default') return (ctx, rt) => rollout(percentage, ctx.userId || ctx.sessionId || randomId(rt), groupId);
      if (stickiness === 'random') return (_ctx, rt) => rollout(percentage, randomId(rt), groupId);
      const read = fieldReader(stickiness);
      return (ctx) => rollout(percentage, read(ctx), groupId);
    }
    case 'gradualRolloutUserId':
    case 'gradualRolloutSessionId': {
      const percentage = Number(p.percentage);
      const groupId = p.groupId || '';
      const field = name === 'gradualRolloutUserId' ? 'userId' : 'sessionId';
      return (ctx) => rollout(percentage, ctx[field], groupId);
    }
    case 'gradualRolloutRandom': {
      const percentage = Number(p.percentage);
      return (_ctx, rt) => {
        rt.volatile = true;
        return percentage >= Math.floor(rt.random() * 100) + 1;
      };
    }
    default:
      return NEVER;
  }
}

export interface CompiledStrategy {
  /** Constraints (the strategy's, then its segments'), then the strategy's own rule. */
  check: Check;
  variants: VariantSet;
  /** The SDK passes the raw parameter, so a missing groupId hashes as "undefined". */
  groupId: string;
  /** The stickiness of its variants: theirs, else the strategy's. */
  variantStickiness: string | undefined;
  /** On for everyone: `default` with no constraint or segment. */
  unconditional: boolean;
}

/** A strategy with the segments it names (a segment that does not exist fails it, as in the SDK). */
export function compileStrategy(s: Pick<Strategy, 'name' | 'parameters' | 'constraints' | 'variants' | 'segments'>, segments: Map<number, Segment>, hostname: string): CompiledStrategy {
  const checks = s.constraints.map(compileConstraint);
  for (const id of s.segments) {
    const seg = segments.get(id);
    if (!seg) checks.push(NEVER);
    else checks.push(...seg.constraints.map(compileConstraint));
  }
  const constraints = all(checks);
  const rule = parameterCheck(s.name, s.parameters, hostname);
  return {
    check: (ctx, rt) => constraints(ctx, rt) && rule(ctx, rt),
    ...strategyVariants(s),
    unconditional: s.name === 'default' && checks.length === 0,
  };
}

/** A strategy's variants as they are picked from: the set, its group and its stickiness. */
export function strategyVariants(s: Pick<Strategy, 'parameters' | 'variants'>): Pick<CompiledStrategy, 'variants' | 'groupId' | 'variantStickiness'> {
  return { variants: variantSet(s.variants), groupId: String(s.parameters.groupId), variantStickiness: s.variants[0]?.stickiness || s.parameters.stickiness };
}
