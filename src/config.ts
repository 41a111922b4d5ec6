// Reads the environment once at start-up; everything else receives a Config.
import path from 'node:path';
import { Address4, Address6 } from 'ip-address';

export type WalSync = 'always' | 'none';
export type AuthType = 'api-token' | 'none';
export type LogFormat = 'json' | 'pretty';

/** Where a cluster's shared log lives: PostgreSQL, as node-postgres takes it (pg.PoolConfig's fields). */
export interface DatabaseConfig {
  connectionString?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  /** false, true, or node's TLS options (DATABASE_SSL as JSON, Unleash's way). */
  ssl: boolean | Record<string, unknown>;
  /** Connections a node keeps for appends, reads and checkpoints (DATABASE_POOL_MAX). */
  poolMax: number;
  /** Connecting, and each statement, must succeed within this, or the write answers 503 (DATABASE_TIMEOUT_MS). */
  timeoutMs: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  walSync: WalSync;
  authType: AuthType;
  logLevel: string;
  /** `json` (one object per line, the default) or `pretty` (coloured lines for people) (LOG_FORMAT). */
  logFormat: LogFormat;
  initAdminTokens: string[];
  initClientTokens: string[];
  initFrontendTokens: string[];
  /** Max JSON body for ordinary routes; state import has its own larger limit. */
  bodyLimit: number;
  importBodyLimit: number;
  /** Checkpoint when the live WAL segment passes either threshold. */
  checkpointBytes: number;
  checkpointRecords: number;
  /** How often buffered client metrics are written to the WAL (ms). */
  metricsFlushMs: number;
  /** Secret that keys the token hash; generated and stored in DATA_DIR when unset. */
  tokenHashKey: string | undefined;
  /** A request's headers must arrive within this (ms). */
  headersTimeoutMs: number;
  /** A whole request, headers and body, must arrive within this (ms); answers are not limited. */
  requestTimeoutMs: number;
  /** MAX_CONNECTIONS; when unset, derived from the descriptor limit at start (http/connections.ts). */
  maxConnections: number | undefined;
  /** Byte budget of the in-memory SDK metrics (applications, instances, counts). */
  clientMetricsMaxBytes: number;
  /** Byte budget of the flag names SDKs report that the server does not have (UNKNOWN_FLAGS_MAX_BYTES). */
  unknownFlagsMaxBytes: number;
  /**
   * POST /edge/validate refuses callers without a client or frontend token (EDGE_VALIDATE_REQUIRE_TOKEN).
   * Off by default: Unleash Edge asks without one, as Unleash lets it.
   */
  edgeValidateRequireToken: boolean;
  /** Browser origins besides the server's own that may send state-changing requests (CORS_ORIGINS). */
  corsOrigins: string[];
  /** Open SSE streams at most (STREAMING_MAX_CONNECTIONS); beyond, 429. */
  streamingMaxConnections: number;
  /** Open SSE streams of one token at most (STREAMING_MAX_CONNECTIONS_PER_TOKEN, a tenth of the above by default); beyond, 429. */
  streamingMaxConnectionsPerToken: number;
  /** A keep-alive comment on every stream this often (STREAMING_KEEPALIVE_MS). */
  streamingKeepAliveMs: number;
  /** Unsent bytes a stream may hold (beyond its first frame, for two keep-alives) before it is dropped (STREAMING_BUFFER_BYTES). */
  streamingBufferBytes: number;
  /** Recent changes a delta poll or a reconnecting stream can be answered from (DELTA_WINDOW_CHANGES). */
  deltaWindowChanges: number;
  /** Polling answers carry `fetch-mode: streaming`, which moves SDKs onto streaming (CLIENT_STREAMING_UPGRADE). */
  clientStreamingUpgrade: boolean;
  /** Browser origins that may call the Frontend API and OFREP (FRONTEND_API_ORIGINS); empty: every origin. */
  frontendOrigins: string[];
  /** Behind a proxy: the caller's address is the first of X-Forwarded-For (TRUST_PROXY). */
  trustProxy: boolean;
  /** Answers kept for contexts seen recently (FRONTEND_CACHE_ENTRIES). */
  frontendCacheEntries: number;
  /** Byte budget of everything the Frontend API and OFREP keep, keys included (FRONTEND_CACHE_MAX_BYTES). */
  frontendCacheMaxBytes: number;
  /** /internal-backstage/prometheus without a token (PROMETHEUS_OPEN). */
  prometheusOpen: boolean;
  /** A webhook receiver must answer within this (WEBHOOK_TIMEOUT_MS). */
  webhookTimeoutMs: number;
  /** First retry delay of a failed webhook send, doubled at each next one (WEBHOOK_RETRY_BASE_MS). */
  webhookRetryBaseMs: number;
  /** The longest wait between two attempts (WEBHOOK_RETRY_MAX_DELAY_MS). */
  webhookRetryMaxDelayMs: number;
  /** How long one event is retried before it is dropped (WEBHOOK_RETRY_FOR_MS). */
  webhookRetryForMs: number;
  /** Host names webhooks may reach whatever they resolve to (WEBHOOK_ALLOW_HOSTS), lower case. */
  webhookAllowHosts: string[];
  /** Addresses (CIDR ranges or single addresses) webhooks may reach though not public (WEBHOOK_ALLOW_RANGES). */
  webhookAllowRanges: string[];
  /** Webhooks may reach private addresses: RFC 1918, CGNAT, IPv6 unique-local (WEBHOOK_ALLOW_PRIVATE). */
  webhookAllowPrivate: boolean;
  /** A rendered webhook body template's size at most (WEBHOOK_TEMPLATE_MAX_BYTES). */
  webhookTemplateMaxBytes: number;
  /** A webhook body template's rendering work at most (WEBHOOK_TEMPLATE_MAX_STEPS). */
  webhookTemplateMaxSteps: number;
  /** A cluster's shared log in PostgreSQL (DATABASE_URL, or DATABASE_HOST and its companions); null: the embedded WAL. */
  database: DatabaseConfig | null;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function list(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

/** A setting Fanion cannot start with: reported as one line, without a stack trace. */
export class ConfigError extends Error {}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const n = int(env, name, fallback);
  if (n === 0) throw new ConfigError(`${name} must be at least 1, got "${env[name]}"`);
  return n;
}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const n = int(env, name, fallback);
  if (n > 65535) throw new ConfigError(`${name} must be a port number from 0 to 65535, got "${env[name]}"`);
  return n;
}

