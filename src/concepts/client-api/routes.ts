// GET /api/client/features[/:name]: what SDKs poll. The poll is decided and written by the front
// door (front-door.ts) from prebuilt bytes; all the work happens once per change in snapshot.ts.
import { NotFoundError } from '../../core/errors.js';
import { NOSNIFF } from '../../http/respond.js';
import type { RouteDef } from '../../http/route.js';
import type { SchemaRegistry } from '../../http/validation.js';
import type { FrontDoor } from './front-door.js';
import type { ClientSnapshot } from './snapshot.js';
import { clientReplies } from './schema.js';

const TAG = 'Client';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The SDK poll routes, answered from the snapshot the core (entry/core.ts) keeps up to date.
 * The poll's handler is the front door's: mounted on the router too, it answers the paths the door
 * leaves to it (a trailing slash) and gives the router what a 405 and the OpenAPI document need.
 */
export function clientApiRoutes(snapshot: ClientSnapshot, schemas: SchemaRegistry, door: FrontDoor): RouteDef[] {
  schemas.describe(clientReplies);
  return [
    {
      method: 'GET', path: '/api/client/features', tag: TAG, auth: 'client', fastPath: true, answersWhileApplying: true,
      summary: "Every flag in the token's environment and projects, filtered by tag, project and namePrefix", reply: clientReplies.clientFeaturesSchema,
      responses: { 200: 'The flags', 304: 'Not modified since the ETag in If-None-Match', 400: 'Malformed tag filter', 401: 'No or unknown token', 403: 'Not a client token' },
      handler: ({ req, res, client }) => door.answer(req, res, client!),
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
