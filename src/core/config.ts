// Reads the environment once at start-up; everything else receives a Config.
import path from 'node:path';
import { Address4, Address6 } from 'ip-address';

export type WalSync = 'always' | 'none';
export type RootRoleName = 'Admin' | 'Editor' | 'Viewer';

/** Single sign-on with OpenID Connect (OIDC_*): absent unless OIDC_ISSUER is set. */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The provider's name on the sign-in button ("Sign in with …"). */
  displayName: string;
  scopes: string;
  /** People unknown to Fanion are created at their first sign-in (OIDC_AUTO_CREATE). */
  autoCreate: boolean;
  /** Their root role when no claim says otherwise (OIDC_DEFAULT_ROLE). */
  defaultRole: RootRoleName;
  /** The ID token (or userinfo) claim that names the role or groups (OIDC_ROLE_CLAIM). */
  roleClaim: string | null;
  /** Claim values (groups) → root roles (OIDC_ROLE_MAP, `group=Role,…`); empty: the claim names the role. */
  roleMap: [string, RootRoleName][];
}
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
  /**
   * How long a node starting retries a database that refuses its settings (a wrong password, a
   * missing privilege or database) before it exits 2 (DATABASE_SETTINGS_RETRY_MS).
   */
  settingsRetryMs: number;
  /** Where the database is, for logs: `host:port/database as user`, never the password. */
  label: string;
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
  /** SHUTDOWN_TIMEOUT_MS: a stop that has not finished by then exits anyway (what was acknowledged is durable). */
  shutdownTimeoutMs: number;
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
  /**
   * Host names requests may name in `Host` besides loopback names and IP addresses (ALLOWED_HOSTS),
   * lower case: checked whenever authentication is off, and with it on once this lists any
   * (http/hosts.ts, against DNS rebinding).
   */
  allowedHosts: string[];
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
  /**
   * Proxies in front of Fanion whose X-Forwarded-For entries are believed (TRUST_PROXY: `false` 0,
   * `true` 1, or a count). The caller's address is the entry that many places from the right: the
   * one the outermost trusted proxy saw. Entries further left were written by the client.
   */
  trustProxy: number;
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
  /** Where browsers reach Fanion (PUBLIC_URL), for invitation links and the single sign-on callback. */
  publicUrl: string | null;
  /** The first admin person's name and password (UNLEASH_DEFAULT_ADMIN_USERNAME / _PASSWORD); generated when absent. */
  defaultAdminUsername: string;
  defaultAdminPassword: string | undefined;
  /** A session ends after this long without a request (SESSION_IDLE_TIMEOUT_MS). */
  sessionIdleMs: number;
  /** A session ends this long after sign-in whatever its use (SESSION_MAX_AGE_MS). */
  sessionMaxAgeMs: number;
  /** Invitation and reset links work this long, once (PASSWORD_LINK_TTL_MS). */
  passwordLinkTtlMs: number;
  /** Sign-in with a password (PASSWORD_SIGN_IN); off leaves single sign-on and tokens. */
  passwordSignIn: boolean;
  /** Sign-in attempts from one address per minute (SIGN_IN_LIMIT_PER_ADDRESS). */
  signInPerAddress: number;
  /** Failed sign-in attempts at one account per 15 minutes (SIGN_IN_LIMIT_PER_ACCOUNT). */
  signInPerAccount: number;
  /** Addresses and accounts whose attempts are remembered, each (SIGN_IN_LIMITER_ENTRIES). */
  signInLimiterEntries: number;
  /** log2 of scrypt's N for new password hashes (PASSWORD_SCRYPT_LOG_N). */
  passwordScryptLogN: number;
  /** Password hashes computed at once (PASSWORD_HASH_CONCURRENCY). */
  passwordHashConcurrency: number;
  /** Password hashes waiting for a turn at most; past it, 429 (PASSWORD_HASH_QUEUE). */
  passwordHashQueue: number;
  oidc: OidcConfig | null;
  /** Relay mode (UPSTREAM_URL set): flags come from the upstream, not from an admin API. */
  relay: RelayConfig | null;
  /** Offline mode (BOOTSTRAP_FILE set, no UPSTREAM_URL): flags from a file, tokens from settings. */
  offline: OfflineConfig | null;
}

