// POST /edge/validate {tokens: [...]} → {tokens: [{token, type, projects, environment, expiresAt?}]}: of the
// tokens given, those an SDK or a relay may use (client and frontend ones that exist and have not
// expired), in the order given, in Unleash 8.2's shape. Nothing is said of the others, not even
// why: they are absent, and the answer is the same 200 whatever they were.
//
// Who may ask: Unleash Edge asks with no Authorization header at all (Unleash lets anyone ask), so
// a caller without one is answered, unless EDGE_VALIDATE_REQUIRE_TOKEN=true. Whoever asks learns
// only about tokens it already holds, which the client API would tell it one by one anyway (200 or
// 401). A caller that does send a token must send a client or frontend one that is valid.
import type { AppContext, RouteDef } from '../../http/route.js';
import type { ApiToken } from '../../core/state/types.js';
import { credentialOf } from '../tokens/format.js';
import { EDGE_VALIDATE_BODY_LIMIT, edgeReplies, edgeSchemas } from './schema.js';

/** What the route needs of the API tokens (tokens/token-authenticator.ts). */
export interface TokenCheck {
  sdkTokens(credentials: readonly string[]): { given: string; token: ApiToken }[];
}

export function edgeRoutes(ctx: AppContext, tokens: TokenCheck): RouteDef[] {
  ctx.schemas.addAll(edgeSchemas);
  ctx.schemas.describe(edgeReplies);
  const required = ctx.config.http.edgeValidateRequireToken;
  return [
    {
      method: 'POST', path: '/edge/validate', tag: 'Unleash Edge', eventual: true, body: edgeSchemas.tokenStringListSchema, reply: edgeReplies.validatedEdgeTokensSchema,
      bodyLimit: EDGE_VALIDATE_BODY_LIMIT,
      // Checked before the body is read when a token is required; otherwise in the handler, only
      // when the caller sends one.
      ...(required ? { auth: 'evaluator' as const } : {}),
      summary: 'Which of these tokens a relay may use: the valid client and frontend ones, in order; the others are left out',
      responses: { 200: 'The valid ones', 400: 'Malformed body', 413: 'Body too large', 415: 'Not JSON' },
      handler: ({ req, body }) => {
        const sent = credentialOf(req.headers.authorization) ?? credentialOf(req.headers['x-api-key'] as string | undefined);
        if (!required && sent !== null) ctx.auth.evaluator(req);
        const valid = tokens.sdkTokens((body as { tokens: string[] }).tokens);
        // expiresAt, for a token that has one, is Fanion's own addition (Unleash's answer has no
        // such field; Unleash Edge ignores it): a relay in front keeps it and refuses the token
        // from then on without asking. A token without one is answered exactly as Unleash does.
        return {
          status: 200,
          body: {
            tokens: valid.map(({ given, token: t }) => ({
              token: given, type: t.type, projects: t.projects, environment: t.environment, ...(t.expiresAt !== null ? { expiresAt: t.expiresAt } : {}),
            })),
          },
        };
      },
    },
  ];
}
