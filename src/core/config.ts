// Reads the environment once at start-up, through the table of settings (config/settings.ts);
// everything else receives a Config.
import path from 'node:path';
import { ConfigError, SCOPED_TOKEN, scopedToken, type RootRoleName } from './config/kinds.js';
import { readSettings, type Settings } from './config/settings.js';

export { ConfigError, SCOPED_TOKEN, type RootRoleName };

export type WalSync = 'always' | 'none';

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

/** Each field is named after the setting that gives it (config/settings.ts says what each does). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  walSync: WalSync;
  authType: AuthType;
  logLevel: string;
  logFormat: LogFormat;
  /** Where browsers reach Fanion (PUBLIC_URL), for invitation links and the single sign-on callback. */
  publicUrl: string | null;
  /** Secret that keys the token hash; generated and stored in DATA_DIR when unset. */
  tokenHashKey: string | undefined;
  /** INIT_*_API_TOKENS: tokens made at start-up. */
  initTokens: { admin: string[]; client: string[]; frontend: string[] };
  http: HttpConfig;
  /** Checkpoint when the live WAL segment passes either threshold. */
  checkpoint: { bytes: number; records: number };
  metrics: MetricsConfig;
  streaming: StreamingConfig;
  frontend: FrontendConfig;
  webhooks: WebhooksConfig;
  signIn: SignInConfig;
  changeRequests: ChangeRequestsConfig;
  /** A cluster's shared log in PostgreSQL (DATABASE_URL, or DATABASE_HOST and its companions); null: the embedded WAL. */
  cluster: DatabaseConfig | null;
  /** Relay mode (UPSTREAM_URL set): flags come from the upstream, not from an admin API. */
  relay: RelayConfig | null;
  /** Offline mode (BOOTSTRAP_FILE set, no UPSTREAM_URL): flags from a file, tokens from settings. */
  offline: OfflineConfig | null;
}

export interface HttpConfig {
  /** Max JSON body for ordinary routes; state import has its own larger limit. */
  bodyLimit: number;
  importBodyLimit: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** MAX_CONNECTIONS; when unset, derived from the descriptor limit at start (http/connections.ts). */
  maxConnections: number | undefined;
  corsOrigins: string[];
  /** Lower case; checked whenever authentication is off, and with it on once this lists any (http/hosts.ts). */
  allowedHosts: string[];
  /** X-Forwarded-For entries believed: the caller's address is the entry that many places from the right. */
  trustProxy: number;
  edgeValidateRequireToken: boolean;
}

export interface MetricsConfig {
  /** How often buffered client metrics are written to the WAL (ms). */
  flushMs: number;
  clientMaxBytes: number;
  /** What the impact metrics' series may hold, each counted with its history full (IMPACT_METRICS_MAX_BYTES). */
  impactMaxBytes: number;
  unknownFlagsMaxBytes: number;
  prometheusOpen: boolean;
}

export interface StreamingConfig {
  maxConnections: number;
  maxConnectionsPerToken: number;
  keepAliveMs: number;
  bufferBytes: number;
  deltaWindowChanges: number;
  /** Polling answers carry `fetch-mode: streaming` (CLIENT_STREAMING_UPGRADE). */
  clientUpgrade: boolean;
}

export interface FrontendConfig {
  /** Browser origins that may call the Frontend API and OFREP; empty: every origin. */
  origins: string[];
  cacheEntries: number;
  cacheMaxBytes: number;
}

export interface WebhooksConfig {
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxDelayMs: number;
  retryForMs: number;
  /** Lower case. */
  allowHosts: string[];
  allowRanges: string[];
  allowPrivate: boolean;
  templateMaxBytes: number;
  templateMaxSteps: number;
}

export interface SignInConfig {
  /** The first admin person's name and password (UNLEASH_DEFAULT_ADMIN_USERNAME / _PASSWORD); generated when absent. */
  defaultAdminUsername: string;
  defaultAdminPassword: string | undefined;
  sessionIdleMs: number;
  sessionMaxAgeMs: number;
  passwordLinkTtlMs: number;
  /** PASSWORD_SIGN_IN: off leaves single sign-on and tokens. */
  passwords: boolean;
  perAddress: number;
  perAccount: number;
  limiterEntries: number;
  passwordScryptLogN: number;
  passwordHashConcurrency: number;
  passwordHashQueue: number;
  oidc: OidcConfig | null;
}

