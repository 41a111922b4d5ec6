// /api/admin/api-tokens. The secret exists in clear only in the 201 answer of a POST and in the
// caller's hands; PUT/DELETE take it in the path (or the listed id) and hash it straight away.
import type { AppContext, RouteDef } from '../../http/route.js';
import { generateToken, tokenPrefix } from './format.js';
import type { TokenHasher } from './hasher.js';
import {
  createToken, deleteToken, specFromBody, tokenView, updateTokenExpiry, type CreateTokenBody, type TokenRef,
} from './logic.js';
import { tokenReplies, tokenSchemas } from './schema.js';

const BASE = '/api/admin/api-tokens';
const TAG = 'API tokens';

/** Path prefix whose remainder may be a secret: never echoed in messages or logs. */
export const SECRET_PATH_PREFIX = `${BASE}/`;

/** Routes of `/api/admin/api-tokens`; the hasher turns secrets into the hashes stored. */
export function tokenRoutes(hasher: TokenHasher) {
  return (ctx: AppContext): RouteDef[] => {
    ctx.schemas.addAll(tokenSchemas);
    ctx.schemas.describe(tokenReplies);
    const { engine } = ctx;
    const ref = (param: string): TokenRef => ({ hash: hasher.hash(param), id: param });
    const listed = (keep: (name: string) => boolean) =>
      [...engine.state.apiTokens.values()]
        .filter((t) => keep(t.tokenName))
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.hash < b.hash ? -1 : 1))
        .map(tokenView);
    // Every answer here is about secrets (one carries it, others were asked for by it): no cache,
    // shared or private, may keep any of them.
    const NO_STORE = { 'Cache-Control': 'no-store' };
    return [
      {
        method: 'GET', path: BASE, tag: TAG, summary: 'List API tokens (without their secrets)', reply: tokenReplies.apiTokensSchema, permission: 'ADMIN',
        handler: () => ({ status: 200, body: { tokens: listed(() => true) }, headers: NO_STORE }),
      },
      {
        method: 'GET', path: `${BASE}/:token`, tag: TAG, summary: 'List the API tokens with this name (the path segment is a token name here)', reply: tokenReplies.apiTokensSchema, permission: 'ADMIN',
        handler: ({ params }) => ({ status: 200, body: { tokens: listed((n) => n === params.token) }, headers: NO_STORE }),
      },
      {
        method: 'POST', path: BASE, tag: TAG, summary: 'Create an API token; the answer is the only place its secret is shown', reply: tokenReplies.createdApiTokenSchema,
        body: tokenSchemas.createApiTokenSchema, permission: 'ADMIN', responses: { 201: 'Created, with the secret', 400: 'Invalid' },
        handler: async ({ body, actor }) => {
          const spec = specFromBody(body as CreateTokenBody);
          const secret = generateToken(spec.projects, spec.environment);
          const view = await engine.run(actor, createToken(spec, hasher.hash(secret), tokenPrefix(spec.projects, spec.environment)));
          return { status: 201, body: { secret, ...view }, headers: NO_STORE };
        },
      },
      {
        method: 'PUT', path: `${BASE}/:token`, tag: TAG, summary: "Change a token's expiry (by secret or id)", reply: tokenReplies.apiTokenSchema,
        body: tokenSchemas.updateApiTokenSchema, permission: 'ADMIN', responses: { 200: 'Updated', 404: 'Unknown token' },
        handler: async ({ params, body, actor }) => ({
          status: 200,
          body: await engine.run(actor, updateTokenExpiry(ref(params.token), (body as { expiresAt: string | null }).expiresAt)),
          headers: NO_STORE,
        }),
      },
      {
        method: 'DELETE', path: `${BASE}/:token`, tag: TAG, summary: 'Delete a token (by secret or id); it can never come back',
        permission: 'ADMIN', responses: { 200: 'Deleted', 404: 'Unknown token' },
        handler: async ({ params, actor }) => {
          await engine.run(actor, deleteToken(ref(params.token)));
          return { status: 200, headers: NO_STORE };
        },
      },
    ];
  };
}
