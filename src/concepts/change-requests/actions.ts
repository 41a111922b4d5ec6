// What a change request can hold: Unleash's action names, each with the schema of its payload and
// the existing pure command that makes the change when the request is applied (the same command
// the direct route runs, so a change applied through a request is the change the route makes).
// Each action also says what it was made against (a fingerprint of the strategy, variants or
// segment it edits), so a request applied later does not silently overwrite what moved since.
import { createHash } from 'node:crypto';
import type { Command } from '../../core/engine/command.js';
import { inSequence } from '../../core/engine/sequence.js';
import type { State } from '../../core/state/state.js';
import { strategiesOf } from '../../core/state/state.js';
import { addDependency, archiveFeature, removeDependency, setEnvironmentEnabled, type DependencyInput } from '../features/logic.js';
import { featureSchemas } from '../features/schema.js';
import { segmentSchemas } from '../segments/schema.js';
import { deleteSegment, segmentView, updateSegment, type SegmentInput } from '../segments/logic.js';
import { addStrategy, deleteStrategy, setSortOrder, strategyView, updateStrategy, type StrategyInput, type Where } from '../strategies/logic.js';
import { strategySchemas } from '../strategies/schema.js';
import { setEnvironmentVariants } from '../variants/logic.js';
import { variantListSchema, type VariantInput } from '../variants/weights.js';
import { PLAN_ACTIONS } from './plan-actions.js';

/** The project and environment a request is for. */
export interface RequestWhere {
  project: string;
  environment: string;
}

type Payload = any;

export interface ActionDef {
  /** The payload's schema (validated with ajv before anything else). */
  payload: Record<string, unknown>;
  /** A segment's change belongs to no flag. */
  segment?: true;
  /** The command the change runs when applied. */
  command: (where: RequestWhere, feature: string, payload: Payload) => Command<unknown>;
  /**
   * What the change was made against, as a fingerprint (null: nothing that can move under it), and
   * what that is, for the conflict's message.
   */
  base?: { of: (state: State, where: RequestWhere, feature: string, payload: Payload) => unknown; what: string };
  /**
   * Changes with the same slot replace each other in a draft (switching twice keeps the last),
   * as in Unleash; null: every change of the action is kept (each added strategy).
   */
  slot: (payload: Payload) => string | null;
}

const obj = (required: string[], properties: Record<string, unknown>) => ({ type: 'object', required, properties });
const idString = { type: 'string', minLength: 1, maxLength: 100 };
const segmentId = { type: 'integer', minimum: 1 };
const flagWhere = (where: RequestWhere, feature: string): Where => ({ project: where.project, feature, environment: where.environment });
const strategyOf = (state: State, where: RequestWhere, feature: string, id: string) => {
  const s = state.strategies.get(id);
  return s && s.featureName === feature && s.environment === where.environment ? strategyView(s) : null;
};
const segmentOf = (state: State, id: number) => {
  const s = state.segments.get(id);
  return s ? segmentView(s) : null;
};

/** A switch on, with the flag's disabled strategies switched on too when asked (Unleash's shouldActivateDisabledStrategies). */
function switchCommand(where: RequestWhere, feature: string, p: { enabled: boolean; shouldActivateDisabledStrategies?: boolean }): Command<unknown> {
  const on = setEnvironmentEnabled(where.project, feature, where.environment, p.enabled);
  if (!p.enabled || !p.shouldActivateDisabledStrategies) return on;
  return (state, env) => {
    const disabled = strategiesOf(state, feature, where.environment).filter((s) => s.disabled);
    return inSequence(state, env, [...disabled.map((s) => updateStrategy(flagWhere(where, feature), s.id, { disabled: false })), on]);
  };
}

/** Made against one strategy: an edit and a delete of it replace each other in a draft. */
const ONE_STRATEGY: Pick<ActionDef, 'base' | 'slot'> = {
  base: { of: (s, w, f, p) => strategyOf(s, w, f, p.id), what: 'strategy' },
  slot: (p) => `strategy:${p.id}`,
};

