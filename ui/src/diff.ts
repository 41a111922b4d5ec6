// What an event changed, in words, from its preData to its data: "rollout 25 → 50",
// "constraint added: country is one of NO, SE", "turned on in production". Pure (no DOM, no
// Preact): the history of a flag's page and the events page show these lines, with the raw JSON
// one click away; test/ui/diff.test.ts bundles this file on its own.
import { describeConstraint, strategySentence, type Constraint, type Strategy, type Variant } from './words.js';

export interface EventLike {
  type: string;
  environment?: string | null;
  data?: unknown;
  preData?: unknown;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value as a person reads it: text quoted only when it has spaces or is empty, lists with commas. */
export function shown(v: unknown): string {
  if (v === null || v === undefined) return 'none';
  if (typeof v === 'string') return v === '' || /\s/.test(v) ? `"${v}"` : v;
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null)) return v.length === 0 ? 'none' : v.map(shown).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The entries of `before` and `after` that differ, as `key a → b` (nested objects by their path). */
function fieldChanges(before: Obj, after: Obj, prefix = '', skip: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  for (const k of keys) {
    if (skip.has(k)) continue;
    const a = before[k];
    const b = after[k];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const name = `${prefix}${k}`;
    if (isObj(a) && isObj(b)) out.push(...fieldChanges(a, b, `${name}.`));
    else if (a === undefined) out.push(`${name} set to ${shown(b)}`);
    else if (b === undefined) out.push(`${name} removed (was ${shown(a)})`);
    else out.push(`${name} ${shown(a)} → ${shown(b)}`);
  }
  return out;
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

/** Items of `after` not in `before` and the other way round, compared by `key`. */
function listChanges<T>(before: T[], after: T[], key: (x: T) => string): { added: T[]; removed: T[] } {
  return { added: unmatched(after, before, key), removed: unmatched(before, after, key) };
}

const percent = (weight: number) => `${Math.round(weight) / 10}%`;

/** Variants by name: added, removed, and what changed in those kept. */
function variantChanges(before: Variant[], after: Variant[]): string[] {
  const out: string[] = [];
  const old = new Map(before.map((v) => [v.name, v]));
  const now = new Map(after.map((v) => [v.name, v]));
  for (const v of after) {
    const was = old.get(v.name);
    if (!was) out.push(`variant added: ${v.name} (${percent(v.weight)}${v.payload ? `, ${v.payload.type} ${shown(v.payload.value)}` : ''})`);
    else if (JSON.stringify(was) !== JSON.stringify(v)) {
      const weight = was.weight !== v.weight ? [`weight ${percent(was.weight)} → ${percent(v.weight)}`] : [];
      const rest = fieldChanges(was as unknown as Obj, v as unknown as Obj, '', new Set(['weight']));
      out.push(`variant ${v.name}: ${[...weight, ...rest].join(', ')}`);
    }
  }
  for (const v of before) if (!now.has(v.name)) out.push(`variant removed: ${v.name}`);
  return out;
}

/** What changed between two versions of a strategy, each change a line. */
export function strategyChanges(before: Strategy, after: Strategy, segmentName?: (id: number) => string): string[] {
  const name = segmentName ?? ((id: number) => `#${id}`);
  const out: string[] = [];
  if (before.name !== after.name) out.push(`type ${before.name} → ${after.name}`);
  if ((before.title ?? '') !== (after.title ?? '')) out.push(`title ${shown(before.title ?? '')} → ${shown(after.title ?? '')}`);
  if (Boolean(before.disabled) !== Boolean(after.disabled)) out.push(after.disabled ? 'disabled' : 'enabled');
  out.push(...fieldChanges(before.parameters ?? {}, after.parameters ?? {}));
  const constraints = listChanges<Constraint>(before.constraints ?? [], after.constraints ?? [], describeConstraint);
  for (const c of constraints.added) out.push(`constraint added: ${describeConstraint(c)}`);
  for (const c of constraints.removed) out.push(`constraint removed: ${describeConstraint(c)}`);
  const segments = listChanges<number>(before.segments ?? [], after.segments ?? [], String);
  for (const s of segments.added) out.push(`segment added: ${name(s)}`);
  for (const s of segments.removed) out.push(`segment removed: ${name(s)}`);
  out.push(...variantChanges(before.variants ?? [], after.variants ?? []));
  return out;
}

const asStrategy = (v: unknown): Strategy => {
  const s = (isObj(v) ? v : {}) as Partial<Strategy>;
  return { ...s, name: String(s.name ?? ''), parameters: s.parameters ?? {}, constraints: s.constraints ?? [], segments: s.segments ?? [], variants: s.variants ?? [] };
};

const tagOf = (v: unknown) => (isObj(v) ? `${String(v.type)}:${String(v.value)}` : shown(v));

/** The lines saying what `e` changed; never empty for an event that carries data. */
export function eventChanges(e: EventLike, segmentName?: (id: number) => string): string[] {
  const { data, preData } = e;
  const where = e.environment ? ` in ${e.environment}` : '';
  switch (e.type) {
    case 'feature-environment-enabled':
      return [`turned on${where}`];
    case 'feature-environment-disabled':
      return [`turned off${where}`];
    case 'feature-stale-on':
      return ['marked stale'];
    case 'feature-stale-off':
      return ['no longer stale'];
    case 'feature-archived':
      return ['archived'];
    case 'feature-revived':
      return ['revived (off everywhere)'];
    case 'feature-created':
      return [`created${isObj(data) && data.type ? ` as ${/^[aeiou]/.test(String(data.type)) ? 'an' : 'a'} ${String(data.type)} flag` : ''}`];
    case 'feature-tagged':
      return [`tag added: ${tagOf(data)}`];
    case 'feature-untagged':
      return [`tag removed: ${tagOf(preData)}`];
    case 'feature-dependency-added':
      return isObj(data) ? [`depends on ${String(data.feature)} being ${data.enabled === false ? 'off' : 'on'}${Array.isArray(data.variants) && data.variants.length ? ` (variants ${data.variants.join(', ')})` : ''}`] : ['dependency added'];
    case 'feature-dependency-removed':
      return [`no longer depends on ${isObj(data) ? String(data.feature) : 'its parent'}`];
    case 'feature-dependencies-removed':
      return ['every dependency removed'];
    case 'feature-strategy-add':
      return [`strategy added${where}: ${strategySentence(asStrategy(data), segmentName)}`];
    case 'feature-strategy-remove':
      return [`strategy removed${where}: ${strategySentence(asStrategy(preData), segmentName)}`];
    case 'feature-strategy-update': {
      const lines = strategyChanges(asStrategy(preData), asStrategy(data), segmentName);
      return lines.length > 0 ? lines : ['saved without changes'];
    }
  }
  const variants = (v: unknown) => (isObj(v) && Array.isArray(v.variants) ? (v.variants as Variant[]) : Array.isArray(v) ? (v as Variant[]) : null);
  const before = variants(preData);
  const after = variants(data);
  if (/variants/.test(e.type) && after) return variantChanges(before ?? [], after);
  if (isObj(preData) && isObj(data)) return fieldChanges(preData, data);
  // Something made or removed: what it held, in one line.
  const held = (o: Obj) => Object.entries(o).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => `${k} ${shown(v)}`).join(', ');
  if (isObj(data)) return [held(data)];
  if (isObj(preData)) return [`removed: ${held(preData)}`];
  return [];
}
