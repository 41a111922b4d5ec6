// The state import as one pure command: the whole document is applied to a Draft, every
// reference is checked against the result, and only then are ops produced, as a diff of the
// draft against the state. One bad item anywhere → a ValidationError naming it, no ops at
// all; otherwise one change, hence one WAL record, with Unleash 5.12's import events (and the
// api-token events of tokens whose project or environment a drop removed).
import type { Change, CommandEnv, EventDraft, SlicedCommand } from '../../core/engine/command.js';
import type { Slicer } from '../../core/slices.js';
import { importedConstraint, type ConstraintInput } from '../constraints/constraints.js';
import { ValidationError } from '../../core/errors.js';
import type { Op } from '../../core/state/ops.js';
import { featureEnvKey, tagKey, type State } from '../../core/state/state.js';
import type {
  Environment, Feature, FeatureEnv, ImpactChart, MilestoneStrategy, PlanMilestone, Project, ReleasePlan, ReleaseTemplate, Safeguard, SafeguardAction, Segment, Strategy,
  StrategyType, Tag, TagType,
} from '../../core/state/types.js';
import { Draft, featureOfEnvKey, flagTagKey, type Tracked } from './draft.js';
import { exportedFeature, exportedProject, exportedSegment } from './export.js';
import type { MilestoneStrategyItem, StateDocument } from './schema.js';
import { MAX_TEMPLATES } from '../release-plans/logic.js';
import { MAX_SAFEGUARDS_PER_TARGET } from '../safeguards/logic.js';
import { MAX_CHARTS } from '../impact-metrics/charts.js';
import { accessWithout } from '../people/logic.js';
import { checkSegmentName } from '../../core/state/names.js';
import { importedVariants } from '../variants/weights.js';

export interface ImportOptions {
  /** Remove the existing items of every kind present in the document first. */
  drop: boolean;
  /** Leave existing items as they are (true), or overwrite them with the document's (false). */
  keep: boolean;
}

export interface ImportSummary {
  ops: number;
  events: number;
}

const refError = (path: string, message: string) => new ValidationError(`Import refused: ${path}: ${message}.`, [{ path, message }]);

/** Runs a shared normalizer, restating its error with the item's full path in the message. */
function within<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const path = err instanceof ValidationError ? err.details?.[0]?.path : undefined;
    if (!path) throw err;
    throw refError(path, (err as ValidationError).details![0].message);
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** JSON with every object's keys sorted: equal for records that differ only in the order of their fields. */
const canonical = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));

/** Fails on the second item of a kind with the same key: which one should win is anyone's guess. */
function uniqueKeys() {
  const seen = new Map<string, string>();
  return (key: string, path: string) => {
    const first = seen.get(key);
    if (first) throw refError(path, `duplicates ${first}`);
    seen.set(key, path);
  };
}

export function importState(doc: StateDocument, opts: ImportOptions): SlicedCommand<ImportSummary> {
  return async (state: State, env: CommandEnv, slicer: Slicer): Promise<Change<ImportSummary>> => {
    const d = new Draft(state);
    const events: EventDraft[] = [];
    /** Reference checks run once the draft is complete: documents may refer forwards. */
    const checks: (() => void)[] = [];
    /** Whether `next` should replace what the draft holds under `key` (Unleash's keep / equality rules). */
    const admit = <K, V>(t: Tracked<K, V>, key: K, next: V): boolean => {
      const prev = t.get(key);
      if (prev === undefined) return true;
      return !opts.keep && !same(prev, next);
    };

    const run: ImportRun = { d, doc, opts, env, state, events, checks, admit, slicer };
    await importEnvironments(run);
    await importProjects(run);
    await importFlags(run);
    await importStrategyTypes(run);
    await importTags(run);
    await importSegments(run);
    await importReleases(run);

    await slicer.each(checks, (check) => check());

    await linkStrategySegments(run);

    await settleExisting(d, slicer);
    await settleReleases(d, slicer);

    // Tokens of projects and environments the import removed go with them, as when one is
    // deleted through the API; one that the document brings back is not removed.
    const tokens = accessWithout(state, { projects: [...d.projects.removed()], environments: [...d.environments.removed()] }, env.now);
    const ops = [...(await diffOps(d, state, slicer)), ...tokens.ops];
    events.push(...tokens.events);
    return { ops, events, result: { ops: ops.length, events: events.length } };
  };
}

/** What every step of an import works on: the draft, the document, and what it collects. */
interface ImportRun {
  d: Draft;
  doc: StateDocument;
  opts: ImportOptions;
  env: CommandEnv;
  state: State;
  events: EventDraft[];
  /** Reference checks run once the draft is complete: documents may refer forwards. */
  checks: (() => void)[];
  /** Whether `next` should replace what the draft holds under `key` (Unleash's keep / equality rules). */
  admit: <K, V>(t: Tracked<K, V>, key: K, next: V) => boolean;
  /** The import pauses between slices of its work (a document of 100,000 strategies takes seconds). */
  slicer: Slicer;
}

