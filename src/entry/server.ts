// The HTTP side of Fanion: routes mounted on the parts app.ts builds, the poll fast path, timeouts
// and connection limits. `startServer` is what main.ts and the in-process tests call.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { openFanion, type AdminSide, type Fanion, type FanionDeps } from './app.js';
import { modeOf, type Mode } from '../core/config.js';
import { clientApiRoutes } from '../concepts/client-api/routes.js';
import type { FrontDoor, Gate } from '../concepts/client-api/front-door.js';
import type { PushHub } from '../concepts/push/hub.js';
import { pushRoutes } from '../concepts/push/routes.js';
import { frontendRoutes } from '../concepts/frontend/routes.js';
import { ofrepRoutes } from '../concepts/ofrep/routes.js';
import { operationsRoutes } from '../concepts/operations/routes.js';
import { impactMetricsRoutes } from '../concepts/impact-metrics/routes.js';
import { Readiness } from '../concepts/operations/readiness.js';
import { clientMetricsRoutes } from '../concepts/client-metrics/routes.js';
import { edgeRoutes } from '../concepts/edge/routes.js';
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
import { ensureFirstAdminToken } from '../concepts/tokens/seed.js';
import { backstageRoutes, proxyAliases, relayRoutes, validateThroughUpstream } from '../modes/relay/routes.js';

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

export type ServerOptions = FanionDeps;

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
  /** Which mode runs, and where its state comes from (for the start-up line; no password). */
  mode: Mode;
  source: string;
  fields: Record<string, string>;
}