/** Offline mode's settings, named as Unleash Edge's `offline` command names them. */
export interface OfflineConfig {
  /** The features file: a client features answer `{version, features, segments?}` (BOOTSTRAP_FILE). */
  bootstrapFile: string;
  /** Client (backend) tokens, `<project|*>:<environment>.<secret>` (TOKENS, CLIENT_TOKENS). */
  clientTokens: string[];
  /** Frontend tokens, same form (FRONTEND_TOKENS). */
  frontendTokens: string[];
  /** How often the file is read again (RELOAD_INTERVAL, seconds); 0: read once at start-up, as Edge. */
  reloadMs: number;
}

/** How the relay follows its upstream: `auto` tries streaming, then delta, then polling. */
export type UpstreamProtocol = 'auto' | 'streaming' | 'delta' | 'polling';

/** Relay mode's settings, named as Unleash Edge names them where Edge has the setting. */
export interface RelayConfig {
  /** The upstream's base URL, without `/api` and without a trailing slash (UPSTREAM_URL). */
  upstreamUrl: string;
  /**
   * Frontend tokens served without asking the upstream (PRETRUSTED_TOKENS): SDKs present
   * `credential` (the token, or its alias), and get the scope written in the token.
   */
  pretrusted: { credential: string; project: string; environment: string }[];
  /** Client/backend and frontend tokens held from start-up (TOKENS). */
  tokens: string[];
  /** How often a polling or delta follower asks the upstream (FEATURES_REFRESH_INTERVAL_SECONDS). */
  featuresRefreshMs: number;
  /** How often SDK metrics go upstream (METRICS_INTERVAL_SECONDS). */
  metricsIntervalMs: number;
  /** How often every known token is checked with the upstream again (TOKEN_REVALIDATION_INTERVAL_SECONDS). */
  tokenRevalidationMs: number;
  /** One upstream request, body included, must finish within this (UPSTREAM_REQUEST_TIMEOUT, seconds). */
  upstreamTimeoutMs: number;
  /** Sent with every upstream request (CUSTOM_CLIENT_HEADERS: `Name: value`, comma-separated). */
  customHeaders: [string, string][];
  /** The header that carries the token upstream (UPSTREAM_AUTH_HEADER). */
  upstreamAuthHeader: string;
  /** UPSTREAM_PROTOCOL: `auto`, or one protocol only. */
  protocol: UpstreamProtocol;
  /** How the relay names itself upstream (APP_NAME, INSTANCE_ID). */
  appName: string;
  instanceId: string;
  /** SDK metrics held for the upstream while it is away, in bytes (UPSTREAM_METRICS_MAX_BYTES). */
  metricsMaxBytes: number;
  /** How long a token the upstream refused is refused without asking again (UNKNOWN_TOKEN_CACHE_SECONDS). */
  unknownTokenCacheMs: number;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/**
 * TRUST_PROXY: how many proxies stand in front (each appends the address it saw to
 * X-Forwarded-For). `true` is one, the usual single reverse proxy: trusting the left-most entry
 * instead would let any client choose its own address by sending the header itself.
 */
function trustedHops(env: NodeJS.ProcessEnv): number {
  const raw = env.TRUST_PROXY;
  if (raw === undefined || raw === '' || raw === 'false') return 0;
  if (raw === 'true') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 10) throw new ConfigError(`TRUST_PROXY must be true, false or the number of proxies in front (0 to 10), got "${raw}"`);
  return n;
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

/** A duration in seconds (decimals allowed, for tests), at least `min`, as milliseconds. */
function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0.05): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback * 1000;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new ConfigError(`${name} must be a number of seconds of at least ${min}, got "${raw}"`);
  return Math.round(n * 1000);
}

const PROTOCOLS: UpstreamProtocol[] = ['auto', 'streaming', 'delta', 'polling'];

/** `Name: value` pairs, as Edge's CUSTOM_CLIENT_HEADERS takes them. */
function headerPairs(raw: string | undefined): [string, string][] {
  return list(raw).map((item) => {
    const at = item.indexOf(':');
    const name = at > 0 ? item.slice(0, at).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new ConfigError(`CUSTOM_CLIENT_HEADERS must list headers as "Name: value", got "${item}"`);
    return [name, item.slice(at + 1).trim()];
  });
}

/** A token that says its scope: `<project|*>:<environment>.<secret>` (project, environment, secret). */
export const SCOPED_TOKEN = /^([^:\s]+):([^:.\s]+)\.(\S+)$/;

