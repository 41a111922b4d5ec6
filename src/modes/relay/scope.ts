// What one upstream token sees: an environment and its projects. The relay holds, and follows
// upstream, one flag set per scope; every token it serves has the scope its upstream granted.

export interface RelayScope {
  environment: string;
  /** Sorted and without repeats; `['*']` for every project. */
  projects: string[];
}

export function normalizeScope(environment: string, projects: readonly string[]): RelayScope {
  return { environment, projects: projects.includes('*') ? ['*'] : [...new Set(projects)].sort() };
}

/** The same text the token authenticator keys a client scope by. */
export function scopeKey(s: RelayScope): string {
  return `${s.environment}|${s.projects.join(',')}`;
}

export function inScope(s: RelayScope, project: string): boolean {
  return s.projects[0] === '*' || s.projects.includes(project);
}

/** Whether everything `narrow` sees, `wide` sees too: then following `wide` upstream is enough. */
export function covers(wide: RelayScope, narrow: RelayScope): boolean {
  if (wide.environment !== narrow.environment) return false;
  if (wide.projects[0] === '*') return true;
  if (narrow.projects[0] === '*') return false;
  return narrow.projects.every((p) => wide.projects.includes(p));
}

/**
 * The scopes worth following: those no other one covers (of two equal scopes, the first). A token
 * of a covered scope is served from the flags its wider neighbour brings.
 */
export function widest(scopes: readonly RelayScope[]): RelayScope[] {
  const out: RelayScope[] = [];
  scopes.forEach((s, i) => {
    const coveredBy = scopes.findIndex((o, j) => j !== i && covers(o, s) && (!covers(s, o) || j < i));
    if (coveredBy < 0) out.push(s);
  });
  return out;
}