/** Environments (dropped first with ?drop=true). */
async function importEnvironments(run: ImportRun): Promise<void> {
  const { d, doc, opts, events, admit } = run;
  if (doc.environments) {
    if (opts.drop) {
      d.environments.clear();
      events.push({ type: 'drop-environments', data: { name: 'all-environments' } });
    }
    let last = 0;
    for (const e of d.environments.values()) last = Math.max(last, e.sortOrder);
    const unique = uniqueKeys();
    await run.slicer.each(doc.environments, (e, i) => {
      unique(e.name, `environments[${i}]`);
      const next: Environment = { name: e.name, type: e.type ?? 'development', enabled: e.enabled ?? true, protected: e.protected ?? false, sortOrder: e.sortOrder ?? ++last };
      if (!admit(d.environments, e.name, next)) return;
      d.environments.set(e.name, next);
      events.push({ type: 'environment-import', environment: e.name, data: next });
    });
  }
}

/** Projects. */
async function importProjects(run: ImportRun): Promise<void> {
  const { d, doc, opts, env, events, admit } = run;
  if (doc.projects) {
    if (opts.drop) {
      d.projects.clear();
      events.push({ type: 'drop-projects', data: { name: 'all-projects' } });
    }
    const unique = uniqueKeys();
    await run.slicer.each(doc.projects, (p, i) => {
      unique(p.id, `projects[${i}]`);
      const next: Project = {
        id: p.id, name: p.name ?? p.id, description: p.description ?? null, mode: p.mode ?? 'open', defaultStickiness: p.defaultStickiness ?? 'default',
        createdAt: p.createdAt ?? env.now, updatedAt: p.updatedAt ?? null,
      };
      if (!admit(d.projects, p.id, next)) return;
      d.projects.set(p.id, next);
      events.push({ type: 'project-import', project: p.id, data: exportedProject(next) });
    });
  }
}

/** Flags, then their environments and strategies (no events for those two, as in Unleash). */
async function importFlags(run: ImportRun): Promise<void> {
  const { d, doc, opts, env, state, events, checks, admit } = run;
  const newFlags = new Set<string>();
  if (doc.features) {
    if (opts.drop) {
      d.features.clear();
      d.featureEnvs.clear();
      d.strategies.clear();
      d.featureTags.clear();
      // What belongs to a flag's environments goes with the flags, as their strategies do.
      d.releasePlans.clear();
      d.safeguards.clear();
      for (const c of [...d.impactCharts.values()]) if (c.feature !== null) d.impactCharts.delete(c.id);
      events.push({ type: 'drop-features', data: { name: 'all-features' } });
    }
    const unique = uniqueKeys();
    await run.slicer.each(doc.features, (f, i) => {
      unique(f.name, `features[${i}]`);
      const project = f.project ?? 'default';
      const archived = f.archived ?? false;
      const next: Feature = {
        name: f.name, project, type: f.type ?? 'release', description: f.description ?? null, impressionData: f.impressionData ?? false,
        stale: f.stale ?? false, archived, archivedAt: archived ? (f.archivedAt ?? env.now) : null, createdAt: f.createdAt ?? env.now,
        lastSeenAt: f.lastSeenAt ?? null,
        dependencies: (f.dependencies ?? []).map((dep) => ({ feature: dep.feature, enabled: dep.enabled ?? true, variants: dep.enabled === false ? [] : [...(dep.variants ?? [])] })),
      };
      // Dependencies are data: one on a missing flag, or a cycle, is stored and served as given,
      // and SDKs evaluate it as the specification says (the child is off).
      checks.push(() => {
        if (!d.projects.has(project)) throw refError(`features[${i}].project`, `project "${project}" does not exist`);
      });
      if (!admit(d.features, f.name, next)) return;
      if (!d.features.has(f.name)) newFlags.add(f.name);
      d.features.set(f.name, next);
      events.push({ type: 'feature-import', project, featureName: f.name, data: exportedFeature(next) });
    });
  }

  const configured = new Set<string>();
  if (doc.featureEnvironments) {
    const unique = uniqueKeys();
    await run.slicer.each(doc.featureEnvironments, (fe, i) => {
      const key = featureEnvKey(fe.featureName, fe.environment);
      unique(key, `featureEnvironments[${i}]`);
      configured.add(fe.featureName);
      checks.push(() => {
        if (!d.features.has(fe.featureName)) throw refError(`featureEnvironments[${i}].featureName`, `flag "${fe.featureName}" does not exist`);
        if (!d.environments.has(fe.environment)) throw refError(`featureEnvironments[${i}].environment`, `environment "${fe.environment}" does not exist`);
      });
      const next: FeatureEnv = { environment: fe.environment, enabled: fe.enabled ?? false, variants: importedVariants(fe.variants), lastSeenAt: fe.lastSeenAt ?? null };
      if (admit(d.featureEnvs, key, next)) d.featureEnvs.set(key, next);
    });
  }
  // A new flag the document says nothing about is connected everywhere, disabled, as on create.
  for (const name of newFlags) {
    if (configured.has(name)) continue;
    for (const e of d.environments.values()) {
      const key = featureEnvKey(name, e.name);
      if (!d.featureEnvs.has(key)) d.featureEnvs.set(key, { environment: e.name, enabled: false, variants: [], lastSeenAt: null });
    }
  }

  if (doc.featureStrategies) {
    if (opts.drop) d.strategies.clear();
    let seq = state.nextStrategySeq;
    const unique = uniqueKeys();
    await run.slicer.each(doc.featureStrategies, (fs, i) => {
      const id = fs.id ?? env.newId();
      unique(id, `featureStrategies[${i}]`);
      const prev = d.strategies.get(id);
      const type = (fs.strategyName ?? fs.name)!;
      const parameters: Record<string, string> = {};
      for (const [k, v] of Object.entries(fs.parameters ?? {})) parameters[k] = String(v);
      const next: Strategy = {
        id, featureName: fs.featureName, projectId: d.features.get(fs.featureName)?.project ?? 'default', environment: fs.environment, name: type,
        title: fs.title ?? null, disabled: fs.disabled ?? false, sortOrder: fs.sortOrder ?? 0,
        constraints: ((fs.constraints ?? []) as ConstraintInput[]).map(importedConstraint),
        parameters, variants: importedVariants(fs.variants), segments: [...new Set(fs.segments ?? [])].sort((a, b) => a - b),
        createdAt: fs.createdAt ?? env.now, seq: prev ? prev.seq : seq++,
      };
      if (next.variants.some((v) => v.overrides && v.overrides.length > 0)) {
        throw refError(`featureStrategies[${i}].variants`, 'strategy variants cannot have overrides');
      }
      checks.push(() => {
        const at = (field: string) => `featureStrategies[${i}].${field}`;
        if (!d.features.has(fs.featureName)) throw refError(at('featureName'), `flag "${fs.featureName}" does not exist`);
        if (!d.environments.has(fs.environment)) throw refError(at('environment'), `environment "${fs.environment}" does not exist`);
        if (!d.strategyTypes.has(type)) throw refError(at(fs.strategyName !== undefined ? 'strategyName' : 'name'), `strategy type "${type}" does not exist`);
        for (const s of next.segments) if (!d.segments.has(s)) throw refError(at('segments'), `segment ${s} does not exist`);
      });
      if (admit(d.strategies, id, next)) d.strategies.set(id, next);
    });
  }
}

