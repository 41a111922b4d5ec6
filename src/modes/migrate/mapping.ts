// From what was read of an Unleash to what Fanion stores: pure, so every rule here is unit-tested
// without a network. The flags, segments, projects… become a state document (the shape the state
// import takes, so they meet the same checks as any import); context fields and API tokens, which
// that document has no place for, travel beside it. What cannot come over is listed, never
// silently dropped. Names from Unleash are shown quoted and escaped (printable.ts): they reach a
// terminal.
import { isBuiltinContextField, type ContextFieldImport } from '../../concepts/context-fields/logic.js';
import type { StateDocument, FeatureStrategyItem } from '../../concepts/state-io/schema.js';
import type { TokenType } from '../../core/state/types.js';
import { normalizeProjects, normalizeType, type TokenImport } from '../../concepts/tokens/logic.js';
import type { UApiToken, UFeature, UStrategy } from './unleash-answers.js';
import { printable, quoted } from './printable.js';
import type { UnleashSnapshot } from './reader.js';

/** An API token as Unleash gave it, secret included: it is hashed before anything is stored. */
export type MigratedToken = Omit<TokenImport, 'hash' | 'prefix'> & { secret: string };

export interface MigrationDocument {
  state: StateDocument;
  contextFields: ContextFieldImport[];
  tokens: MigratedToken[];
  /** What does not come over, one line each, for the end of the report. */
  left: string[];
}

export interface MappingOptions {
  /** Full v2 secrets the operator has (Unleash keeps only a verifier of those, so cannot hand them over). */
  v2Secrets?: string[];
}

/** `<projects>:<environment>.v2_<22-character selector>_<43-character secret>` (Unleash 8.1+). */
export const V2_TOKEN = /\.v2_([A-Za-z0-9_-]{22})_([A-Za-z0-9_-]{43})$/;

/**
 * The order Unleash serves a flag's strategies in (its `sortStrategies`): release-plan strategies
 * first, then `sortOrder`, then id. Fanion serves by sortOrder, then the order strategies arrive
 * in, so listing them in this order keeps every tie where Unleash puts it.
 */
export function unleashServedOrder(a: UStrategy, b: UStrategy): number {
  if (a.milestoneId && !b.milestoneId) return -1;
  if (!a.milestoneId && b.milestoneId) return 1;
  const bySort = typeof a.sortOrder === 'number' && typeof b.sortOrder === 'number' ? a.sortOrder - b.sortOrder : 0;
  if (bySort === 0 && a.id && b.id) return a.id.localeCompare(b.id);
  return bySort;
}

function strategiesOf(flag: UFeature, environment: string, list: UStrategy[]): FeatureStrategyItem[] {
  const sorted = [...list].sort(unleashServedOrder);
  // Release-plan strategies go first whatever their sortOrder: then only positions say it.
  const renumber = sorted.some((s, i) => i > 0 && (s.sortOrder ?? 0) < (sorted[i - 1].sortOrder ?? 0));
  return sorted.map((s, i) => {
    const parameters: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(s.parameters ?? {})) {
      if (v === null || v === undefined) continue;
      parameters[k] = typeof v === 'object' ? JSON.stringify(v) : (v as string | number | boolean);
    }
    return {
      ...(s.id ? { id: s.id } : {}),
      featureName: flag.name,
      environment,
      name: s.name,
      title: s.title ?? null,
      disabled: s.disabled ?? false,
      sortOrder: renumber ? i : (s.sortOrder ?? i),
      parameters,
      constraints: s.constraints ?? [],
      variants: s.variants ?? [],
      segments: [...new Set(s.segments ?? [])],
    };
  });
}

