// The route table: each domain folder exports RouteDefs; this module turns them into polka
// handlers (content type, body limit, schema, permission, error mapping) and into OpenAPI.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Polka, Request } from 'polka';
import type { AdminScope, Authenticator, ClientScope } from '../auth/authenticator.js';
import type { Config } from '../config.js';
import type { Engine } from '../engine/engine.js';
import type { Logger } from '../log.js';
import type { State } from '../state/state.js';
import type { Actor } from '../state/types.js';
import { readJson, requireJson } from './body.js';
import { crossOriginGuard } from './origin.js';
import { sendError, sendJson } from './respond.js';
import type { JsonSchema, SchemaRegistry } from './validation.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Call<B = unknown> {
  req: Request;
  res: ServerResponse;
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: B;
  /** Set on admin routes (those with a permission). */
  actor: Actor;
  /** Set on routes with `auth: 'client'`: what the SDK's token may see. */
  client?: ClientScope;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef {
  method: Method;
  path: string;
  summary: string;
  tag: string;
  /** Name of a registered schema the JSON body must satisfy. */
  body?: string;
  /** A schema only described in the OpenAPI document: the handler validates the body itself. */
  documentedBody?: string;
  bodyLimit?: number;
  /** Unleash lets on/off be called with any content type (or none). */
  anyContentType?: boolean;
  /** Admin permission required; routes without one authenticate themselves (client API, health). */
  permission?: string;
  /** 'client': authenticate as an SDK (ctx.auth.client) before the body is read. */
  auth?: 'client';
  /**
   * An SDK route: a GET is mounted with a synchronous handler (no promise of ours per request),
   * and the client features poll is answered before polka routes anything (server.ts).
   */
  fastPath?: boolean;
  /**
   * Browsers on other origins may call it (a later frontend API, with its own CORS rules);
   * every other state-changing route refuses cross-origin browser requests (http/origin.ts).
   */
  crossOrigin?: 'allowed';
  /** The path carries a secret (an API token): logs get the route pattern instead of the path. */
  secretInPath?: boolean;
  scope?: (params: Record<string, string>, state: State) => AdminScope;
  responses?: Record<number, string>;
  /** Returns a Reply to send, or nothing when it wrote the response itself. */
  handler: (call: Call<any>) => Promise<Reply | void> | Reply | void;
}

export interface AppContext {
  engine: Engine;
  config: Config;
  log: Logger;
  schemas: SchemaRegistry;
  auth: Authenticator;
}

const HAS_BODY = new Set<Method>(['POST', 'PUT', 'PATCH']);

const ANONYMOUS: Actor = Object.freeze({ name: 'anonymous', userId: null });

export function mount(app: Polka, ctx: AppContext, routes: RouteDef[]): void {
  const refuseCrossOrigin = crossOriginGuard(ctx.config.corsOrigins);
  for (const route of routes) {
    const verb = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    if (route.fastPath && route.method === 'GET' && !route.permission) {
      mountFastGet(app, ctx, route);
      continue;
    }
    app[verb](route.path, async (req: Request, res: ServerResponse) => {
      try {
        const params = req.params ?? {};
        // Before anything else, whatever the auth mode: a browser's credentials (or none needed)
        // must not let a page on another site act here. GETs never get this far on the fast path.
        if (route.crossOrigin !== 'allowed') refuseCrossOrigin(req);
        // Authenticate before reading the body: a stranger learns nothing about validation.
        const actor = route.permission
          ? ctx.auth.admin(req, route.permission, route.scope ? route.scope(params, ctx.engine.state) : {})
          : { name: 'anonymous', userId: null };
        const client = route.auth === 'client' ? ctx.auth.client(req) : undefined;
        let body: unknown;
        if (HAS_BODY.has(route.method)) {
          if (!route.anyContentType) requireJson(req);
          body = route.anyContentType && !req.headers['content-type']
            ? undefined
            : route.anyContentType
              ? await readJson(req, route.bodyLimit ?? ctx.config.bodyLimit).catch(() => undefined)
              : await readJson(req, route.bodyLimit ?? ctx.config.bodyLimit);
          if (route.body) body = ctx.schemas.check(route.body, body);
        }
        const reply = await route.handler({ req, res, params, query: req.query as Call['query'], body, actor, client });
        if (reply) sendJson(res, reply.status, reply.body, reply.headers);
      } catch (err) {
        sendError(res, err, ctx.log, { method: req.method, path: route.secretInPath ? route.path : req.path });
      }
    });
  }
}

