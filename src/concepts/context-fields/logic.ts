// Context fields: the built-in ones every SDK fills in, and custom ones with optional legal
// values (which new constraints over the field must keep to) and a stickiness mark.
import type { Change, EventDraft } from '../../core/engine/command.js';
import { invalid, NameExistsError, NoAccessError, NotFoundError, type ValidationError } from '../../core/errors.js';
import type { Op } from '../../core/state/ops.js';
import { checkName } from '../../core/state/names.js';
import type { State } from '../../core/state/state.js';
import type { Constraint, ContextField } from '../../core/state/types.js';
import type { ContextFieldInput } from './schema.js';

export const MAX_CONTEXT_FIELDS = 1000;

const builtin = (name: string, description: string, sortOrder: number, stickiness = false): ContextField =>
  Object.freeze({ name, description, legalValues: [], stickiness, sortOrder, createdAt: '1970-01-01T00:00:00.000Z' });

/** What SDKs put in every context; listed, not stored, and not changed or deleted. */
export const BUILTIN_CONTEXT_FIELDS: readonly ContextField[] = [
  builtin('appName', 'The application name, as the SDK was configured with it', 0),
  builtin('environment', 'The environment, as the SDK was configured with it', 1),
  builtin('userId', 'An identifier of the current user', 2, true),
  builtin('sessionId', 'An identifier of the current session', 3, true),
  builtin('remoteAddress', 'The IP address of the caller', 4),
  builtin('currentTime', 'The time of the evaluation (for DATE_* constraints)', 5),
];
const BUILTIN = new Map(BUILTIN_CONTEXT_FIELDS.map((f) => [f.name, f]));

export function isBuiltinContextField(name: string): boolean {
  return BUILTIN.has(name);
}

/** Built-in fields first, then custom ones, each by sortOrder then name. */
export function allContextFields(state: State): ContextField[] {
  const custom = [...state.contextFields.values()].sort((a, b) => a.sortOrder - b.sortOrder || (a.name < b.name ? -1 : 1));
  return [...BUILTIN_CONTEXT_FIELDS, ...custom];
}

export function requireContextField(state: State, name: string): ContextField {
  const f = BUILTIN.get(name) ?? state.contextFields.get(name);
  if (!f) throw new NotFoundError(`Could not find context field "${name}".`);
  return f;
}

/** The view Unleash gives of a context field. */
export function contextFieldView(f: ContextField) {
  return { name: f.name, description: f.description, legalValues: f.legalValues, stickiness: f.stickiness, sortOrder: f.sortOrder, createdAt: f.createdAt };
}

function legalValues(input: ContextFieldInput): ContextField['legalValues'] {
  const seen = new Set<string>();
  return (input.legalValues ?? []).map((v, i) => {
    if (seen.has(v.value)) throw invalid(`legalValues[${i}].value`, `legal values must be unique; "${v.value}" appears twice`);
    seen.add(v.value);
    return { value: v.value, description: v.description ?? '' };
  });
}

/** A name that is free: checked by POST /api/admin/context/validate and on create. */
export function checkFreeName(state: State, raw: unknown): string {
  const name = checkName('name', raw);
  if (BUILTIN.has(name) || state.contextFields.has(name)) throw new NameExistsError(`A context field named "${name}" already exists.`);
  return name;
}

export function createContextField(input: ContextFieldInput & { name: string }) {
  return (state: State, env: { now: string }): Change<ContextField> => {
    const name = checkFreeName(state, input.name);
    if (state.contextFields.size >= MAX_CONTEXT_FIELDS) throw invalid('name', `at most ${MAX_CONTEXT_FIELDS} custom context fields`);
    const field: ContextField = {
      name, description: input.description ?? '', legalValues: legalValues(input), stickiness: input.stickiness ?? false,
      sortOrder: input.sortOrder ?? 10, createdAt: env.now,
    };
    return { ops: [{ o: 'contextField.put', field }], events: [{ type: 'context-field-created', data: contextFieldView(field) }], result: field };
  };
}

