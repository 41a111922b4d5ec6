// The features-batch import: flags of one document brought into one project and environment, as
// one atomic change. `reviewImport` is what /validate answers (errors, warnings, permissions) and
// what the import checks first; only a document without errors is turned into ops. What comes
// in is data (docs/decisions/0008-two-doors.md): constraints, parameters and variants are stored as given.
import type { Change, CommandEnv, EventDraft, SlicedCommand } from '../../core/engine/command.js';
import type { Slicer } from '../../core/slices.js';
import { importedConstraint, type ConstraintInput } from '../constraints/constraints.js';
import { allContextFields, contextFieldView, MAX_CONTEXT_FIELDS } from '../context-fields/logic.js';
import { NoAccessError, NotFoundError, ValidationError } from '../../core/errors.js';
import { featureMetadata, inProject, requireEnvironment, requireProject } from '../../core/state/lookup.js';
import { checkName } from '../../core/state/names.js';
import type { Op } from '../../core/state/ops.js';
import { strategiesOf, tagKey, type State } from '../../core/state/state.js';
import type { ContextField, Dependency, Feature, FeatureEnv, Strategy, Tag, TagType } from '../../core/state/types.js';
import { strategyView } from '../strategies/logic.js';
import { importedVariants } from '../variants/weights.js';
import { flagOnIn } from '../../core/access/reach.js';
import type { BatchDocument, BatchStrategy, ImportRequest } from './schema.js';

/** One finding of the review, in Unleash's shape: what is wrong, and the items it concerns. */
export interface Problem {
  message: string;
  affectedItems: string[];
}

/** What POST /api/admin/features-batch/validate answers. */
export interface ImportReview {
  errors: Problem[];
  warnings: Problem[];
  permissions: Problem[];
}

