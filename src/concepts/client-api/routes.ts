// GET /api/client/features[/:name]: what SDKs poll. The handler is a cache lookup plus writing
// prebuilt bytes; all the work happens once per change in snapshot.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NotFoundError } from '../../core/errors.js';
import { NOSNIFF } from '../../http/respond.js';
import type { RouteDef } from '../../http/route.js';
import type { SchemaRegistry } from '../../http/validation.js';
import { acceptsGzip, etagMatches } from './conditional.js';
import type { CachedResponse, ClientSnapshot } from './snapshot.js';
import type { HotCounters } from '../../http/counters.js';
import { clientReplies } from './schema.js';
import type { RepeatPolls } from './repeat-polls.js';

const TAG = 'Client';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The SDK poll routes, answered from the snapshot the core (entry/core.ts) keeps up to date.
 * `repeats` remembers each answer made from the current state for the connection's next identical poll.
 */
export function clientApiRoutes(
  snapshot: ClientSnapshot,
  schemas: SchemaRegistry,
  hot?: HotCounters,
  applying: () => Promise<void> | null = () => null,
  repeats?: RepeatPolls,
): RouteDef[] {
  schemas.describe(clientReplies);
  return [
    {
      method: 'GET', path: '/api/client/features', tag: TAG, auth: 'client', fastPath: true, answersWhileApplying: true,
      summary: "Every flag in the token's environment and projects, filtered by tag, project and namePrefix", reply: clientReplies.clientFeaturesSchema,
      responses: { 200: 'The flags', 304: 'Not modified since the ETag in If-None-Match', 400: 'Malformed tag filter', 401: 'No or unknown token', 403: 'Not a client token' },
      handler: ({ req, res, client }) => {
        const search = (req as { search?: string }).search ?? '';
        const send = (entry: CachedResponse) => sendPoll(req, res, entry, client!.environment, hot);
        // While an import is being applied a slice at a time, the answer cached before it is still
        // whole and consistent: SDKs get it at once. Only an answer that would read the state waits.
        const pending = applying();
        const cached = pending === null ? null : snapshot.cachedResponse(client!, search);
        if (pending !== null && cached === null) return pending.then(() => send(snapshot.response(client!, search)));
        const entry = cached ?? snapshot.response(client!, search);
        // Not the answer cached before a change still being applied: the change's own notice may
        // have come already, and nothing would then make the connection forget that answer.
        if (pending === null) repeats?.remember(req, client!, entry.etag, entry.headers.notModified);
        send(entry);
      },
    },
    {
      method: 'GET', path: '/api/client/features/:featureName', tag: TAG, auth: 'client', fastPath: true,
      summary: 'One flag as SDKs see it (for debugging)', reply: clientReplies.clientFeatureSchema,
      responses: { 200: 'The flag', 404: 'Unknown, archived or outside the token\'s projects' },
      handler: ({ res, params, client }) => {
        const bytes = snapshot.feature(client!, params.featureName);
        if (!bytes) throw new NotFoundError(`Could not find feature flag ${params.featureName}`);
        res.writeHead(200, ['Content-Type', JSON_TYPE, 'Content-Length', String(bytes.length), ...NOSNIFF]);
        res.end(bytes);
      },
    },
  ];
}

/** Writes a poll's answer: 304 when the ETag matches, else the bytes (gzipped if the client takes it). */
function sendPoll(req: IncomingMessage, res: ServerResponse, entry: CachedResponse, environment: string, hot: HotCounters | undefined): void {
  const { headers } = entry;
  if (etagMatches(req.headers['if-none-match'], entry.etag)) {
    hot?.poll(environment, 304);
    res.writeHead(304, headers.notModified);
    res.end();
    return;
  }
  hot?.poll(environment, 200);
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