/** Offline mode, selected by BOOTSTRAP_FILE; null without it. */
function offlineConfig(env: NodeJS.ProcessEnv, authType: AuthType): OfflineConfig | null {
  const file = env.BOOTSTRAP_FILE;
  if (!file) {
    for (const name of ['CLIENT_TOKENS', 'FRONTEND_TOKENS', 'RELOAD_INTERVAL']) {
      if (env[name]) throw new ConfigError(`${name} is set but BOOTSTRAP_FILE is not: offline mode serves the flags of that file`);
    }
    return null;
  }
  if (env.UPSTREAM_URL) throw new ConfigError('BOOTSTRAP_FILE and UPSTREAM_URL cannot both be set: offline mode serves a file, relay mode an upstream');
  if (authType !== 'api-token') throw new ConfigError('AUTH_TYPE=none cannot be used with BOOTSTRAP_FILE: offline mode serves the tokens of its settings');
  for (const name of ['INIT_ADMIN_API_TOKENS', 'INIT_CLIENT_API_TOKENS', 'INIT_BACKEND_API_TOKENS', 'INIT_FRONTEND_API_TOKENS', 'DATABASE_URL', 'DATABASE_HOST']) {
    if (env[name]) throw new ConfigError(`${name} cannot be used with BOOTSTRAP_FILE: offline mode's tokens are TOKENS, CLIENT_TOKENS and FRONTEND_TOKENS, its copy is kept in DATA_DIR`);
  }
  // The scope is read from the token's text (there is no upstream to ask), so it must say it.
  const tokens = (name: string) => list(env[name]).map((t) => {
    const parsed = SCOPED_TOKEN.exec(t);
    if (!parsed) throw new ConfigError(`${name} must list tokens such as *:production.secret or myproject:production.secret (<project|*>:<environment>.<secret>), got "${t.slice(0, t.indexOf('.') + 1) || 'a value without a dot'}..."`);
    if (parsed[2] === '*') throw new ConfigError(`${name}: a token names one environment, not *`);
    return t;
  });
  const clientTokens = [...tokens('TOKENS'), ...tokens('CLIENT_TOKENS')];
  const frontendTokens = tokens('FRONTEND_TOKENS');
  if (clientTokens.length + frontendTokens.length === 0) throw new ConfigError('BOOTSTRAP_FILE is set but no token is: list them in TOKENS or CLIENT_TOKENS, and FRONTEND_TOKENS');
  return { bootstrapFile: path.resolve(file), clientTokens, frontendTokens, reloadMs: seconds(env, 'RELOAD_INTERVAL', 0, 0) };
}

