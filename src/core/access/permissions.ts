// The one permission check, for API tokens and people alike. Whoever calls (an admin API token, a
// person through a session cookie, a personal access token acting as its person) is reduced to a
// Grant; `refusal` says whether a grant allows a permission on a scope, and why not. Nothing else
// in Fanion decides who may do what: routes declare a permission and a scope (http/route.ts), the
// authenticators find the grant, and this module answers. GET /api/admin/user lists the same
// answers (`permissionsOf`) so the console can hide what would be refused.
//
// People's roles are Unleash's: Admin may do everything; Editor changes flags, strategies,
// variants, segments, tags, tag types, context fields, strategy types and projects in every project,
// but not tokens, people, environments, webhooks or state import/export; Viewer reads everything
// and changes nothing. A project role adds to the root role in one project: Owner and Member
// change that project's flags (an Owner also edits or deletes the project), Viewer adds nothing.
// A person limited to some environments (like an admin token limited to one) may make no change
// that takes effect outside them: what belongs to one environment (on/off, strategies,
// environment variants, a features import) only in those; what belongs to none (a segment, a
// dependency, archiving, a project's settings) only when every environment it reaches is theirs
// (the route's scope names them in `reaches`, from the state); a flag's metadata and tags reach
// no evaluation, so stay theirs in their projects; and nothing that acts on the whole server.
//
// Change requests (four eyes, concepts/change-requests) add three environment permissions. Unleash
// gives them to no built-in role but Admin and lets custom roles carry them; Fanion has only the
// built-in roles, so they are given by role: whoever may change a project's settings (an Owner in
// their project, an Editor in every project, an Admin) may approve and apply its requests
// (APPROVE_CHANGE_REQUEST, APPLY_CHANGE_REQUEST), within an environment limit like any change; a
// Member proposes changes but does not review them. Only an Admin skips the requirement
// (SKIP_CHANGE_REQUEST). An admin API token acts for the Admin who made it: it skips and applies
// within its limits, but never approves, since approving is a person's judgement and a token is no
// one (so ADMIN, which allows everything else, does not imply APPROVE_CHANGE_REQUEST).
import { NoAccessError } from '../errors.js';
import type { Actor, ProjectBinding, RootRole } from '../state/types.js';
import { describeLimits, type AdminCaller, type AdminScope, type AdminView } from './access.js';

/** Settings of the whole server, and going past change requests: an Admin's alone. */
const ADMIN_ONLY = new Set(['ADMIN', 'CREATE_ENVIRONMENT', 'UPDATE_ENVIRONMENT', 'DELETE_ENVIRONMENT', 'SKIP_CHANGE_REQUEST']);

/** Reviewing a change request: environment permissions, checked with the request's project and environment. */
export const APPROVE_CHANGE_REQUEST = 'APPROVE_CHANGE_REQUEST';
export const APPLY_CHANGE_REQUEST = 'APPLY_CHANGE_REQUEST';
/** Changing an environment directly where change requests are on (concepts/change-requests/enforcement.ts). */
export const SKIP_CHANGE_REQUEST = 'SKIP_CHANGE_REQUEST';

/** What an Owner or Member may do in their project. */
const PROJECT_MEMBER = new Set([
  'CREATE_FEATURE', 'UPDATE_FEATURE', 'DELETE_FEATURE', 'CREATE_FEATURE_STRATEGY', 'UPDATE_FEATURE_STRATEGY', 'DELETE_FEATURE_STRATEGY',
  'UPDATE_FEATURE_ENVIRONMENT', 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS', 'UPDATE_FEATURE_DEPENDENCY', 'CREATE_SEGMENT', 'UPDATE_SEGMENT', 'DELETE_SEGMENT',
]);

/** What an Owner may do in their project besides: its settings, and reviewing its change requests. */
const PROJECT_OWNER = new Set([...PROJECT_MEMBER, 'UPDATE_PROJECT', 'DELETE_PROJECT', 'APPROVE_CHANGE_REQUEST', 'APPLY_CHANGE_REQUEST']);

/** What an Editor may do that no project role gives (their project-level rights are an Owner's, everywhere). */
const EDITOR_GLOBAL = [
  'CREATE_PROJECT', 'CREATE_STRATEGY', 'UPDATE_STRATEGY', 'DELETE_STRATEGY', 'CREATE_CONTEXT_FIELD', 'UPDATE_CONTEXT_FIELD', 'DELETE_CONTEXT_FIELD',
  'CREATE_TAG_TYPE', 'UPDATE_TAG_TYPE', 'DELETE_TAG_TYPE', 'CREATE_RELEASE_TEMPLATE', 'UPDATE_RELEASE_TEMPLATE', 'DELETE_RELEASE_TEMPLATE',
];

/** Every permission a route may name, in the order GET /api/admin/user lists them. */
export const PERMISSIONS: readonly string[] = [...PROJECT_OWNER, ...EDITOR_GLOBAL, ...ADMIN_ONLY, 'READ'];

