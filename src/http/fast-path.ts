// The SDK hot path: GETs served by a synchronous handler, and routes answered before polka.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'polka';
import type { Actor } from '../core/state/types.js';
import { corsFor } from './cors.js';
import { countRefusal } from './refusals.js';
import { sendError, sendJson } from './respond.js';
import type { AppContext, Call, RouteDef } from './route.js';

const ANONYMOUS: Actor = Object.freeze({ name: 'anonymous', userId: null });

/** The SDK hot path: no body, no permission, a synchronous handler, so no promise of ours per request. */
export function syncGet(ctx: AppContext, route: RouteDef): (req: Request, res: ServerResponse) => void {
  // A browser route's handler puts the CORS headers in its own answer; an error gets them here.
  const cors = route.cors ? corsFor(ctx.config.frontend.origins) : null;
  // Successful answers here are SDK and browser traffic, never logged; refusals and failures are.
  // Their latency is timed from the failure on: reading the clock for every poll, for the rare one
  // that fails, would put work on the hot path (what came before a refusal is the token lookup).
  const fail = (req: Request, res: ServerResponse, err: unknown, token: string | null) => {
    const started = performance.now();
    countRefusal(ctx, err);
    if (cors && !res.headersSent) cors(req, res);
    sendError(res, err, ctx.log, { method: req.method, route: route.path });
    ctx.access?.write(res, { method: 'GET', route: route.path, status: res.statusCode, ms: performance.now() - started, token });
  };
  const handle = (req: Request, res: ServerResponse): void => {
    // Between two slices of a large change's apply the state is half-changed: wait until it is whole.
    const applying = route.answersWhileApplying ? null : ctx.engine.applying;
    if (applying) {
      void applying.then(() => handle(req, res));
      return;
    }
    let token: string | null = null;
    try {
      const client = route.auth === undefined ? undefined : ctx.auth[route.auth](req);
      if (client) token = client.actor.name;
      const reply = route.handler({ req, res, params: req.params ?? {}, query: (req.query ?? {}) as Call['query'], body: undefined, actor: ANONYMOUS, client });
      if (reply instanceof Promise) {
        reply.then((r) => r && sendJson(res, r.status, r.body, r.headers), (err) => fail(req, res, err, token));
      } else if (reply) {
        sendJson(res, reply.status, reply.body, reply.headers);
      }
    } catch (err) {
      fail(req, res, err, token);
    }
  };
  return handle;
}

/**
 * A route answered before polka routes anything (the SDK poll and the Frontend API's GET, chosen
 * by the client API's front door). Measured: polka's URL parse, route lookup and middleware loop
 * cost about as much CPU as the whole 304 answer, which kept the 304 path well under the raw
 * node:http baseline.
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