/** Relay mode, selected by UPSTREAM_URL; null without it. */
function relayConfig(env: NodeJS.ProcessEnv, authType: AuthType): RelayConfig | null {
  const raw = env.UPSTREAM_URL;
  const tokens = list(env.TOKENS);
  if (!raw) {
    if (env.BOOTSTRAP_FILE) return null;
    if (tokens.length > 0) throw new ConfigError('TOKENS is set but UPSTREAM_URL is not: a relay needs the URL of its upstream');
    if (env.PRETRUSTED_TOKENS) throw new ConfigError('PRETRUSTED_TOKENS is set but UPSTREAM_URL is not: pre-trusted tokens are a relay\'s');
    return null;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`UPSTREAM_URL must be an http(s) URL such as http://unleash:4242, got "${raw}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`UPSTREAM_URL must be an http(s) URL such as http://unleash:4242 (no query, no credentials), got "${raw}"`);
  }
  const base = url.href.replace(/\/+$/, '');
  if (/\/api$/.test(base)) throw new ConfigError(`UPSTREAM_URL is the upstream's base URL, without /api: use ${base.slice(0, -4)}`);
  if (authType !== 'api-token') throw new ConfigError('AUTH_TYPE=none cannot be used with UPSTREAM_URL: a relay serves the tokens its upstream grants');
  for (const name of ['INIT_ADMIN_API_TOKENS', 'INIT_CLIENT_API_TOKENS', 'INIT_BACKEND_API_TOKENS', 'INIT_FRONTEND_API_TOKENS']) {
    if (env[name]) throw new ConfigError(`${name} cannot be used with UPSTREAM_URL: a relay's tokens are its upstream's; list them in TOKENS`);
  }
  // Relays sharing one log would each write what their upstream sends: run several relays apart.
  for (const name of ['DATABASE_URL', 'DATABASE_HOST']) {
    if (env[name]) throw new ConfigError(`${name} cannot be used with UPSTREAM_URL: a relay keeps its own copy in DATA_DIR; run several relays side by side instead`);
  }
  const protocol = (env.UPSTREAM_PROTOCOL || 'auto').toLowerCase() as UpstreamProtocol;
  if (!PROTOCOLS.includes(protocol)) throw new ConfigError(`UPSTREAM_PROTOCOL must be one of ${PROTOCOLS.join(', ')}, got "${env.UPSTREAM_PROTOCOL}"`);
  const authHeader = env.UPSTREAM_AUTH_HEADER || 'Authorization';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(authHeader)) throw new ConfigError(`UPSTREAM_AUTH_HEADER must be a header name, got "${authHeader}"`);
  const pretrusted = list(env.PRETRUSTED_TOKENS).map((entry) => {
    // `<alias>@<token>` (Edge's form for a legacy proxy key) or the frontend token itself.
    const at = entry.indexOf('@');
    const token = at < 0 ? entry : entry.slice(at + 1);
    const credential = at < 0 ? entry : entry.slice(0, at);
    const m = SCOPED_TOKEN.exec(token);
    if (!m || credential === '' || m[2] === '*') {
      throw new ConfigError(`PRETRUSTED_TOKENS must list frontend tokens (<project|*>:<environment>.<secret>) or <alias>@<token>, got an entry starting "${entry.slice(0, Math.min(entry.length, 8))}..."`);
    }
    return { credential, project: m[1], environment: m[2] };
  });
  return {
    upstreamUrl: base,
    pretrusted,
    tokens,
    featuresRefreshMs: seconds(env, 'FEATURES_REFRESH_INTERVAL_SECONDS', 15),
    metricsIntervalMs: seconds(env, 'METRICS_INTERVAL_SECONDS', 60),
    // Edge's default is an hour; a token revoked upstream (or expired, when the upstream does not
    // say when) would work that long on the relay. A check is one request per 100 tokens.
    tokenRevalidationMs: seconds(env, 'TOKEN_REVALIDATION_INTERVAL_SECONDS', 60),
    upstreamTimeoutMs: seconds(env, 'UPSTREAM_REQUEST_TIMEOUT', 5),
    customHeaders: headerPairs(env.CUSTOM_CLIENT_HEADERS),
    upstreamAuthHeader: authHeader,
    protocol,
    appName: env.APP_NAME || 'fanion-relay',
    instanceId: env.INSTANCE_ID || `fanion-relay@${process.pid}-${Date.now().toString(36)}`,
    metricsMaxBytes: int(env, 'UPSTREAM_METRICS_MAX_BYTES', 16 * 1024 * 1024),
    unknownTokenCacheMs: seconds(env, 'UNKNOWN_TOKEN_CACHE_SECONDS', 60, 0),
  };
}

/** WEBHOOK_ALLOW_HOSTS, ALLOWED_HOSTS: host names as URLs spell them (lower case, no port, no wildcard). */
function parseHosts(raw: string | undefined, name = 'WEBHOOK_ALLOW_HOSTS', example = 'hooks.internal'): string[] {
  return list(raw).map((item) => {
    const host = item.toLowerCase().replace(/\.$/, '');
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host) || host.length > 253) {
      throw new ConfigError(`${name} must list host names such as ${example} (no scheme, port or wildcard), got "${item}"`);
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
  const common = {
    ssl, poolMax: positive(env, 'DATABASE_POOL_MAX', 4), timeoutMs: positive(env, 'DATABASE_TIMEOUT_MS', 5_000),
    settingsRetryMs: int(env, 'DATABASE_SETTINGS_RETRY_MS', 30_000),
  };
  const label = (h: string, p: number | string, database: string, user: string) => `${h}:${p}/${database} as ${user}`;
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
    // node-postgres' defaults for what the URL leaves out: port 5432, the user's name as the database's.
    const user = decodeURIComponent(parsed.username) || 'postgres';
    return { connectionString: url, ...common, label: label(parsed.hostname, parsed.port || 5432, decodeURIComponent(parsed.pathname.slice(1)) || user, user) };
  }
  const database = env.DATABASE_NAME || 'unleash';
  const user = env.DATABASE_USERNAME || 'unleash';
  const dbPort = port(env, 'DATABASE_PORT', 5432);
  return {
    host,
    port: dbPort,
    database,
    user,
    password: env.DATABASE_PASSWORD || undefined,
    ...common,
    label: label(host!, dbPort, database, user),
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

const ROLES: RootRoleName[] = ['Admin', 'Editor', 'Viewer'];

function role(raw: string, name: string): RootRoleName {
  const found = ROLES.find((r) => r.toLowerCase() === raw.trim().toLowerCase());
  if (!found) throw new ConfigError(`${name} must name a role: Admin, Editor or Viewer, got "${raw}"`);
  return found;
}

/** PUBLIC_URL: an http(s) URL without query or fragment, kept without its trailing slash. */
function parsePublicUrl(raw: string | undefined): string | null {
  if (!raw) return null;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`PUBLIC_URL must be the http(s) address browsers reach Fanion at, such as https://flags.example.com, got "${raw}"`);
  }
  return url.href.replace(/\/+$/, '');
}