/** The state document: everything the state import knows how to store. */
function stateDocument(u: UnleashSnapshot): StateDocument {
  // Open-source Unleash has no release templates, plans or safeguards (Enterprise features; its
  // admin API answers 404 for their routes), and its impact metrics charts are Enterprise too.
  const doc: Required<Omit<StateDocument, 'featureStrategySegments' | 'releasePlanTemplates' | 'releasePlans' | 'safeguards' | 'impactMetricsConfigs'>> = {
    version: 1,
    projects: u.projects.map((p) => ({ id: p.id, name: p.name ?? p.id, description: p.description ?? null, ...(p.mode ? { mode: p.mode } : {}), createdAt: p.createdAt ?? null })),
    environments: u.environments.map((e, i) => ({ name: e.name, type: e.type ?? 'development', enabled: e.enabled ?? true, protected: e.protected ?? false, sortOrder: e.sortOrder ?? i })),
    features: [],
    featureEnvironments: [],
    featureStrategies: [],
    strategies: u.strategyTypes.map((s) => ({ ...s, editable: s.editable ?? true, deprecated: s.deprecated ?? false })),
    segments: u.segments,
    tagTypes: u.tagTypes.map((t) => ({ name: t.name, description: t.description ?? '', icon: t.icon ?? null })),
    tags: [],
    featureTags: [],
  };
  const tags = new Map<string, { type: string; value: string }>();
  for (const t of u.tags) tags.set(`${t.type}:${t.value}`, { type: t.type, value: t.value });
  for (const f of u.flags) {
    doc.features.push({
      name: f.name, project: f.project, type: f.type ?? 'release', description: f.description ?? null, stale: f.stale ?? false, impressionData: f.impressionData ?? false,
      archived: f.archived ?? false, archivedAt: f.archived ? (f.archivedAt ?? null) : null, createdAt: f.createdAt ?? null, lastSeenAt: f.lastSeenAt ?? null,
      dependencies: (f.dependencies ?? []).map((d) => ({ feature: d.feature, enabled: d.enabled ?? true, ...(d.enabled === false ? {} : { variants: d.variants ?? [] }) })),
    });
    for (const e of f.environments ?? []) {
      doc.featureEnvironments.push({ featureName: f.name, environment: e.name, enabled: e.enabled ?? false, variants: e.variants ?? [], lastSeenAt: e.lastSeenAt ?? null });
      doc.featureStrategies.push(...strategiesOf(f, e.name, e.strategies ?? []));
    }
    for (const t of u.flagTags.get(f.name) ?? []) {
      tags.set(`${t.type}:${t.value}`, { type: t.type, value: t.value });
      doc.featureTags.push({ featureName: f.name, tagType: t.type, tagValue: t.value });
    }
  }
  doc.tags = [...tags.values()];
  return doc;
}

function contextFields(u: UnleashSnapshot): ContextFieldImport[] {
  return u.contextFields
    .filter((c) => !isBuiltinContextField(c.name))
    .map((c) => ({
      name: c.name, description: c.description ?? '', legalValues: (c.legalValues ?? []).map((v) => ({ value: v.value, description: v.description ?? '' })),
      stickiness: c.stickiness ?? false, sortOrder: c.sortOrder ?? 0, createdAt: c.createdAt ?? null,
    }));
}

/** Tokens with a secret Fanion can hash; the others are listed as left behind. */
function tokens(u: UnleashSnapshot, opts: MappingOptions, left: string[]): MigratedToken[] {
  const v2BySelector = new Map<string, string>();
  for (const s of opts.v2Secrets ?? []) {
    const m = V2_TOKEN.exec(s);
    if (m) v2BySelector.set(m[1], s);
  }
  const out: MigratedToken[] = [];
  const noSecret: string[] = [];
  for (const t of u.tokens) {
    const name = t.tokenName ?? t.username ?? 'unnamed';
    let type: TokenType;
    try {
      type = normalizeType(t.type);
    } catch {
      left.push(`API token ${quoted(name)}: its type ${quoted(t.type)} is not one Fanion has (admin, client/backend, frontend)`);
      continue;
    }
    let secret = t.secret;
    if (t.secure) {
      // Unleash lists a v2 token by its selector only; its secret is in the SDKs' hands.
      const given = v2BySelector.get(t.secret);
      if (!given) {
        noSecret.push(name);
        continue;
      }
      secret = given;
    }
    const projects = normalizeProjects(projectsOf(t));
    const environment = t.environment ?? (type === 'admin' ? '*' : 'development');
    out.push({ secret, tokenName: name, type, environment, projects, expiresAt: t.expiresAt ?? null, createdAt: t.createdAt ?? null });
  }
  if (noSecret.length > 0) {
    left.push(
      `${noSecret.length} v2 API token(s) (${listed(noSecret)}): Unleash keeps only a verifier of their secrets, so it cannot hand them over; ` +
        'give their full secrets with --v2-secrets <file> (one per line), or put them in INIT_*_API_TOKENS',
    );
  }
  return out;
}

