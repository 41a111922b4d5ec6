// The front door of the SDK poll (GET /api/client/features): the one place that decides how a
// request is answered before the router, that keeps what a connection's last poll was, and that
// writes a poll's answer (ETag, 304 or 200, identity or gzip).
//
// A request gets one of four answers, chosen by `decide`:
//  - 'repeat': the connection's exact repeat of the poll the whole path last answered on it, with
//    nothing changed since: 304 from what was remembered, nothing else runs. This is the usual poll
//    of an SDK (one keep-alive connection, the same URL, token and ETag every few seconds). Measured
//    on a relay: skipping the admission, authentication, the route and the lookup together made
//    its 304s 2.5-3 % faster; skipping only some of them did not show.
//  - 'poll': the whole path, still before the router (polka's URL parse, lookup and middleware
//    loop cost about as much CPU as the 304 itself): the gate of the mode (a relay's admission of
//    a token it does not hold yet, offline mode's readiness), authentication, the prepared answer.
//  - 'frontend': the Frontend API's GET, which browsers poll, past the router the same way.
//  - 'router': everything else goes to polka.
//
// Why the repeat is safe: it is remembered only after the whole path authenticated the request and
// answered it from the state as it is (not from an answer kept while a large change is applied),
// per connection (no other client can hit it), for the exact Authorization header, URL and ETag,
// and it holds until the state changes in any way (a flag, a token revoked or replaced, a relay's
// upstream answering anew) or the token expires. The slightest difference takes the whole path.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientScope, CredentialUse } from '../../core/access/access.js';
import type { StateChange } from '../../core/state/change.js';
import type { HotCounters } from '../../http/counters.js';
import { directGet } from '../../http/fast-path.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { acceptsGzip, etagMatches } from './conditional.js';
import type { CachedResponse, ClientSnapshot } from './snapshot.js';

export const CLIENT_FEATURES = '/api/client/features';
export const FRONTEND = '/api/frontend';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;
/** What a mode puts before every request it answers (a relay's token admission): `next` when it may go on. */
export type Gate = (req: IncomingMessage, res: ServerResponse, next: Listener) => void;

/** What a connection keeps of the last poll the whole path answered on it. */
export interface Remembered {
  url: string;
  authorization: string | undefined;
  etag: string;
  notModified: string[];
  environment: string;
  /** The token's expiry and last use (none with AUTH_TYPE=none: nothing expires). */
  credential: CredentialUse | undefined;
  /** The state's generation the answer was made from. */
  generation: number;
}

/** What `decide` reads of a request. */
export interface Knock {
  method?: string;
  url?: string;
  headers: { authorization?: string; 'if-none-match'?: string };
}

export type Answer = 'repeat' | 'poll' | 'frontend' | 'router';

/** Exactly `path`, with or without a query string (63 is '?'). */
function isPath(url: string, path: string): boolean {
  return url.startsWith(path) && (url.length === path.length || url.charCodeAt(path.length) === 63);
}

/**
 * How a request is answered, from the request, what its connection remembers, the state's
 * generation now and the clock (read only for a repeat whose token expires). Writes nothing.
 */
export function decide(req: Knock, remembered: Remembered | undefined, generation: number, now: () => number): Answer {
  const method = req.method;
  const url = req.url!;
  if (method === 'GET') {
    if (remembered !== undefined && remembered.generation === generation && remembered.url === url) {
      const headers = req.headers;
      // An expired token gets its 401 from the whole path.
      if (headers['if-none-match'] === remembered.etag && headers.authorization === remembered.authorization
        && (remembered.credential === undefined || now() < remembered.credential.expiresAtMs)) return 'repeat';
    }
    if (isPath(url, CLIENT_FEATURES)) return 'poll';
    if (isPath(url, FRONTEND)) return 'frontend';
    return 'router';
  }
  return method === 'HEAD' && isPath(url, CLIENT_FEATURES) ? 'poll' : 'router';
}

const openGate: Gate = (req, res, next) => next(req, res);

/** Ops that keep the applications' own impact metrics: nothing an SDK poll answers or authorizes reads them. */
const IMPACT_OPS: ReadonlySet<string> = new Set(['impact.put', 'impact.point', 'impact.del', 'impactChart.put', 'impactChart.del']);

/**
 * Whether a change can alter a poll's answer or who may poll. Every change may, but the impact
 * metrics' flushes: they come every METRICS_FLUSH_MS while SDKs report impact metrics, and within
 * a fraction of a second of a post a safeguard watches, and would otherwise end every
 * connection's repeat shortcut each time.
 */
export function touchesPolls(change: StateChange): boolean {
  return change.events.length > 0 || change.ops.some((op) => !IMPACT_OPS.has(op.o));
}

