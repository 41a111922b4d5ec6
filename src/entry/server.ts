// The HTTP side every mode shares: the port opened before anything else (so /ready can say 503
// while a mode opens), timeouts and connection limits, the poll fast path, polka with the routes a
// composition hands it, and one close. It serves whatever route list it is given and never asks
// which mode runs: the compositions (embedded.ts, cluster.ts, relay.ts, offline.ts) decide that.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Mode } from './compositions.js';
import type { FanionDeps } from './core.js';
import type { FrontDoor, Gate } from '../concepts/client-api/front-door.js';
import type { PushHub } from '../concepts/push/hub.js';
import type { FanionMetrics } from '../concepts/operations/metrics.js';
import { Readiness } from '../concepts/operations/readiness.js';
import type { Authenticator } from '../core/access/access.js';
import type { Engine } from '../core/engine/engine.js';
import { MethodNotAllowedError, NotFoundError, parserError, ServiceUnavailableError, toErrorResponse } from '../core/errors.js';
import { mountApiDocs } from '../http/api-docs.js';
import { loadConsole, serveConsole } from '../http/console.js';
import { AccessLog, fixedWords, loggablePath, requestIdOf } from '../http/access-log.js';
import {
  closeWithin, connectionCap, firstHeadersWithin, guardConnections, headersArrived, openFilesLimit, TIMEOUT_CHECK_MS, TIMEOUT_CLOSE_GRACE_MS,
  type ConnectionGuard,
} from '../http/connections.js';
import { NOSNIFF, sendError, sendJson } from '../http/respond.js';
import { hostGuard } from '../http/hosts.js';
import { openApiDocument } from '../http/openapi.js';
import { mount } from '../http/pipeline.js';
import type { AppContext, RouteDef } from '../http/route.js';
import { Router } from '../http/route-index.js';
import { SchemaRegistry } from '../http/validation.js';
import type { Checkpoints } from '../core/storage/checkpointer.js';
import { SECRET_PATH_PREFIX } from '../concepts/tokens/routes.js';
import { refuseDirectChange } from '../concepts/change-requests/enforcement.js';

const READY = '/ready';
const HEALTH = '/health';

/** Exactly `path`, with or without a query string (63 is '?'). */
function isPath(url: string, path: string): boolean {
  return url.startsWith(path) && (url.length === path.length || url.charCodeAt(path.length) === 63);
}

/**
 * Start-up runs in long synchronous steps (replaying the data folder, compiling every route's
 * schemas), during which no request is read. Between them this lets the connections that arrived
 * meanwhile be accepted and read (one turn of the event loop each), so they get their 503 now
 * rather than a late answer once everything is up.
 */
