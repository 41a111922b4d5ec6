// Who is signed in and what they may do, as GET /api/admin/user says: the console hides or
// disables what the API would refuse, and says why. The API stays the judge: anything it refuses
// anyway is shown as it answered.
import { get } from './api.js';

export interface PermissionEntry { permission: string; project?: string; environment?: string }
export interface Me {
  user: { id: number; name?: string | null; email?: string | null; username?: string | null; rootRole?: number; accountType: string; projects?: { project: string; role: string }[]; environments?: string[] | null; sso?: boolean };
  permissions: PermissionEntry[];
  /** How this console is signed in: 'session', 'token', 'personal-token' or 'open' (AUTH_TYPE=none). */
  authType: string;
  rootRoles: { id: number; name: string; description?: string }[];
  projectRoles: { name: string; description: string }[];
}

let me: Me | null = null;

export async function loadMe(): Promise<Me> {
  me = await get<Me>('/api/admin/user');
  return me;
}

export function current(): Me | null {
  return me;
}

export function forget(): void {
  me = null;
}

/**
 * Whether the API would allow `permission` on a project (and environment): the rule the server
 * states for its list (src/auth/permissions.ts `listedAllows`), spelled out again here because the
 * console imports nothing from the server.
 */
export function may(permission: string, project?: string, environment?: string): boolean {
  if (!me) return false;
  return me.permissions.some((e) =>
    // ADMIN allows everything but approving a change request, which is listed by itself (tokens never approve).
    (e.permission === permission || (e.permission === 'ADMIN' && permission !== 'APPROVE_CHANGE_REQUEST')) &&
    (project === undefined
      ? e.project === undefined && e.environment === undefined
      : (e.project === undefined || e.project === project) && (environment === undefined || e.environment === undefined || e.environment === environment)));
}

export function roleName(id: number | undefined): string {
  return me?.rootRoles.find((r) => r.id === id)?.name ?? 'Viewer';
}

/** Why `permission` is not allowed here, in words, for a disabled control's title and note. */
export function whyNot(permission: string, project?: string, environment?: string): string {
  const u = me?.user;
  if (!u || me?.authType === 'token') {
    const list = (vals: (string | undefined)[], all: string) => (vals.includes(undefined) ? all : [...new Set(vals)].join(', '));
    const entries = me?.permissions ?? [];
    return `This API token is limited to ${list(entries.map((e) => e.project), 'every project')} and ${list(entries.map((e) => e.environment), 'every environment')}.`;
  }
  const limit = u.environments;
  if (limit && environment !== undefined && !limit.includes(environment)) return `You may change only ${limit.join(', ') || 'no environment'}.`;
  if (limit && project === undefined) return `You may change only ${limit.join(', ') || 'no environment'}, and this acts on every environment.`;
  const role = roleName(u.rootRole);
  if (permission === 'ADMIN') return `Only Admins may do this; your role is ${role}.`;
  const inProject = project === undefined ? undefined : u.projects?.find((b) => b.project === project);
  if (project !== undefined) return `Your role (${role}${inProject ? `, ${inProject.role} of ${project}` : ''}) does not allow this in project ${project}.`;
  return `Your role (${role}) does not allow this.`;
}

/** Null when the signed-in caller may, else the reason (for a control's `blocked`). */
export function blockedUnless(permission: string, project?: string, environment?: string): string | null {
  return may(permission, project, environment) ? null : whyNot(permission, project, environment);
}
