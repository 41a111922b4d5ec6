// Body generators for the admin fuzz test: valid values from a JSON schema (drawn from the suite's
// seeded generator, helpers/random.ts), and
// the mutations that turn a valid body into a nasty one.

import { chance, int, pick, type Rng } from './random.js';

export { chance, int, pick, prng, type Rng } from './random.js';

type Schema = Record<string, any>;

const NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!~*'()";

export function randomName(r: Rng, min = 1, max = 12): string {
  const len = int(r, Math.max(1, min), Math.max(min, max));
  let s = '';
  for (let i = 0; i < len; i++) s += NAME_CHARS[int(r, 0, NAME_CHARS.length - 1)];
  return s === '.' || s === '..' ? 'x' + s : s;
}

/** Strings that tend to break things: encodings, prototype keys, control and astral characters. */
export const NASTY_STRINGS = [
  '', ' ', '.', '..', '../../etc/passwd', '%', '%ZZ', '%00', '\u0000', '\u0000abc', '\ud800', 'a\udfffb', '😀', '👩‍👩‍👧‍👦', 'é', 'e\u0301',
  '\u202etxt.exe', 'ﷺ', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'null', 'undefined', 'NaN', 'true', '0', '-1',
  '1e309', '0x10', "'; DROP TABLE features; --", '<script>alert(1)</script>', '${process.exit()}', '{{7*7}}', '\\', '"', '\n', '\r\n', '\t',
  'a'.repeat(101), 'b'.repeat(5000), '*', '*:*', 'default:development.abc', 'Bearer x',
];

export const NASTY_NUMBERS = [0, -0, -1, 1.5, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 32, 2 ** 53 + 1, -(2 ** 53) - 1, 1e21, 101, 1001, 1000000001];

export interface GenContext {
  /** Existing names of any kind (flags, projects, environments, strategy types, tag types…). */
  known: () => string[];
}

/** A value that satisfies `schema` (as far as this small generator understands JSON Schema). */
export function fromSchema(r: Rng, schema: Schema, ctx: GenContext, depth = 0, key = ''): unknown {
  if (!schema || typeof schema !== 'object') return null;
  if (schema.anyOf) return fromSchema(r, pick(r, schema.anyOf), ctx, depth, key);
  if (schema.oneOf) return fromSchema(r, pick(r, schema.oneOf), ctx, depth, key);
  if (schema.enum) return pick(r, schema.enum);
  if (schema.const !== undefined) return schema.const;
  let type = schema.type;
  if (Array.isArray(type)) type = chance(r, 0.85) ? pick(r, type.filter((x: string) => x !== 'null')) ?? 'null' : pick(r, type);
  if (!type) type = schema.properties ? 'object' : schema.items ? 'array' : 'string';
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return chance(r, 0.5);
    case 'integer':
    case 'number': {
      const lo = schema.minimum ?? 0;
      const hi = Math.min(schema.maximum ?? 1000, lo + 1000);
      return type === 'integer' ? int(r, lo, hi) : lo + r() * (hi - lo);
    }
    case 'string': {
      if (schema.format === 'date-time') return new Date(Date.UTC(2026, int(r, 0, 11), int(r, 1, 28), int(r, 0, 23))).toISOString();
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 20, Math.max(min, 20));
      const known = ctx.known().filter((k) => k.length >= min && k.length <= (schema.maxLength ?? Infinity));
      if (known.length && chance(r, 0.6)) return pick(r, known);
      return randomName(r, min, max);
    }
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? 3, min + 3);
      const n = depth > 4 ? min : int(r, min, max);
      const out = [];
      for (let i = 0; i < n; i++) out.push(fromSchema(r, schema.items ?? {}, ctx, depth + 1, key));
      return schema.uniqueItems ? [...new Map(out.map((v) => [JSON.stringify(v), v])).values()] : out;
    }
    case 'object':
    default: {
      const out: Record<string, unknown> = {};
      const props: Record<string, Schema> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      for (const [k, s] of Object.entries(props)) {
        if (required.has(k) || (depth < 4 && chance(r, 0.5))) out[k] = fromSchema(r, s, ctx, depth + 1, k);
      }
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object' && depth < 4) {
        for (let i = int(r, 0, 2); i > 0; i--) out[randomName(r, 1, 8)] = fromSchema(r, schema.additionalProperties, ctx, depth + 1);
      }
      return out;
    }
  }
}

