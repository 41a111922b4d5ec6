// OpenFeature Remote Evaluation Protocol 0.3 (docs/reference/frontend-api-and-ofrep.md): any OpenFeature client asks for a
// flag (or all of them) for a context, with a frontend or client token. An Unleash flag maps as the
// community providers map it: a boolean evaluation is the flag's on/off; a string, number or object
// evaluation is the chosen variant's payload (a json payload parsed). The server cannot know which
// type the caller asked for: it sends the payload when the chosen variant has one, else the on/off,
// and leaves TYPE_MISMATCH to the client. Errors have OFREP's shapes, not Unleash's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientScope } from '../../core/access/access.js';
import { etagMatches } from '../client-api/conditional.js';
import type { Evaluator, Render } from '../evaluation/answers.js';
import type { EvalContext } from '../evaluation/context.js';
import type { Evaluation } from '../evaluation/evaluate.js';
import { AuthenticationRequired, ContentTypeError, NoAccessError, NotFoundError, PayloadTooLargeError, ValidationError } from '../../core/errors.js';
import { callerAddress, contextFromObject } from '../frontend/context.js';
import { NOSNIFF } from '../../http/respond.js';
import type { AppContext, Reply, RouteDef } from '../../http/route.js';
import { ofrepReplies, ofrepSchemas } from './schema.js';

const TAG = 'OFREP';
const JSON_TYPE = 'application/json; charset=utf-8';

/** A payload as the value OpenFeature reads: numbers and JSON parsed, the rest as text. */
function payloadValue(p: { type: string; value: string }): unknown {
  if (p.type === 'number') {
    const n = Number(p.value);
    return Number.isFinite(n) && p.value.trim() !== '' ? n : p.value;
  }
  if (p.type === 'json') {
    try {
      return JSON.parse(p.value);
    } catch {
      return p.value;
    }
  }
  return p.value;
}

/** One flag's OFREP result. */
export function ofrepResult(key: string, e: Evaluation): Record<string, unknown> {
  const out: Record<string, unknown> = { key, reason: e.reason };
  if (e.enabled && e.variant.enabled) {
    out.variant = e.variant.name;
    out.value = e.variant.payload ? payloadValue(e.variant.payload) : true;
  } else {
    out.variant = e.enabled ? 'enabled' : 'disabled';
    out.value = e.enabled;
  }
  out.metadata = { enabled: e.enabled };
  return out;
}

/** The bulk answer's body (one function for every answer: a kept answer holds its renderer). */
const renderBulk: Render = (flags, evaluations) => JSON.stringify({ flags: flags.map((f, i) => ofrepResult(f.name, evaluations[i])) });

/** OFREP's answers to errors: 401/403 without a body, the rest as {key?, errorCode, errorDetails}. */
function ofrepError(err: unknown, { params }: { params: Record<string, string> }): Reply | null {
  const key = params.key !== undefined ? { key: params.key } : {};
  if (err instanceof AuthenticationRequired) return { status: 401 };
  if (err instanceof NoAccessError) return { status: 403 };
  if (err instanceof NotFoundError) return { status: 404, body: { ...key, errorCode: 'FLAG_NOT_FOUND', errorDetails: err.message } };
  if (err instanceof ContentTypeError || (err instanceof ValidationError && /not valid JSON/.test(err.message))) {
    return { status: 400, body: { ...key, errorCode: 'PARSE_ERROR', errorDetails: err.message } };
  }
  if (err instanceof ValidationError) return { status: 400, body: { ...key, errorCode: 'INVALID_CONTEXT', errorDetails: err.message } };
  if (err instanceof PayloadTooLargeError) return { status: 413, body: { ...key, errorCode: 'GENERAL', errorDetails: err.message } };
  return null;
}

/** OFREP routes over the shared evaluator. */
export function ofrepRoutes(ctx: AppContext, evaluator: Evaluator): RouteDef[] {
  ctx.schemas.addAll(ofrepSchemas);
  ctx.schemas.describe(ofrepReplies);
  const contextOf = (req: IncomingMessage, scope: ClientScope, body: unknown): EvalContext =>
    contextFromObject((body as { context?: Record<string, unknown> } | undefined)?.context, { remoteAddress: callerAddress(req, ctx.config.http.trustProxy), environment: scope.environment }, true);
  const common = { tag: TAG, auth: 'evaluator' as const, cors: true, body: ofrepSchemas.ofrepRequestSchema, protocolErrors: ofrepError, errorReply: ofrepReplies.ofrepErrorSchema };
  return [
    {
      ...common, method: 'POST', path: '/ofrep/v1/evaluate/flags/:key', reply: ofrepReplies.ofrepResultSchema,
      summary: 'Evaluate one flag for a context (OFREP 0.3)',
      responses: { 200: 'The result', 400: 'PARSE_ERROR or INVALID_CONTEXT', 401: 'No or unknown token', 403: 'An admin token', 404: 'FLAG_NOT_FOUND' },
      handler: ({ req, params, client, body }) => {
        const e = evaluator.one(client!, params.key, contextOf(req, client!, body));
        if (!e) throw new NotFoundError(`No flag "${params.key}" for this token.`);
        return { status: 200, body: ofrepResult(params.key, e) };
      },
    },
    {
      ...common, method: 'POST', path: '/ofrep/v1/evaluate/flags', reply: ofrepReplies.ofrepBulkSchema,
      summary: 'Evaluate every flag the token sees for a context (OFREP 0.3 bulk), with an ETag',
      responses: { 200: 'The results', 304: 'The same answer as the ETag in If-None-Match', 400: 'PARSE_ERROR or INVALID_CONTEXT', 401: 'No or unknown token', 403: 'An admin token' },
      handler: ({ req, res, client, body }) => {
        send(req, res, evaluator.all('ofrep', client!, contextOf(req, client!, body), renderBulk));
      },
    },
  ];
}

function send(req: IncomingMessage, res: ServerResponse, a: { etag: string; body: Buffer }): void {
  if (etagMatches(req.headers['if-none-match'], a.etag)) {
    res.writeHead(304, ['ETag', a.etag, ...NOSNIFF]);
    res.end();
    return;
  }
  res.writeHead(200, ['Content-Type', JSON_TYPE, 'Content-Length', String(a.body.length), 'ETag', a.etag, ...NOSNIFF]);
  res.end(a.body);
}
