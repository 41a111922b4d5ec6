// Hash routes (`#/projects/default/flags/new-checkout`): the server serves one page at `/`, and a
// reload or a shared link lands on the same view. A view's filters and sort live in the route's
// query (`#/projects/default?type=release&sortBy=name`): Back brings them back, a link shares them.
import { useEffect, useState } from 'preact/hooks';

const MOVED = 'fanion:route';

export function currentPath(): string {
  const hash = location.hash.replace(/^#/, '');
  return hash.startsWith('/') ? hash : '/';
}

export function useRoute(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const on = () => setPath(currentPath());
    addEventListener('hashchange', on);
    addEventListener(MOVED, on);
    return () => {
      removeEventListener('hashchange', on);
      removeEventListener(MOVED, on);
    };
  }, []);
  return path;
}

export function navigate(path: string): void {
  location.hash = path;
}

/** `/projects/:project/flags/:flag` against a path: the decoded parameters, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.split('?')[0].split('/');
  if (p.length !== s.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) out[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return null;
  }
  return out;
}

/** The query of the current route. */
export function routeQuery(): URLSearchParams {
  const path = currentPath();
  const at = path.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : path.slice(at + 1));
}

/**
 * The route's query with `changes` applied (an empty value removes the key). It replaces the
 * current history entry: typing a search does not leave one entry a letter behind for Back.
 */
export function setRouteQuery(changes: Record<string, string>): void {
  const q = routeQuery();
  for (const [k, v] of Object.entries(changes)) {
    if (v) q.set(k, v);
    else q.delete(k);
  }
  const base = currentPath().split('?')[0];
  const text = q.toString();
  history.replaceState(history.state, '', `#${base}${text ? `?${text}` : ''}`);
  dispatchEvent(new Event(MOVED));
}