/**
 * Parses `CORS_ORIGINS` (comma-separated, each `scheme://host[:port]` as browsers send it).
 * Throws {@link ConfigError} on anything else: a path or a wildcard would silently trust too much.
 */
function parseOrigins(raw: string | undefined, name = 'CORS_ORIGINS'): string[] {
  const out: string[] = [];
  for (const item of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== item.replace(/\/$/, '')) {
      throw new ConfigError(`${name} must list origins such as https://console.example.com, got "${item}"`);
    }
    out.push(url.origin);
  }
  return out;
}

/** WEBHOOK_ALLOW_HOSTS: host names as URLs spell them (lower case, no port, no wildcard). */
function parseHosts(raw: string | undefined): string[] {
  return list(raw).map((item) => {
    const host = item.toLowerCase().replace(/\.$/, '');
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host) || host.length > 253) {
      throw new ConfigError(`WEBHOOK_ALLOW_HOSTS must list host names such as hooks.internal (no scheme, port or wildcard), got "${item}"`);
    }
    return host;
  });
}

/** WEBHOOK_ALLOW_RANGES: IPv4 or IPv6 addresses or CIDR ranges. */
function parseRanges(raw: string | undefined): string[] {
  const ranges = list(raw);
  for (const item of ranges) {
    if (!Address4.isValid(item) && !Address6.isValid(item)) throw new ConfigError(`WEBHOOK_ALLOW_RANGES must list addresses or CIDR ranges such as 10.1.2.0/24 or fd00::/8, got "${item}"`);
  }
  return ranges;
}

/**
 * DATABASE_URL (a postgres:// URL), else DATABASE_HOST with DATABASE_PORT, _NAME, _USERNAME and
 * _PASSWORD (Unleash's names and defaults); neither: null, the embedded WAL in DATA_DIR.
 */
function parseDatabase(env: NodeJS.ProcessEnv): DatabaseConfig | null {
  const url = env.DATABASE_URL || undefined;
  const host = env.DATABASE_HOST || undefined;
  if (!url && !host) return null;
  const ssl = parseSsl(env.DATABASE_SSL);
  const common = { ssl, poolMax: positive(env, 'DATABASE_POOL_MAX', 4), timeoutMs: positive(env, 'DATABASE_TIMEOUT_MS', 5_000) };
  if (url) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    // Never echo the URL: it usually holds the password.
    if (!parsed || (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') || !parsed.hostname) {
      throw new ConfigError('DATABASE_URL must be a URL such as postgres://user:password@host:5432/database');
    }
    return { connectionString: url, ...common };
  }
  return {
    host,
    port: port(env, 'DATABASE_PORT', 5432),
    database: env.DATABASE_NAME || 'unleash',
    user: env.DATABASE_USERNAME || 'unleash',
    password: env.DATABASE_PASSWORD || undefined,
    ...common,
  };
}

