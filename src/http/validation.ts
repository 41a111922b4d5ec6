// One ajv instance; every body schema is registered once, compiled once, at start-up.
// The same schema objects make up the OpenAPI description served at /api/openapi.json.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ValidationError } from '../core/errors.js';
import type { Slicer } from '../core/slices.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

export type JsonSchema = Record<string, unknown>;

/**
 * Every body schema, by object: a route names the schema object it takes (not a string that
 * could fail only at request time), and the registry gives it the name it has in the OpenAPI
 * document. `addAll` registers a module's schemas under their keys; `nameOf` throws at start-up
 * for a schema nobody registered.
 */
export class SchemaRegistry {
  private readonly ajv = new Ajv({ allErrors: false, strict: false, verbose: true });
  private readonly compiled = new Map<JsonSchema, ValidateFunction>();
  private readonly names = new Map<JsonSchema, string>();
  /** Name → schema, for the OpenAPI document's components. */
  readonly schemas = new Map<string, JsonSchema>();

  constructor() {
    addFormats(this.ajv);
  }

  add(name: string, schema: JsonSchema): void {
    const known = this.schemas.get(name);
    if (known !== undefined) {
      if (known !== schema) throw new Error(`two different schemas are both named ${name}`);
      return;
    }
    this.schemas.set(name, schema);
    this.names.set(schema, name);
    this.compiled.set(schema, this.ajv.compile(schema));
  }

  addAll(schemas: Record<string, JsonSchema>): void {
    for (const [name, schema] of Object.entries(schemas)) this.add(name, schema);
  }

  /**
   * Names schemas of answers: they appear in the OpenAPI document (and npm test checks every
   * answer against them, test/helpers/reply-check.ts), but the server never validates what it
   * sends, so they are not compiled.
   */
  describe(schemas: Record<string, JsonSchema>): void {
    for (const [name, schema] of Object.entries(schemas)) {
      const known = this.schemas.get(name);
      if (known !== undefined && known !== schema) throw new Error(`two different schemas are both named ${name}`);
      this.schemas.set(name, schema);
      this.names.set(schema, name);
    }
  }

  /** The registered name of `schema`; throws if it was never registered (a wiring mistake, found at mount). */
  nameOf(schema: JsonSchema): string {
    const name = this.names.get(schema);
    if (name === undefined) throw new Error(`a route names a schema that no module registered (${JSON.stringify(schema).slice(0, 80)})`);
    return name;
  }

  /**
   * The same check as `check`, for bodies of megabytes (imports): ajv would hold the event loop
   * for the whole document, so the schema is split where it holds lists (under `properties`, at
   * any depth but not inside lists): the envelope is checked with those lists left out, then each
   * list's own bounds, then its items a slice at a time. The same errors, with the same paths.
   */
  async checkInSlices<T>(schema: JsonSchema, data: unknown, slicer: Slicer): Promise<T> {
    const plan = this.prepareSlices(schema);
    if (!plan.envelope(data)) throw validationErrorFrom(plan.envelope.errors ?? []);
    for (const list of plan.lists) {
      let value: unknown = data;
      for (const key of list.path) value = (value as Record<string, unknown> | undefined)?.[key];
      if (value === undefined) continue;
      const at = `/${list.path.join('/')}`;
      if (!list.shell(value)) throw validationErrorFrom(within(at, list.shell.errors));
      const items = value as unknown[];
      for (let i = 0; i < items.length; i++) {
        if (!list.items(items[i])) throw validationErrorFrom(within(`${at}/${i}`, list.items.errors));
        if (slicer.due()) await slicer.pause();
      }
    }
    return data as T;
  }

  private readonly plans = new Map<JsonSchema, SlicePlan>();

  /** Splits a registered schema for checkInSlices, once (at mount, so the first import does not pay for it). */
  prepareSlices(schema: JsonSchema): SlicePlan {
    if (!this.compiled.has(schema)) throw new Error(`unregistered schema ${JSON.stringify(schema).slice(0, 80)}`);
    let plan = this.plans.get(schema);
    if (!plan) this.plans.set(schema, (plan = this.planOf(schema)));
    return plan;
  }

