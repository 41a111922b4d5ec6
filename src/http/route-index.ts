// The router: polka, one instance per path length, through polka's public API only.
import type { IncomingMessage, ServerResponse } from 'node:http';
import polka, { type IOptions, type Middleware, type Polka } from 'polka';

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
type Verb = (pattern: string, ...handlers: Middleware[]) => Router;

/** What mounting routes needs of a router: polka's verbs, as a polka app or a Router has them. */
export interface Routes {
  get(pattern: string, ...handlers: Middleware[]): unknown;
  post(pattern: string, ...handlers: Middleware[]): unknown;
  put(pattern: string, ...handlers: Middleware[]): unknown;
  patch(pattern: string, ...handlers: Middleware[]): unknown;
  delete(pattern: string, ...handlers: Middleware[]): unknown;
  options(pattern: string, ...handlers: Middleware[]): unknown;
}

/** A literal word or a `:name` parameter: a segment that matches exactly one segment of a path. */
const PLAIN_SEGMENT = /^(?::[A-Za-z0-9_]+|[A-Za-z0-9_-]+)$/;

/**
 * How many segments every path a pattern matches has, or -1 when that is not fixed (a wildcard,
 * an optional parameter, a suffix, or a `.`, which polka's pattern matches against any character,
 * `/` included). `/` is 0 segments, `/a/:b` 2.
 */
export function segmentsOfPattern(pattern: string): number {
  if (pattern === '/') return 0;
  if (!pattern.startsWith('/')) return -1;
  const parts = pattern.slice(1).split('/');
  return parts.every((p) => PLAIN_SEGMENT.test(p)) ? parts.length : -1;
}

/** The segments of a request's path, counted as polka's patterns do (one trailing slash is allowed). */
function segmentsOfPath(path: string): number {
  let n = 0;
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) n++;
  return n - (path.charCodeAt(path.length - 1) === 47 ? 1 : 0);
}

/**
 * Polka's lookup tries every route's regular expression in turn; with the whole admin table that
 * was measured at ~3 µs of a 54 µs admin GET. A route of plain segments can only match a path with
 * as many segments, so routes are spread over one polka app per segment count, each also holding
 * the routes of any other shape, in registration order: each app finds exactly what one app with
 * every route would (same handlers, same order, same params). A request goes to the app of its
 * path's segment count (or to the one holding only the other shapes).
 */
export class Router implements Routes {
  private readonly byLength = new Map<number, Polka>();
  /** The routes of no fixed length, in order: every app of a length gets them, even one made later. */
  private readonly anyShape: [Method, string, Middleware[]][] = [];
  private readonly others: Polka;

  readonly get: Verb = (p, ...h) => this.add('GET', p, h);
  readonly post: Verb = (p, ...h) => this.add('POST', p, h);
  readonly put: Verb = (p, ...h) => this.add('PUT', p, h);
  readonly patch: Verb = (p, ...h) => this.add('PATCH', p, h);
  readonly delete: Verb = (p, ...h) => this.add('DELETE', p, h);
  readonly options: Verb = (p, ...h) => this.add('OPTIONS', p, h);

  constructor(private readonly opts: IOptions) {
    this.others = polka(opts);
  }

  /** What polka finds for `method` on `path` (what a 405's Allow header is made of). */
  find(method: Method, path: string): { params: Record<string, string>; handlers: Middleware[] } {
    return this.appFor(path).find(method, path);
  }

  /** The request listener: the request goes to the polka app of its path's length. */
  readonly handler = (req: IncomingMessage, res: ServerResponse): void => {
    const app = this.appFor(this.others.parse(req).pathname);
    (app.handler as unknown as (req: IncomingMessage, res: ServerResponse) => void)(req, res);
  };

  private appFor(path: string): Polka {
    return this.byLength.get(segmentsOfPath(path)) ?? this.others;
  }

  private add(method: Method, pattern: string, handlers: Middleware[]): this {
    const n = segmentsOfPattern(pattern);
    if (n < 0) {
      this.anyShape.push([method, pattern, handlers]);
      this.others.add(method, pattern, ...handlers);
      for (const app of this.byLength.values()) app.add(method, pattern, ...handlers);
      return this;
    }
    let app = this.byLength.get(n);
    if (app === undefined) {
      app = polka(this.opts);
      for (const [m, p, h] of this.anyShape) app.add(m, p, ...h);
      this.byLength.set(n, app);
    }
    app.add(method, pattern, ...handlers);
    return this;
  }
}