function projectsOf(t: UApiToken): string[] {
  if (t.projects && t.projects.length > 0) return t.projects;
  if (t.project) return t.project.split(',').map((p) => p.trim()).filter((p) => p.length > 0);
  return ['*'];
}

function listed(names: string[], max = 5): string {
  const shown = names.slice(0, max).map(quoted).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}

export function migrationDocument(u: UnleashSnapshot, opts: MappingOptions = {}): MigrationDocument {
  const left: string[] = [];
  const doc: MigrationDocument = { state: stateDocument(u), contextFields: contextFields(u), tokens: tokens(u, opts, left), left };
  if (u.vanished.length > 0) left.push(`${u.vanished.length} flag(s) deleted in Unleash while it was being read (${listed(u.vanished)})`);
  if (!u.archivedListed) left.push('archived flags: this Unleash cannot list them (no feature search)');
  if (u.users !== null && u.users > 0) left.push(`${u.users} user account(s), with their passwords, roles and personal access tokens: Fanion has API tokens only`);
  if (u.addons !== null && u.addons.length > 0) {
    left.push(`${u.addons.length} addon(s) (${[...new Set(u.addons)].map(printable).join(', ')}): Unleash does not hand over their secrets; recreate webhooks with POST /api/admin/addons`);
  }
  left.push(
    "always: change requests, release plans, segments' and projects' access settings, Unleash's event history, client applications and " +
      'metrics, and anything else only Unleash Enterprise has',
  );
  return doc;
}

/**
 * Which Unleash item a path into the migration document is about (`featureStrategies[12].…` →
 * `flag "checkout", environment "production", strategy 01J…`), for refusals people can act on.
 */
export function whereIs(doc: MigrationDocument, path: string): string | null {
  const m = /^(\w+)\[(\d+)\]/.exec(path);
  if (!m) return null;
  const i = Number(m[2]);
  const s = doc.state;
  switch (m[1]) {
    case 'features':
      return s.features?.[i] ? `flag ${quoted(s.features[i].name)}` : null;
    case 'featureEnvironments': {
      const e = s.featureEnvironments?.[i];
      return e ? `flag ${quoted(e.featureName)}, environment ${quoted(e.environment)}` : null;
    }
    case 'featureStrategies': {
      const e = s.featureStrategies?.[i];
      return e ? `flag ${quoted(e.featureName)}, environment ${quoted(e.environment)}, strategy ${e.id ? printable(e.id) : `#${i}`}` : null;
    }
    case 'segments':
      return s.segments?.[i] ? `segment ${s.segments[i].id} ${quoted(s.segments[i].name)}` : null;
    case 'projects':
      return s.projects?.[i] ? `project ${quoted(s.projects[i].id)}` : null;
    case 'environments':
      return s.environments?.[i] ? `environment ${quoted(s.environments[i].name)}` : null;
    case 'strategies':
      return s.strategies?.[i] ? `strategy type ${quoted(s.strategies[i].name)}` : null;
    case 'tagTypes':
      return s.tagTypes?.[i] ? `tag type ${quoted(s.tagTypes[i].name)}` : null;
    case 'tags':
      return s.tags?.[i] ? `tag ${quoted(`${s.tags[i].type}:${s.tags[i].value}`)}` : null;
    case 'featureTags': {
      const t = s.featureTags?.[i];
      return t ? `flag ${quoted(t.featureName)}, tag ${quoted(`${t.tagType}:${t.tagValue}`)}` : null;
    }
    case 'contextFields':
      return doc.contextFields[i] ? `context field ${quoted(doc.contextFields[i].name)}` : null;
    case 'tokens':
      return doc.tokens[i] ? `API token ${quoted(doc.tokens[i].tokenName)}` : null;
    default:
      return null;
  }
}