export const ROOT_ROLES: readonly { id: number; name: RootRole; type: 'root'; description: string }[] = [
  { id: 1, name: 'Admin', type: 'root', description: 'Does everything: flags in every project, API tokens, people, environments, webhooks, state import and export, and changes that skip change requests.' },
  { id: 2, name: 'Editor', type: 'root', description: 'Changes flags, strategies, variants, segments, tags, context fields, strategy types and projects in every project, and approves and applies change requests; not API tokens, people, environments, webhooks or state import and export.' },
  { id: 3, name: 'Viewer', type: 'root', description: 'Reads everything and changes nothing, except in projects where a project role says more.' },
];

export const PROJECT_ROLES: readonly { name: ProjectBinding['role']; description: string }[] = [
  { name: 'Owner', description: "Changes the project's flags, edits or deletes the project, and approves and applies its change requests." },
  { name: 'Member', description: "Changes the project's flags, their strategies, variants and segments." },
  { name: 'Viewer', description: 'Reads the project (as every person may).' },
];

/** What a caller may do, whoever it is. */
export type Grant =
  /** AUTH_TYPE=none: everything. */
  | { kind: 'everything' }
  /** An admin API token, with its stored limits (`['*']` and `'*'` for none). */
  | { kind: 'token'; projects: readonly string[]; environment: string }
  /** A person (through a session or a personal access token). */
  | { kind: 'person'; role: RootRole; projects: readonly ProjectBinding[]; environments: readonly string[] | null };

export const EVERYTHING: Grant = Object.freeze({ kind: 'everything' });

/** One permission as GET /api/admin/user lists it: no `project` means every project, no `environment` every environment. */
export interface PermissionEntry {
  permission: string;
  project?: string;
  environment?: string;
}

/**
 * Why `grant` may not use `permission` on `scope`, as the end of a refusal's message, or null when
 * it may. A scope without a project is the whole server (tokens, environments, the project list…).
 */
export function refusal(grant: Grant, permission: string, scope: AdminScope): string | null {
  if (grant.kind === 'everything' || scope.visibleOnly) return null;
  if (grant.kind === 'token') return permission === APPROVE_CHANGE_REQUEST ? 'an API token cannot approve: approving is a person\'s judgement' : tokenRefusal(grant, scope);
  if (permission === 'READ' || grant.role === 'Admin') return null;
  if (ADMIN_ONLY.has(permission)) return `only an Admin may, and your root role is ${grant.role}`;
  if (scope.inSomeProject) {
    // The project is checked once the body names it; here, whether any project (or all) is theirs.
    if (grant.role === 'Editor' || grant.projects.some((b) => projectSet(b.role)?.has(permission) === true)) return null;
    return `your root role is ${grant.role} and no project role of yours gives it`;
  }
  const binding = scope.project === undefined ? undefined : grant.projects.find((b) => b.project === scope.project);
  const byRoot = grant.role === 'Editor';
  const byProject = binding !== undefined && projectSet(binding.role)?.has(permission) === true;
  if (!byRoot && !byProject) {
    if (binding) return `you are a ${binding.role} of project=${binding.project}, and your root role is ${grant.role}`;
    if (scope.project !== undefined && PROJECT_OWNER.has(permission)) return `your root role is ${grant.role} and you have no role in project=${scope.project}`;
    return `your root role is ${grant.role}`;
  }
  if (grant.environments !== null) {
    const only = `you may change only environment${grant.environments.length === 1 ? '' : 's'} ${grant.environments.join(', ') || '(none)'}`;
    // As for an admin token limited to an environment: what names no project acts on the whole
    // server (a shared segment, a tag type, a new project…), so in every environment.
    if (scope.project === undefined) return `${only}, and this acts on the whole server`;
    if (grant.environments.length === 0 || (scope.environment !== undefined && !grant.environments.includes(scope.environment))) return only;
    const outside = outsideOf(scope.reaches, (e) => grant.environments!.includes(e));
    if (outside) return `${only}, and this change takes effect in ${outside}`;
  }
  return null;
}

function projectSet(role: ProjectBinding['role']): ReadonlySet<string> | null {
  return role === 'Owner' ? PROJECT_OWNER : role === 'Member' ? PROJECT_MEMBER : null;
}

/** The environments of `reaches` a limit does not hold, as a message names them; null when none. */
function outsideOf(reaches: readonly string[] | undefined, holds: (environment: string) => boolean): string | null {
  const outside = (reaches ?? []).filter((e) => !holds(e));
  return outside.length === 0 ? null : outside.join(', ');
}

/** An admin token's limits: a scope without a project needs an unlimited token. */
function tokenRefusal(grant: { projects: readonly string[]; environment: string }, scope: AdminScope): string | null {
  const allProjects = grant.projects.includes('*');
  const allEnvs = grant.environment === '*';
  const limited = () => `this token is limited to ${describeLimits(grant)}`;
  // Any admin token may name one of its projects in the body, where it is checked.
  if (scope.inSomeProject) return null;
  if (!scope.project) return allProjects && allEnvs ? null : limited();
  if (!allProjects && !grant.projects.includes(scope.project)) return limited();
  if (allEnvs) return null;
  if (scope.environment && grant.environment !== scope.environment) return limited();
  const outside = outsideOf(scope.reaches, (e) => e === grant.environment);
  return outside ? `${limited()}, and this change takes effect in ${outside}` : null;
}