/** The SDK hot path: no body, no permission, a synchronous handler, so no promise of ours per request. */
function syncGet(ctx: AppContext, route: RouteDef): (req: Request, res: ServerResponse) => void {
  const fail = (req: Request, res: ServerResponse, err: unknown) =>
    sendError(res, err, ctx.log, { method: req.method, path: route.secretInPath ? route.path : req.path });
  return (req, res) => {
    try {
      const client = route.auth === 'client' ? ctx.auth.client(req) : undefined;
      const reply = route.handler({ req, res, params: req.params ?? {}, query: (req.query ?? {}) as Call['query'], body: undefined, actor: ANONYMOUS, client });
      if (reply instanceof Promise) {
        reply.then((r) => r && sendJson(res, r.status, r.body, r.headers), (err) => fail(req, res, err));
      } else if (reply) {
        sendJson(res, reply.status, reply.body, reply.headers);
      }
    } catch (err) {
      fail(req, res, err);
    }
  };
}

function mountFastGet(app: Polka, ctx: AppContext, route: RouteDef): void {
  app.get(route.path, syncGet(ctx, route));
}

/**
 * The one route SDKs poll, answered before polka routes anything. Measured: polka's URL parse,
 * route lookup and middleware loop cost about as much CPU as the whole 304 answer, which kept
 * the 304 path well under the raw node:http baseline. Everything else still goes through polka.
 */
export function directGet(ctx: AppContext, route: RouteDef): (req: IncomingMessage, res: ServerResponse) => void {
  if (route.method !== 'GET' || route.permission || route.path.includes(':')) {
    throw new Error(`${route.method} ${route.path} cannot be served directly: only parameterless GETs without a permission`);
  }
  const serve = syncGet(ctx, route);
  return (incoming, res) => {
    // What polka would have set for the handler: the path (for error logs) and the raw query.
    const req = incoming as Request;
    const url = req.url;
    const at = url.indexOf('?');
    req.path = at < 0 ? url : url.slice(0, at);
    req.search = at < 0 ? '' : url.slice(at);
    serve(req, res);
  };
}

/** An OpenAPI 3 description built from the same route table and schemas the server uses. */
export function openApiDocument(routes: RouteDef[], schemas: Map<string, JsonSchema>): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const params = [...r.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      summary: r.summary,
      tags: [r.tag],
      parameters: params,
      ...(r.body ?? r.documentedBody ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${r.body ?? r.documentedBody}` } } } } } : {}),
      responses: Object.fromEntries(
        Object.entries(r.responses ?? { 200: 'OK' }).map(([code, description]) => [code, { description }]),
      ),
      ...(r.permission ? { 'x-permission': r.permission } : {}),
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Fanion', version: '1', description: 'Unleash-compatible feature toggle server' },
    paths,
    components: { schemas: Object.fromEntries(schemas) },
  };
}

export type { IncomingMessage };

interface TrouterRoute {
  keys: string[] | false;
  pattern: RegExp;
}

/** A pattern regexparam built from plain segments (`/word` or `/:param`), which matches only paths with as many slashes. */
const PLAIN_PATTERN = /^\^((?:\\?\/(?:\(\[\^\/\]\+\?\)|[A-Za-z0-9_-]+))*)\\?\/\?\$$/;

function slashes(s: string): number {
  let n = 0;
  for (let i = s.indexOf('/'); i >= 0; i = s.indexOf('/', i + 1)) n++;
  return n;
}

/**
 * Polka's route lookup (trouter's `find`) runs every route's regular expression in turn; with
 * the whole admin table that was measured at ~3 µs of a 54 µs admin GET. This keeps trouter's
 * own `find` and its exact semantics, but hands it only the routes that can match: a plain
 * route's regex matches only a path with as many segments, so routes are grouped by segment
 * count (routes of any other shape are kept in every group, in registration order).
 */
export function indexRoutes(app: Polka): void {
  const table = app as unknown as { routes: TrouterRoute[]; find: Polka['find'] };
  const find = table.find;
  let indexed = -1;
  let groups = new Map<number, TrouterRoute[]>();
  let anyShape: TrouterRoute[] = [];
  const build = () => {
    groups = new Map();
    anyShape = [];
    const counts = table.routes.map((r) => {
      const m = Array.isArray(r.keys) ? PLAIN_PATTERN.exec(r.pattern.source) : null;
      return m ? slashes(m[1].replace(/\[\^\/\]/g, '')) : -1;
    });
    for (const n of new Set(counts)) if (n >= 0) groups.set(n, table.routes.filter((_, i) => counts[i] === n || counts[i] < 0));
    anyShape = table.routes.filter((_, i) => counts[i] < 0);
    indexed = table.routes.length;
  };
  table.find = (method, url) => {
    if (indexed !== table.routes.length) build();
    // The optional trailing slash every plain pattern allows.
    const n = slashes(url) - (url.length > 1 && url.charCodeAt(url.length - 1) === 47 ? 1 : 0);
    return find.call({ routes: groups.get(n) ?? anyShape }, method, url) as ReturnType<Polka['find']>;
  };
}
