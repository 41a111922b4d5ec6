// GET /api/client/streaming (server-sent events) and GET /api/client/delta: the official SDK's
// streaming and delta modes (docs/reference/client-api.md, "Push"), with the token's scope and the same query filters
// as /api/client/features.
import { clientFilter } from '../client-api/query.js';
import { NOSNIFF } from '../../http/respond.js';
import type { RouteDef } from '../../http/route.js';
import type { SchemaRegistry } from '../../http/validation.js';
import type { PushHub } from './hub.js';
import { pushReplies } from './schema.js';

const TAG = 'Client';

/** An event id as an SDK sends it back: `123`, `"123"` or `W/"123"`; anything else is no id. */
export function eventIdOf(raw: string | string[] | undefined): number | undefined {
  const text = Array.isArray(raw) ? raw[0] : raw;
  const m = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(text ?? '');
  return m ? Number(m[1]) : undefined;
}

const search = (req: { search?: string | null }) => req.search ?? '';

export function pushRoutes(hub: PushHub, schemas: SchemaRegistry): RouteDef[] {
  schemas.describe(pushReplies);
  return [
    {
      method: 'GET', path: '/api/client/streaming', tag: TAG, auth: 'client',
      summary: 'Server-sent events: unleash-connected (a hydration, or the changes since Last-Event-ID), then unleash-updated per durable change',
      responses: {
        200: 'An event stream (text/event-stream), open until the client or the server ends it', 400: 'Malformed tag filter', 401: 'No or unknown token',
        403: 'Not a client token', 429: 'STREAMING_MAX_CONNECTIONS streams are open, or STREAMING_MAX_CONNECTIONS_PER_TOKEN of this token: poll instead',
      },
      handler: async ({ req, res, client }) => {
        await hub.open(req, res, client!, clientFilter(client!, search(req)), eventIdOf(req.headers['last-event-id']), NOSNIFF);
      },
    },
    {
      method: 'GET', path: '/api/client/delta', tag: TAG, auth: 'client', reply: pushReplies.deltaSchema,
      summary: 'The changes since the revision in If-None-Match (a hydration when it is absent, unknown or too old); ETag is the new revision',
      responses: { 200: 'The events', 304: 'Nothing the token sees changed', 400: 'Malformed tag filter', 401: 'No or unknown token', 403: 'Not a client token' },
      handler: async ({ req, res, client }) => {
        const answer = await hub.delta(clientFilter(client!, search(req)), eventIdOf(req.headers['if-none-match']));
        const headers = ['ETag', answer.etag, 'Cache-Control', 'no-cache', ...NOSNIFF];
        if (answer.body === null) {
          res.writeHead(304, headers);
          res.end();
          return;
        }
        res.writeHead(200, ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(answer.body.length), ...headers]);
        res.end(answer.body);
      },
    },
  ];
}
