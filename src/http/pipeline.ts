// The request pipeline every route but the poll goes through: cross-origin check, authentication
// (before the body is read) and the change-request gate, content type, body limit, schema,
// body-named scopes (each authorized and gated the same way), handler, and errors out through the
// one catalogue.
import type { ServerResponse } from 'node:http';
import type { Request } from 'polka';
import type { Routes } from './route-index.js';
import { readJson, readLargeJson, requireJson } from './body.js';
import { syncGet } from './fast-path.js';
import { crossOriginGuard } from './origin.js';
import { sendError, sendJson } from './respond.js';
import type { AppContext, Call, Method, Reply, RouteDef } from './route.js';
import { corsFor, preflightFor } from './cors.js';
import { countRefusal } from './refusals.js';
import { AccessLog, isBackgroundPoll, requestIdOf } from './access-log.js';
import { Slicer } from '../core/slices.js';
import type { Actor } from '../core/state/types.js';

const HAS_BODY = new Set<Method>(['POST', 'PUT', 'PATCH']);


export function mount(app: Routes, ctx: AppContext, routes: RouteDef[]): void {
  const refuseCrossOrigin = crossOriginGuard(ctx.config.http.corsOrigins);
  const preflight = preflightFor(ctx.config.frontend.origins);
  const preflighted = new Set<string>();
  for (const route of routes) {
    const verb = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    checkRoute(ctx, route);
    if (route.fastPath) {
      app.get(route.path, syncGet(ctx, route));
      if (route.cors && !preflighted.has(route.path)) {
        preflighted.add(route.path);
        app.options(route.path, preflight);
      }
      continue;
    }
    const cors = route.cors ? corsFor(ctx.config.frontend.origins) : null;
    if (route.cors && !preflighted.has(route.path)) {
      preflighted.add(route.path);
      app.options(route.path, preflight);
    }
    // Admin routes are logged whatever their answer; the others only when refused or failed.
    const admin = route.permission !== undefined;
    // On a cluster, everything but SDK routes sees what any node acknowledged before it arrived.
    const barrier = route.auth === undefined && !route.eventual ? ctx.barrier : undefined;
    app[verb](route.path, async (req: Request, res: ServerResponse) => {
      const params = req.params ?? {};
      const { metrics, access } = ctx;
      // Who was accepted, for the access line: set once authentication succeeds.
      let token: string | null = null;
      if (metrics || access) {
        const started = performance.now();
        res.once('finish', () => {
          const ms = performance.now() - started;
          metrics?.observe(route.method, route.path, res.statusCode, ms);
          if (access && AccessLog.wanted(admin, res.statusCode, route.background === true && isBackgroundPoll(req))) access.write(res, { method: route.method, route: route.path, status: res.statusCode, ms, token });
        });
      }
      try {
        // Between two slices of a large change's apply (an import) the state is half-changed:
        // nothing here reads it until the change is whole. Nothing waits otherwise.
        const applying = ctx.engine.applying;
        if (applying) await applying;
        // First, so that every answer carries them, errors included: a browser cannot read one without.
        if (cors) cors(req, res);
        // Before anything else, whatever the auth mode: a browser's credentials (or none needed)
        // must not let a page on another site act here. GETs never get this far on the fast path.
        if (route.crossOrigin !== 'allowed' && !route.cors) refuseCrossOrigin(req);
        // Before authentication: a token or person made on another node is known here too.
        if (barrier) await barrier.wait();
        // Authenticate before reading the body: a stranger learns nothing about validation.
        // The change-request gate, for admin routes only; it asks who calls only where it must.
        const gate = route.permission ? ctx.directChanges : undefined;
        const caller = gate ? () => ctx.auth.caller(req) : undefined;
        let actor: Actor = { name: 'anonymous', userId: null };
        if (route.permission) {
          const scope = route.scope ? route.scope(params, ctx.engine.state) : {};
          actor = ctx.auth.admin(req, route.permission, scope);
          if (gate) gate(ctx.engine.state, route, scope, caller!);
        }
        const client = route.auth === undefined ? undefined : ctx.auth[route.auth](req);
        if (route.permission) token = actor.name;
        else if (client) token = client.actor.name;
        let body: unknown;
        if (HAS_BODY.has(route.method)) {
          if (!route.anyContentType) requireJson(req);
          body = route.anyContentType && !req.headers['content-type']
            ? undefined
            : route.anyContentType
              ? await readJson(req, route.bodyLimit ?? ctx.config.http.bodyLimit).catch(() => undefined)
              : await (route.largeBody ? readLargeJson : readJson)(req, route.bodyLimit ?? ctx.config.http.bodyLimit);
          if (route.body) body = route.largeBody ? await ctx.schemas.checkInSlices(route.body, body, new Slicer()) : ctx.schemas.check(route.body, body);
          if (route.bodyScopes) {
            for (const scope of route.bodyScopes(body, params, ctx.engine.state)) {
              ctx.auth.admin(req, route.permission!, scope);
              if (gate) gate(ctx.engine.state, route, scope, caller!);
            }
          }
        }
        const reply = await route.handler({ req, res, params, query: req.query as Call['query'], body, actor, client });
        // An admin answer names its request (errors do in sendError), in the one writeHead of sendJson;
        // on a cluster, the last record of the log this answer reflects.
        if (reply) {
          let headers = reply.headers;
          if (admin && access) headers = { ...headers, 'X-Request-Id': requestIdOf(res) };
          if (barrier) headers = { ...headers, 'X-Fanion-Log-Position': String(barrier.position()) };
          sendReply(res, headers === reply.headers ? reply : { ...reply, headers });
        }
      } catch (err) {
        countRefusal(ctx, err);
        const own = route.protocolErrors?.(err, { params }) ?? null;
        if (own) sendReply(res, own);
        else sendError(res, err, ctx.log, { method: req.method, route: route.path });
      }
    });
  }
}

function sendReply(res: ServerResponse, reply: Reply): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, reply.status, reply.body, reply.headers);
}

/** Declarations that cannot work are refused at start-up, not at the first request. */
function checkRoute(ctx: AppContext, route: RouteDef): void {
  const where = `${route.method} ${route.path}`;
  if (route.fastPath && (route.method !== 'GET' || route.permission)) throw new Error(`${where}: fastPath is only for GETs without a permission`);
  if (route.body) {
    if (!HAS_BODY.has(route.method)) throw new Error(`${where}: a ${route.method} has no body to validate`);
    ctx.schemas.nameOf(route.body);
    if (route.largeBody) ctx.schemas.prepareSlices(route.body);
  }
  if (route.reply) ctx.schemas.nameOf(route.reply);
  if (route.background && route.method !== 'GET') throw new Error(`${where}: only a GET may be a background read`);
  if (route.bodyScopes && !route.permission) throw new Error(`${where}: bodyScopes need a permission to check`);
  // An admin route takes a session cookie, which a browser sends by itself: it must keep the
  // cross-origin check (origin.ts), which routes open to other sites skip.
  if (route.permission && (route.cors || route.crossOrigin === 'allowed')) throw new Error(`${where}: an admin route cannot be open to other sites`);
}
