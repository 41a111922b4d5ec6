// What an event changed, in words, from its preData to its data: "rollout 25 → 50",
// "constraint country: + DK", "turned on in production". Each line says whether something was
// added, removed or changed, so the console can mark it (colour and a +/−/→ sign). Where no words
// fit, the line names the path in the JSON that changed ("milestones Internal: strategies.0.title
// a → b"), never two blobs. Pure (no DOM, no Preact): the history of a flag's page and the events
// page show these lines, with the raw JSON one click away; test/ui/diff.test.ts bundles this file
// on its own.
import { describeConstraint, OPERATORS, strategySentence, type Constraint, type Strategy, type Variant } from './words.js';

export interface EventLike {
  type: string;
  environment?: string | null;
  data?: unknown;
  preData?: unknown;
}

export type Kind = 'added' | 'removed' | 'changed';
/** One thing an event changed, in words, and of which kind. */
export interface Line { kind: Kind; text: string }

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const added = (text: string): Line => ({ kind: 'added', text });
const removed = (text: string): Line => ({ kind: 'removed', text });
const changed = (text: string): Line => ({ kind: 'changed', text });
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

// Bookkeeping a person does not read: ids (new ones are made when a template is saved again) and
// timestamps. Left out of what changed; the raw JSON still has them.
const NOISE = /^(id|createdAt|updatedAt|lastSeenAt|seenAt|createdBy\w*|discriminator)$|Id$/;

const isConstraint = (v: unknown): v is Constraint => isObj(v) && typeof v.contextName === 'string' && typeof v.operator === 'string';

/** What names an item of a list, across edits: a constraint by its words, others by name or value. */
const keyOf = (v: unknown): string | undefined => {
  if (!isObj(v)) return shown(v);
  if (isConstraint(v)) return describeConstraint(v);
  const k = v.name ?? v.value;
  return typeof k === 'string' ? k : undefined;
};