export class FrontDoor {
  private readonly byConnection = new WeakMap<object, Remembered>();
  private generation = 0;
  /** The whole poll path and the Frontend API's GET, once the routes are mounted (open). */
  private poll: Listener | null = null;
  private frontend: Listener | null = null;
  private gate: Gate = openGate;
  /** The clock as `decide` last read it, so that a repeat records its use without reading it again. */
  private readNow = 0;
  private readonly clock = (): number => (this.readNow = this.now());

  constructor(
    private readonly snapshot: ClientSnapshot,
    private readonly hot?: HotCounters,
    /** The large change being applied a slice at a time, if any (Engine.applying). */
    private readonly applying: () => Promise<void> | null = () => null,
    private readonly now: () => number = Date.now,
  ) {}

  /** The state changed (applied, rolled back): no connection's remembered poll holds any more. */
  forget(): void {
    this.generation++;
  }

  /** A change applied or rolled back: forgets every remembered poll, unless the change cannot touch one. */
  onChange(change: StateChange): void {
    if (touchesPolls(change)) this.forget();
  }

  /**
   * From now on, the poll and the Frontend API's GET among `routes` are answered here, after `gate`.
   * Until then every request goes to the router (which, while starting, answers 503).
   */
  open(ctx: AppContext, routes: readonly RouteDef[], gate: Gate = openGate): void {
    const find = (path: string) => routes.find((r) => r.method === 'GET' && r.path === path && r.fastPath);
    const poll = find(CLIENT_FEATURES);
    const frontend = find(FRONTEND);
    if (poll === undefined) throw new Error(`no GET ${CLIENT_FEATURES} route among those mounted`);
    this.gate = gate;
    this.frontend = frontend ? directGet(ctx, frontend) : null;
    this.poll = directGet(ctx, poll);
  }

  /** The request listener's first step: true when the request is answered here, false for the router. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const poll = this.poll;
    if (poll === null) return false;
    const remembered = this.byConnection.get(req.socket);
    switch (decide(req, remembered, this.generation, this.clock)) {
      case 'repeat': {
        const r = remembered!;
        if (r.credential !== undefined) r.credential.usedAt = this.readNow;
        this.hot?.poll(r.environment, 304);
        res.writeHead(304, r.notModified);
        res.end();
        return true;
      }
      case 'poll':
        this.gate(req, res, poll);
        return true;
      case 'frontend':
        if (this.frontend === null) return false;
        this.gate(req, res, this.frontend);
        return true;
      default:
        return false;
    }
  }

  /**
   * The poll's handler, wherever it is reached from (here, or the router for `/api/client/features/`):
   * the prepared answer for the caller's scope and query, written, and remembered for the
   * connection's next identical poll. Throws 400 on a malformed filter.
   */
  answer(req: IncomingMessage, res: ServerResponse, scope: ClientScope): Promise<void> | void {
    const search = (req as { search?: string }).search ?? '';
    // While an import is being applied a slice at a time, the answer cached before it is still
    // whole and consistent: SDKs get it at once. Only an answer that would read the state waits.
    const pending = this.applying();
    const cached = pending === null ? null : this.snapshot.cachedResponse(scope, search);
    if (pending !== null && cached === null) return pending.then(() => this.write(req, res, this.snapshot.response(scope, search), scope.environment));
    const entry = cached ?? this.snapshot.response(scope, search);
    // Not the answer cached before a change still being applied: the change's own notice may
    // have come already, and nothing would then make the connection forget that answer.
    if (pending === null) this.remember(req, scope, entry);
    this.write(req, res, entry, scope.environment);
  }

  private remember(req: IncomingMessage, scope: ClientScope, entry: CachedResponse): void {
    const socket = req.socket as object | null;
    if (!socket) return;
    this.byConnection.set(socket, {
      url: req.url!,
      authorization: req.headers.authorization,
      etag: entry.etag,
      notModified: entry.headers.notModified,
      environment: scope.environment,
      credential: scope.credential,
      generation: this.generation,
    });
  }

  /** 304 when the ETag matches, else the bytes (gzipped if the client takes it). */
  private write(req: IncomingMessage, res: ServerResponse, entry: CachedResponse, environment: string): void {
    const { headers } = entry;
    if (etagMatches(req.headers['if-none-match'], entry.etag)) {
      this.hot?.poll(environment, 304);
      res.writeHead(304, headers.notModified);
      res.end();
      return;
    }
    this.hot?.poll(environment, 200);
    const gzip = entry.gzip;
    if (gzip !== null && headers.gzip !== null && acceptsGzip(req.headers['accept-encoding'])) {
      res.writeHead(200, headers.gzip);
      res.end(gzip);
      return;
    }
    res.writeHead(200, headers.identity);
    const parts = entry.parts;
    if (parts.length === 1) {
      res.end(parts[0]);
      return;
    }
    // Large responses are several blocks: corked, they leave in one writev.
    res.cork();
    for (const p of parts) res.write(p);
    res.uncork();
    res.end();
  }
}