export const ACTIONS: Record<string, ActionDef> = {
  updateEnabled: {
    payload: obj(['enabled'], { enabled: { type: 'boolean' }, shouldActivateDisabledStrategies: { type: 'boolean' } }),
    command: switchCommand,
    slot: () => 'enabled',
  },
  addStrategy: {
    payload: strategySchemas.createFeatureStrategySchema,
    command: (w, f, p: StrategyInput) => addStrategy(flagWhere(w, f), p),
    slot: () => null,
  },
  updateStrategy: {
    payload: { ...strategySchemas.updateFeatureStrategySchema, required: ['id'], properties: { ...strategySchemas.updateFeatureStrategySchema.properties, id: idString } },
    command: (w, f, { id, ...p }: StrategyInput & { id: string }) => updateStrategy(flagWhere(w, f), id, p),
    ...ONE_STRATEGY,
  },
  deleteStrategy: {
    payload: obj(['id'], { id: idString }),
    command: (w, f, p: { id: string }) => deleteStrategy(flagWhere(w, f), p.id),
    ...ONE_STRATEGY,
  },
  reorderStrategy: {
    payload: strategySchemas.setStrategySortOrderSchema,
    command: (w, f, p: { id: string; sortOrder: number }[]) => setSortOrder(flagWhere(w, f), p),
    base: { of: (s, w, f) => strategiesOf(s, f, w.environment).map((x) => [x.id, x.sortOrder]), what: 'order of strategies' },
    slot: () => 'order',
  },
  patchVariant: {
    payload: obj(['variants'], { variants: variantListSchema }),
    command: (w, f, p: { variants: VariantInput[] }) => setEnvironmentVariants(w.project, f, [w.environment], p.variants),
    base: { of: (s, w, f) => s.featureEnvs.get(f)?.get(w.environment)?.variants ?? null, what: 'variants' },
    slot: () => 'variants',
  },
  archiveFeature: {
    payload: { type: 'object' },
    command: (w, f) => archiveFeature(w.project, f),
    slot: () => 'archive',
  },
  addDependency: {
    payload: featureSchemas.createDependentFeatureSchema,
    command: (w, f, p: DependencyInput) => addDependency(w.project, f, p),
    slot: (p) => `dependency:${p.feature}`,
  },
  deleteDependency: {
    payload: obj(['feature'], { feature: idString }),
    command: (w, f, p: { feature: string }) => removeDependency(w.project, f, p.feature),
    slot: (p) => `dependency:${p.feature}`,
  },
  updateSegment: {
    payload: { ...segmentSchemas.updateSegmentSchema, required: ['id', 'name', 'constraints'], properties: { ...segmentSchemas.updateSegmentSchema.properties, id: segmentId } },
    segment: true,
    command: (_w, _f, { id, ...p }: SegmentInput & { id: number }) => updateSegment(String(id), p),
    base: { of: (s, _w, _f, p) => segmentOf(s, p.id), what: 'segment' },
    slot: (p) => `segment:${p.id}`,
  },
  deleteSegment: {
    payload: obj(['id'], { id: segmentId }),
    segment: true,
    command: (_w, _f, p: { id: number }) => deleteSegment(String(p.id)),
    base: { of: (s, _w, _f, p) => segmentOf(s, p.id), what: 'segment' },
    slot: (p) => `segment:${p.id}`,
  },
  ...PLAN_ACTIONS,
};

export const ACTION_NAMES = Object.keys(ACTIONS);

/** A short fingerprint of a JSON value: enough to tell that it changed, small enough to keep with every change. */
function fingerprint(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value ?? null)).digest('base64url').slice(0, 22);
}

/** What the change is made against in `state`, as its fingerprint (null: nothing that can move under it). */
export function baseOf(state: State, where: RequestWhere, feature: string, action: string, payload: unknown): string | null {
  const base = ACTIONS[action].base;
  return base ? fingerprint(base.of(state, where, feature, payload)) : null;
}

/** Why the change conflicts with `state` (what it was made against moved), or null when it does not. */
export function conflictOf(state: State, where: RequestWhere, feature: string, change: { action: string; payload: unknown; base: string | null }): string | null {
  const def = ACTIONS[change.action];
  if (!def?.base || change.base === null) return null;
  const now = def.base.of(state, where, feature, change.payload);
  if (fingerprint(now) === change.base) return null;
  const gone = now === null;
  return `The ${def.base.what} this change was made against has been ${gone ? 'deleted' : 'changed'} since; review the change and make it again.`;
}

/** The command that applies a change. */
export function commandOf(where: RequestWhere, feature: string, action: string, payload: unknown): Command<unknown> {
  return ACTIONS[action].command(where, feature, payload);
}

/** Whether an action changes a segment (and so names no flag). */
export function isSegmentAction(action: string): boolean {
  return ACTIONS[action]?.segment === true;
}

/** The slot a change fills in a draft (see ActionDef.slot). */
export function slotOf(feature: string, action: string, payload: unknown): string | null {
  const slot = ACTIONS[action].slot(payload);
  return slot === null ? null : `${feature}\u0000${slot}`;
}