/** What the review resolved, for the import to turn into ops. */
interface Plan {
  /** Flags to import, in document order (archived ones and those of other projects left out). */
  flags: string[];
  /** Segment ids of the document → ids of the same-named segments here. */
  segmentIds: Map<number, number>;
  newContextFields: ContextField[];
  newTagTypes: TagType[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

type DocumentDependencies = NonNullable<BatchDocument['dependencies']>[number]['dependencies'];

/** A flag's dependencies as the document gives them (none when it lists none for the flag). */
function dependenciesOf(listed: DocumentDependencies | undefined): Dependency[] {
  return (listed ?? []).map((d) => ({ feature: d.feature, enabled: d.enabled ?? true, variants: d.enabled === false ? [] : [...(d.variants ?? [])] }));
}

/**
 * The environments an import reaches besides its own: a document with `dependencies` replaces
 * those of each existing flag it imports, and that changes how the flag evaluates wherever it is
 * on (auth/reach.ts). Flags the import leaves out (archived, of another project) do not count.
 */
export function dependencyReach(state: State, req: ImportRequest): string[] {
  const listed = req.data.dependencies;
  if (!listed) return [];
  const byFlag = new Map<string, DocumentDependencies>();
  for (const d of listed) byFlag.set(d.feature, d.dependencies);
  const out = new Set<string>();
  for (const { name } of req.data.features) {
    const before = state.features.get(name);
    if (!before || before.archived || before.project !== req.project || same(dependenciesOf(byFlag.get(name)), before.dependencies)) continue;
    for (const e of flagOnIn(state, name)) out.add(e);
  }
  return [...out].sort();
}
const quoted = (items: Iterable<string>) => [...items].map((i) => JSON.stringify(i));

/** Collects findings of one kind; only kinds with items become problems. */
class Findings {
  private readonly found: Problem[] = [];
  add(message: string, items: Iterable<string>): void {
    const affectedItems = [...new Set(items)];
    if (affectedItems.length > 0) this.found.push({ message, affectedItems });
  }
  get list(): Problem[] {
    return this.found;
  }
}

/**
 * Checks an import against the state without changing anything. 404 when the project or the
 * environment does not exist (nothing else can be said then); every other finding is listed.
 * `mayCreateShared` says whether the caller may create what belongs to no project (context
 * fields, tag types): a token limited to projects or an environment may not.
 */
export async function reviewImport(state: State, req: ImportRequest, mayCreateShared: boolean, slicer: Slicer): Promise<{ review: ImportReview; plan: Plan }> {
  requireProject(state, req.project);
  requireEnvironment(state, req.environment);
  // An environment taken out of the project has no flags of it to import into (as for every flag door).
  if (!inProject(state, req.project, req.environment)) throw new NotFoundError(`Environment "${req.environment}" is not an environment of project "${req.project}".`);
  const doc = req.data;
  const errors = new Findings();
  const warnings = new Findings();
  const permissions = new Findings();

  // The flags.
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const f of doc.features) {
    if (seen.has(f.name)) duplicates.push(f.name);
    else seen.add(f.name);
    if (slicer.due()) await slicer.pause();
  }
  errors.add('These flags appear more than once in data.features; keep one of each', duplicates);
  const elsewhere: string[] = [];
  const archived: string[] = [];
  const existing: string[] = [];
  const flags: string[] = [];
  for (const name of seen) {
    const here = state.features.get(name);
    if (here && here.project !== req.project) elsewhere.push(`${name} (in project ${here.project})`);
    else if (here?.archived) archived.push(name);
    else {
      if (here) existing.push(name);
      flags.push(name);
    }
    if (slicer.due()) await slicer.pause();
  }
  errors.add(`These flags exist in other projects; move them to "${req.project}" or leave them out of the document`, elsewhere);
  warnings.add('These flags are archived here and will not be imported; revive them first to import them', archived);
  warnings.add(`These flags exist in project "${req.project}" and will be updated; their strategies in "${req.environment}" will be replaced`, existing);

  // Every item must belong to a flag of the document.
  const strangers: string[] = [];
  const outside = (path: string, flag: string) => {
    if (!seen.has(flag)) strangers.push(`${path} (flag ${JSON.stringify(flag)})`);
  };
  // Each pass over a list of tens of thousands takes milliseconds: a pause between them is enough.
  (doc.featureStrategies ?? []).forEach((s, i) => outside(`featureStrategies[${i}]`, s.featureName));
  await slicer.pause();
  (doc.featureEnvironments ?? []).forEach((fe, i) => outside(`featureEnvironments[${i}]`, (fe.featureName ?? fe.name)!));
  await slicer.pause();
  (doc.featureTags ?? []).forEach((t, i) => outside(`featureTags[${i}]`, t.featureName));
  (doc.dependencies ?? []).forEach((d, i) => outside(`dependencies[${i}]`, d.feature));
  await slicer.pause();
  errors.add('These items name flags that are not in data.features', strangers);

  // Strategies: their types must exist here (Unleash asks for custom ones to be created first).
  const strategies = doc.featureStrategies ?? [];
  await slicer.pause();
  const unknownTypes = strategies.filter((s) => !state.strategyTypes.has(s.name)).map((s) => s.name);
  const known = [...state.strategyTypes.keys()].join(', ');
  errors.add(`These strategy types do not exist here; create them first (POST /api/admin/strategies). The known ones are ${known}`, unknownTypes);
  warnings.add('These custom strategy types are used; the SDKs that evaluate these flags must implement them', strategies.filter((s) => state.strategyTypes.get(s.name)?.editable).map((s) => s.name));
  await slicer.pause();
  const ids = new Set<string>();
  const repeatedIds: string[] = [];
  for (const s of strategies) {
    if (s.id === undefined) continue;
    if (ids.has(s.id)) repeatedIds.push(s.id);
    else ids.add(s.id);
  }
  errors.add('These strategy ids appear more than once in data.featureStrategies', repeatedIds);
  errors.add(
    'Strategy variants cannot have overrides (only a flag\'s environment variants can); remove them from these strategies',
    strategies.flatMap((s, i) => ((s.variants ?? []) as { overrides?: unknown[] }[]).some((v) => v.overrides && v.overrides.length > 0) ? [`featureStrategies[${i}]`] : []),
  );

  await slicer.pause();
  // Segments travel by id and name; here they are found by name (shared, or of the project).
  const segmentNames = new Map<number, string>();
  for (const s of doc.segments ?? []) if (!segmentNames.has(s.id)) segmentNames.set(s.id, s.name.trim());
  const byName = new Map<string, number>();
  for (const s of state.segments.values()) if (s.project === null || s.project === req.project) byName.set(s.name, s.id);
  const segmentIds = new Map<number, number>();
  const unlisted: string[] = [];
  const missingSegments: string[] = [];
  strategies.forEach((s, i) => {
    for (const id of s.segments ?? []) {
      const name = segmentNames.get(id);
      if (name === undefined) unlisted.push(`featureStrategies[${i}].segments: ${id}`);
      else if (byName.has(name)) segmentIds.set(id, byName.get(name)!);
      else missingSegments.push(name);
    }
  });
  errors.add('These strategies use segment ids that data.segments does not list', unlisted);
  errors.add(`These segments do not exist here (shared or in project "${req.project}"); create them first (POST /api/admin/segments)`, missingSegments);

  await slicer.pause();
  // Context fields: new ones are created; existing ones must already allow the imported legal values.
  const fields = new Map(allContextFields(state).map((f) => [f.name, f]));
  const newContextFields: ContextField[] = [];
  const narrower: string[] = [];
  const badFieldNames: string[] = [];
  for (const c of doc.contextFields ?? []) {
    const here = fields.get(c.name);
    if (here) {
      const allowed = new Set(here.legalValues.map((v) => v.value));
      if ((c.legalValues ?? []).some((v) => !allowed.has(v.value))) narrower.push(c.name);
      continue;
    }
    if (newContextFields.some((f) => f.name === c.name)) continue;
    try {
      checkName('name', c.name);
    } catch {
      badFieldNames.push(c.name);
      continue;
    }
    const legal = new Map<string, { value: string; description: string }>();
    for (const v of c.legalValues ?? []) if (!legal.has(v.value)) legal.set(v.value, { value: v.value, description: v.description ?? '' });
    newContextFields.push({
      name: c.name, description: c.description ?? '', legalValues: [...legal.values()], stickiness: c.stickiness ?? false, sortOrder: c.sortOrder ?? 10, createdAt: '',
    });
  }
  errors.add('These context fields exist here with legal values that do not include all the imported ones; add the values here first', narrower);
  errors.add('These context field names are not URL-friendly (letters, digits and - _ . ! ~ * \' ( ))', badFieldNames);
  if (state.contextFields.size + newContextFields.length > MAX_CONTEXT_FIELDS) {
    errors.add(`At most ${MAX_CONTEXT_FIELDS} custom context fields can exist; these would go past it`, newContextFields.map((f) => f.name));
  }

  // Tag types: those the imported tags use must exist here or come with the document.
  const docTagTypes = new Map((doc.tagTypes ?? []).map((t) => [t.name, t]));
  const newTagTypes: TagType[] = [];
  const unknownTagTypes: string[] = [];
  await slicer.pause();
  for (const t of doc.featureTags ?? []) {
    if (state.tagTypes.has(t.tagType) || newTagTypes.some((n) => n.name === t.tagType)) continue;
    const given = docTagTypes.get(t.tagType);
    if (given) newTagTypes.push({ name: given.name, description: given.description ?? '', icon: given.icon ?? null });
    else unknownTagTypes.push(t.tagType);
  }
  errors.add('These tag types are used by data.featureTags but neither exist here nor are in data.tagTypes', unknownTagTypes);

  if (!mayCreateShared) {
    permissions.add('Creating context fields needs an admin token without project or environment limits', newContextFields.map((f) => f.name));
    permissions.add('Creating tag types needs an admin token without project or environment limits', newTagTypes.map((t) => t.name));
  }
  warnings.add('Fanion does not keep flag links; the links of these flags are not imported', (doc.links ?? []).filter((l) => (l.links ?? []).length > 0).map((l) => l.feature));

  return {
    review: { errors: errors.list, warnings: warnings.list, permissions: permissions.list },
    plan: { flags, segmentIds, newContextFields, newTagTypes },
  };
}

const describe = (problems: Problem[]) => problems.map((p) => `${p.message}: ${quoted(p.affectedItems).join(', ')}`).join('; ');

/**
 * The import as one command: refused whole (400 with every error, or 403 for what the token may
 * not create) or applied whole, with the usual per-change events and `features-imported` last.
 * In the environment, each imported flag's strategies become the document's (ids kept where
 * they are free), and its on/off state and variants those of its featureEnvironments entry.
 */
export function importFeatures(req: ImportRequest, mayCreateShared: boolean): SlicedCommand<ImportReview> {
  return async (state: State, env: CommandEnv, slicer: Slicer): Promise<Change<ImportReview>> => {
    const { review, plan } = await reviewImport(state, req, mayCreateShared, slicer);
    if (review.errors.length > 0) {
      throw new ValidationError(`Import refused, nothing was changed. ${describe(review.errors)}.`, review.errors.map((p) => ({ message: `${p.message}: ${quoted(p.affectedItems).join(', ')}` })));
    }
    if (review.permissions.length > 0) throw new NoAccessError(`Import refused, nothing was changed. ${describe(review.permissions)}.`);
    const b = new ImportBuilder(state, env, req, plan);
    await b.index(slicer);
    b.shared();
    for (const name of plan.flags) {
      b.flag(name);
      if (slicer.due()) await slicer.pause();
    }
    b.events.push({ type: 'features-imported', project: req.project, environment: req.environment, data: { features: plan.flags } });
    return { ops: b.ops, events: b.events, result: review };
  };
}

/** Turns a reviewed plan into ops and events, flag by flag. */
class ImportBuilder {
  readonly ops: Op[] = [];
  readonly events: EventDraft[] = [];
  private readonly project: string;
  private readonly environment: string;
  private nextSeq: number;
  private readonly usedIds = new Set<string>();
  private readonly createdTags = new Set<string>();
  /** The document's items by flag name, so each flag's are found without a scan of the whole document. */
  private readonly byFlag: {
    feature: Map<string, BatchDocument['features'][number]>;
    strategies: Map<string, BatchStrategy[]>;
    env: Map<string, NonNullable<BatchDocument['featureEnvironments']>[number]>;
    tags: Map<string, Tag[]>;
    dependencies: Map<string, NonNullable<BatchDocument['dependencies']>[number]['dependencies']>;
  };