export function updateContextField(name: string, input: ContextFieldInput) {
  return (state: State): Change<ContextField> => {
    if (BUILTIN.has(name)) throw new NoAccessError(`"${name}" is a built-in context field: it cannot be changed.`);
    const before = requireContextField(state, name);
    if (input.name !== undefined && input.name !== name) throw invalid('name', `the name cannot change (it is "${name}")`);
    const after: ContextField = {
      ...before,
      description: input.description ?? before.description,
      legalValues: input.legalValues !== undefined ? legalValues(input) : before.legalValues,
      stickiness: input.stickiness ?? before.stickiness,
      sortOrder: input.sortOrder ?? before.sortOrder,
    };
    return {
      ops: [{ o: 'contextField.put', field: after }],
      events: [{ type: 'context-field-updated', data: contextFieldView(after), preData: contextFieldView(before) }],
      result: after,
    };
  };
}

/** Constraints over a deleted field stay (SDKs evaluate them against whatever the context holds). */
export function deleteContextField(name: string) {
  return (state: State): Change<null> => {
    if (BUILTIN.has(name)) throw new NoAccessError(`"${name}" is a built-in context field: it cannot be deleted.`);
    const before = requireContextField(state, name);
    return { ops: [{ o: 'contextField.del', name }], events: [{ type: 'context-field-deleted', data: { name }, preData: contextFieldView(before) }], result: null };
  };
}

/**
 * A new constraint over a field with legal values may only use those values (as in Unleash);
 * fields without legal values, and unknown fields, take any value.
 */
export function checkLegalValues(state: State, constraints: Constraint[], field: string): void {
  constraints.forEach((c, i) => {
    const legal = state.contextFields.get(c.contextName)?.legalValues;
    if (!legal || legal.length === 0) return;
    const allowed = new Set(legal.map((v) => v.value));
    const values = c.value !== undefined ? [c.value] : (c.values ?? []);
    const bad = values.find((v) => !allowed.has(v));
    if (bad !== undefined) {
      throw invalid(`${field}[${i}].values`, `"${bad}" is not a legal value of context field "${c.contextName}"; use one of ${[...allowed].map((v) => JSON.stringify(v)).join(', ')}`);
    }
  });
}

/** A custom context field brought over from another server (`fanion migrate`). */
export interface ContextFieldImport {
  name: string;
  description: string;
  legalValues: { value: string; description: string }[];
  stickiness: boolean;
  sortOrder: number;
  createdAt: string | null;
}

/**
 * Custom context fields brought over: new ones are added, ones that differ take the other
 * server's version, built-in names are left to the built-ins. Refused, naming the field: a name
 * Fanion cannot store, legal values given twice, more than MAX_CONTEXT_FIELDS.
 */
export function importContextFields(state: State, list: ContextFieldImport[], now: string): { ops: Op[]; events: EventDraft[]; added: number; updated: number } {
  const r = { ops: [] as Op[], events: [] as EventDraft[], added: 0, updated: 0 };
  list.forEach((f, i) => {
    const name = checkName(`contextFields[${i}].name`, f.name);
    if (BUILTIN.has(name)) return;
    const prev = state.contextFields.get(name);
    let values: ContextField['legalValues'];
    try {
      values = legalValues({ legalValues: f.legalValues });
    } catch (err) {
      throw invalid(`contextFields[${i}].legalValues`, `context field "${name}": ${(err as ValidationError).details?.[0]?.message ?? (err as Error).message}`);
    }
    const field: ContextField = {
      name, description: f.description, legalValues: values, stickiness: f.stickiness, sortOrder: f.sortOrder, createdAt: prev?.createdAt ?? f.createdAt ?? now,
    };
    if (prev && JSON.stringify(contextFieldView(prev)) === JSON.stringify(contextFieldView(field))) return;
    r.ops.push({ o: 'contextField.put', field });
    r.events.push(prev ? { type: 'context-field-updated', data: contextFieldView(field), preData: contextFieldView(prev) } : { type: 'context-field-created', data: contextFieldView(field) });
    if (prev) r.updated++;
    else r.added++;
  });
  if (state.contextFields.size + r.added > MAX_CONTEXT_FIELDS) throw invalid('contextFields', `at most ${MAX_CONTEXT_FIELDS} custom context fields`);
  return r;
}
