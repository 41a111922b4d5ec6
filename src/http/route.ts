// The route contract: what each concept's routes.ts declares (method, path, body schema,
// permission and scopes, handler), and what handlers receive. The pipeline (pipeline.ts) turns
// declarations into handlers; openapi.ts describes them.
import type { AccessLog } from './access-log.js';
import type { RequestMetrics } from './counters.js';
import type { ServerResponse } from 'node:http';
import type { Request } from 'polka';
import type { AdminCaller, AdminScope, Authenticator, ClientScope } from '../core/access/access.js';
import type { Config } from '../core/config.js';
import type { Engine } from '../core/engine/engine.js';
import type { Logger } from '../core/logger.js';
import type { State } from '../core/state/state.js';
import type { Actor } from '../core/state/types.js';
import type { JsonSchema, SchemaRegistry } from './validation.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Call<B = unknown> {
  req: Request;
  res: ServerResponse;
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: B;
  /** Set on admin routes (those with a permission). */
  actor: Actor;
  /** Set on routes with `auth`: what the SDK's token may see. */
  client?: ClientScope;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef {
  method: Method;
  path: string;
  summary: string;
  tag: string;
  /**
   * The JSON body's schema (an object some module registered, see SchemaRegistry): the body is
   * validated against it before the handler runs, and it is the route's OpenAPI request body.
   */
  body?: JsonSchema;
  /**
   * The schema of the body of the route's 2xx answer (registered with `describe`): its OpenAPI
   * response schema. Absent when the answer has no body.
   */
  reply?: JsonSchema;
  bodyLimit?: number;
  /**
   * A body of megabytes (imports): validated in slices (SchemaRegistry.checkInSlices), so that
   * health checks and polls are answered while it is checked.
   */
  largeBody?: boolean;
  /**
   * The handler looks after itself while a change is applied a slice at a time (Engine.applying):
   * it answers from caches, or waits. Other fast-path routes are held until the change is whole.
   */
  answersWhileApplying?: boolean;
  /** Unleash lets on/off be called with any content type (or none). */
  anyContentType?: boolean;
  /** Admin permission required; routes without one authenticate themselves (client API, health). */
  permission?: string;
  /**
   * Authenticate an SDK before the body is read: 'client' (back-end SDKs), 'frontend' (browser
   * and mobile SDKs), 'evaluator' (OFREP: frontend or client tokens). The scope is `call.client`.
   */
  auth?: 'client' | 'frontend' | 'evaluator';
  /**
   * Browsers on any allowed origin (FRONTEND_API_ORIGINS) call it: CORS headers on every answer,
   * errors included, and preflights answered (http/cors.ts).
   */
  cors?: boolean;
  /** The schema of the error bodies of a protocol with its own (OFREP); 401 and 403 then have none. */
  errorReply?: JsonSchema;
  /** A protocol with error bodies of its own (OFREP): maps an error to its answer, or null for the usual one. */
  protocolErrors?: (err: unknown, call: { params: Record<string, string> }) => Reply | null;
  /**
   * An SDK GET served with a synchronous handler (no promise of ours per request); the client
   * features poll and the Frontend API's GET are also answered before polka routes anything (the
   * client API's front door). Only for GETs
   * without a permission: mount refuses it anywhere else.
   */
  fastPath?: boolean;
  /**
   * On a cluster, answered from this node's state as it is, without first applying what other
   * nodes acknowledged (AppContext.barrier): operations' own reads (metrics). SDK routes (`auth`)
   * are answered so anyway; every other route waits.
   */
  eventual?: boolean;
  /**
   * Browsers on other origins may call it (a later frontend API, with its own CORS rules);
   * every other state-changing route refuses cross-origin browser requests (http/origin.ts).
   */
  crossOrigin?: 'allowed';
  /**
   * `false`: the route changes no environment directly although it takes a body and a permission
   * (a dry run such as an import's validation; the change-request workflow's own routes), so the
   * change-request gate (AppContext.directChanges) leaves it alone.
   */
  directChange?: false;
  scope?: (params: Record<string, string>, state: State) => AdminScope;
  /**
   * Scopes named in the body (a segment's project, the environments of a batch): the permission
   * is checked for each, once the body is valid, before the handler runs.
   */
  bodyScopes?: (body: any, params: Record<string, string>, state: State) => AdminScope[];
  responses?: Record<number, string>;
  /**
   * A read the console repeats on a timer (the event cursor, usage, applications): a successful
   * answer to a request marked as a background poll (access-log.ts) is left out of the access log.
   * GETs only, so a mutation is always logged; a refusal or a failure is too.
   */
  background?: boolean;
  /** Returns a Reply to send, or nothing when it wrote the response itself. */
  handler: (call: Call<any>) => Promise<Reply | void> | Reply | void;
}

export type DirectChangeGate = (state: State, route: RouteDef, scope: AdminScope, caller: () => AdminCaller) => void;

export interface AppContext {
  /** Where requests are counted for /internal-backstage/prometheus (absent in unit tests of the pipeline). */
  metrics?: RequestMetrics;
  /** Where admin requests and refused or failed ones are logged (absent in unit tests of the pipeline). */
  access?: AccessLog;
  engine: Engine;
  config: Config;
  log: Logger;
  schemas: SchemaRegistry;
  auth: Authenticator;
  /**
   * The change-request gate: called for every scope an admin route's caller was authorized on
   * (the path's, then the body's), after authorization, before the handler; throws (403) when
   * the change needs a change request and the caller may not skip it. `caller` is asked only
   * when needed. Absent in unit tests of the pipeline.
   */
  directChanges?: DirectChangeGate;
  /**
   * On a cluster node: read-your-writes across nodes. `wait` resolves once the node has applied
   * the shared log up to its head (or throws a 503 saying why not); `position` is the last record
   * applied, sent as X-Fanion-Log-Position.
   */
  barrier?: { wait(): Promise<void>; position(): number };
}