/** Strategy definitions. Built-in types are never replaced. */
async function importStrategyTypes(run: ImportRun): Promise<void> {
  const { d, doc, opts, events, admit } = run;
  if (doc.strategies) {
    if (opts.drop) {
      for (const t of [...d.strategyTypes.values()]) if (t.editable) d.strategyTypes.delete(t.name);
      events.push({ type: 'drop-strategies', data: { name: 'all-strategies' } });
    }
    const unique = uniqueKeys();
    await run.slicer.each(doc.strategies, (s, i) => {
      unique(s.name, `strategies[${i}]`);
      const prev = d.strategyTypes.get(s.name);
      if (prev && !prev.editable) return;
      const next: StrategyType = {
        name: s.name, title: s.title ?? null, displayName: s.displayName ?? null, description: s.description ?? '', editable: true, deprecated: s.deprecated ?? false,
        parameters: (s.parameters ?? []).map((p) => ({ name: p.name, type: p.type ?? 'string', description: p.description ?? '', required: p.required ?? false })),
      };
      if (!admit(d.strategyTypes, s.name, next)) return;
      d.strategyTypes.set(s.name, next);
      events.push({ type: 'strategy-import', data: next });
    });
  }
}

/** Tag types, tags, tags on flags. */
async function importTags(run: ImportRun): Promise<void> {
  const { d, doc, opts, events, checks, admit } = run;
  if (opts.drop) {
    if (doc.featureTags) {
      d.featureTags.clear();
      events.push({ type: 'drop-feature-tags', data: { name: 'all-feature-tags' } });
    }
    if (doc.tags) {
      d.tags.clear();
      events.push({ type: 'drop-tags', data: { name: 'all-tags' } });
    }
    if (doc.tagTypes) {
      d.tagTypes.clear();
      events.push({ type: 'drop-tag-types', data: { name: 'all-tag-types' } });
    }
  }
  if (doc.tagTypes) {
    const unique = uniqueKeys();
    await run.slicer.each(doc.tagTypes, (t, i) => {
      unique(t.name, `tagTypes[${i}]`);
      const next: TagType = { name: t.name, description: t.description ?? '', icon: t.icon ?? null };
      if (!admit(d.tagTypes, t.name, next)) return;
      d.tagTypes.set(t.name, next);
      events.push({ type: 'tag-type-import', data: next });
    });
  }
  if (doc.tags) {
    const unique = uniqueKeys();
    await run.slicer.each(doc.tags, (t, i) => {
      const tag: Tag = { type: t.type, value: t.value };
      unique(tagKey(tag), `tags[${i}]`);
      checks.push(() => {
        if (!d.tagTypes.has(tag.type)) throw refError(`tags[${i}].type`, `tag type "${tag.type}" does not exist`);
      });
      if (d.tags.has(tagKey(tag))) return;
      d.tags.set(tagKey(tag), tag);
      events.push({ type: 'tag-import', data: tag });
    });
  }
  if (doc.featureTags) {
    const unique = uniqueKeys();
    await run.slicer.each(doc.featureTags, (ft, i) => {
      const tag: Tag = { type: (ft.tagType ?? ft.type)!, value: (ft.tagValue ?? ft.value)! };
      const key = flagTagKey(ft.featureName, tag);
      unique(key, `featureTags[${i}]`);
      checks.push(() => {
        if (!d.features.has(ft.featureName)) throw refError(`featureTags[${i}].featureName`, `flag "${ft.featureName}" does not exist`);
        if (!d.tagTypes.has(tag.type)) throw refError(`featureTags[${i}].tagType`, `tag type "${tag.type}" does not exist`);
      });
      // The tag itself is implied by its use, as when a flag is created with tags.
      if (!d.tags.has(tagKey(tag))) d.tags.set(tagKey(tag), tag);
      if (d.featureTags.has(key)) return;
      d.featureTags.set(key, { feature: ft.featureName, tag });
      events.push({ type: 'feature-tag-import', featureName: ft.featureName, data: { featureName: ft.featureName, tagType: tag.type, tagValue: tag.value } });
    });
  }
}

