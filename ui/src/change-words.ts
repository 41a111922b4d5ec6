// What a change to a flag's environment does, in words, for the question asked before it is made
// in production and for the note (with Undo) after it: "60 % → 100 % of users in production, for
// everyone". Pure: no DOM, no Preact (test/ui/change-words.unit.test.ts bundles it on its own).
import { describeConstraint, rolloutOf, strategyWords, type Strategy, type Variant } from './words.js';

/** What the question needs to know of the environment, as the flag's page has it. */
export interface EnvFacts { flag: string; name: string; type?: string; enabled: boolean; strategies: Strategy[] }

/**
 * Whether changes in this environment ask first: those of type production, as the production
 * switch has always decided (an environment's type is what marks it as the one users see).
 */
export function asksFirst(env: { type?: string }): boolean {
  return env.type === 'production';
}

/** One change to an environment's strategies or variants. */
export type Change =
  | { kind: 'add'; after: Strategy }
  | { kind: 'edit'; before: Strategy; after: Strategy }
  | { kind: 'delete'; before: Strategy }
  | { kind: 'disable'; before: Strategy }
  | { kind: 'enable'; before: Strategy }
  | { kind: 'move'; before: Strategy; by: number }
  | { kind: 'variants'; before: Variant[]; after: Variant[] }
  /** Another environment's strategies added after these, and its variants (none: these stay). */
  | { kind: 'copy'; from: string; strategies: Strategy[]; before: Variant[]; after: Variant[] };

export interface Question {
  /** The dialog's heading, a question. */
  title: string;
  /** What changes, in words, and what it means for users. */
  body: string;
  /** The confirming button. */
  confirm: string;
  /** The note shown once it is done (with Undo). */
  done: string;
}

type Names = (id: number) => string;

/** Who a strategy's share is of: users, sessions or requests. */
function unitOf(s: Strategy): string {
  if (s.name === 'gradualRolloutSessionId') return 'sessions';
  if (s.name === 'gradualRolloutRandom' || (s.name === 'flexibleRollout' && s.parameters.stickiness === 'random')) return 'requests';
  return 'users';
}

/** For whom among those: everyone, or those its constraints and segments let in. */
export function forWhom(s: Strategy, segmentName: Names = (id) => `#${id}`): string {
  const parts: string[] = [];
  if (s.constraints.length > 0) parts.push(`where ${s.constraints.map(describeConstraint).join(' and ')}`);
  if (s.segments.length > 0) parts.push(`in segment${s.segments.length > 1 ? 's' : ''} ${s.segments.map(segmentName).join(', ')}`);
  return parts.length === 0 ? 'for everyone' : parts.join(', ');
}

/** A strategy in quotes: its title when it has one, else who it is on for. */
function named(s: Strategy, segmentName: Names): string {
  return `"${s.title || `${strategyWords(s)}, ${forWhom(s, segmentName)}`}"`;
}

/** Everything about a strategy but its share, to tell a rollout moved from any other edit. */
function withoutShare(s: Strategy): string {
  const parameters = { ...s.parameters };
  delete parameters.rollout;
  delete parameters.percentage;
  return JSON.stringify([s.name, s.title ?? null, !!s.disabled, parameters, s.constraints, s.segments, s.variants]);
}

/** What an edit changed that its words do not show (a title, a group id, variants' payloads). */
function changedParts(before: Strategy, after: Strategy): string[] {
  const parts: string[] = [];
  if ((before.title ?? '') !== (after.title ?? '')) parts.push('title');
  if (JSON.stringify(before.parameters) !== JSON.stringify(after.parameters)) parts.push('parameters');
  if (JSON.stringify(before.variants) !== JSON.stringify(after.variants)) parts.push('variants');
  return parts;
}

/** Variants as a list of shares ("blue 50 %, red 50 %"), or "no variants". */
export function variantWords(variants: Variant[]): string {
  if (variants.length === 0) return 'no variants';
  const shares = variantShares(variants);
  return variants.map((v, i) => `${v.name} ${shares[i]} %`).join(', ');
}

/** Each variant's share in percent, to one decimal: fixed weights (of 1000) first, the rest shared evenly by the others. */
export function variantShares(variants: Variant[]): number[] {
  const fixed = variants.filter((v) => v.weightType === 'fix').reduce((n, v) => n + v.weight, 0);
  const shared = variants.filter((v) => v.weightType !== 'fix').length;
  const share = (v: Variant) => (v.weightType === 'fix' ? v.weight : shared === 0 ? 0 : Math.max(0, 1000 - fixed) / shared) / 10;
  return variants.map((v) => Math.round(share(v) * 10) / 10);
}

/** Whether the environment has an enabled strategy after the change (false: the server switches it off; switched on again, on for everyone). */
function liveAfter(env: EnvFacts, change: Change): boolean {
  const others = (s: Strategy) => env.strategies.filter((x) => x.id !== s.id).some((x) => !x.disabled);
  switch (change.kind) {
    case 'add': return !change.after.disabled || env.strategies.some((s) => !s.disabled);
    case 'edit': return !change.after.disabled || others(change.before);
    case 'delete': case 'disable': return others(change.before);
    case 'enable': return true;
    case 'copy': return change.strategies.some((s) => !s.disabled) || env.strategies.some((s) => !s.disabled);
    default: return env.strategies.some((s) => !s.disabled);
  }
}

