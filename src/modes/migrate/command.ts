// A whole Unleash brought over as one command, hence one WAL record: all of it or nothing. Pure:
// state + the migration document (tokens already hashed) → ops and events. It is the state import
// (keep=false: what both have takes Unleash's version) plus what that import has no place for:
// a flag brought over is replaced whole (strategies and tags it no longer has in Unleash go, so
// a second run picks up deletions), custom context fields, and the API tokens.
import type { EventDraft, SlicedCommand } from '../../core/engine/command.js';
import { importContextFields, type ContextFieldImport } from '../../concepts/context-fields/logic.js';
import type { Op } from '../../core/state/ops.js';
import { tagKey, type State } from '../../core/state/state.js';
import { importState } from '../../concepts/state-io/import.js';
import type { StateDocument } from '../../concepts/state-io/schema.js';
import { strategyView } from '../../concepts/strategies/logic.js';
import { importTokens, type TokenImport } from '../../concepts/tokens/logic.js';

export interface MigrationInput {
  state: StateDocument;
  contextFields: ContextFieldImport[];
  tokens: TokenImport[];
}

export interface MigrationResult {
  ops: number;
  events: number;
  strategiesRemoved: number;
  tagsRemoved: number;
  contextFields: { added: number; updated: number };
  tokens: { added: number; updated: number; unchanged: number; stayDeleted: number };
}

/** Who the change is written as (events' createdBy). */
export const MIGRATE_ACTOR = { name: 'fanion-migrate', userId: null };

/**
 * Strategy ids Unleash gives no creation date for keep the one they have here, so running the
 * migration again over the same data changes nothing.
 */
function withKnownDates(state: State, doc: StateDocument): StateDocument {
  if (!doc.featureStrategies) return doc;
  return {
    ...doc,
    featureStrategies: doc.featureStrategies.map((s) => {
      const prev = s.id !== undefined && !s.createdAt ? state.strategies.get(s.id) : undefined;
      return prev ? { ...s, createdAt: prev.createdAt } : s;
    }),
  };
}

/** Removals for the strategies and tags the flags brought over have here but no longer in Unleash. */
function replacedFlags(state: State, doc: StateDocument): { ops: Op[]; events: EventDraft[]; strategies: number; tags: number } {
  const r = { ops: [] as Op[], events: [] as EventDraft[], strategies: 0, tags: 0 };
  const flags = new Map((doc.features ?? []).map((f) => [f.name, f.project ?? 'default']));
  const strategyIds = new Set((doc.featureStrategies ?? []).map((s) => s.id));
  for (const s of state.strategies.values()) {
    const project = flags.get(s.featureName);
    if (project === undefined || strategyIds.has(s.id)) continue;
    r.ops.push({ o: 'strategy.del', id: s.id });
    r.events.push({ type: 'feature-strategy-remove', project, featureName: s.featureName, environment: s.environment, preData: strategyView(s) });
    r.strategies++;
  }
  const tags = new Set((doc.featureTags ?? []).map((t) => `${t.featureName}\u0000${t.tagType ?? t.type}:${t.tagValue ?? t.value}`));
  for (const [feature, list] of state.featureTags) {
    const project = flags.get(feature);
    if (project === undefined) continue;
    for (const tag of list) {
      if (tags.has(`${feature}\u0000${tagKey(tag)}`)) continue;
      r.ops.push({ o: 'featureTag.del', feature, tag });
      r.events.push({ type: 'feature-untagged', project, featureName: feature, preData: tag });
      r.tags++;
    }
  }
  return r;
}

/** Sliced like the state import it builds on, so a large Unleash does not hold the event loop. */
export function migrateFromUnleash(input: MigrationInput): SlicedCommand<MigrationResult> {
  return async (state, env, slicer) => {
    // The removals come after the import's ops: the import may re-put a strategy of a flag that
    // moved project, and the removal must be what stays.
    const imported = await importState(withKnownDates(state, input.state), { drop: false, keep: false })(state, env, slicer);
    const replaced = replacedFlags(state, input.state);
    const fields = importContextFields(state, input.contextFields, env.now);
    const scope = {
      projects: new Set([...state.projects.keys(), ...(input.state.projects ?? []).map((p) => p.id)]),
      environments: new Set([...state.environments.keys(), ...(input.state.environments ?? []).map((e) => e.name)]),
    };
    const tokens = importTokens(state, input.tokens, scope, env.now);
    const ops = [...imported.ops, ...replaced.ops, ...fields.ops, ...tokens.ops];
    const events = [...imported.events, ...replaced.events, ...fields.events, ...tokens.events];
    return {
      ops,
      events,
      result: {
        ops: ops.length,
        events: events.length,
        strategiesRemoved: replaced.strategies,
        tagsRemoved: replaced.tags,
        contextFields: { added: fields.added, updated: fields.updated },
        tokens: { added: tokens.added, updated: tokens.updated, unchanged: tokens.unchanged, stayDeleted: tokens.stayDeleted },
      },
    };
  };
}
