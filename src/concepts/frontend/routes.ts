// The Frontend API (docs/reference/frontend-api-and-ofrep.md): which flags are on for this context, evaluated by the server
// for browser and mobile SDKs holding a frontend token. The ETag is derived from the evaluated
// body, so a browser that changes its context while sending its old ETag still gets a fresh answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientScope } from '../../core/access/access.js';
import { etagMatches } from '../client-api/conditional.js';
import { clientMetricsSchemas, type MetricsBody } from '../client-metrics/schema.js';
import { sdkHeaders } from '../client-metrics/sdk-headers.js';
import type { ClientMetricsStore } from '../client-metrics/store.js';
import type { Answer, Evaluator } from '../evaluation/answers.js';
import type { EvalContext } from '../evaluation/context.js';
import type { Evaluation } from '../evaluation/evaluate.js';
import { corsHeaders } from '../../http/cors.js';
import { NOSNIFF } from '../../http/respond.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { callerAddress, contextFromObject, contextFromQuery } from './context.js';
import { frontendReplies, frontendSchemas } from './schema.js';

const TAG = 'Frontend API';
const JSON_TYPE = 'application/json; charset=utf-8';

// Serialized once per prepared flag and per variant: an answer is then joined text, not objects
// turned into JSON each time.
const prefixes = new WeakMap<object, string>();
const variantTexts = new WeakMap<object, string>();

function prefixOf(flag: { name: string; impressionData: boolean }): string {
  let p = prefixes.get(flag);
  if (p === undefined) prefixes.set(flag, (p = `{"name":${JSON.stringify(flag.name)},"enabled":true,"impressionData":${flag.impressionData},"variant":`));
  return p;
}

function variantText(v: Evaluation['variant']): string {
  let text = variantTexts.get(v);
  if (text === undefined) {
    const variant = v.payload
      ? { name: v.name, enabled: v.enabled, payload: v.payload, feature_enabled: true, featureEnabled: true }
      : { name: v.name, enabled: v.enabled, feature_enabled: true, featureEnabled: true };
    variantTexts.set(v, (text = JSON.stringify(variant)));
  }
  return text;
}

/** The toggles of a frontend answer: the enabled flags, each with its variant. */
export function renderToggles(flags: readonly { name: string; impressionData: boolean }[], evaluations: readonly Evaluation[]): string {
  let out = '{"toggles":[';
  let first = true;
  for (let i = 0; i < flags.length; i++) {
    const e = evaluations[i];
    if (!e.enabled) continue;
    out += `${first ? '' : ','}${prefixOf(flags[i])}${variantText(e.variant)}}`;
    first = false;
  }
  return `${out}]}`;
}

/** Frontend API routes over the evaluator and the metrics store the composition root built. */
export function frontendRoutes(ctx: AppContext, evaluator: Evaluator, store: ClientMetricsStore): RouteDef[] {
  ctx.schemas.addAll(frontendSchemas);
  ctx.schemas.describe(frontendReplies);
  const defaults = (req: IncomingMessage, scope: ClientScope) => ({ remoteAddress: callerAddress(req, ctx.config.http.trustProxy), environment: scope.environment });
  const origins = ctx.config.frontend.origins;
  const send = (req: IncomingMessage, res: ServerResponse, a: Answer) => {
    const cors = corsHeaders(origins, req);
    if (etagMatches(req.headers['if-none-match'], a.etag)) {
      // Browsers poll with the ETag they have: this is the common answer, so no spread lists here.
      res.writeHead(304, cors.length === 2
        ? ['ETag', a.etag, 'Cache-Control', 'no-cache', 'Vary', 'Origin', NOSNIFF[0], NOSNIFF[1]]
        : ['ETag', a.etag, 'Cache-Control', 'no-cache', ...cors, ...NOSNIFF]);
      res.end();
      return;
    }
    const body = a.body;
    res.writeHead(200, ['Content-Type', JSON_TYPE, 'Content-Length', String(body.length), 'ETag', a.etag, 'Cache-Control', 'no-cache', ...cors, ...NOSNIFF]);
    res.end(body);
  };
  const answer = (req: IncomingMessage, res: ServerResponse, scope: ClientScope, context: EvalContext) => send(req, res, evaluator.all('frontend', scope, context, renderToggles));
  const responses = { 200: 'The enabled flags with their variants', 304: 'The same answer as the ETag in If-None-Match', 400: 'A context out of bounds', 401: 'No or unknown token', 403: 'Not a frontend token' };
  return [
    {
      method: 'GET', path: '/api/frontend', tag: TAG, auth: 'frontend', cors: true, fastPath: true, reply: frontendReplies.frontendTogglesSchema,
      summary: 'The flags on for the context in the query (userId, sessionId, remoteAddress, properties[x]=…)', responses,
      handler: ({ req, res, client }) => {
        // A browser repeats its request as is: answered by the raw query and caller, unparsed.
        const search = (req as { search?: string }).search ?? '';
        const address = callerAddress(req, ctx.config.http.trustProxy);
        send(req, res, evaluator.byRequest('frontend', client!, `${address}\u0000${search}`, () => contextFromQuery(search, { remoteAddress: address, environment: client!.environment }), renderToggles));
      },
    },
    {
      method: 'POST', path: '/api/frontend', tag: TAG, auth: 'frontend', cors: true, body: frontendSchemas.frontendRequestSchema, reply: frontendReplies.frontendTogglesSchema,
      summary: 'The flags on for the context in the body ({context}), for contexts too large for a URL', responses,
      handler: ({ req, res, client, body }) => answer(req, res, client!, contextFromObject((body as { context?: Record<string, unknown> }).context, defaults(req, client!))),
    },
    {
      method: 'POST', path: '/api/frontend/client/metrics', tag: TAG, auth: 'frontend', cors: true, body: clientMetricsSchemas.clientMetricsSchema,
      summary: 'Evaluation counts from a browser SDK, into the same store as the client API\'s', responses: { 200: 'Accepted', 400: 'Malformed body' },
      handler: ({ req, body, client }) => {
        store.record(client!, body as MetricsBody, ctx.engine.now().toISOString(), sdkHeaders(req.headers), 'frontend');
        return { status: 200 };
      },
    },
    {
      method: 'POST', path: '/api/frontend/client/register', tag: TAG, auth: 'frontend', cors: true, anyContentType: true,
      summary: 'A browser SDK announces itself (accepted; browsers are counted through their metrics)', responses: { 200: 'Accepted' },
      handler: () => ({ status: 200 }),
    },
  ];
}