/** Arbitrary JSON, with no regard to any schema. */
export function randomJson(r: Rng, depth = 0): unknown {
  const roll = r();
  if (depth > 3 || roll < 0.35) {
    return pick(r, [null, true, false, int(r, -5, 5), pick(r, NASTY_NUMBERS), pick(r, NASTY_STRINGS), randomName(r)]);
  }
  if (roll < 0.65) return Array.from({ length: int(r, 0, 4) }, () => randomJson(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = int(r, 0, 4); i > 0; i--) o[chance(r, 0.2) ? pick(r, NASTY_STRINGS) : randomName(r, 1, 8)] = randomJson(r, depth + 1);
  return o;
}

/**
 * Deep nesting is spliced in as text by `serialize`: building it as objects would overflow the
 * test's own stack in JSON.stringify long before the server's parser is put to the test.
 */
function deepNest(r: Rng): string {
  return `\u0001DEEP:${int(r, 200, 20000)}:${chance(r, 0.5) ? 'a' : 'o'}\u0001`;
}

/** JSON text of a generated body, with deep-nesting markers expanded. */
export function serialize(body: unknown): string {
  const text = JSON.stringify(body) ?? '';
  return text.replace(/"\\u0001DEEP:(\d+):([ao])\\u0001"/g, (_, n: string, kind: string) => {
    const levels = Number(n);
    return kind === 'a' ? '['.repeat(levels) + '1' + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  });
}

/** A value of a different kind than `v`. */
function wrongType(r: Rng, v: unknown): unknown {
  const options: unknown[] = [null, 0, 1.5, -1, '', 'str', true, false, [], {}, [v], { value: v }, pick(r, NASTY_NUMBERS), pick(r, NASTY_STRINGS)];
  const kind = (x: unknown) => (Array.isArray(x) ? 'array' : x === null ? 'null' : typeof x);
  const differing = options.filter((o) => kind(o) !== kind(v));
  return pick(r, differing.length ? differing : options);
}

/** Every container (object or array) inside `v`, with a way to change one of its slots. */
function slots(v: unknown, out: { parent: any; key: string | number }[] = [], depth = 0): { parent: any; key: string | number }[] {
  if (depth > 30 || v === null || typeof v !== 'object') return out;
  if (Array.isArray(v)) v.forEach((x, i) => (out.push({ parent: v, key: i }), slots(x, out, depth + 1)));
  else {
    for (const k of Object.keys(v)) {
      out.push({ parent: v, key: k });
      slots((v as Record<string, unknown>)[k], out, depth + 1);
    }
  }
  return out;
}

export const MUTATIONS = [
  'drop-field', 'wrong-type', 'null', 'array-for-object', 'object-for-array', 'huge-string', 'huge-number', 'unicode', 'deep-nesting',
  'extra-field', 'deep-extra-field', 'proto-field', 'empty-container', 'duplicate-item', 'whole-wrong-type',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** Applies one mutation to (a copy of) `body`; returns the new body and what was done. */
export function mutate(r: Rng, body: unknown, which: Mutation = pick(r, MUTATIONS)): { body: unknown; what: string } {
  const copy = body === undefined ? undefined : JSON.parse(JSON.stringify(body));
  const all = slots(copy);
  const slot = all.length ? pick(r, all) : null;
  const set = (v: unknown) => {
    if (slot) slot.parent[slot.key] = v;
  };
  const get = () => (slot ? slot.parent[slot.key] : copy);
  switch (which) {
    case 'drop-field':
      if (slot && Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
      else if (slot) delete slot.parent[slot.key];
      return { body: copy, what: `drop ${slot?.key}` };
    case 'wrong-type':
      set(wrongType(r, get()));
      return { body: copy, what: `wrong type at ${slot?.key}` };
    case 'null':
      if (!slot) return { body: null, what: 'null body' };
      set(null);
      return { body: copy, what: `null at ${slot.key}` };
    case 'array-for-object': {
      const objs = all.filter((s) => s.parent[s.key] && typeof s.parent[s.key] === 'object' && !Array.isArray(s.parent[s.key]));
      if (!objs.length) return { body: [copy], what: 'body wrapped in an array' };
      const s = pick(r, objs);
      s.parent[s.key] = chance(r, 0.5) ? [s.parent[s.key]] : Object.values(s.parent[s.key]);
      return { body: copy, what: `array for object at ${s.key}` };
    }
    case 'object-for-array': {
      const arrs = all.filter((s) => Array.isArray(s.parent[s.key]));
      if (!arrs.length) return { body: Array.isArray(copy) ? { ...copy } : { 0: copy }, what: 'body as an object' };
      const s = pick(r, arrs);
      s.parent[s.key] = { ...s.parent[s.key] };
      return { body: copy, what: `object for array at ${s.key}` };
    }
    case 'huge-string':
      set(pick(r, ['x', 'é', '😀']).repeat(int(r, 1000, 20000)));
      return { body: copy, what: `huge string at ${slot?.key}` };
    case 'huge-number':
      set(pick(r, NASTY_NUMBERS));
      return { body: copy, what: `odd number at ${slot?.key}` };
    case 'unicode':
      set(pick(r, NASTY_STRINGS));
      return { body: copy, what: `nasty string at ${slot?.key}` };
    case 'deep-nesting':
      if (!slot) return { body: deepNest(r), what: 'deeply nested body' };
      set(deepNest(r));
      return { body: copy, what: `deep nesting at ${slot.key}` };
    case 'extra-field': {
      const objs = [copy, ...all.map((s) => s.parent[s.key])].filter((o) => o && typeof o === 'object' && !Array.isArray(o));
      if (!objs.length) return { body: copy, what: 'no object for an extra field' };
      pick(r, objs)[pick(r, [randomName(r), 'id', 'createdAt', 'archived', 'sortOrder', 'seq', 'projectId', 'featureName'])] = randomJson(r);
      return { body: copy, what: 'extra field' };
    }
    case 'deep-extra-field': {
      // Schemas allow unknown properties, so this usually passes validation and reaches the command.
      const objs = [copy, ...all.map((s) => s.parent[s.key])].filter((o) => o && typeof o === 'object' && !Array.isArray(o));
      if (!objs.length) return { body: copy, what: 'no object for a deep extra field' };
      pick(r, objs)[pick(r, ['extra', 'data', 'meta', randomName(r)])] = deepNest(r);
      return { body: copy, what: 'deeply nested extra field' };
    }
    case 'proto-field': {
      // Sent as text below so "__proto__" arrives as a real key in the JSON.
      const objs = [copy, ...all.map((s) => s.parent[s.key])].filter((o) => o && typeof o === 'object' && !Array.isArray(o));
      if (!objs.length) return { body: copy, what: 'no object for a prototype key' };
      Object.defineProperty(pick(r, objs), pick(r, ['__proto__', 'constructor', 'prototype', 'hasOwnProperty']), {
        value: pick<unknown>(r, [{ polluted: true }, 'x', null, [], { toString: 1 }]), enumerable: true, configurable: true, writable: true,
      });
      return { body: copy, what: 'prototype key' };
    }
    case 'empty-container':
      set(Array.isArray(get()) ? [] : {});
      return { body: copy, what: `empty container at ${slot?.key}` };
    case 'duplicate-item': {
      const arrs = all.filter((s) => Array.isArray(s.parent[s.key]) && s.parent[s.key].length);
      if (!arrs.length) return { body: copy, what: 'no array to duplicate into' };
      const s = pick(r, arrs);
      s.parent[s.key].push(JSON.parse(JSON.stringify(s.parent[s.key][0])));
      return { body: copy, what: `duplicate item in ${s.key}` };
    }
    case 'whole-wrong-type':
    default:
      return { body: wrongType(r, copy), what: 'whole body of another type' };
  }
}

/** Broken JSON text. */
export function invalidJson(r: Rng, valid: string): string | Buffer {
  return pick(r, [
    () => valid.slice(0, Math.max(0, int(r, 0, valid.length - 1))),
    () => valid + pick(r, ['}', ']', ',', 'x', '\u0000']),
    () => "{'name': 'x'}",
    () => '{"name": undefined}',
    () => 'NaN',
    () => '{"a":1,}',
    () => '\ufeff' + valid,
    () => Buffer.from([0xff, 0xfe, 0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
    () => '[' .repeat(int(r, 1, 100000)),
    () => randomName(r),
  ])();
}