  constructor(private readonly state: State, private readonly env: CommandEnv, private readonly req: ImportRequest, private readonly plan: Plan) {
    this.project = req.project;
    this.environment = req.environment;
    this.nextSeq = state.nextStrategySeq;
    this.byFlag = { feature: new Map(), strategies: new Map(), env: new Map(), tags: new Map(), dependencies: new Map() };
  }

  /** Fills byFlag from the document, pausing between slices (it has tens of thousands of items). */
  async index(slicer: Slicer): Promise<void> {
    const doc = this.req.data;
    const { feature, strategies, env: envs, tags, dependencies } = this.byFlag;
    await slicer.each(doc.features, (f) => feature.set(f.name, f));
    await slicer.each(doc.featureStrategies ?? [], (st) => {
      const list = strategies.get(st.featureName);
      if (list) list.push(st);
      else strategies.set(st.featureName, [st]);
    });
    await slicer.each(doc.featureEnvironments ?? [], (fe) => {
      if (!envs.has((fe.featureName ?? fe.name)!)) envs.set((fe.featureName ?? fe.name)!, fe);
    });
    await slicer.each(doc.featureTags ?? [], (t) => {
      const tag = { type: t.tagType, value: t.tagValue };
      const list = tags.get(t.featureName);
      if (list) list.push(tag);
      else tags.set(t.featureName, [tag]);
    });
    await slicer.each(doc.dependencies ?? [], (d) => dependencies.set(d.feature, d.dependencies));
  }