/** What the change means for users beyond the strategy itself: an environment switched off, a flag no longer on for everyone, or an environment that is off. */
function consequence(env: EnvFacts, change: Change): string {
  const liveBefore = env.strategies.some((s) => !s.disabled);
  const live = liveAfter(env, change);
  if (!env.enabled) return `${env.name} is off: users there see none of this until it is switched on${live ? '' : `, and then, with no strategy, ${env.flag} is on for everyone`}.`;
  // The server switches an environment off when its last enabled strategy goes (as Unleash does).
  if (!live) return `${env.flag} then has no strategy left in ${env.name}, so ${env.name} is switched off for it: off for everyone there.`;
  if (!liveBefore) return `${env.flag} is on for everyone in ${env.name} now; from then on, only for those this strategy lets in.`;
  return `Users in ${env.name} see it within seconds.`;
}

/** The question asked before `change` is made in `env`, and the note said after it. */
/** Whether `change` leaves an enabled environment without an enabled strategy, so that the server switches it off. */
export function switchesOff(env: EnvFacts, change: Change): boolean {
  return env.enabled && !liveAfter(env, change);
}

export function changeQuestion(env: EnvFacts, change: Change, segmentName: Names = (id) => `#${id}`): Question {
  const where = `${env.flag} in ${env.name}`;
  const then = consequence(env, change);
  const q = (title: string, what: string, confirm: string): Question => ({ title, body: `${what}. ${then}`, confirm, done: `${where}: ${what}.` });
  switch (change.kind) {
    case 'add':
      return q(`Add a strategy to ${where}?`, `Added in ${env.name}: ${strategyWords(change.after)}, ${forWhom(change.after, segmentName)}`, `Add in ${env.name}`);
    case 'edit': {
      const { before, after } = change;
      const a = rolloutOf(before);
      const b = rolloutOf(after);
      const sentence = (x: Strategy) => `${strategyWords(x)}, ${forWhom(x, segmentName)}`;
      const variants = variantWords(before.variants) === variantWords(after.variants) ? '' : ` (variants: ${variantWords(before.variants)} → ${variantWords(after.variants)})`;
      const what = a !== null && b !== null && a !== b && withoutShare(before) === withoutShare(after)
        ? `${a} % → ${b} % of ${unitOf(after)} in ${env.name}, ${forWhom(after, segmentName)}`
        : sentence(before) !== sentence(after) || variants
          ? `${sentence(before)} → ${sentence(after)}${variants}`
          : `${named(before, segmentName)}: its ${changedParts(before, after).join(', ') || 'settings'} changed, not whom it is on for`;
      return q(`Change a strategy of ${where}?`, what, `Save in ${env.name}`);
    }
    case 'delete':
      return q(`Delete a strategy of ${where}?`, `Deleted: ${named(change.before, segmentName)}`, `Delete in ${env.name}`);
    case 'disable':
      return q(`Disable a strategy of ${where}?`, `Disabled: ${named(change.before, segmentName)}`, `Disable in ${env.name}`);
    case 'enable':
      return q(`Enable a strategy of ${where}?`, `Enabled again: ${named(change.before, segmentName)}`, `Enable in ${env.name}`);
    case 'move': {
      const from = env.strategies.findIndex((s) => s.id === change.before.id);
      return q(`Reorder the strategies of ${where}?`, `${named(change.before, segmentName)} moves from place ${from + 1} to ${from + 1 + change.by} of ${env.strategies.length}: the first that matches gives the variant`, `Move in ${env.name}`);
    }
    case 'copy': {
      const n = env.strategies.length;
      const list = change.strategies.map((s, i) => `${i + 1}. ${s.title ? `"${s.title}": ` : ''}${strategyWords(s)}, ${forWhom(s, segmentName)}`).join('; ');
      const variants = change.after.length > 0 ? `; variants: ${variantWords(change.before)} → ${variantWords(change.after)}` : '';
      return q(`Copy ${change.from}'s set-up to ${where}?`, `Added in ${env.name}${n > 0 ? ` after its ${n} strateg${n === 1 ? 'y' : 'ies'}` : ''}: ${list || 'no strategy'}${variants}`, `Copy to ${env.name}`);
    }
    case 'variants': {
      const [a, b] = [variantWords(change.before), variantWords(change.after)];
      return q(`Change the variants of ${where}?`, a === b ? `Variants ${b}: payloads or stickiness changed, not the shares` : `Variants: ${a} → ${b}`, `Save in ${env.name}`);
    }
  }
}

/** The production switch's question: names the flag and the environment, and says when it goes on for everyone. */
export function switchQuestion(flag: string, env: { name: string; hasEnabledStrategies?: boolean }, on: boolean): Question {
  const verb = on ? 'on' : 'off';
  const everyone = on && env.hasEnabledStrategies === false ? ' It has no strategy there, so it goes on for everyone.' : '';
  return {
    title: `Turn ${verb} ${flag} in ${env.name}?`,
    body: `${env.name} is a production environment: SDKs there see ${flag} ${verb} within seconds.${everyone}`,
    confirm: `Turn ${verb} in ${env.name}`,
    done: `${flag} turned ${verb} in ${env.name}.`,
  };
}