/** Segments (which strategies use them is linked after the reference checks). */
async function importSegments(run: ImportRun): Promise<void> {
  const { d, doc, opts, env, events, checks, admit } = run;
  if (doc.segments) {
    if (opts.drop) d.segments.clear();
    const unique = uniqueKeys();
    await run.slicer.each(doc.segments, (s, i) => {
      unique(String(s.id), `segments[${i}]`);
      const name = within(() => checkSegmentName(`segments[${i}].name`, s.name));
      const project = s.project ?? null;
      const next: Segment = {
        id: s.id, name, description: s.description ?? null, project,
        constraints: ((s.constraints ?? []) as ConstraintInput[]).map(importedConstraint),
        createdAt: s.createdAt ?? env.now, createdBy: s.createdBy ?? env.actor.name,
      };
      checks.push(() => {
        if (project !== null && !d.projects.has(project)) throw refError(`segments[${i}].project`, `project "${project}" does not exist`);
        for (const other of d.segments.values()) {
          if (other.name === name && other.id !== s.id) throw refError(`segments[${i}].name`, `segment ${other.id} already has the name "${name}"`);
        }
      });
      if (!admit(d.segments, s.id, next)) return;
      d.segments.set(s.id, next);
      events.push({ type: 'segment-import', project, data: exportedSegment(next) });
    });
  }
}

const stringParameters = (raw: Record<string, string | number | boolean> | undefined) => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw ?? {})) out[k] = String(v);
  return out;
};

/** A milestone strategy as data, as a flag's strategy is imported (its type and segments checked later). */
function milestoneStrategyOf(s: MilestoneStrategyItem, k: number, at: string): MilestoneStrategy {
  const variants = importedVariants(s.variants);
  if (variants.some((v) => v.overrides && v.overrides.length > 0)) throw refError(`${at}.variants`, 'strategy variants cannot have overrides');
  return {
    id: s.id, sortOrder: s.sortOrder ?? k, title: s.title ?? null, strategyName: s.strategyName, parameters: stringParameters(s.parameters),
    constraints: ((s.constraints ?? []) as ConstraintInput[]).map(importedConstraint), variants, segments: [...new Set(s.segments ?? [])].sort((a, b) => a - b),
  };
}

/** Fails on an id given twice among `items` (milestones of one template or plan, their strategies). */
function uniqueIds(items: { id: string }[], at: (i: number) => string): void {
  const unique = uniqueKeys();
  items.forEach((x, i) => unique(x.id, at(i)));
}

/** The strategy types and segments a milestone's strategies use must exist in the result. */
function checkMilestoneStrategies(d: Draft, strategies: { strategyName?: string; name?: string; segments: number[] }[], at: (k: number) => string): void {
  strategies.forEach((s, k) => {
    const type = (s.strategyName ?? s.name)!;
    if (!d.strategyTypes.has(type)) throw refError(`${at(k)}.strategyName`, `strategy type "${type}" does not exist`);
    for (const id of s.segments) if (!d.segments.has(id)) throw refError(`${at(k)}.segments`, `segment ${id} does not exist`);
  });
}

const bySortOrder = (a: { sortOrder: number }, b: { sortOrder: number }) => a.sortOrder - b.sortOrder;

/**
 * Release templates, plans with their progress and progressions, safeguards, impact metrics
 * charts. A plan's flag and environment, a safeguard's flag, environment and plan, and the
 * strategy types and segments of milestone strategies must resolve in the result (400 otherwise),
 * as a flag strategy's references must. A plan's template need not: a template may be deleted
 * while plans made from it go on. A chart's flag need not either: a chart is only a saved view.
 */