  /** Context fields and tag types the document brings. */
  shared(): void {
    for (const f of this.plan.newContextFields) {
      const field = { ...f, createdAt: this.env.now };
      this.ops.push({ o: 'contextField.put', field });
      this.events.push({ type: 'context-field-created', data: contextFieldView(field) });
    }
    for (const tagType of this.plan.newTagTypes) {
      this.ops.push({ o: 'tagType.put', tagType });
      this.events.push({ type: 'tag-type-created', data: tagType });
    }
  }

  flag(name: string): void {
    const input = this.byFlag.feature.get(name)!;
    const before = this.state.features.get(name);
    const dependencies = this.req.data.dependencies ? dependenciesOf(this.byFlag.dependencies.get(name)) : (before?.dependencies ?? []);
    const feature: Feature = {
      name,
      project: this.project,
      type: input.type ?? before?.type ?? 'release',
      description: input.description !== undefined ? input.description : (before?.description ?? null),
      impressionData: input.impressionData ?? before?.impressionData ?? false,
      stale: input.stale ?? before?.stale ?? false,
      archived: false,
      archivedAt: null,
      createdAt: before?.createdAt ?? this.env.now,
      lastSeenAt: before?.lastSeenAt ?? null,
      dependencies,
    };
    const where = { project: this.project, featureName: name };
    if (!before) {
      this.ops.push({ o: 'feature.put', feature });
      this.events.push({ type: 'feature-created', ...where, data: featureMetadata(feature) });
      // Connected to every environment, off, as a flag created through the API.
      for (const e of this.state.environments.values()) {
        if (e.name !== this.environment) this.ops.push({ o: 'featureEnv.put', feature: name, env: { environment: e.name, enabled: false, variants: [], lastSeenAt: null } });
      }
    } else if (!same(feature, before)) {
      this.ops.push({ o: 'feature.put', feature });
      if (!same(featureMetadata(feature), featureMetadata(before))) {
        this.events.push({ type: 'feature-metadata-updated', ...where, data: featureMetadata(feature), preData: featureMetadata(before) });
      }
      if (feature.stale !== before.stale) this.events.push({ type: feature.stale ? 'feature-stale-on' : 'feature-stale-off', ...where, data: { stale: feature.stale } });
    }
    this.dependencyEvents(name, before?.dependencies ?? [], dependencies);
    this.tags(name);
    const fe = this.state.featureEnvs.get(name)?.get(this.environment);
    this.strategies(name);
    this.featureEnv(name, fe);
  }