  private planOf(schema: JsonSchema): SlicePlan {
    const lists: SlicePlan['lists'] = [];
    const split = (s: JsonSchema, path: string[]): JsonSchema => {
      const props = s.properties as Record<string, JsonSchema> | undefined;
      if (!props) return s;
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(props)) {
        if (sub.type === 'array' && sub.items && typeof sub.items === 'object') {
          const { items, ...shell } = sub;
          lists.push({ path: [...path, key], shell: this.ajv.compile(shell), items: this.ajv.compile(items as JsonSchema) });
          out[key] = true;
        } else {
          out[key] = split(sub, [...path, key]);
        }
      }
      return { ...s, properties: out };
    };
    const envelope = split(schema, []);
    return { envelope: this.ajv.compile(envelope), lists };
  }

  /** Validates `data` against a registered schema, throwing a ValidationError naming the field. */
  check<T>(schema: JsonSchema, data: unknown): T {
    const fn = this.compiled.get(schema);
    if (!fn) throw new Error(`unregistered schema ${this.names.get(schema) ?? JSON.stringify(schema).slice(0, 80)}`);
    if (!fn(data)) throw validationErrorFrom(fn.errors ?? []);
    return data as T;
  }
}

/** How checkInSlices splits a schema: the envelope without its lists, and each list (its own bounds, its items). */
export interface SlicePlan {
  envelope: ValidateFunction;
  lists: { path: string[]; shell: ValidateFunction; items: ValidateFunction }[];
}

/** Errors of a part, placed where the part sits in the whole document. */
function within(prefix: string, errors: ErrorObject[] | null | undefined): ErrorObject[] {
  return (errors ?? []).map((e) => ({ ...e, instancePath: prefix + e.instancePath }));
}

/** The field an error is about, as people write it: `features[3].name`, not `/features/3/name`. */
export function fieldOf(e: ErrorObject): string {
  const base = e.instancePath
    .slice(1)
    .split('/')
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, seg) => (/^\d+$/.test(seg) ? `${out}[${seg}]` : out ? `${out}.${seg}` : seg), '');
  const p = e.params as Record<string, unknown>;
  const extra = (p.missingProperty ?? p.additionalProperty) as string | undefined;
  if (extra) return base ? `${base}.${extra}` : extra;
  return base || '(body)';
}

/**
 * A schema's `description` states its rule in words; where a value breaks the rule's shape
 * (type, length, pattern, a forbidden value), that is the message, not ajv's "must match
 * pattern ^[A-Z…". ajv's `verbose` option hands over the schema that failed.
 */
function ruleOf(e: ErrorObject): string | undefined {
  if (!['type', 'pattern', 'not', 'minLength', 'maxLength', 'minItems'].includes(e.keyword)) return undefined;
  const schema = e.parentSchema as { description?: unknown } | undefined;
  return typeof schema?.description === 'string' ? schema.description : undefined;
}

export function validationErrorFrom(errors: ErrorObject[]): ValidationError {
  const e = errors[0];
  if (!e) return new ValidationError('The request body is invalid.');
  const field = fieldOf(e);
  let message: string;
  if (e.keyword === 'required') message = `"${field}" is required`;
  else if (e.keyword === 'additionalProperties') message = `"${field}" is not an allowed property`;
  else if (e.keyword === 'enum') message = `"${field}" must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  else if (e.propertyName !== undefined && ruleOf(e)) message = `"${field}" has the key ${JSON.stringify(e.propertyName)}; each key must be ${ruleOf(e)}`;
  else if (ruleOf(e)) message = `"${field}" must be ${ruleOf(e)}`;
  else message = `"${field}" ${e.message ?? 'is invalid'}`;
  return new ValidationError(`Request validation failed: ${message}.`, [{ path: field, message }]);
}