function parseOidc(env: NodeJS.ProcessEnv, publicUrl: string | null): OidcConfig | null {
  const issuer = env.OIDC_ISSUER;
  if (!issuer) {
    for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_AUTO_CREATE', 'OIDC_ROLE_CLAIM', 'OIDC_ROLE_MAP']) {
      if (env[name]) throw new ConfigError(`${name} is set but OIDC_ISSUER is not: single sign-on needs its issuer URL`);
    }
    return null;
  }
  let url: URL | undefined;
  try {
    url = new URL(issuer);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))) {
    throw new ConfigError(`OIDC_ISSUER must be an https URL (http only on this machine, for tests), got "${issuer}"`);
  }
  if (!env.OIDC_CLIENT_ID) throw new ConfigError('OIDC_CLIENT_ID must be set with OIDC_ISSUER');
  if (!env.OIDC_CLIENT_SECRET) throw new ConfigError('OIDC_CLIENT_SECRET must be set with OIDC_ISSUER');
  if (!publicUrl) throw new ConfigError('PUBLIC_URL must be set with OIDC_ISSUER: the provider sends people back to PUBLIC_URL/auth/oidc/callback');
  const roleMap = list(env.OIDC_ROLE_MAP).map((item): [string, RootRoleName] => {
    const at = item.lastIndexOf('=');
    if (at <= 0) throw new ConfigError(`OIDC_ROLE_MAP must list group=Role pairs, such as fanion-admins=Admin, got "${item}"`);
    return [item.slice(0, at).trim(), role(item.slice(at + 1), 'OIDC_ROLE_MAP')];
  });
  const roleClaim = env.OIDC_ROLE_CLAIM?.trim() || null;
  if (roleMap.length > 0 && !roleClaim) throw new ConfigError('OIDC_ROLE_MAP needs OIDC_ROLE_CLAIM: the claim whose values it maps');
  return {
    issuer: url.href.replace(/\/$/, ''),
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    displayName: env.OIDC_DISPLAY_NAME?.trim() || url.hostname,
    scopes: env.OIDC_SCOPES?.trim() || 'openid email profile',
    autoCreate: bool(env, 'OIDC_AUTO_CREATE', false),
    defaultRole: env.OIDC_DEFAULT_ROLE ? role(env.OIDC_DEFAULT_ROLE, 'OIDC_DEFAULT_ROLE') : 'Viewer',
    roleClaim,
    roleMap,
  };
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
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
  // `plain` is Unleash Edge's name for lines meant for people.
  const logFormat = (env.LOG_FORMAT || 'json').toLowerCase().replace(/^plain$/, 'pretty');
  if (logFormat !== 'json' && logFormat !== 'pretty') throw new ConfigError(`LOG_FORMAT must be "json" or "pretty", got "${env.LOG_FORMAT}"`);
  const tokenHashKey = env.TOKEN_HASH_KEY || undefined;
  if (tokenHashKey !== undefined && tokenHashKey.length < 16) throw new ConfigError('TOKEN_HASH_KEY must be at least 16 characters long');
  const offline = offlineConfig(env, authType);
  const relay = relayConfig(env, authType);
  // What Unleash Edge's settings mean for a relay they mean for offline mode too (port, folder, CORS).
  const edgeLike = relay ?? offline;
  const headersTimeoutMs = positive(env, 'HEADERS_TIMEOUT_MS', 15_000);
  const requestTimeoutMs = positive(env, 'REQUEST_TIMEOUT_MS', 60_000);
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) cannot be longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  const streamingMaxConnections = int(env, 'STREAMING_MAX_CONNECTIONS', 10_000);
  const sessionIdleMs = positive(env, 'SESSION_IDLE_TIMEOUT_MS', 8 * 60 * 60 * 1000);
  const sessionMaxAgeMs = positive(env, 'SESSION_MAX_AGE_MS', 48 * 60 * 60 * 1000);
  if (sessionIdleMs > sessionMaxAgeMs) throw new ConfigError(`SESSION_IDLE_TIMEOUT_MS (${sessionIdleMs}) cannot be longer than SESSION_MAX_AGE_MS (${sessionMaxAgeMs})`);
  const passwordScryptLogN = int(env, 'PASSWORD_SCRYPT_LOG_N', 15);
  if (passwordScryptLogN < 10 || passwordScryptLogN > 20) throw new ConfigError(`PASSWORD_SCRYPT_LOG_N must be from 10 to 20, got "${env.PASSWORD_SCRYPT_LOG_N}"`);
  const defaultAdminUsername = env.UNLEASH_DEFAULT_ADMIN_USERNAME?.trim() || 'admin';
  if (defaultAdminUsername.length > 100) throw new ConfigError('UNLEASH_DEFAULT_ADMIN_USERNAME must be at most 100 characters');
  const publicUrl = parsePublicUrl(env.PUBLIC_URL);
  return {
    // A relay listens where Unleash Edge does (3063), so an Edge deployment moves over as it is.
    port: port(env, 'PORT', port(env, 'HTTP_PORT', edgeLike ? 3063 : 4242)),
    // Without authentication every caller is an admin: unless told otherwise, only this machine.
    // INTERFACE is Edge's name for it.
    host: env.HOST || (edgeLike && env.INTERFACE) || (authType === 'none' ? '127.0.0.1' : '0.0.0.0'),
    // BACKUP_FOLDER is where Edge keeps its snapshot: for a relay it is the data folder.
    dataDir: path.resolve(env.DATA_DIR ?? ((edgeLike && env.BACKUP_FOLDER) || './data')),
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
    allowedHosts: parseHosts(env.ALLOWED_HOSTS, 'ALLOWED_HOSTS', 'flags.example.com'),
    headersTimeoutMs,
    shutdownTimeoutMs: positive(env, 'SHUTDOWN_TIMEOUT_MS', 30_000),
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
    // Edge's CORS_ORIGIN names the browser origins of its frontend API.
    frontendOrigins: env.FRONTEND_API_ORIGINS || !edgeLike ? parseOrigins(env.FRONTEND_API_ORIGINS, 'FRONTEND_API_ORIGINS') : parseOrigins(env.CORS_ORIGIN, 'CORS_ORIGIN'),
    trustProxy: trustedHops(env),
    frontendCacheEntries: int(env, 'FRONTEND_CACHE_ENTRIES', 10_000),
    frontendCacheMaxBytes: int(env, 'FRONTEND_CACHE_MAX_BYTES', 64 * 1024 * 1024),
    // A relay has no admin token to show them to: open by default, as Edge's /internal-backstage/metrics.
    prometheusOpen: bool(env, 'PROMETHEUS_OPEN', edgeLike !== null),
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
    publicUrl,
    defaultAdminUsername,
    defaultAdminPassword: env.UNLEASH_DEFAULT_ADMIN_PASSWORD || undefined,
    sessionIdleMs,
    sessionMaxAgeMs,
    passwordLinkTtlMs: positive(env, 'PASSWORD_LINK_TTL_MS', 24 * 60 * 60 * 1000),
    passwordSignIn: bool(env, 'PASSWORD_SIGN_IN', true),
    signInPerAddress: positive(env, 'SIGN_IN_LIMIT_PER_ADDRESS', 10),
    signInPerAccount: positive(env, 'SIGN_IN_LIMIT_PER_ACCOUNT', 5),
    signInLimiterEntries: positive(env, 'SIGN_IN_LIMITER_ENTRIES', 10_000),
    passwordScryptLogN,
    passwordHashConcurrency: positive(env, 'PASSWORD_HASH_CONCURRENCY', 2),
    passwordHashQueue: int(env, 'PASSWORD_HASH_QUEUE', 32),
    oidc: parseOidc(env, publicUrl),
    relay,
    offline,
  };
}