  private dependencyEvents(name: string, before: Dependency[], after: Dependency[]): void {
    const where = { project: this.project, featureName: name };
    if (same(before, after)) return;
    if (after.length === 0) {
      this.events.push({ type: 'feature-dependencies-removed', ...where });
      return;
    }
    for (const d of before) if (!after.some((a) => a.feature === d.feature)) this.events.push({ type: 'feature-dependency-removed', ...where, data: { feature: d.feature } });
    for (const d of after) if (!before.some((b) => same(b, d))) this.events.push({ type: 'feature-dependency-added', ...where, data: d });
  }

  /** The flag's tags become the document's. */
  private tags(name: string): void {
    const where = { project: this.project, featureName: name };
    const want = new Map<string, Tag>();
    for (const tag of this.byFlag.tags.get(name) ?? []) want.set(tagKey(tag), tag);
    const current = this.state.featureTags.get(name) ?? [];
    const carried = new Set(current.map(tagKey));
    for (const [key, tag] of want) {
      if (carried.has(key)) continue;
      if (!this.state.tags.has(key) && !this.createdTags.has(key)) {
        this.createdTags.add(key);
        this.ops.push({ o: 'tag.put', tag });
        this.events.push({ type: 'tag-created', data: tag });
      }
      this.ops.push({ o: 'featureTag.add', feature: name, tag });
      this.events.push({ type: 'feature-tagged', ...where, data: tag });
    }
    for (const tag of current) {
      if (want.has(tagKey(tag))) continue;
      this.ops.push({ o: 'featureTag.del', feature: name, tag });
      this.events.push({ type: 'feature-untagged', ...where, preData: tag });
    }
  }

