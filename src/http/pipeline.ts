// The request pipeline every route but the poll goes through: cross-origin check, authentication
// (before the body is read), content type, body limit, schema, body-named scopes, handler, and
// errors out through the one catalogue.
import type { ServerResponse } from 'node:http';
import type { Polka, Request } from 'polka';
import { readJson, requireJson } from './body.js';
import { syncGet } from './fast-path.js';
import { crossOriginGuard } from './origin.js';
import { sendError, sendJson } from './respond.js';
import type { AppContext, Call, Method, RouteDef } from './route.js';

const HAS_BODY = new Set<Method>(['POST', 'PUT', 'PATCH']);


export function mount(app: Polka, ctx: AppContext, routes: RouteDef[]): void {
  const refuseCrossOrigin = crossOriginGuard(ctx.config.corsOrigins);
  for (const route of routes) {
    const verb = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    checkRoute(ctx, route);
    if (route.fastPath) {
      app.get(route.path, syncGet(ctx, route));
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
          if (route.bodyScopes) for (const scope of route.bodyScopes(body, params)) ctx.auth.admin(req, route.permission!, scope);
        }
        const reply = await route.handler({ req, res, params, query: req.query as Call['query'], body, actor, client });
        if (reply) sendJson(res, reply.status, reply.body, reply.headers);
      } catch (err) {
        sendError(res, err, ctx.log, { method: req.method, path: route.secretInPath ? route.path : req.path });
      }
    });
  }
}

/** Declarations that cannot work are refused at start-up, not at the first request. */
function checkRoute(ctx: AppContext, route: RouteDef): void {
  const where = `${route.method} ${route.path}`;
  if (route.fastPath && (route.method !== 'GET' || route.permission)) throw new Error(`${where}: fastPath is only for GETs without a permission`);
  if (route.body) {
    if (!HAS_BODY.has(route.method)) throw new Error(`${where}: a ${route.method} has no body to validate`);
    ctx.schemas.nameOf(route.body);
  }
  if (route.reply) ctx.schemas.nameOf(route.reply);
  if (route.bodyScopes && !route.permission) throw new Error(`${where}: bodyScopes need a permission to check`);
}