async function letWaitingRequestsIn(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Unleash's answers: 200 `{"health":"GOOD"}`, or 503 with no body. Never cached by a proxy. */
function answerReady(readiness: Readiness, res: http.ServerResponse): void {
  const failures = readiness.ready ? readiness.failures() : [];
  if (failures.length > 0) {
    sendJson(res, 503, { health: 'BAD', errors: failures }, { 'Cache-Control': 'no-store' });
  } else if (readiness.ready) {
    const warnings = readiness.warnings();
    sendJson(res, 200, warnings.length > 0 ? { health: 'GOOD', warnings } : { health: 'GOOD' }, { 'Cache-Control': 'no-store' });
  } else {
    res.writeHead(503, ['Content-Length', '0', 'Cache-Control', 'no-store', ...NOSNIFF]);
    res.end();
  }
}
/** Node's error code for a request past `headersTimeout` or `requestTimeout` (answered 408). */
const REQUEST_TIMEOUT = 'ERR_HTTP_REQUEST_TIMEOUT';

/** The methods a route may have: what a 405's Allow header is made of. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** 127.0.0.0/8, ::1 and localhost: addresses only this machine can reach. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** What a mode says while it starts (the port line, and the 503 every request gets meanwhile). */
export interface Opening {
  mode: Mode;
  /** What the mode is doing now, for the port line: "replaying the data folder …". */
  doing: string;
  /** What `GET /ready` waits for. */
  waitingFor: string;
  /** The 503's message to every other request meanwhile. */
  startingMessage: string;
  /** Where the mode's state comes from, as log fields (no password). */
  fields: Record<string, string>;
}

/** Where flags change when not here (a relay: its upstream; offline mode: its file). */
export interface Elsewhere {
  /** "its upstream http://…": said by the page at `/`, in place of the console. */
  flagsAt: string;
  /** The 404 every /api/admin path gets. */
  refusal: string;
}

/** What a composition hands over to be served. */
export interface Serving {
  ctx: AppContext;
  /** Every route, in mounting order. */
  routes: RouteDef[];
  /** Where SDK polls are decided and answered (client-api/front-door.ts). */
  frontDoor: FrontDoor;
  /** Set where flags do not change here: no console, the admin API refused. Unset: the console at `/`. */
  elsewhere?: Elsewhere;
  /** Runs before every request past /ready goes on, SDK polls included (a relay admits tokens first). */
  gate?: Gate;
}

/** A mode's parts as the HTTP side closes them and tests look at them. */
export interface Parts {
  engine: Engine;
  checkpointer: Checkpoints;
  push: PushHub;
  close(): Promise<void>;
  closingStep(): string;
}

export interface RunningServer {
  port: number;
  engine: Engine;
  checkpointer: Checkpoints;
  server: http.Server;
  /** The connection cap in force and the count of connections refused at it. */
  connections: ConnectionGuard;
  /** The SDK streams (and what they were sent). */
  push: PushHub;
  /** What GET /ready waits for. */
  readiness: Readiness;
  close(): Promise<void>;
  /** What close() is waiting for now. */
  closingStep(): string;
  /** Which mode runs, and what it serves from (for the start-up line: "a relay of the upstream …"; no password). */
  mode: Mode;
  summary: string;
  fields: Record<string, string>;
  /** Whether `/` serves the console. */
  console: boolean;
}

/** The page a relay (or offline mode) shows at `/`, in place of the console; `flagsAt` says where flags change. */
function relayPage(flagsAt: string): Buffer {
  const esc = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return Buffer.from(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fanion relay</title></head><body>` +
    `<h1>This is a Fanion relay</h1><p>It serves SDKs flags it does not own. Change flags on ${esc(flagsAt)}.</p></body></html>`);
}

/** The port, open: what a composition opens its parts behind, then serves them on. */
export interface Port {
  port: number;
  readiness: Readiness;
  /**
   * Runs `open` (the mode's parts: a data folder replayed, a database reached) while /ready says
   * 503; if it throws, the port is closed before the error goes on.
   */
  opening<T>(open: () => Promise<T>): Promise<T>;
  /** What every route is given: the engine, who calls, the request counters, and on a cluster the barrier. */
  context(parts: { engine: Engine; auth: Authenticator; operations: FanionMetrics; barrier?: AppContext['barrier'] }): AppContext;
  /** Mounts the routes and the poll shortcuts; requests are served from then on. */
  serve(serving: Serving): Promise<void>;
  /** The 503 a gate answers a request it cannot let through yet. */
  unavailable(req: http.IncomingMessage, res: http.ServerResponse, message: string): void;
  /** Says the mode serves (/ready answers 200) and hands over what runs. */
  running(parts: Parts, said: { summary: string; fields: Record<string, string> }): RunningServer;
}

/**
 * Opens the port (config.host:config.port): until `serve` has mounted the routes and `running` is
 * called, GET /ready answers 503, GET /health 200 (the process is alive), and every other path 503.
 */
export async function openPort(deps: FanionDeps, opening: Opening): Promise<Port> {
  const { config, log } = deps;
  const access = new AccessLog(log);
  /** The access line of a request no route answered (no template: its path, cleaned). */
  let words: ReadonlySet<string> = new Set();
  const logUnmatched = (req: http.IncomingMessage, res: http.ServerResponse, started: number) =>
    access.write(res, { method: req.method ?? '?', route: null, status: res.statusCode, ms: performance.now() - started, token: null }, loggablePath(req, words));

  // The port opens before the data folder is replayed, so /ready can say 503 meanwhile (a large
  // folder takes seconds); every other request gets 503 until the routes are mounted.
  const readiness = deps.readiness ?? new Readiness();
  const serving = readiness.require(opening.waitingFor);
  const checkHost = hostGuard(config);
  /** Whether the request's Host is served; if not, the refusal is sent. */
  const hostServed = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    try {
      checkHost!(req);
      return true;
    } catch (err) {
      if ((req.method === 'GET' || req.method === 'HEAD') && (isPath(req.url!, READY) || isPath(req.url!, '/health'))) return true;
      const started = performance.now();
      sendError(res, err, log);
      logUnmatched(req, res, started);
      return false;
    }
  };
  let handler: http.RequestListener | null = null;
  let door: FrontDoor | null = null;
  const unavailable = (req: http.IncomingMessage, res: http.ServerResponse, message: string) => {
    const started = performance.now();
    const { status, body } = toErrorResponse(new ServiceUnavailableError(message));
    body.id = requestIdOf(res);
    sendJson(res, status, body, { 'Retry-After': '1', 'X-Request-Id': body.id });
    logUnmatched(req, res, started);
  };
  const starting = (req: http.IncomingMessage, res: http.ServerResponse) => unavailable(req, res, opening.startingMessage);
  const server = http.createServer({
    headersTimeout: config.http.headersTimeoutMs,
    requestTimeout: config.http.requestTimeoutMs,
    // How often Node looks for requests past those timeouts (30 s by default, which let a
    // trickled request live 30 s longer than its timeout).
    connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, config.http.headersTimeoutMs),
  }, (req, res) => {
    headersArrived(req);
    // A page that rebound its own name to this server (http/hosts.ts): before anything is
    // answered, SDK polls included, but health and readiness, which tell it nothing.
    if (checkHost !== null && !hostServed(req, res)) return;
    // SDK polls: decided and answered by the front door (client-api/front-door.ts), the rest goes on.
    if (door !== null && door.serve(req, res)) return;
    if ((req.method === 'GET' || req.method === 'HEAD') && isPath(req.url!, READY)) answerReady(readiness, res);
    else if (handler) handler(req, res);
    // Liveness: the process is up while it replays or waits for its database. A 503 here would
    // have an orchestrator restart a node that only waits, again and again.
    else if ((req.method === 'GET' || req.method === 'HEAD') && isPath(req.url!, HEALTH)) sendJson(res, 200, { health: 'GOOD' }, { 'Cache-Control': 'no-store' });
    else starting(req, res);
  });
  server.keepAliveTimeout = 65_000;
  const connections = guardConnections(server, connectionCap(config.http.maxConnections, openFilesLimit()), log);
  // Requests Node's parser rejects (oversized headers, malformed HTTP) never reach polka; they
  // still get the Unleash error body instead of Node's bare status line.
  const clientError = (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, body } = toErrorResponse(parserError(err.code));
    // Nothing of the request is trusted enough to log but the fact: no method, no path.
    access.line(body.id, { method: '?', route: null, status, ms: 0, token: null });
    const text = JSON.stringify(body);
    const answer =
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n` +
      `X-Request-Id: ${body.id}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
    if (err.code !== REQUEST_TIMEOUT) {
      socket.end(answer);
      closeWithin(socket);
      return;
    }
    // Too slow: the 408, nothing more read (headers finished after it must not become a request),
    // and a reset TIMEOUT_CLOSE_GRACE_MS later unless the client has gone. No FIN first: after one,
    // a client that never closes its side would learn of the close only at its next write or the
    // one after (2-4 s later at a line every 2 s), and the socket could no longer be reset.
    socket.write(answer);
    socket.pause();
    closeWithin(socket, TIMEOUT_CLOSE_GRACE_MS);
  };
  server.on('clientError', clientError);
  // Node times a request's headers from its first byte: the first request of a connection is
  // timed from the connection, so that waiting before the first byte does not add to it.
  firstHeadersWithin(server, config.http.headersTimeoutMs, (socket) => clientError(Object.assign(new Error('headers timeout'), { code: REQUEST_TIMEOUT }), socket));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new Error(e.code === 'EADDRINUSE' ? `port ${config.port} on ${config.host} is already in use` : `cannot listen on ${config.host}:${config.port}: ${e.message}`);
  }
  const port = (server.address() as AddressInfo).port;
  log.info({ port, host: config.host, mode: opening.mode, ...opening.fields }, `port ${port} open; ${opening.doing} (GET /ready answers 503 until Fanion serves)`);

  const opened = async <T>(open: () => Promise<T>): Promise<T> => {
    let parts: T;
    try {
      parts = await open();
    } catch (err) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw err;
    }
    await letWaitingRequestsIn();
    if (config.authType === 'none') {
      if (isLoopback(config.host)) {
        log.warn({ host: config.host }, `AUTH_TYPE=none: authentication is OFF, so Fanion listens on ${config.host} only (this machine). Every caller is an admin.`);
      } else {
        log.warn(
          { host: config.host },
          `DANGER: AUTH_TYPE=none and HOST=${config.host}: authentication is OFF and Fanion is reachable from the network. ` +
            'Anyone who can reach this port is an admin and can change or delete every flag. Use AUTH_TYPE=api-token, or leave HOST unset to listen on 127.0.0.1. ' +
            '(Requests naming a host other than localhost or an IP address are refused unless ALLOWED_HOSTS lists it.)',
        );
      }
    }
    return parts;
  };

  const serve = async ({ ctx, routes, frontDoor, elsewhere, gate }: Serving): Promise<void> => {
    const app = new Router({
      onError: (err, req, res) => {
        const started = performance.now();
        sendError(res, err, log, { method: req.method, path: loggablePath(req, words) });
        logUnmatched(req, res, started);
      },
      onNoMatch: (req, res) => {
        const started = performance.now();
        res.once('finish', () => logUnmatched(req, res, started));
        // A token pasted into an unsupported method's path must not be echoed back.
        const shown = req.path.startsWith(SECRET_PATH_PREFIX) ? `${SECRET_PATH_PREFIX}…` : req.path;
        const allow: string[] = METHODS.filter((m) => app.find(m, req.path).handlers.length > 0);
        if (allow.length > 0) {
          if (allow.includes('GET')) allow.push('HEAD');
          sendError(res, new MethodNotAllowedError(`${req.method} is not allowed on ${shown}; use ${allow.join(', ')}.`, allow), log);
          return;
        }
        sendError(res, new NotFoundError(`The path you were looking for (${shown}) is not available.`), log);
      },
    });
    app.get(HEALTH, (_req, res) => sendJson(res, 200, { health: 'GOOD' }));
    // Only other methods reach polka (GET and HEAD are answered first, above): a 405 like any path's.
    app.get(READY, (_req, res) => answerReady(readiness, res));
    // The admin console: a client of the API below, from the files `npm ci` built.
    const consoleAssets = loadConsole();
    const consoleFile = (req: http.IncomingMessage & { path: string }, res: http.ServerResponse) => {
      if (serveConsole(consoleAssets, req, res, req.path)) return;
      const started = performance.now();
      sendError(res, new NotFoundError(consoleAssets.size === 0
        ? 'The console is not built: run `npm run build:ui` (npm ci does it).'
        : 'No such file of the console.'), log);
      logUnmatched(req, res, started);
    };
    if (elsewhere) {
      // No console: flags are changed elsewhere (a relay's on its upstream, offline mode's in its file).
      const page = relayPage(elsewhere.flagsAt);
      app.get('/', (_req, res) => {
        res.writeHead(200, ['Content-Type', 'text/html; charset=utf-8', 'Content-Length', String(page.length), 'Content-Security-Policy', "default-src 'none'", ...NOSNIFF]);
        res.end(page);
      });
    } else app.get('/', consoleFile);
    app.get('/index.html', consoleFile);
    app.get('/ui/:file', consoleFile);
    if (elsewhere) {
      const refuse = (req: http.IncomingMessage, res: http.ServerResponse) => {
        const started = performance.now();
        sendError(res, new NotFoundError(elsewhere.refusal), log);
        logUnmatched(req, res, started);
      };
      for (const m of METHODS) {
        const verb = m.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
        app[verb]('/api/admin', refuse);
        app[verb]('/api/admin/*', refuse);
      }
    }
    await letWaitingRequestsIn();
    mount(app, ctx, routes);
    await letWaitingRequestsIn();
    words = fixedWords([...routes.map((r) => r.path), HEALTH, READY, '/api/openapi.json', '/docs/openapi', '/ui']);
    const openapi = openApiDocument(routes, ctx.schemas);
    app.get('/api/openapi.json', (_req, res) => sendJson(res, 200, openapi));
    mountApiDocs(app);

    // SDK polls past the gate are answered by the front door; every other request, SDK
    // register/metrics included, goes through the router.
    const appHandler = app.handler;
    frontDoor.open(ctx, routes, gate);
    door = frontDoor;
    handler = gate ? (req, res) => gate(req, res, appHandler) : appHandler;
  };

  let served: Serving | null = null;
  const running = (parts: Parts, said: { summary: string; fields: Record<string, string> }): RunningServer => {
    serving();
    let closing: Promise<void> | null = null;
    let httpClosed = false;
    const close = () => {
      closing ??= (async () => {
        // Streams first: they never end by themselves, and SDKs should reconnect elsewhere now.
        parts.push.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 5_000).unref();
        });
        httpClosed = true;
        await parts.close();
      })();
      return closing;
    };
    const closingStep = () => (closing === null ? 'not closing' : httpClosed ? parts.closingStep() : 'in-flight requests and open connections');
    return {
      port, engine: parts.engine, checkpointer: parts.checkpointer, server, connections, push: parts.push, readiness, close, closingStep,
      mode: opening.mode, summary: said.summary, fields: said.fields, console: !served?.elsewhere,
    };
  };

  return {
    port,
    readiness,
    opening: opened,
    // Every mode gets the change-request gate: only admin routes that change an environment meet it.
    context: ({ engine, auth, operations, barrier }) => ({ engine, config, log, schemas: new SchemaRegistry(), auth, metrics: operations, access, barrier, directChanges: refuseDirectChange }),
    serve: (s) => {
      served = s;
      return serve(s);
    },
    unavailable,
    running,
  };
}