/** What a new project starts with (concepts/change-requests applies it when the project is created). */
export interface ChangeRequestsConfig {
  /** Environment names, or `type:<type>` for every environment of a type (CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS); empty: none. */
  defaultEnvironments: string[];
  /** Approvals a request needs there (CHANGE_REQUESTS_DEFAULT_APPROVALS, 1–10). */
  defaultApprovals: number;
  /** An Admin may approve their own requests (CHANGE_REQUESTS_ADMIN_SELF_APPROVE; absent: off). */
  adminSelfApprove?: boolean;
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

/** Offline mode, selected by BOOTSTRAP_FILE; null without it. */
function offlineConfig(env: Settings, authType: AuthType): OfflineConfig | null {
  const file = env.get('BOOTSTRAP_FILE');
  if (!file) {
    for (const name of ['CLIENT_TOKENS', 'FRONTEND_TOKENS', 'RELOAD_INTERVAL'] as const) {
      if (env.isSet(name)) throw new ConfigError(`${name} is set but BOOTSTRAP_FILE is not: offline mode serves the flags of that file`);
    }
    return null;
  }
  if (env.isSet('UPSTREAM_URL')) throw new ConfigError('BOOTSTRAP_FILE and UPSTREAM_URL cannot both be set: offline mode serves a file, relay mode an upstream');
  if (authType !== 'api-token') throw new ConfigError('AUTH_TYPE=none cannot be used with BOOTSTRAP_FILE: offline mode serves the tokens of its settings');
  for (const name of ['INIT_ADMIN_API_TOKENS', 'INIT_CLIENT_API_TOKENS', 'INIT_BACKEND_API_TOKENS', 'INIT_FRONTEND_API_TOKENS', 'DATABASE_URL', 'DATABASE_HOST'] as const) {
    if (env.isSet(name)) throw new ConfigError(`${name} cannot be used with BOOTSTRAP_FILE: offline mode's tokens are TOKENS, CLIENT_TOKENS and FRONTEND_TOKENS, its copy is kept in DATA_DIR`);
  }
  // The scope is read from the token's text (there is no upstream to ask), so it must say it:
  // TOKENS, a relay's plain list, is held to CLIENT_TOKENS' form here.
  const clientTokens = [...env.get('TOKENS').map((t) => scopedToken(t, 'TOKENS')), ...env.get('CLIENT_TOKENS')];
  const frontendTokens = env.get('FRONTEND_TOKENS');
  if (clientTokens.length + frontendTokens.length === 0) throw new ConfigError('BOOTSTRAP_FILE is set but no token is: list them in TOKENS or CLIENT_TOKENS, and FRONTEND_TOKENS');
  return { bootstrapFile: path.resolve(file), clientTokens, frontendTokens, reloadMs: env.get('RELOAD_INTERVAL') };
}

/** Relay mode, selected by UPSTREAM_URL; null without it. */
function relayConfig(env: Settings, authType: AuthType): RelayConfig | null {
  if (!env.isSet('UPSTREAM_URL')) {
    if (env.isSet('BOOTSTRAP_FILE')) return null;
    if (env.get('TOKENS').length > 0) throw new ConfigError('TOKENS is set but UPSTREAM_URL is not: a relay needs the URL of its upstream');
    if (env.isSet('PRETRUSTED_TOKENS')) throw new ConfigError('PRETRUSTED_TOKENS is set but UPSTREAM_URL is not: pre-trusted tokens are a relay\'s');
    return null;
  }
  const base = env.get('UPSTREAM_URL', '');
  if (/\/api$/.test(base)) throw new ConfigError(`UPSTREAM_URL is the upstream's base URL, without /api: use ${base.slice(0, -4)}`);
  if (authType !== 'api-token') throw new ConfigError('AUTH_TYPE=none cannot be used with UPSTREAM_URL: a relay serves the tokens its upstream grants');
  for (const name of ['INIT_ADMIN_API_TOKENS', 'INIT_CLIENT_API_TOKENS', 'INIT_BACKEND_API_TOKENS', 'INIT_FRONTEND_API_TOKENS'] as const) {
    if (env.isSet(name)) throw new ConfigError(`${name} cannot be used with UPSTREAM_URL: a relay's tokens are its upstream's; list them in TOKENS`);
  }
  // Relays sharing one log would each write what their upstream sends: run several relays apart.
  for (const name of ['DATABASE_URL', 'DATABASE_HOST'] as const) {
    if (env.isSet(name)) throw new ConfigError(`${name} cannot be used with UPSTREAM_URL: a relay keeps its own copy in DATA_DIR; run several relays side by side instead`);
  }
  const protocol = env.get('UPSTREAM_PROTOCOL');
  const upstreamAuthHeader = env.get('UPSTREAM_AUTH_HEADER');
  return {
    upstreamUrl: base,
    pretrusted: env.get('PRETRUSTED_TOKENS'),
    tokens: env.get('TOKENS'),
    featuresRefreshMs: env.get('FEATURES_REFRESH_INTERVAL_SECONDS'),
    metricsIntervalMs: env.get('METRICS_INTERVAL_SECONDS'),
    // Edge's default is an hour; a token revoked upstream (or expired, when the upstream does not
    // say when) would work that long on the relay. A check is one request per 100 tokens.
    tokenRevalidationMs: env.get('TOKEN_REVALIDATION_INTERVAL_SECONDS'),
    upstreamTimeoutMs: env.get('UPSTREAM_REQUEST_TIMEOUT'),
    customHeaders: env.get('CUSTOM_CLIENT_HEADERS'),
    upstreamAuthHeader,
    protocol,
    appName: env.get('APP_NAME'),
    instanceId: env.get('INSTANCE_ID', `fanion-relay@${process.pid}-${Date.now().toString(36)}`),
    metricsMaxBytes: env.get('UPSTREAM_METRICS_MAX_BYTES'),
    unknownTokenCacheMs: env.get('UNKNOWN_TOKEN_CACHE_SECONDS'),
  };
}

/**
 * DATABASE_URL (a postgres:// URL), else DATABASE_HOST with DATABASE_PORT, _NAME, _USERNAME and
 * _PASSWORD (Unleash's names and defaults); neither: null, the embedded WAL in DATA_DIR.
 */
function clusterConfig(env: Settings): DatabaseConfig | null {
  if (!env.isSet('DATABASE_URL') && !env.isSet('DATABASE_HOST')) return null;
  const common = {
    ssl: env.get('DATABASE_SSL'), poolMax: env.get('DATABASE_POOL_MAX'), timeoutMs: env.get('DATABASE_TIMEOUT_MS'),
    settingsRetryMs: env.get('DATABASE_SETTINGS_RETRY_MS'),
  };
  const label = (h: string, p: number | string, database: string, user: string) => `${h}:${p}/${database} as ${user}`;
  const url = env.get('DATABASE_URL');
  if (url) {
    const parsed = new URL(url);
    // node-postgres' defaults for what the URL leaves out: port 5432, the user's name as the database's.
    const user = decodeURIComponent(parsed.username) || 'postgres';
    return { connectionString: url, ...common, label: label(parsed.hostname, parsed.port || 5432, decodeURIComponent(parsed.pathname.slice(1)) || user, user) };
  }
  const host = env.get('DATABASE_HOST', '');
  const database = env.get('DATABASE_NAME');
  const user = env.get('DATABASE_USERNAME');
  const dbPort = env.get('DATABASE_PORT');
  return { host, port: dbPort, database, user, password: env.get('DATABASE_PASSWORD'), ...common, label: label(host, dbPort, database, user) };
}

function oidcConfig(env: Settings, publicUrl: string | null): OidcConfig | null {
  if (!env.isSet('OIDC_ISSUER')) {
    for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_AUTO_CREATE', 'OIDC_ROLE_CLAIM', 'OIDC_ROLE_MAP'] as const) {
      if (env.isSet(name)) throw new ConfigError(`${name} is set but OIDC_ISSUER is not: single sign-on needs its issuer URL`);
    }
    return null;
  }
  const issuer = env.get('OIDC_ISSUER', '');
  const clientId = env.get('OIDC_CLIENT_ID');
  if (!clientId) throw new ConfigError('OIDC_CLIENT_ID must be set with OIDC_ISSUER');
  const clientSecret = env.get('OIDC_CLIENT_SECRET');
  if (!clientSecret) throw new ConfigError('OIDC_CLIENT_SECRET must be set with OIDC_ISSUER');
  if (!publicUrl) throw new ConfigError('PUBLIC_URL must be set with OIDC_ISSUER: the provider sends people back to PUBLIC_URL/auth/oidc/callback');
  const roleMap = env.get('OIDC_ROLE_MAP');
  const roleClaim = env.get('OIDC_ROLE_CLAIM', null);
  if (roleMap.length > 0 && !roleClaim) throw new ConfigError('OIDC_ROLE_MAP needs OIDC_ROLE_CLAIM: the claim whose values it maps');
  return {
    issuer,
    clientId,
    clientSecret,
    displayName: env.get('OIDC_DISPLAY_NAME', new URL(issuer).hostname),
    scopes: env.get('OIDC_SCOPES'),
    autoCreate: env.get('OIDC_AUTO_CREATE'),
    defaultRole: env.get('OIDC_DEFAULT_ROLE'),
    roleClaim,
    roleMap,
  };
}