async function importReleases(run: ImportRun): Promise<void> {
  const { d, doc, opts, env, checks, admit } = run;
  if (doc.releasePlanTemplates) {
    if (opts.drop) d.releaseTemplates.clear();
    const unique = uniqueKeys();
    await run.slicer.each(doc.releasePlanTemplates, (t, i) => {
      const at = `releasePlanTemplates[${i}]`;
      unique(t.id, at);
      const milestones = t.milestones ?? [];
      uniqueIds(milestones, (j) => `${at}.milestones[${j}]`);
      const names = uniqueKeys();
      milestones.forEach((m, j) => names(m.name, `${at}.milestones[${j}].name`));
      const next: ReleaseTemplate = {
        id: t.id, name: t.name, description: t.description ?? null, createdByUserId: t.createdByUserId ?? null, createdAt: t.createdAt ?? env.now,
        milestones: milestones.map((m, j) => {
          uniqueIds(m.strategies ?? [], (k) => `${at}.milestones[${j}].strategies[${k}]`);
          const strategies = (m.strategies ?? []).map((s, k) => milestoneStrategyOf(s, k, `${at}.milestones[${j}].strategies[${k}]`));
          checks.push(() => checkMilestoneStrategies(d, strategies, (k) => `${at}.milestones[${j}].strategies[${k}]`));
          return { id: m.id, name: m.name, sortOrder: m.sortOrder ?? j, strategies: strategies.sort(bySortOrder) };
        }).sort(bySortOrder),
        archivedAt: t.archivedAt ?? null,
      };
      // The built-in template's record lists its fields in another order than the API's: an
      // identical template must not count as changed because of it.
      const prev = d.releaseTemplates.get(t.id);
      if (prev && canonical(prev) === canonical(next)) return;
      if (admit(d.releaseTemplates, t.id, next)) d.releaseTemplates.set(t.id, next);
    });
  }

  if (doc.releasePlans) {
    if (opts.drop) d.releasePlans.clear();
    const unique = uniqueKeys();
    const ids = uniqueKeys();
    await run.slicer.each(doc.releasePlans, (p, i) => {
      const at = `releasePlans[${i}]`;
      const key = featureEnvKey(p.featureName, p.environment);
      unique(key, at);
      ids(p.id, `${at}.id`);
      const items = p.milestones ?? [];
      uniqueIds(items, (j) => `${at}.milestones[${j}]`);
      const known = new Set(items.map((m) => m.id));
      if (p.activeMilestoneId && !known.has(p.activeMilestoneId)) throw refError(`${at}.activeMilestoneId`, `milestone "${p.activeMilestoneId}" is not one of the plan's`);
      const milestones = items.map((m, j): PlanMilestone => {
        const mAt = `${at}.milestones[${j}]`;
        const target = m.progressionTarget ?? null;
        const condition = m.transitionCondition ?? null;
        if ((target === null) !== (condition === null)) throw refError(`${mAt}.progressionTarget`, 'a progression needs both its target and its transitionCondition');
        if (target !== null && !known.has(target)) throw refError(`${mAt}.progressionTarget`, `milestone "${target}" is not one of the plan's`);
        uniqueIds(m.strategies ?? [], (k) => `${mAt}.strategies[${k}]`);
        const strategies = (m.strategies ?? []).map((s, k): Strategy => {
          const ms = milestoneStrategyOf(s, k, `${mAt}.strategies[${k}]`);
          return {
            id: ms.id, featureName: p.featureName, projectId: d.features.get(p.featureName)?.project ?? 'default', environment: p.environment, name: ms.strategyName,
            title: ms.title, disabled: s.disabled ?? false, sortOrder: ms.sortOrder, constraints: ms.constraints, parameters: ms.parameters, variants: ms.variants,
            segments: ms.segments, createdAt: s.createdAt ?? env.now, seq: 0,
          };
        });
        checks.push(() => checkMilestoneStrategies(d, strategies, (k) => `${mAt}.strategies[${k}]`));
        return {
          id: m.id, name: m.name, sortOrder: m.sortOrder ?? j, strategies: strategies.sort(bySortOrder), startedAt: m.startedAt ?? null,
          transitionCondition: condition === null ? null : { intervalMinutes: condition.intervalMinutes }, progressionTarget: target,
          progressionExecutedAt: m.progressionExecutedAt ?? null, pausedAt: m.pausedAt ?? null,
        };
      }).sort(bySortOrder);
      const next: ReleasePlan = {
        id: p.id, name: p.name ?? p.id, description: p.description ?? null, createdByUserId: p.createdByUserId ?? null, createdAt: p.createdAt ?? env.now,
        featureName: p.featureName, environment: p.environment, releasePlanTemplateId: p.releasePlanTemplateId ?? '', activeMilestoneId: p.activeMilestoneId ?? null, milestones,
      };
      checks.push(() => {
        if (!d.features.has(p.featureName)) throw refError(`${at}.featureName`, `flag "${p.featureName}" does not exist`);
        if (!d.environments.has(p.environment)) throw refError(`${at}.environment`, `environment "${p.environment}" does not exist`);
      });
      if (admit(d.releasePlans, key, next)) d.releasePlans.set(key, next);
    });
  }

  if (doc.safeguards) {
    if (opts.drop) d.safeguards.clear();
    const unique = uniqueKeys();
    await run.slicer.each(doc.safeguards, (g, i) => {
      const at = `safeguards[${i}]`;
      unique(g.id, at);
      let action: SafeguardAction;
      if (g.action.type === 'pauseReleasePlanProgressions') {
        if (!g.action.id) throw refError(`${at}.action.id`, 'a safeguard on a release plan names the plan');
        action = { type: 'pauseReleasePlanProgressions', id: g.action.id };
      } else {
        if ((g.action.featureName ?? g.featureName) !== g.featureName || (g.action.environment ?? g.environment) !== g.environment) {
          throw refError(`${at}.action`, "a safeguard switches off its own flag's environment");
        }
        action = { type: 'disableFeatureEnvironment', project: d.features.get(g.featureName)?.project ?? 'default', featureName: g.featureName, environment: g.environment };
      }
      for (const [label, values] of Object.entries(g.impactMetric.labelSelectors ?? {})) {
        if (values.length === 0) throw refError(`${at}.impactMetric.labelSelectors.${label}`, 'a label selector needs at least one value');
      }
      const next: Safeguard = {
        id: g.id, featureName: g.featureName, environment: g.environment, action,
        impactMetric: {
          id: g.impactMetric.id ?? env.newId(), metricName: g.impactMetric.metricName, timeRange: g.impactMetric.timeRange,
          aggregationMode: g.impactMetric.aggregationMode, labelSelectors: g.impactMetric.labelSelectors ?? {},
        },
        triggerCondition: { operator: g.triggerCondition.operator, threshold: g.triggerCondition.threshold },
        createdAt: g.createdAt ?? env.now, triggeredAt: g.triggeredAt ?? null,
      };
      checks.push(() => {
        if (!d.features.has(g.featureName)) throw refError(`${at}.featureName`, `flag "${g.featureName}" does not exist`);
        if (!d.environments.has(g.environment)) throw refError(`${at}.environment`, `environment "${g.environment}" does not exist`);
        if (action.type === 'pauseReleasePlanProgressions' && d.releasePlans.get(featureEnvKey(g.featureName, g.environment))?.id !== action.id) {
          throw refError(`${at}.action.id`, `release plan "${action.id}" is not the plan of flag "${g.featureName}" in environment "${g.environment}"`);
        }
      });
      if (admit(d.safeguards, g.id, next)) d.safeguards.set(g.id, next);
    });
  }

  if (doc.impactMetricsConfigs) {
    if (opts.drop) d.impactCharts.clear();
    const unique = uniqueKeys();
    await run.slicer.each(doc.impactMetricsConfigs, (c, i) => {
      unique(c.id, `impactMetricsConfigs[${i}]`);
      const next: ImpactChart = {
        id: c.id, ...(c.title !== undefined ? { title: c.title } : {}), metricName: c.metricName, timeRange: c.timeRange, yAxisMin: c.yAxisMin,
        aggregationMode: c.aggregationMode, labelSelectors: c.labelSelectors ?? {}, feature: c.feature ?? null, createdAt: c.createdAt ?? run.env.now,
      };
      if (admit(d.impactCharts, c.id, next)) d.impactCharts.set(c.id, next);
    });
  }
}