/** DATABASE_SSL: true, false, or a JSON object of TLS options (e.g. {"rejectUnauthorized":false}). */
function parseSsl(raw: string | undefined): boolean | Record<string, unknown> {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    v = undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ConfigError('DATABASE_SSL must be true, false or a JSON object of TLS options such as {"rejectUnauthorized":false}');
  return v as Record<string, unknown>;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads every setting from the environment; throws {@link ConfigError} naming the first bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const walSync = (env.WAL_SYNC ?? 'always').toLowerCase();
  if (walSync !== 'always' && walSync !== 'none') throw new ConfigError(`WAL_SYNC must be "always" or "none", got "${walSync}"`);
  const rawAuth = (env.AUTH_TYPE ?? 'api-token').toLowerCase();
  let authType: AuthType;
  if (rawAuth === 'api-token' || rawAuth === 'open-source') authType = 'api-token';
  else if (rawAuth === 'none') authType = 'none';
  else throw new ConfigError(`AUTH_TYPE must be "api-token", "open-source" or "none", got "${rawAuth}"`);
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  const logFormat = (env.LOG_FORMAT || 'json').toLowerCase();
  if (logFormat !== 'json' && logFormat !== 'pretty') throw new ConfigError(`LOG_FORMAT must be "json" or "pretty", got "${env.LOG_FORMAT}"`);
  const tokenHashKey = env.TOKEN_HASH_KEY || undefined;
  if (tokenHashKey !== undefined && tokenHashKey.length < 16) throw new ConfigError('TOKEN_HASH_KEY must be at least 16 characters long');
  const headersTimeoutMs = positive(env, 'HEADERS_TIMEOUT_MS', 15_000);
  const requestTimeoutMs = positive(env, 'REQUEST_TIMEOUT_MS', 60_000);
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) cannot be longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  const streamingMaxConnections = int(env, 'STREAMING_MAX_CONNECTIONS', 10_000);
  return {
    port: port(env, 'PORT', port(env, 'HTTP_PORT', 4242)),
    // Without authentication every caller is an admin: unless told otherwise, only this machine.
    host: env.HOST || (authType === 'none' ? '127.0.0.1' : '0.0.0.0'),
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    walSync,
    authType,
    logLevel,
    logFormat,
    initAdminTokens: list(env.INIT_ADMIN_API_TOKENS),
    initClientTokens: [...list(env.INIT_CLIENT_API_TOKENS), ...list(env.INIT_BACKEND_API_TOKENS)],
    initFrontendTokens: list(env.INIT_FRONTEND_API_TOKENS),
    bodyLimit: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024),
    importBodyLimit: int(env, 'IMPORT_BODY_LIMIT_BYTES', 64 * 1024 * 1024),
    checkpointBytes: int(env, 'CHECKPOINT_BYTES', 64 * 1024 * 1024),
    checkpointRecords: int(env, 'CHECKPOINT_RECORDS', 50_000),
    metricsFlushMs: int(env, 'METRICS_FLUSH_MS', 10_000),
    tokenHashKey,
    corsOrigins: parseOrigins(env.CORS_ORIGINS),
    headersTimeoutMs,
    requestTimeoutMs,
    maxConnections: env.MAX_CONNECTIONS ? positive(env, 'MAX_CONNECTIONS', 0) : undefined,
    clientMetricsMaxBytes: int(env, 'CLIENT_METRICS_MAX_BYTES', 32 * 1024 * 1024),
    streamingMaxConnections,
    // A leaked client token must not take every slot and push every other SDK back to polling.
    streamingMaxConnectionsPerToken: positive(env, 'STREAMING_MAX_CONNECTIONS_PER_TOKEN', Math.max(1, Math.ceil(streamingMaxConnections / 10))),
    unknownFlagsMaxBytes: int(env, 'UNKNOWN_FLAGS_MAX_BYTES', 4 * 1024 * 1024),
    edgeValidateRequireToken: bool(env, 'EDGE_VALIDATE_REQUIRE_TOKEN', false),
    streamingKeepAliveMs: positive(env, 'STREAMING_KEEPALIVE_MS', 15_000),
    streamingBufferBytes: positive(env, 'STREAMING_BUFFER_BYTES', 1024 * 1024),
    deltaWindowChanges: positive(env, 'DELTA_WINDOW_CHANGES', 10_000),
    clientStreamingUpgrade: bool(env, 'CLIENT_STREAMING_UPGRADE', false),
    frontendOrigins: parseOrigins(env.FRONTEND_API_ORIGINS, 'FRONTEND_API_ORIGINS'),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    frontendCacheEntries: int(env, 'FRONTEND_CACHE_ENTRIES', 10_000),
    frontendCacheMaxBytes: int(env, 'FRONTEND_CACHE_MAX_BYTES', 64 * 1024 * 1024),
    prometheusOpen: bool(env, 'PROMETHEUS_OPEN', false),
    webhookTimeoutMs: positive(env, 'WEBHOOK_TIMEOUT_MS', 10_000),
    webhookRetryBaseMs: positive(env, 'WEBHOOK_RETRY_BASE_MS', 1_000),
    webhookRetryMaxDelayMs: positive(env, 'WEBHOOK_RETRY_MAX_DELAY_MS', 60 * 60 * 1000),
    webhookRetryForMs: positive(env, 'WEBHOOK_RETRY_FOR_MS', 24 * 60 * 60 * 1000),
    webhookAllowHosts: parseHosts(env.WEBHOOK_ALLOW_HOSTS),
    webhookAllowRanges: parseRanges(env.WEBHOOK_ALLOW_RANGES),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookTemplateMaxBytes: positive(env, 'WEBHOOK_TEMPLATE_MAX_BYTES', 4 * 1024 * 1024),
    webhookTemplateMaxSteps: positive(env, 'WEBHOOK_TEMPLATE_MAX_STEPS', 200_000),
    database: parseDatabase(env),
  };
}