  /**
   * The document's id when it is free here or already names this flag's strategy in this
   * environment (then that strategy is updated); otherwise a new one, so that importing an export
   * of `development` into `production` of the same server does not collide.
   */
  private idFor(given: string | undefined, name: string): { id: string; prev: Strategy | undefined } {
    if (given !== undefined && !this.usedIds.has(given)) {
      const owner = this.state.strategies.get(given);
      if (!owner || (owner.featureName === name && owner.environment === this.environment)) {
        this.usedIds.add(given);
        return { id: given, prev: owner };
      }
    }
    const id = this.env.newId();
    this.usedIds.add(id);
    return { id, prev: undefined };
  }

  /** The flag's strategies in the environment become the document's, in the document's order. */
  private strategies(name: string): void {
    const where = { project: this.project, featureName: name, environment: this.environment };
    const next: Strategy[] = [];
    const given = this.byFlag.strategies.get(name) ?? [];
    given.forEach((s, k) => next.push(this.strategy(name, s, k)));
    const kept = new Set(next.map((s) => s.id));
    for (const old of strategiesOf(this.state, name, this.environment)) {
      if (kept.has(old.id)) continue;
      this.ops.push({ o: 'strategy.del', id: old.id });
      this.events.push({ type: 'feature-strategy-remove', ...where, preData: strategyView(old) });
    }
    for (const s of next) {
      const prev = this.state.strategies.get(s.id);
      if (prev && same(strategyView(prev), strategyView(s))) continue;
      this.ops.push({ o: 'strategy.put', strategy: s });
      this.events.push(prev
        ? { type: 'feature-strategy-update', ...where, data: strategyView(s), preData: strategyView(prev) }
        : { type: 'feature-strategy-add', ...where, data: strategyView(s) });
    }
  }

  private strategy(name: string, s: BatchStrategy, position: number): Strategy {
    const { id, prev } = this.idFor(s.id, name);
    const parameters: Record<string, string> = {};
    for (const [k, v] of Object.entries(s.parameters ?? {})) parameters[k] = String(v);
    const segments = [...new Set((s.segments ?? []).map((docId) => this.plan.segmentIds.get(docId)!))].sort((a, b) => a - b);
    return {
      id,
      featureName: name,
      projectId: this.project,
      environment: this.environment,
      name: s.name,
      title: s.title ?? null,
      disabled: s.disabled ?? false,
      sortOrder: s.sortOrder ?? position,
      constraints: ((s.constraints ?? []) as ConstraintInput[]).map(importedConstraint),
      parameters,
      variants: importedVariants(s.variants),
      segments,
      createdAt: prev?.createdAt ?? this.env.now,
      seq: prev?.seq ?? this.nextSeq++,
    };
  }

  /** On/off and variants in the environment, from the flag's featureEnvironments entry when there is one. */
  private featureEnv(name: string, fe: FeatureEnv | undefined): void {
    const given = this.byFlag.env.get(name);
    const before: FeatureEnv = fe ?? { environment: this.environment, enabled: false, variants: [], lastSeenAt: null };
    const after: FeatureEnv = {
      ...before,
      enabled: given?.enabled ?? before.enabled,
      variants: given?.variants !== undefined ? importedVariants(given.variants) : before.variants,
    };
    if (fe && same(after, fe)) return;
    this.ops.push({ o: 'featureEnv.put', feature: name, env: after });
    const where = { project: this.project, featureName: name, environment: this.environment };
    if (!same(after.variants, before.variants)) {
      this.events.push({ type: 'feature-environment-variants-updated', ...where, data: { variants: after.variants }, preData: { variants: before.variants } });
    }
    if (after.enabled !== before.enabled) this.events.push({ type: after.enabled ? 'feature-environment-enabled' : 'feature-environment-disabled', ...where });
  }
}