/**
 * What a drop or a moved flag leaves behind for releases: a plan or safeguard whose flag or
 * environment is gone goes with it (as the API's removals cascade), and so does a safeguard whose
 * plan is gone or replaced; plans follow their flag's project. A milestone strategy whose type or
 * segment would no longer exist cannot be repaired (dropping the segment would serve it to more
 * people): refused. And the bounds the API keeps hold for the result.
 */
async function settleReleases(d: Draft, slicer: Slicer): Promise<void> {
  const refuseDangling = (what: string, strategies: { strategyName?: string; name?: string; segments: number[] }[]) => {
    for (const s of strategies) {
      const type = (s.strategyName ?? s.name)!;
      if (!d.strategyTypes.has(type)) throw refError('strategies', `${what} uses strategy type "${type}", which would no longer exist`);
      for (const id of s.segments) if (!d.segments.has(id)) throw refError('segments', `${what} uses segment ${id}, which would no longer exist`);
    }
  };
  const live = new Map<string, string>();
  for (const t of d.releaseTemplates.values()) {
    for (const m of t.milestones) refuseDangling(`release plan template "${t.name}"`, m.strategies);
    if (t.archivedAt !== null) continue;
    if (live.has(t.name)) {
      throw refError('releasePlanTemplates', `two release plan templates would be named "${t.name}" (${live.get(t.name)} and ${t.id}); import with ?drop=true to replace the templates here`);
    }
    live.set(t.name, t.id);
  }
  if (d.releaseTemplates.map.size > MAX_TEMPLATES) throw refError('releasePlanTemplates', `at most ${MAX_TEMPLATES} release plan templates are kept`);
  await slicer.between();
  const planIds = new Map<string, string>();
  for (const [key, plan] of d.releasePlans.map) {
    const feature = d.features.get(plan.featureName);
    if (!feature || !d.environments.has(plan.environment)) {
      d.releasePlans.delete(key);
      continue;
    }
    for (const m of plan.milestones) refuseDangling(`the release plan of flag "${plan.featureName}" in environment "${plan.environment}"`, m.strategies);
    const other = planIds.get(plan.id);
    if (other) throw refError('releasePlans', `two release plans would have the id "${plan.id}" (${other} and ${plan.featureName}/${plan.environment})`);
    planIds.set(plan.id, `${plan.featureName}/${plan.environment}`);
    if (!d.featureEnvs.has(key)) d.featureEnvs.set(key, { environment: plan.environment, enabled: false, variants: [], lastSeenAt: null });
    if (plan.milestones.some((m) => m.strategies.some((s) => s.projectId !== feature.project))) {
      d.releasePlans.set(key, { ...plan, milestones: plan.milestones.map((m) => ({ ...m, strategies: m.strategies.map((s) => ({ ...s, projectId: feature.project })) })) });
    }
  }
  await slicer.between();
  const perTarget = new Map<string, number>();
  for (const sg of [...d.safeguards.values()]) {
    const key = featureEnvKey(sg.featureName, sg.environment);
    const feature = d.features.get(sg.featureName);
    const gone = !feature || !d.featureEnvs.has(key) || (sg.action.type === 'pauseReleasePlanProgressions' && d.releasePlans.get(key)?.id !== sg.action.id);
    if (gone) {
      d.safeguards.delete(sg.id);
      continue;
    }
    if (sg.action.type === 'disableFeatureEnvironment' && sg.action.project !== feature.project) d.safeguards.set(sg.id, { ...sg, action: { ...sg.action, project: feature.project } });
    const target = sg.action.type === 'pauseReleasePlanProgressions' ? `plan ${sg.action.id}` : `flag "${sg.featureName}" in environment "${sg.environment}"`;
    const n = (perTarget.get(target) ?? 0) + 1;
    if (n > MAX_SAFEGUARDS_PER_TARGET) throw refError('safeguards', `at most ${MAX_SAFEGUARDS_PER_TARGET} safeguards can watch one target; ${target} would have more`);
    perTarget.set(target, n);
  }
  if (d.impactCharts.map.size > MAX_CHARTS) throw refError('impactMetricsConfigs', `at most ${MAX_CHARTS} impact metrics charts are kept`);
}