/** The whole message of a refusal, naming what was missing (Unleash's words, then why). */
export function refusalMessage(permission: string, scope: AdminScope, why: string): string {
  return `You need permission=${permission} to perform this action on environment=${scope.environment ?? '*'}` +
    `${scope.project ? ` in project=${scope.project}` : ''}: ${why}.`;
}

/** The caller's actor when its grant allows `permission` on `scope`; else a 403 naming what was missing and why. */
export function authorize(caller: AdminCaller, permission: string, scope: AdminScope): Actor {
  const why = refusal(caller.grant, permission, scope);
  if (why !== null) throw new NoAccessError(refusalMessage(permission, scope, why));
  return caller.actor;
}

/**
 * What a caller may see of the server's history (event listings, flag search). Events about what
 * only an Admin may list (people, tokens, webhooks) are for those who may use ADMIN on the whole
 * server.
 */
export function viewOf(grant: Grant): AdminView {
  const hideAdminEvents = refusal(grant, 'ADMIN', {}) !== null;
  if (grant.kind === 'token') return { projects: grant.projects, environment: grant.environment, hideAdminEvents };
  return { projects: ['*'], environment: '*', hideAdminEvents };
}

/**
 * Everything `grant` may do, as GET /api/admin/user lists it. An entry allows a permission (or
 * ADMIN, every permission) on a scope when: the scope names no project and the entry names neither
 * a project nor an environment; or the scope's project is the entry's (or the entry names none),
 * and the scope's environment, if any, is the entry's (or the entry names none). Checked that way,
 * the list agrees with `refusal` (test/core/access/permissions.unit.test.ts holds them to it).
 */
export function permissionsOf(grant: Grant): PermissionEntry[] {
  if (grant.kind === 'everything') return [{ permission: 'ADMIN' }, { permission: APPROVE_CHANGE_REQUEST }];
  if (grant.kind === 'token') {
    if (grant.projects.includes('*') && grant.environment === '*') return [{ permission: 'ADMIN' }];
    const env = grant.environment === '*' ? {} : { environment: grant.environment };
    const projects = grant.projects.includes('*') ? [undefined] : grant.projects;
    return projects.map((project) => ({ permission: 'ADMIN', ...(project === undefined ? {} : { project }), ...env }));
  }
  if (grant.role === 'Admin') return [{ permission: 'ADMIN' }, { permission: APPROVE_CHANGE_REQUEST }];
  const out: PermissionEntry[] = [];
  const add = (permission: string, project: string | undefined) => {
    const where = project === undefined ? {} : { project };
    if (grant.environments === null) out.push({ permission, ...where });
    else for (const environment of grant.environments) out.push({ permission, ...where, environment });
  };
  if (grant.role === 'Editor') {
    for (const p of PROJECT_OWNER) add(p, undefined);
    for (const p of EDITOR_GLOBAL) add(p, undefined);
    return out;
  }
  for (const b of grant.projects) {
    const set = b.role === 'Owner' ? PROJECT_OWNER : b.role === 'Member' ? PROJECT_MEMBER : null;
    if (set) for (const p of set) add(p, b.project);
  }
  return out;
}

/**
 * Whether `entries` (from permissionsOf) allow `permission` on a scope: the console's check, spelled
 * out. ADMIN allows every permission but APPROVE_CHANGE_REQUEST, which is listed by itself (an
 * admin token has ADMIN within its limits, and may not approve).
 */
export function listedAllows(entries: readonly PermissionEntry[], permission: string, project?: string, environment?: string): boolean {
  return entries.some((e) =>
    (e.permission === permission || (e.permission === 'ADMIN' && permission !== APPROVE_CHANGE_REQUEST)) &&
    (project === undefined
      ? e.project === undefined && e.environment === undefined
      : (e.project === undefined || e.project === project) && (environment === undefined || e.environment === undefined || e.environment === environment)));
}

/** Whether `grant` may approve change requests in `environment` of `project` (tokens never may). */
export function mayApprove(grant: Grant, project: string, environment: string): boolean {
  return refusal(grant, APPROVE_CHANGE_REQUEST, { project, environment }) === null;
}

/** Whether `grant` may apply an approved change request in `environment` of `project`. */
export function mayApply(grant: Grant, project: string, environment: string): boolean {
  return refusal(grant, APPLY_CHANGE_REQUEST, { project, environment }) === null;
}

/** Whether `grant` may change `environment` of `project` directly although change requests are on there. */
export function maySkip(grant: Grant, project: string, environment: string): boolean {
  return refusal(grant, SKIP_CHANGE_REQUEST, { project, environment }) === null;
}