/** The page a relay (or offline mode) shows at `/`, in place of the console; `flagsAt` says where flags change. */
function relayPage(flagsAt: string): Buffer {
  const esc = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return Buffer.from(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fanion relay</title></head><body>` +
    `<h1>This is a Fanion relay</h1><p>It serves SDKs flags it does not own. Change flags on ${esc(flagsAt)}.</p></body></html>`);
}

/**
 * The admin API (every route module that changes flags, and tokens, webhooks, people), before and
 * after the SDK-facing routes, in mounting order. Loaded only by a server: a relay has no admin
 * API, so it neither loads this code nor compiles these schemas (a relay's memory is measured
 * against a target: docs/performance.md#a-relay-npm-run-benchrelay).
 */
async function adminRoutes(ctx: AppContext, fanion: Fanion, { webhooks, passwords, guard }: AdminSide): Promise<{ before: RouteDef[]; after: RouteDef[] }> {
  const [features, strategies, strategyTypes, contextFields, projects, environments, segments, tags, variants, events, state, featuresBatch, tokens, addons, people, releasePlans] =
    await Promise.all([
      import('../concepts/features/routes.js'), import('../concepts/strategies/routes.js'), import('../concepts/strategy-types/routes.js'), import('../concepts/context-fields/routes.js'),
      import('../concepts/projects/routes.js'), import('../concepts/environments/routes.js'), import('../concepts/segments/routes.js'), import('../concepts/tags/routes.js'),
      import('../concepts/variants/routes.js'), import('../concepts/events/routes.js'), import('../concepts/state-io/routes.js'), import('../concepts/features-batch/routes.js'),
      import('../concepts/tokens/routes.js'), import('../concepts/webhooks/routes.js'), import('../concepts/people/routes.js'),
      import('../concepts/release-plans/routes.js'),
    ]);
  const modules: ((ctx: AppContext) => RouteDef[])[] = [
    features.featureRoutes, strategies.strategyRoutes, strategyTypes.strategyTypeRoutes, contextFields.contextFieldRoutes, projects.projectRoutes,
    environments.environmentRoutes, segments.segmentRoutes, tags.tagRoutes, variants.variantRoutes, events.eventRoutes, state.stateRoutes,
    featuresBatch.featuresBatchRoutes, releasePlans.releasePlanRoutes,
  ];
  return {
    before: [...modules.flatMap((m) => m(ctx)), ...tokens.tokenRoutes(fanion.hasher)(ctx)],
    after: [
      ...addons.addonRoutes(ctx, webhooks),
      // Sign-in and people.
      ...people.peopleRoutes(ctx, { people: fanion.people, passwords, hasher: fanion.hasher, guard, oidc: fanion.oidc }),
    ],
  };
}

/**
 * Opens the port (config.host:config.port), then Fanion (app.ts: the data folder replayed), and
 * serves it over HTTP. Resolves once every route is mounted and the first admin token (if one was
 * needed) has been created and printed; until then /ready answers 503 and every other path 503.
 */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const { config, log } = opts;
  const access = new AccessLog(log);
  /** The access line of a request no route answered (no template: its path, cleaned). */
  let words: ReadonlySet<string> = new Set();
  const logUnmatched = (req: http.IncomingMessage, res: http.ServerResponse, started: number) =>
    access.write(res, { method: req.method ?? '?', route: null, status: res.statusCode, ms: performance.now() - started, token: null }, loggablePath(req, words));

  // The port opens before the data folder is replayed, so /ready can say 503 meanwhile (a large
  // folder takes seconds); every other request gets 503 until the routes are mounted.
  const readiness = opts.readiness ?? new Readiness();
  // On a cluster node this waits for the database too, and for the log to be applied to its end.
  const serving = readiness.require(config.cluster ? 'the database reached, its log applied, and every route mounted' : 'the data folder replayed and every route mounted');
  const startingMessage = config.cluster
    ? 'Fanion is starting: it is waiting for its database or applying its log. Try again in a moment.'
    : 'Fanion is starting: its data folder is being replayed. Try again in a moment.';
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
  const starting = (req: http.IncomingMessage, res: http.ServerResponse) => unavailable(req, res, startingMessage);
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
  const { mode, fields } = modeOf(config);
  const doing = mode === 'server' ? `replaying the data folder ${config.dataDir}`
    : mode === 'cluster node' ? `reaching the database ${config.cluster!.label} and applying its log`
      : mode === 'offline' ? `replaying the offline copy in ${config.dataDir}, then reading ${config.offline!.bootstrapFile}`
        : `replaying the relay's copy in ${config.dataDir}, then following the upstream ${config.relay!.upstreamUrl}`;
  log.info({ port, host: config.host, mode, ...fields }, `port ${port} open; ${doing} (GET /ready answers 503 until Fanion serves)`);
  let fanion: Fanion;
  try {
    fanion = await openFanion({ ...opts, readiness });
  } catch (err) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  }
  await letWaitingRequestsIn();
  const { engine, checkpointer, hasher, auth } = fanion;
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
  const cluster = fanion.cluster;
  const barrier = cluster ? { wait: () => cluster.barrier.wait(), position: () => cluster.log.durableLsn } : undefined;
  const ctx: AppContext = { engine, config, log, schemas: new SchemaRegistry(), auth, metrics: fanion.operations, access, barrier };

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
  // Where a relay's (or offline mode's) flags are changed: not here.
  const flagsAt = config.relay ? `its upstream ${config.relay.upstreamUrl}` : config.offline ? `its features file ${config.offline.bootstrapFile}` : null;
  if (flagsAt) {
    // No console: a relay's flags are changed on its upstream, offline mode's in its file.
    const page = relayPage(flagsAt);
    app.get('/', (_req, res) => {
      res.writeHead(200, ['Content-Type', 'text/html; charset=utf-8', 'Content-Length', String(page.length), 'Content-Security-Policy', "default-src 'none'", ...NOSNIFF]);
      res.end(page);
    });
  } else app.get('/', consoleFile);
  app.get('/index.html', consoleFile);
  app.get('/ui/:file', consoleFile);
  const relay = fanion.relay;
  const frontend = frontendRoutes(ctx, fanion.evaluator, fanion.metrics);
  const operations = operationsRoutes(ctx, fanion.operations);
  const admin = fanion.admin ? await adminRoutes(ctx, fanion, fanion.admin) : { before: [], after: [] };
  let routes = [
    ...admin.before,
    ...clientApiRoutes(fanion.snapshot, ctx.schemas, fanion.frontDoor),
    ...pushRoutes(fanion.push, ctx.schemas),
    ...clientMetricsRoutes(ctx, fanion.metrics, fanion.tokens),
    ...edgeRoutes(ctx, fanion.tokens),
    ...frontend,
    ...ofrepRoutes(ctx, fanion.evaluator),
    ...operations,
    // A server keeps impact metrics; a relay forwards them upstream.
    ...(fanion.admin ? impactMetricsRoutes(ctx, fanion.impact) : []),
    ...admin.after,
  ];
  if (flagsAt) {
    // A relay's flags change on its upstream: no admin route, the SDK APIs, and Edge's paths.
    // Offline mode is composed the same way; its tokens are all in the state from the start.
    const sdk = routes.filter((r) => !r.permission);
    routes = [
      ...(relay ? validateThroughUpstream(sdk, (tokens) => relay.admitAll(tokens)) : sdk),
      ...relayRoutes(ctx, readiness),
      ...backstageRoutes(ctx, () => fanion.engine.state, () => relay?.pendingTokens() ?? []),
      ...proxyAliases(frontend),
      ...operations.filter((r) => !r.permission).map((r) => ({ ...r, path: '/internal-backstage/metrics', summary: `${r.summary} (Unleash Edge's path)` })),
    ];
    const refuse = (req: http.IncomingMessage, res: http.ServerResponse) => {
      const started = performance.now();
      sendError(res, new NotFoundError(`This is a Fanion ${relay ? 'relay' : 'in offline mode'}: change flags on ${flagsAt}`), log);
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

  const appHandler = app.handler;
  // Relay mode: a token the relay does not hold yet is checked with the upstream first (the
  // request waits, bounded); then the request goes on as any other, and authentication decides.
  const admit = relay ? (req: http.IncomingMessage) => relay.admit(req) : null;
  // A TOKENS entry whose flags the relay does not have yet (its upstream not reached since it
  // started) is not a wrong token: 503, which SDKs retry, not the 401 authentication would give.
  const afterAdmit: Gate = (req, res, next) => {
    const waiting = relay!.notReadyFor(req);
    if (waiting === null) next(req, res);
    else unavailable(req, res, `This relay is not ready for the token ${waiting}…: it has not had its flags from the upstream ${config.relay!.upstreamUrl} yet. Try again in a moment.`);
  };
  // Offline mode: a configured token before a good features file was read gets 503, as a relay's does.
  const offline = fanion.offline;
  // What a relay or offline mode checks before any request goes on, SDK polls included.
  const gate: Gate | null = admit
    ? (req, res, next) => {
      const wait = admit(req);
      if (wait) void wait.then(() => afterAdmit(req, res, next));
      else next(req, res);
    }
    : offline
      ? (req, res, next) => {
        if (!offline.notReadyFor(req)) next(req, res);
        else unavailable(req, res, `Not ready: no good features file was read from ${config.offline!.bootstrapFile} yet. Try again in a moment.`);
      }
      : null;
  // SDK polls past the gate are answered by the front door; every other request, SDK
  // register/metrics included, goes through the router.
  fanion.frontDoor.open(ctx, routes, gate ?? undefined);
  door = fanion.frontDoor;
  handler = gate ? (req, res) => gate(req, res, appHandler) : appHandler;
  if (!flagsAt) await ensureFirstAdminToken({ engine, config, hasher, log });
  // A relay has no admin API, so no people either.
  if (fanion.admin) await (await import('../concepts/people/seed.js')).ensureFirstAdmin({ engine, config, passwords: fanion.admin.passwords, log });
  serving();

  let closing: Promise<void> | null = null;
  let httpClosed = false;
  const close = () => {
    closing ??= (async () => {
      // Streams first: they never end by themselves, and SDKs should reconnect elsewhere now.
      fanion.push.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      });
      httpClosed = true;
      await fanion.close();
    })();
    return closing;
  };
  const closingStep = () => (closing === null ? 'not closing' : httpClosed ? fanion.closingStep() : 'in-flight requests and open connections');
  // The schema is known once connected: the one PostgreSQL put the tables in.
  const source = mode === 'cluster node' ? `the database ${config.cluster!.label}, schema ${fanion.cluster!.schema}` : modeOf(config).source;
  return { port, engine, checkpointer, server, connections, push: fanion.push, readiness, close, closingStep, mode, source, fields: { ...fields, ...(fanion.cluster ? { schema: fanion.cluster.schema } : {}) } };
}