/** Unleash exports say which strategies use which segments in a list of their own. */
async function linkStrategySegments({ d, doc, slicer }: ImportRun): Promise<void> {
  await slicer.each(doc.featureStrategySegments ?? [], (link, i) => {
    const strategy = d.strategies.get(link.featureStrategyId);
    if (!strategy) throw refError(`featureStrategySegments[${i}].featureStrategyId`, `strategy "${link.featureStrategyId}" does not exist`);
    if (!d.segments.has(link.segmentId)) throw refError(`featureStrategySegments[${i}].segmentId`, `segment ${link.segmentId} does not exist`);
    if (strategy.segments.includes(link.segmentId)) return;
    d.strategies.set(strategy.id, { ...strategy, segments: [...strategy.segments, link.segmentId].sort((a, b) => a - b) });
  });
}

/**
 * What a drop leaves behind in items the document did not mention: configurations and
 * strategies of dropped environments and tag uses of dropped tags go with them (as Unleash's
 * foreign keys cascade); a flag or segment left without its project, or a strategy without its
 * type, cannot be repaired, so the import is refused. Strategies get the flag configuration
 * they need.
 */
async function settleExisting(d: Draft, slicer: Slicer): Promise<void> {
  for (const [key, fe] of d.featureEnvs.map) {
    if (!d.environments.has(fe.environment) || !d.features.has(featureOfEnvKey(key))) d.featureEnvs.delete(key);
    if (slicer.due()) await slicer.pause();
  }
  for (const s of [...d.strategies.values()]) {
    if (!d.features.has(s.featureName) || !d.environments.has(s.environment)) {
      d.strategies.delete(s.id);
      continue;
    }
    if (!d.strategyTypes.has(s.name)) {
      throw refError('strategies', `strategy ${s.id} of flag "${s.featureName}" uses strategy type "${s.name}", which would no longer exist`);
    }
    // A flag moved to another project by the import takes its strategies along.
    const projectId = d.features.get(s.featureName)!.project;
    const segments = s.segments.filter((id) => d.segments.has(id));
    if (segments.length !== s.segments.length || projectId !== s.projectId) d.strategies.set(s.id, { ...s, projectId, segments });
    const key = featureEnvKey(s.featureName, s.environment);
    if (!d.featureEnvs.has(key)) d.featureEnvs.set(key, { environment: s.environment, enabled: false, variants: [], lastSeenAt: null });
    if (slicer.due()) await slicer.pause();
  }
  for (const [key, tag] of d.tags.map) if (!d.tagTypes.has(tag.type)) d.tags.delete(key);
  for (const [key, ft] of d.featureTags.map) {
    if (!d.tags.has(tagKey(ft.tag)) || !d.features.has(ft.feature)) d.featureTags.delete(key);
    if (slicer.due()) await slicer.pause();
  }
  for (const f of d.features.values()) {
    if (!d.projects.has(f.project)) throw refError('projects', `flag "${f.name}" belongs to project "${f.project}", which would no longer exist`);
  }
  for (const s of d.segments.values()) {
    if (s.project !== null && !d.projects.has(s.project)) {
      throw refError('projects', `segment ${s.id} belongs to project "${s.project}", which would no longer exist`);
    }
  }
}