/**
 * Reads every setting from the environment; throws {@link ConfigError} naming the first bad one.
 * A setting is read only where its mode uses it, so a bad value of an unused one is not refused.
 */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const env = readSettings(environment);
  const walSync = env.get('WAL_SYNC');
  const authType = env.get('AUTH_TYPE');
  const logLevel = env.get('LOG_LEVEL');
  const logFormat = env.get('LOG_FORMAT');
  const tokenHashKey = env.get('TOKEN_HASH_KEY');
  const offline = offlineConfig(env, authType);
  const relay = relayConfig(env, authType);
  // What Unleash Edge's settings mean for a relay they mean for offline mode too (port, folder, CORS).
  const edgeLike = relay ?? offline;
  const headersTimeoutMs = env.get('HEADERS_TIMEOUT_MS');
  const requestTimeoutMs = env.get('REQUEST_TIMEOUT_MS');
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) cannot be longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  const streamingMaxConnections = env.get('STREAMING_MAX_CONNECTIONS');
  const sessionIdleMs = env.get('SESSION_IDLE_TIMEOUT_MS');
  const sessionMaxAgeMs = env.get('SESSION_MAX_AGE_MS');
  if (sessionIdleMs > sessionMaxAgeMs) throw new ConfigError(`SESSION_IDLE_TIMEOUT_MS (${sessionIdleMs}) cannot be longer than SESSION_MAX_AGE_MS (${sessionMaxAgeMs})`);
  const passwordScryptLogN = env.get('PASSWORD_SCRYPT_LOG_N');
  const defaultAdminUsername = env.get('UNLEASH_DEFAULT_ADMIN_USERNAME');
  const publicUrl = env.get('PUBLIC_URL', null);
  return {
    // A relay listens where Unleash Edge does (3063), so an Edge deployment moves over as it is.
    port: env.get('PORT', env.get('HTTP_PORT', edgeLike ? 3063 : 4242)),
    // Without authentication every caller is an admin: unless told otherwise, only this machine.
    // INTERFACE is Edge's name for it.
    host: env.get('HOST', (edgeLike && env.get('INTERFACE')) || (authType === 'none' ? '127.0.0.1' : '0.0.0.0')),
    // BACKUP_FOLDER is where Edge keeps its snapshot: for a relay it is the data folder.
    dataDir: path.resolve(env.get('DATA_DIR', (edgeLike && env.get('BACKUP_FOLDER')) || './data')),
    walSync,
    authType,
    logLevel,
    logFormat,
    publicUrl,
    tokenHashKey,
    initTokens: {
      admin: env.get('INIT_ADMIN_API_TOKENS'),
      client: [...env.get('INIT_CLIENT_API_TOKENS'), ...env.get('INIT_BACKEND_API_TOKENS')],
      frontend: env.get('INIT_FRONTEND_API_TOKENS'),
    },
    http: {
      bodyLimit: env.get('BODY_LIMIT_BYTES'),
      importBodyLimit: env.get('IMPORT_BODY_LIMIT_BYTES'),
      headersTimeoutMs,
      requestTimeoutMs,
      shutdownTimeoutMs: env.get('SHUTDOWN_TIMEOUT_MS'),
      maxConnections: env.get('MAX_CONNECTIONS'),
      corsOrigins: env.get('CORS_ORIGINS'),
      allowedHosts: env.get('ALLOWED_HOSTS'),
      trustProxy: env.get('TRUST_PROXY'),
      edgeValidateRequireToken: env.get('EDGE_VALIDATE_REQUIRE_TOKEN'),
    },
    checkpoint: { bytes: env.get('CHECKPOINT_BYTES'), records: env.get('CHECKPOINT_RECORDS') },
    metrics: {
      flushMs: env.get('METRICS_FLUSH_MS'),
      clientMaxBytes: env.get('CLIENT_METRICS_MAX_BYTES'),
      impactMaxBytes: env.get('IMPACT_METRICS_MAX_BYTES'),
      unknownFlagsMaxBytes: env.get('UNKNOWN_FLAGS_MAX_BYTES'),
      // A relay has no admin token to show them to: open by default, as Edge's /internal-backstage/metrics.
      prometheusOpen: env.get('PROMETHEUS_OPEN', edgeLike !== null),
    },
    streaming: {
      maxConnections: streamingMaxConnections,
      // A leaked client token must not take every slot and push every other SDK back to polling.
      maxConnectionsPerToken: env.get('STREAMING_MAX_CONNECTIONS_PER_TOKEN', Math.max(1, Math.ceil(streamingMaxConnections / 10))),
      keepAliveMs: env.get('STREAMING_KEEPALIVE_MS'),
      bufferBytes: env.get('STREAMING_BUFFER_BYTES'),
      deltaWindowChanges: env.get('DELTA_WINDOW_CHANGES'),
      clientUpgrade: env.get('CLIENT_STREAMING_UPGRADE'),
    },
    frontend: {
      // Edge's CORS_ORIGIN names the browser origins of its frontend API.
      origins: env.isSet('FRONTEND_API_ORIGINS') || !edgeLike ? env.get('FRONTEND_API_ORIGINS') : env.get('CORS_ORIGIN'),
      cacheEntries: env.get('FRONTEND_CACHE_ENTRIES'),
      cacheMaxBytes: env.get('FRONTEND_CACHE_MAX_BYTES'),
    },
    webhooks: {
      timeoutMs: env.get('WEBHOOK_TIMEOUT_MS'),
      retryBaseMs: env.get('WEBHOOK_RETRY_BASE_MS'),
      retryMaxDelayMs: env.get('WEBHOOK_RETRY_MAX_DELAY_MS'),
      retryForMs: env.get('WEBHOOK_RETRY_FOR_MS'),
      allowHosts: env.get('WEBHOOK_ALLOW_HOSTS'),
      allowRanges: env.get('WEBHOOK_ALLOW_RANGES'),
      allowPrivate: env.get('WEBHOOK_ALLOW_PRIVATE'),
      templateMaxBytes: env.get('WEBHOOK_TEMPLATE_MAX_BYTES'),
      templateMaxSteps: env.get('WEBHOOK_TEMPLATE_MAX_STEPS'),
    },
    cluster: clusterConfig(env),
    changeRequests: {
      defaultEnvironments: env.get('CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS'),
      defaultApprovals: env.get('CHANGE_REQUESTS_DEFAULT_APPROVALS'),
      adminSelfApprove: env.get('CHANGE_REQUESTS_ADMIN_SELF_APPROVE'),
    },
    signIn: {
      defaultAdminUsername,
      defaultAdminPassword: env.get('UNLEASH_DEFAULT_ADMIN_PASSWORD'),
      sessionIdleMs,
      sessionMaxAgeMs,
      passwordLinkTtlMs: env.get('PASSWORD_LINK_TTL_MS'),
      passwords: env.get('PASSWORD_SIGN_IN'),
      perAddress: env.get('SIGN_IN_LIMIT_PER_ADDRESS'),
      perAccount: env.get('SIGN_IN_LIMIT_PER_ACCOUNT'),
      limiterEntries: env.get('SIGN_IN_LIMITER_ENTRIES'),
      passwordScryptLogN,
      passwordHashConcurrency: env.get('PASSWORD_HASH_CONCURRENCY'),
      passwordHashQueue: env.get('PASSWORD_HASH_QUEUE'),
      oidc: oidcConfig(env, publicUrl),
    },
    relay,
    offline,
  };
}
