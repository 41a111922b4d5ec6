// Strategy types (Unleash's "strategies"): the built-ins, which cannot be changed or deleted, and
// custom ones, whose parameter definitions are what a flag strategy of that type is checked
// against. Pure commands, like every command.
import type { Change, EventDraft } from '../../core/engine/command.js';
import { invalid, NameExistsError, NoAccessError, NotFoundError } from '../../core/errors.js';
import type { State } from '../../core/state/state.js';
import type { StrategyParameterDef, StrategyType } from '../../core/state/types.js';
import { checkName } from '../../core/state/names.js';
import type { StrategyTypeInput } from './schema.js';

export function requireStrategyType(state: State, name: string): StrategyType {
  const t = state.strategyTypes.get(name);
  if (!t) throw new NotFoundError(`Could not find strategy type "${name}".`);
  return t;
}

/** The view Unleash gives of a strategy type. */
export function strategyTypeView(t: StrategyType) {
  return {
    name: t.name, displayName: t.displayName, title: t.title, description: t.description, editable: t.editable, deprecated: t.deprecated,
    parameters: t.parameters.map((p) => ({ name: p.name, type: p.type, description: p.description, required: p.required })),
  };
}

function definitions(input: StrategyTypeInput): StrategyParameterDef[] {
  const seen = new Set<string>();
  return (input.parameters ?? []).map((p, i) => {
    if (seen.has(p.name)) throw invalid(`parameters[${i}].name`, `parameter names must be unique; "${p.name}" appears twice`);
    seen.add(p.name);
    return { name: p.name, type: p.type ?? 'string', description: p.description ?? '', required: p.required ?? false };
  });
}

function editable(t: StrategyType, doing: string): void {
  if (!t.editable) throw new NoAccessError(`"${t.name}" is a built-in strategy type: it cannot be ${doing}.`);
}

/** Flags (name and environment) with a strategy of this type. */
export function usesOf(state: State, name: string): string[] {
  const out = new Set<string>();
  for (const s of state.strategies.values()) if (s.name === name) out.add(`${s.featureName} (${s.environment})`);
  return [...out];
}

export function createStrategyType(input: StrategyTypeInput & { name: string }) {
  return (state: State): Change<StrategyType> => {
    const name = checkName('name', input.name);
    if (state.strategyTypes.has(name)) throw new NameExistsError(`A strategy type named "${name}" already exists.`);
    const t: StrategyType = {
      name, title: input.title ?? null, displayName: input.displayName ?? null, description: input.description ?? '',
      editable: true, deprecated: false, parameters: definitions(input),
    };
    return { ops: [{ o: 'strategyType.put', strategyType: t }], events: [{ type: 'strategy-created', data: strategyTypeView(t) }], result: t };
  };
}

/** Replaces a custom type's description and parameter definitions; the name stays. */
export function updateStrategyType(name: string, input: StrategyTypeInput) {
  return (state: State): Change<StrategyType> => {
    const before = requireStrategyType(state, name);
    editable(before, 'changed');
    if (input.name !== undefined && input.name !== name) throw invalid('name', `the name cannot change (it is "${name}")`);
    const after: StrategyType = {
      ...before,
      title: input.title !== undefined ? input.title : before.title,
      displayName: input.displayName !== undefined ? input.displayName : before.displayName,
      description: input.description ?? before.description,
      parameters: input.parameters !== undefined ? definitions(input) : before.parameters,
    };
    const event: EventDraft = { type: 'strategy-updated', data: strategyTypeView(after), preData: strategyTypeView(before) };
    return { ops: [{ o: 'strategyType.put', strategyType: after }], events: [event], result: after };
  };
}

export function deleteStrategyType(name: string) {
  return (state: State): Change<null> => {
    const t = requireStrategyType(state, name);
    editable(t, 'deleted');
    const uses = usesOf(state, name);
    if (uses.length > 0) {
      throw new NoAccessError(`Strategy type "${name}" is used by ${uses.length} flag environment(s): ${uses.slice(0, 10).join(', ')}${uses.length > 10 ? ', …' : ''}. Remove those strategies first.`);
    }
    return { ops: [{ o: 'strategyType.del', name }], events: [{ type: 'strategy-deleted', data: { name }, preData: strategyTypeView(t) }], result: null };
  };
}

/** Deprecated types stay usable by the flags that have them; the console offers them no more. */
export function setDeprecated(name: string, deprecated: boolean) {
  return (state: State): Change<null> => {
    const t = requireStrategyType(state, name);
    if (name === 'default') throw new NoAccessError('The "default" strategy type cannot be deprecated.');
    if (t.deprecated === deprecated) return { ops: [], events: [], result: null };
    return {
      ops: [{ o: 'strategyType.put', strategyType: { ...t, deprecated } }],
      events: [{ type: deprecated ? 'strategy-deprecated' : 'strategy-reactivated', data: { name } }],
      result: null,
    };
  };
}

const PERCENT = /^(100|[1-9]?\d)$/;

/**
 * Checks a flag strategy's parameters against its type's definitions: required ones present and
 * not empty, and each of the declared type (percentage: a whole number 0-100; number; boolean:
 * "true" or "false"). Parameters the type does not declare are kept, as Unleash keeps them.
 */
export function checkParameters(t: StrategyType, params: Record<string, string>): void {
  for (const def of t.parameters) {
    const value = params[def.name];
    const at = `parameters.${def.name}`;
    if (value === undefined || value === '') {
      if (def.required) throw invalid(at, `strategy type "${t.name}" requires the parameter "${def.name}" (${def.type})`);
      continue;
    }
    if (def.type === 'percentage' && !PERCENT.test(value)) throw invalid(at, `"${def.name}" must be a whole number from 0 to 100, got "${value}"`);
    if (def.type === 'number' && (value.trim() === '' || !Number.isFinite(Number(value)))) throw invalid(at, `"${def.name}" must be a number, got "${value}"`);
    if (def.type === 'boolean' && value !== 'true' && value !== 'false') throw invalid(at, `"${def.name}" must be "true" or "false", got "${value}"`);
  }
}