/** Deletions first (only of keys gone from the draft), then puts in dependency order. */
async function diffOps(d: Draft, state: State, slicer: Slicer): Promise<Op[]> {
  const ops: Op[] = [];
  // Each pass below walks one kind of the draft (up to the whole state): a pause between passes.
  for (const id of d.safeguards.removed()) ops.push({ o: 'safeguard.del', id });
  for (const key of d.releasePlans.removed()) {
    const plan = d.releasePlans.base.get(key)!;
    ops.push({ o: 'releasePlan.del', feature: plan.featureName, environment: plan.environment });
  }
  for (const id of d.releaseTemplates.removed()) ops.push({ o: 'releaseTemplate.del', id });
  for (const id of d.impactCharts.removed()) ops.push({ o: 'impactChart.del', id });
  await slicer.between();
  for (const key of d.featureTags.removed()) {
    const { feature, tag } = d.featureTags.base.get(key)!;
    ops.push({ o: 'featureTag.del', feature, tag });
  }
  const moved = (s: Strategy) => {
    const before = state.strategies.get(s.id);
    return before !== undefined && (before.featureName !== s.featureName || before.environment !== s.environment);
  };
  for (const id of d.strategies.removed()) ops.push({ o: 'strategy.del', id });
  await slicer.between();
  for (const [id, s] of d.strategies.changed()) if (moved(s)) ops.push({ o: 'strategy.del', id });
  await slicer.between();
  for (const key of d.featureEnvs.removed()) ops.push({ o: 'featureEnv.del', feature: featureOfEnvKey(key), environment: d.featureEnvs.base.get(key)!.environment });
  await slicer.between();
  for (const key of d.tags.removed()) ops.push({ o: 'tag.del', tag: d.tags.base.get(key)! });
  await slicer.between();
  for (const name of d.tagTypes.removed()) ops.push({ o: 'tagType.del', name });
  await slicer.between();
  for (const id of d.segments.removed()) ops.push({ o: 'segment.del', id });
  await slicer.between();
  for (const name of d.strategyTypes.removed()) ops.push({ o: 'strategyType.del', name });
  await slicer.between();
  for (const name of d.features.removed()) ops.push({ o: 'feature.del', name });
  await slicer.between();
  for (const id of d.projects.removed()) ops.push({ o: 'project.del', id });
  await slicer.between();
  for (const name of d.environments.removed()) ops.push({ o: 'env.del', name });
  await slicer.between();

  for (const [, environment] of d.environments.changed()) ops.push({ o: 'env.put', environment });
  await slicer.between();
  for (const [, project] of d.projects.changed()) ops.push({ o: 'project.put', project });
  await slicer.between();
  for (const [, strategyType] of d.strategyTypes.changed()) ops.push({ o: 'strategyType.put', strategyType });
  await slicer.between();
  for (const [, tagType] of d.tagTypes.changed()) ops.push({ o: 'tagType.put', tagType });
  await slicer.between();
  for (const [, tag] of d.tags.changed()) ops.push({ o: 'tag.put', tag });
  await slicer.between();
  for (const [, segment] of d.segments.changed()) ops.push({ o: 'segment.put', segment });
  await slicer.between();
  for (const [, feature] of d.features.changed()) ops.push({ o: 'feature.put', feature });
  await slicer.between();
  for (const [key, env] of d.featureEnvs.changed()) ops.push({ o: 'featureEnv.put', feature: featureOfEnvKey(key), env });
  await slicer.between();
  for (const [, strategy] of d.strategies.changed()) ops.push({ o: 'strategy.put', strategy });
  await slicer.between();
  for (const [, { feature, tag }] of d.featureTags.changed()) ops.push({ o: 'featureTag.add', feature, tag });
  await slicer.between();
  for (const [, template] of d.releaseTemplates.changed()) ops.push({ o: 'releaseTemplate.put', template });
  for (const [, plan] of d.releasePlans.changed()) ops.push({ o: 'releasePlan.put', plan });
  for (const [, safeguard] of d.safeguards.changed()) ops.push({ o: 'safeguard.put', safeguard });
  for (const [, chart] of d.impactCharts.changed()) ops.push({ o: 'impactChart.put', chart });
  await slicer.between();
  return ops;
}