/** A value as a person reads it: text quoted only when it has spaces or is empty, lists with commas. */
export function shown(v: unknown): string {
  if (v === null || v === undefined) return 'none';
  if (typeof v === 'string') return v === '' || /\s/.test(v) ? `"${v}"` : v;
  if (Array.isArray(v) && v.every((x) => keyOf(x) !== undefined)) return v.length === 0 ? 'none' : v.map((x) => keyOf(x)).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** `+ DK, FI; − SE`: what a list gained and lost, as one line of the right kind. */
function plusMinus(label: string, plus: string[], minus: string[]): Line[] {
  if (plus.length + minus.length === 0) return [];
  const text = `${label}: ${[plus.length ? `+ ${plus.join(', ')}` : '', minus.length ? `− ${minus.join(', ')}` : ''].filter(Boolean).join('; ')}`;
  return [{ kind: minus.length === 0 ? 'added' : plus.length === 0 ? 'removed' : 'changed', text }];
}

/** Items of `list` not matched in `other` by `key`, each once per occurrence. */
function unmatched<T>(list: T[], other: T[], key: (x: T) => string): T[] {
  const left = new Map<string, number>();
  for (const x of other) left.set(key(x), (left.get(key(x)) ?? 0) + 1);
  return list.filter((x) => {
    const n = left.get(key(x)) ?? 0;
    if (n > 0) left.set(key(x), n - 1);
    return n === 0;
  });
}

/**
 * Constraints added and removed; one on the same field with the same operator, only its values
 * edited, reads as the values gained and lost ("constraint country: + DK; − SE").
 */
function constraintChanges(before: Constraint[], after: Constraint[]): Line[] {
  const gone = unmatched(before, after, describeConstraint);
  const out: Line[] = [];
  for (const c of unmatched(after, before, describeConstraint)) {
    const i = gone.findIndex((o) => o.contextName === c.contextName);
    const was = gone.splice(i, i < 0 ? 0 : 1)[0];
    if (!was) out.push(added(`constraint added: ${describeConstraint(c)}`));
    else if (was.operator === c.operator && !was.inverted === !c.inverted && !was.caseInsensitive === !c.caseInsensitive && OPERATORS[c.operator]?.list !== false) {
      const [a, b] = [was.values ?? [], c.values ?? []];
      out.push(...plusMinus(`constraint ${c.contextName}`, unmatched(b, a, String), unmatched(a, b, String)));
    } else out.push(changed(`constraint ${describeConstraint(was)} → ${describeConstraint(c)}`));
  }
  return [...out, ...gone.map((c) => removed(`constraint removed: ${describeConstraint(c)}`))];
}

/** What changed in a list: constraints as above, named items by name, plain values as + and −, others by position. */
function listChanges(name: string, a: unknown[], b: unknown[]): Line[] {
  if (a.concat(b).every(isConstraint)) return constraintChanges(a as Constraint[], b as Constraint[]);
  if (a.concat(b).every((x) => !isObj(x))) {
    const plus = unmatched(b, a, shown).map(shown);
    const minus = unmatched(a, b, shown).map(shown);
    return plus.length + minus.length > 0 ? plusMinus(name, plus, minus) : [changed(`${name}: order changed`)];
  }
  const named = (l: unknown[]) => l.every((x) => keyOf(x) !== undefined) && new Set(l.map(keyOf)).size === l.length;
  if (!named(a) || !named(b)) {
    // No names to follow the items by: their paths in the JSON, as a JSON Patch would give them.
    const out: Line[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) out.push(...valueChange(`${name}.${i}`, a[i], b[i]));
    return out;
  }
  const old = new Map(a.map((x) => [keyOf(x), x]));
  const now = new Map(b.map((x) => [keyOf(x), x]));
  const out: Line[] = [];
  for (const [k, x] of now) out.push(...(old.has(k) ? fieldChanges(old.get(k) as Obj, x as Obj, `${name} ${k}: `) : [added(`${name}: + ${k}`)]));
  for (const k of old.keys()) if (!now.has(k)) out.push(removed(`${name}: − ${k}`));
  return out;
}

/** One field from `a` to `b`, by its path `name`. */
function valueChange(name: string, a: unknown, b: unknown): Line[] {
  if (same(a, b)) return [];
  if (isObj(a) && isObj(b)) return fieldChanges(a, b, `${name}.`);
  if (Array.isArray(a) && Array.isArray(b)) return listChanges(name, a, b);
  if (a === undefined) return [added(`${name} set to ${shown(b)}`)];
  if (b === undefined) return [removed(`${name} removed (was ${shown(a)})`)];
  return [changed(`${name} ${shown(a)} → ${shown(b)}`)];
}

/** The entries of `before` and `after` that differ, each as a line (nested objects by their path). */
function fieldChanges(before: Obj, after: Obj, prefix = '', skip: ReadonlySet<string> = new Set()): Line[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((k) => !skip.has(k) && !NOISE.test(k))
    .flatMap((k) => valueChange(`${prefix}${k}`, before[k], after[k]));
}

const percent = (weight: number) => `${Math.round(weight) / 10}%`;

/** Variants by name: added, removed, and what changed in those kept. */
function variantChanges(before: Variant[], after: Variant[]): Line[] {
  const out: Line[] = [];
  const old = new Map(before.map((v) => [v.name, v]));
  const now = new Map(after.map((v) => [v.name, v]));
  for (const v of after) {
    const was = old.get(v.name);
    if (!was) out.push(added(`variant added: ${v.name} (${percent(v.weight)}${v.payload ? `, ${v.payload.type} ${shown(v.payload.value)}` : ''})`));
    else if (!same(was, v)) {
      const weight = was.weight !== v.weight ? [`weight ${percent(was.weight)} → ${percent(v.weight)}`] : [];
      const rest = fieldChanges(was as unknown as Obj, v as unknown as Obj, '', new Set(['weight'])).map((l) => l.text);
      out.push(changed(`variant ${v.name}: ${[...weight, ...rest].join(', ')}`));
    }
  }
  for (const v of before) if (!now.has(v.name)) out.push(removed(`variant removed: ${v.name}`));
  return out;
}

/** What changed between two versions of a strategy, each change a line. */
export function strategyChanges(before: Strategy, after: Strategy, segmentName?: (id: number) => string): Line[] {
  const name = segmentName ?? ((id: number) => `#${id}`);
  const out: Line[] = [];
  if (before.name !== after.name) out.push(changed(`type ${before.name} → ${after.name}`));
  if ((before.title ?? '') !== (after.title ?? '')) out.push(changed(`title ${shown(before.title ?? '')} → ${shown(after.title ?? '')}`));
  if (Boolean(before.disabled) !== Boolean(after.disabled)) out.push(changed(after.disabled ? 'disabled' : 'enabled'));
  out.push(...fieldChanges(before.parameters ?? {}, after.parameters ?? {}));
  out.push(...constraintChanges(before.constraints ?? [], after.constraints ?? []));
  const [a, b] = [before.segments ?? [], after.segments ?? []];
  for (const s of unmatched(b, a, String)) out.push(added(`segment added: ${name(s)}`));
  for (const s of unmatched(a, b, String)) out.push(removed(`segment removed: ${name(s)}`));
  out.push(...variantChanges(before.variants ?? [], after.variants ?? []));
  return out;
}

const asStrategy = (v: unknown): Strategy => {
  const s = (isObj(v) ? v : {}) as Partial<Strategy>;
  return { ...s, name: String(s.name ?? ''), parameters: s.parameters ?? {}, constraints: s.constraints ?? [], segments: s.segments ?? [], variants: s.variants ?? [] };
};

const tagOf = (v: unknown) => (isObj(v) ? `${String(v.type)}:${String(v.value)}` : shown(v));

/** What a thing made or removed held, in one line, without its name, ids, timestamps or empty fields. */
const held = (o: Obj) => Object.entries(o)
  .filter(([k, v]) => !NOISE.test(k) && !['name', 'tokenName', 'username'].includes(k) && v !== null && v !== '' && !same(v, []))
  .map(([k, v]) => `${k} ${shown(v)}`).join(', ');

/** The lines saying what `e` changed, each with its kind; never empty for an event that carries data. */
export function eventLines(e: EventLike, segmentName?: (id: number) => string): Line[] {
  const { data, preData, type } = e;
  const where = e.environment ? ` in ${e.environment}` : '';
  const d = isObj(data) ? data : {};
  switch (type) {
    case 'feature-environment-enabled':
      return [changed(`turned on${where}`)];
    case 'feature-environment-disabled':
      return [changed(`turned off${where}`)];
    case 'feature-stale-on':
      return [changed('marked stale')];
    case 'feature-stale-off':
      return [changed('no longer stale')];
    case 'feature-archived':
      return [removed('archived')];
    case 'feature-revived':
      return [added('revived (off everywhere)')];
    case 'feature-created':
      return [added(`created${d.type ? ` as ${/^[aeiou]/.test(String(d.type)) ? 'an' : 'a'} ${String(d.type)} flag` : ''}`)];
    case 'feature-tagged':
      return [added(`tag added: ${tagOf(data)}`)];
    case 'feature-untagged':
      return [removed(`tag removed: ${tagOf(preData)}`)];
    case 'feature-dependency-added':
      return [added(isObj(data) ? `depends on ${String(d.feature)} being ${d.enabled === false ? 'off' : 'on'}${Array.isArray(d.variants) && d.variants.length ? ` (variants ${d.variants.join(', ')})` : ''}` : 'dependency added')];
    case 'feature-dependency-removed':
      return [removed(`no longer depends on ${isObj(data) ? String(d.feature) : 'its parent'}`)];
    case 'feature-dependencies-removed':
      return [removed('every dependency removed')];
    case 'feature-strategy-add':
      return [added(`strategy added${where}: ${strategySentence(asStrategy(data), segmentName)}`)];
    case 'feature-strategy-remove':
      return [removed(`strategy removed${where}: ${strategySentence(asStrategy(preData), segmentName)}`)];
    case 'feature-strategy-update': {
      const lines = strategyChanges(asStrategy(preData), asStrategy(data), segmentName);
      return lines.length > 0 ? lines : [changed('saved without changes')];
    }
    case 'strategy-order-changed':
      return [changed(`strategies reordered${where}`)];
    case 'milestone-progression-changed': {
      // Milestones are named by id here; what a person reads is the wait.
      const wait = (o: Obj) => `${String((o.transitionCondition as Obj | undefined)?.intervalMinutes)} minutes`;
      return [isObj(preData) ? changed(`moves on by itself after ${wait(preData)} → ${wait(d)}${where}`) : added(`moves on by itself after ${wait(d)}${where}`)];
    }
    case 'milestone-progression-deleted':
      return [removed(`no longer moves on by itself${where}`)];
    case 'release-plan-milestone-started':
      return [changed(`milestone ${shown(d.milestoneName)} started${where}`)];
  }
  const variants = (v: unknown) => (isObj(v) && Array.isArray(v.variants) ? (v.variants as Variant[]) : Array.isArray(v) ? (v as Variant[]) : null);
  if (/variants/.test(type) && variants(data)) return variantChanges(variants(preData) ?? [], variants(data) ?? []);
  // Change requests: which one, and what happened to it (or the change it gained or lost).
  const request = /^change-request-(.+)$/.exec(type);
  if (request && 'changeRequestId' in d && request[1] !== 'configuration-updated') {
    const verb = request[1].replace(/-/g, ' ');
    const approvals = typeof d.approvals === 'number' ? `, ${d.approvals} of ${String(d.minApprovals)} approvals` : '';
    return [{ kind: /created/.test(verb) ? 'added' : /cancel|discard|reject|fail/.test(verb) ? 'removed' : 'changed', text: `change request #${String(d.changeRequestId)}${d.title ? ` ${shown(d.title)}` : ''} ${verb}${d.state ? ` (${String(d.state)}${approvals})` : ''}` }];
  }
  const change = /^change-(added|edited|discarded)$/.exec(type);
  if (change && isObj(d.change)) {
    const { action, payload } = d.change;
    const p = isObj(payload) ? payload : {};
    const what = action === 'updateEnabled' ? `turn ${p.enabled ? 'on' : 'off'}`
      : action === 'addStrategy' || action === 'updateStrategy' ? `${action === 'addStrategy' ? 'add' : 'edit'} strategy: ${strategySentence(asStrategy(p), segmentName)}`
        : `${String(action)}${held(p) ? ` ${held(p)}` : ''}`;
    const text = `change ${change[1]} in request #${String(d.changeRequestId)}${where}: ${what}`;
    return [{ kind: change[1] === 'added' ? 'added' : change[1] === 'discarded' ? 'removed' : 'changed', text }];
  }
  // Anything else: what it is, its name and what happened to it; what a new one holds; or, for an
  // update, each field that changed.
  const verb = /[a-z]+$/.exec(type)?.[0] ?? '';
  const thing = type.slice(0, -verb.length - 1).replace(/^strategy$/, 'strategy type').replace(/-/g, ' ');
  const about = (o: Obj, more: boolean) => {
    const tag = o.name === undefined && o.type && o.value;
    const name = tag ? tagOf(o) : o.name ?? o.tokenName ?? o.username;
    const rest = (more && !tag) || name === undefined ? held(o) : '';
    return `${thing}${name === undefined ? '' : ` ${shown(name)}`} ${verb}${rest ? `: ${rest}` : ''}`;
  };
  if (/^(created|added|imported)$/.test(verb) && isObj(data)) return [added(about(data, true))];
  if (/^(deleted|removed|archived)$/.test(verb) && (isObj(preData) || isObj(data))) return [removed(about((isObj(preData) ? preData : data) as Obj, false))];
  if (isObj(preData) && isObj(data)) return fieldChanges(preData, data);
  if (isObj(data)) return [changed(about(data, false))];
  if (isObj(preData)) return [removed(about(preData, false))];
  return [];
}

/** The words alone, for callers that do not mark the kind. */
export const eventChanges = (e: EventLike, segmentName?: (id: number) => string): string[] => eventLines(e, segmentName).map((l) => l.text);
