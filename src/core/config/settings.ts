// Every environment variable Fanion reads, as data: its kind (the parser), default, group and a
// one-line description. `loadConfig` (config.ts) builds Config from this table,
// docs/reference/configuration.md is generated from it (`npm run docs:config`), and
// test/config/reference.test.ts fails when either drifts, or when src/ reads a variable not here.
import {
  addressRanges, bool, environmentChoices, headerName, headerPairs, hostNames, int, issuerUrl, list, oneOf, origins, port, postgresUrl, pretrustedTokens,
  proxyHops, role, roleMap, scopedTokens, seconds, text, tls, httpUrl, type Kind,
} from './kinds.js';

/** The groups, in the reference's order; the key is where the group's values sit in Config. */
export const GROUPS = {
  general: { title: 'General', intro: 'Where Fanion listens and keeps its data, how it logs, who may call it.' },
  initTokens: { title: 'Tokens made at start-up', intro: 'API tokens created when the server starts, if they do not exist yet (server and cluster modes).' },
  http: { title: 'HTTP', intro: 'Request sizes and time limits, connections, and which browsers and hosts are trusted.' },
  checkpoint: { title: 'Checkpoints', intro: 'When the write-ahead log is folded into a checkpoint.' },
  metrics: { title: 'Metrics', intro: 'SDK metrics kept in memory, and the Prometheus endpoint.' },
  streaming: { title: 'Streaming', intro: 'Server-sent event streams to SDKs, and delta polling.' },
  frontend: { title: 'Frontend API and OFREP', intro: 'The browser-facing evaluation APIs.' },
  webhooks: { title: 'Webhooks', intro: 'Delivery, retries, which addresses webhooks may reach, and the body template\'s bounds.' },
  signIn: { title: 'People and sign-in', intro: 'The first admin, sessions, password sign-in and its limits, password hashing.' },
  changeRequests: { title: 'Change requests', intro: 'Four eyes on chosen environments: a change there waits for approvals. Each project\'s environments are configured through the admin API; these say what a new project starts with (off by default).' },
  oidc: { title: 'Single sign-on (OpenID Connect)', intro: 'Off unless OIDC_ISSUER is set; then OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and PUBLIC_URL are required.' },
  cluster: { title: 'Cluster (PostgreSQL)', intro: 'A cluster node keeps its log in PostgreSQL: set DATABASE_URL, or DATABASE_HOST and its companions. Unset: the embedded write-ahead log in DATA_DIR.' },
  relay: { title: 'Relay mode', intro: 'Set UPSTREAM_URL to follow an Unleash (or Fanion) upstream, as Unleash Edge does; names follow Edge\'s.' },
  offline: { title: 'Offline mode', intro: 'Set BOOTSTRAP_FILE (and no UPSTREAM_URL) to serve the flags of a file, as Unleash Edge\'s offline command does.' },
  other: { title: 'Read outside the server\'s configuration', intro: 'Read where they are used, not part of the server\'s Config.' },
} as const;

export type Group = keyof typeof GROUPS;

export interface Setting<T, D extends T | undefined = T | undefined> {
  kind: Kind<T>;
  /** The value when unset (or empty); undefined: absent. */
  default: D;
  group: Group;
  /** One line: what it does. */
  doc: string;
  /** The default as the reference states it, when it depends on the mode or on other settings. */
  defaultDoc?: string;
  /** An empty value is given to the parser (which may refuse it) instead of meaning "unset". */
  keepEmpty?: true;
}

/** One entry: its default is of its kind, or undefined (then it reads as undefined when unset). */
function s<T>(setting: Setting<T, undefined>): Setting<T, undefined>;
function s<T>(setting: Setting<T, NoInfer<T>>): Setting<T, T>;
function s<T>(setting: Setting<T>): Setting<T> {
  return setting;
}
const MiB = 1024 * 1024;
const HOUR = 60 * 60 * 1000;
const atLeast1 = (unit?: 'ms' | 'bytes') => int({ min: 1, unit });
const tokens = list('tokens');

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const PROTOCOLS = ['auto', 'streaming', 'delta', 'polling'] as const;

export const SETTINGS = {
  // general
  PORT: s({ kind: port, default: 4242, group: 'general', doc: 'TCP port to listen on (0: any free port).', defaultDoc: '4242; 3063 in relay and offline modes (where Unleash Edge listens)' }),
  HTTP_PORT: s({ kind: port, default: undefined, group: 'general', doc: 'Unleash\'s name for PORT, read when PORT is unset.' }),
  HOST: s({ kind: text(), default: undefined, group: 'general', doc: 'Address to listen on.', defaultDoc: '`0.0.0.0`; `127.0.0.1` when AUTH_TYPE=none (without authentication every caller is an admin)' }),
  INTERFACE: s({ kind: text(), default: undefined, group: 'general', doc: 'Unleash Edge\'s name for HOST, read in relay and offline modes when HOST is unset.' }),
  DATA_DIR: s({ kind: text(), default: './data', group: 'general', keepEmpty: true, doc: 'Folder of the write-ahead log, checkpoints and the token hash key (a relay\'s or offline server\'s copy of its flags).', defaultDoc: '`./data`; BACKUP_FOLDER in relay and offline modes when set' }),
  BACKUP_FOLDER: s({ kind: text(), default: undefined, group: 'general', doc: 'Unleash Edge\'s name for DATA_DIR, read in relay and offline modes when DATA_DIR is unset.' }),
  WAL_SYNC: s({ kind: oneOf(['always', 'none']), default: 'always', group: 'general', keepEmpty: true, doc: '`always`: every acknowledged change is on disk (fsync); `none` leaves it to the OS (tests, throwaway data).' }),
  AUTH_TYPE: s({ kind: oneOf(['api-token', 'none'], { 'open-source': 'api-token' }, true), default: 'api-token', group: 'general', keepEmpty: true, doc: '`api-token` (Unleash\'s `open-source` too): tokens and people; `none`: no authentication, every caller is an admin.' }),
  LOG_LEVEL: s({ kind: oneOf(LOG_LEVELS), default: 'info', group: 'general', doc: 'The least severe log lines written.' }),
  LOG_FORMAT: s({ kind: oneOf(['json', 'pretty'], { plain: 'pretty' }), default: 'json', group: 'general', doc: '`json`: one object per line; `pretty` (Edge\'s `plain`): coloured lines for people.' }),
  PUBLIC_URL: s({ kind: httpUrl('the http(s) address browsers reach Fanion at, such as https://flags.example.com'), default: undefined, group: 'general', doc: 'Where browsers reach Fanion: invitation links, the single sign-on callback, and a host name requests may name.' }),
  TOKEN_HASH_KEY: s({ kind: text({ min: 16 }), default: undefined, group: 'general', doc: 'Secret that keys the stored token hashes; generated once when unset (into DATA_DIR/token-hash.key; a cluster, into its database): keep it with the data.' }),
  // initTokens
  INIT_ADMIN_API_TOKENS: s({ kind: tokens, default: [], group: 'initTokens', doc: 'Admin tokens (`*:*.<secret>`).' }),
  INIT_CLIENT_API_TOKENS: s({ kind: tokens, default: [], group: 'initTokens', doc: 'Client (backend SDK) tokens (`<project|*>:<environment>.<secret>`).' }),
  INIT_BACKEND_API_TOKENS: s({ kind: tokens, default: [], group: 'initTokens', doc: 'More client tokens (Unleash\'s newer name).' }),
  INIT_FRONTEND_API_TOKENS: s({ kind: tokens, default: [], group: 'initTokens', doc: 'Frontend tokens (`<project|*>:<environment>.<secret>`).' }),
  // http
  BODY_LIMIT_BYTES: s({ kind: int({ unit: 'bytes' }), default: MiB, group: 'http', doc: 'Largest JSON body of an ordinary request; beyond, 413.' }),
  IMPORT_BODY_LIMIT_BYTES: s({ kind: int({ unit: 'bytes' }), default: 64 * MiB, group: 'http', doc: 'Largest body of a state import and of a features-batch import or validation.' }),
  HEADERS_TIMEOUT_MS: s({ kind: atLeast1('ms'), default: 15_000, group: 'http', doc: 'A request\'s headers must arrive within this; no longer than REQUEST_TIMEOUT_MS.' }),
  REQUEST_TIMEOUT_MS: s({ kind: atLeast1('ms'), default: 60_000, group: 'http', doc: 'A whole request, headers and body, must arrive within this (answers are not limited).' }),
  SHUTDOWN_TIMEOUT_MS: s({ kind: atLeast1('ms'), default: 30_000, group: 'http', doc: 'A stop not finished by then exits anyway (what was acknowledged is durable).' }),
  MAX_CONNECTIONS: s({ kind: atLeast1(), default: undefined, group: 'http', doc: 'Connections open at once; beyond, new ones are closed as soon as they are accepted.', defaultDoc: 'the open-file limit less 128, read at start' }),
  CORS_ORIGINS: s({ kind: origins, default: [], group: 'http', doc: 'Browser origins besides the server\'s own that may send state-changing requests.' }),
  ALLOWED_HOSTS: s({ kind: hostNames('flags.example.com'), default: [], group: 'http', doc: 'Host names requests may name in `Host` besides loopback names and IP addresses (against DNS rebinding): checked when authentication is off, and with it on once this lists any.' }),
  TRUST_PROXY: s({ kind: proxyHops, default: 0, group: 'http', doc: 'Proxies in front whose X-Forwarded-For entries are believed (`true` is one); the caller is the entry that many places from the right.' }),
  EDGE_VALIDATE_REQUIRE_TOKEN: s({ kind: bool, default: false, group: 'http', doc: 'POST /edge/validate refuses callers without a client or frontend token (Unleash Edge asks without one, as Unleash lets it).' }),
  // checkpoint
  CHECKPOINT_BYTES: s({ kind: int({ unit: 'bytes' }), default: 64 * MiB, group: 'checkpoint', doc: 'Checkpoint when the live log segment grows past this.' }),
  CHECKPOINT_RECORDS: s({ kind: int(), default: 50_000, group: 'checkpoint', doc: 'Checkpoint when the live log segment holds this many records.' }),
  // metrics
  METRICS_FLUSH_MS: s({ kind: int({ unit: 'ms' }), default: 10_000, group: 'metrics', doc: 'How often buffered SDK metrics are written to the log.' }),
  CLIENT_METRICS_MAX_BYTES: s({ kind: int({ unit: 'bytes' }), default: 32 * MiB, group: 'metrics', doc: 'Memory budget of SDK metrics (applications, instances, counts).' }),
  IMPACT_METRICS_MAX_BYTES: s({ kind: int({ unit: 'bytes' }), default: 64 * MiB, group: 'metrics', doc: 'Memory budget of the impact metrics\' series, each counted with its whole history; past it, new series are refused.' }),
  UNKNOWN_FLAGS_MAX_BYTES: s({ kind: int({ unit: 'bytes' }), default: 4 * MiB, group: 'metrics', doc: 'Memory budget of the flag names SDKs report that the server does not have.' }),
  PROMETHEUS_OPEN: s({ kind: bool, default: false, group: 'metrics', doc: '/internal-backstage/prometheus answers without a token.', defaultDoc: '`false`; `true` in relay and offline modes (which have no admin token)' }),
  // streaming
  STREAMING_MAX_CONNECTIONS: s({ kind: int(), default: 10_000, group: 'streaming', doc: 'Open streams at most; beyond, 429.' }),
  STREAMING_MAX_CONNECTIONS_PER_TOKEN: s({ kind: atLeast1(), default: 1_000, group: 'streaming', doc: 'Open streams of one token at most, so a leaked token cannot take every slot; beyond, 429.', defaultDoc: 'a tenth of STREAMING_MAX_CONNECTIONS, at least 1' }),
  STREAMING_KEEPALIVE_MS: s({ kind: atLeast1('ms'), default: 15_000, group: 'streaming', doc: 'A keep-alive comment on every stream this often.' }),
  STREAMING_BUFFER_BYTES: s({ kind: atLeast1('bytes'), default: MiB, group: 'streaming', doc: 'Unsent bytes a stream may hold (beyond its first frame) before it is dropped.' }),
  DELTA_WINDOW_CHANGES: s({ kind: atLeast1(), default: 10_000, group: 'streaming', doc: 'Recent changes a delta poll or a reconnecting stream can be answered from.' }),
  CLIENT_STREAMING_UPGRADE: s({ kind: bool, default: false, group: 'streaming', doc: 'Polling answers carry `fetch-mode: streaming`, which moves SDKs onto streaming.' }),
  // frontend
  FRONTEND_API_ORIGINS: s({ kind: origins, default: [], group: 'frontend', doc: 'Browser origins that may call the Frontend API and OFREP; empty: every origin.' }),
  CORS_ORIGIN: s({ kind: origins, default: [], group: 'frontend', doc: 'Unleash Edge\'s name for FRONTEND_API_ORIGINS, read in relay and offline modes when that is unset.' }),
  FRONTEND_CACHE_ENTRIES: s({ kind: int(), default: 10_000, group: 'frontend', doc: 'Answers kept for contexts seen recently.' }),
  FRONTEND_CACHE_MAX_BYTES: s({ kind: int({ unit: 'bytes' }), default: 64 * MiB, group: 'frontend', doc: 'Memory budget of everything the Frontend API and OFREP keep, keys included.' }),
  // webhooks
  WEBHOOK_TIMEOUT_MS: s({ kind: atLeast1('ms'), default: 10_000, group: 'webhooks', doc: 'A receiver must answer within this.' }),
  WEBHOOK_RETRY_BASE_MS: s({ kind: atLeast1('ms'), default: 1_000, group: 'webhooks', doc: 'First retry delay of a failed send, doubled at each next one.' }),
  WEBHOOK_RETRY_MAX_DELAY_MS: s({ kind: atLeast1('ms'), default: HOUR, group: 'webhooks', doc: 'The longest wait between two attempts.' }),
  WEBHOOK_RETRY_FOR_MS: s({ kind: atLeast1('ms'), default: 24 * HOUR, group: 'webhooks', doc: 'How long one event is retried before it is dropped.' }),
  WEBHOOK_ALLOW_HOSTS: s({ kind: hostNames('hooks.internal'), default: [], group: 'webhooks', doc: 'Host names webhooks may reach whatever they resolve to.' }),
  WEBHOOK_ALLOW_RANGES: s({ kind: addressRanges, default: [], group: 'webhooks', doc: 'Addresses or CIDR ranges webhooks may reach though not public.' }),
  WEBHOOK_ALLOW_PRIVATE: s({ kind: bool, default: false, group: 'webhooks', doc: 'Webhooks may reach private addresses (RFC 1918, CGNAT, IPv6 unique-local).' }),
  WEBHOOK_TEMPLATE_MAX_BYTES: s({ kind: atLeast1('bytes'), default: 4 * MiB, group: 'webhooks', doc: 'A rendered body template\'s size at most.' }),
  WEBHOOK_TEMPLATE_MAX_STEPS: s({ kind: atLeast1(), default: 200_000, group: 'webhooks', doc: 'A body template\'s rendering work at most.' }),
  // signIn
  UNLEASH_DEFAULT_ADMIN_USERNAME: s({ kind: text({ trim: true, max: 100 }), default: 'admin', group: 'signIn', doc: 'The first Admin, made at the first start (an `@` makes it an email).' }),
  UNLEASH_DEFAULT_ADMIN_PASSWORD: s({ kind: text(), default: undefined, group: 'signIn', doc: 'Its password (refused unless strong enough); without it one is generated and printed once.' }),
  SESSION_IDLE_TIMEOUT_MS: s({ kind: atLeast1('ms'), default: 8 * HOUR, group: 'signIn', doc: 'A session ends after this long without a request; no longer than SESSION_MAX_AGE_MS.' }),
  SESSION_MAX_AGE_MS: s({ kind: atLeast1('ms'), default: 48 * HOUR, group: 'signIn', doc: 'A session ends this long after sign-in, whatever its use.' }),
  PASSWORD_LINK_TTL_MS: s({ kind: atLeast1('ms'), default: 24 * HOUR, group: 'signIn', doc: 'Invitation and reset links work this long, once.' }),
  PASSWORD_SIGN_IN: s({ kind: bool, default: true, group: 'signIn', doc: 'Sign-in with a password; off leaves single sign-on and tokens.' }),
  SIGN_IN_LIMIT_PER_ADDRESS: s({ kind: atLeast1(), default: 10, group: 'signIn', doc: 'Sign-in attempts from one address per minute.' }),
  SIGN_IN_LIMIT_PER_ACCOUNT: s({ kind: atLeast1(), default: 5, group: 'signIn', doc: 'Failed sign-in attempts at one account per 15 minutes.' }),
  SIGN_IN_LIMITER_ENTRIES: s({ kind: atLeast1(), default: 10_000, group: 'signIn', doc: 'Addresses, and accounts, whose attempts are remembered (each).' }),
  PASSWORD_SCRYPT_LOG_N: s({ kind: int({ min: 10, max: 20 }), default: 15, group: 'signIn', doc: 'log2 of scrypt\'s cost N for new password hashes.' }),
  PASSWORD_HASH_CONCURRENCY: s({ kind: atLeast1(), default: 2, group: 'signIn', doc: 'Password hashes computed at once.' }),
  PASSWORD_HASH_QUEUE: s({ kind: int(), default: 32, group: 'signIn', doc: 'Password hashes waiting for a turn at most; beyond, 429.' }),
  // changeRequests
  CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS: s({ kind: environmentChoices, default: [], group: 'changeRequests', doc: 'Environments where a new project needs change requests from the start; empty: none (existing projects are never changed).' }),
  CHANGE_REQUESTS_ADMIN_SELF_APPROVE: s({ kind: bool, default: false, group: 'changeRequests', doc: 'An Admin may approve their own change requests (off: every request needs someone other than its author).' }),
  CHANGE_REQUESTS_DEFAULT_APPROVALS: s({ kind: int({ min: 1, max: 10 }), default: 1, group: 'changeRequests', doc: 'Approvals a change request needs in those environments (1–10).' }),
  // oidc
  OIDC_ISSUER: s({ kind: issuerUrl, default: undefined, group: 'oidc', doc: 'The provider\'s issuer URL; setting it turns single sign-on on.' }),
  OIDC_CLIENT_ID: s({ kind: text(), default: undefined, group: 'oidc', doc: 'Fanion\'s client ID at the provider.' }),
  OIDC_CLIENT_SECRET: s({ kind: text(), default: undefined, group: 'oidc', doc: 'Its client secret.' }),
  OIDC_DISPLAY_NAME: s({ kind: text({ trim: true }), default: undefined, group: 'oidc', doc: 'The provider\'s name on the sign-in button.', defaultDoc: 'the issuer\'s host name' }),
  OIDC_SCOPES: s({ kind: text({ trim: true }), default: 'openid email profile', group: 'oidc', doc: 'Scopes asked for, space-separated.' }),
  OIDC_AUTO_CREATE: s({ kind: bool, default: false, group: 'oidc', doc: 'People unknown to Fanion are created at their first sign-in.' }),
  OIDC_DEFAULT_ROLE: s({ kind: role, default: 'Viewer', group: 'oidc', doc: 'Their root role when no claim says otherwise.' }),
  OIDC_ROLE_CLAIM: s({ kind: text({ trim: true }), default: undefined, group: 'oidc', doc: 'The ID token (or userinfo) claim that names the role or the groups.' }),
  OIDC_ROLE_MAP: s({ kind: roleMap, default: [], group: 'oidc', doc: 'Claim values (groups) mapped to root roles; empty: the claim names the role. Needs OIDC_ROLE_CLAIM.' }),
  // cluster
  DATABASE_URL: s({ kind: postgresUrl, default: undefined, group: 'cluster', doc: 'The PostgreSQL database holding the shared log (never logged: it holds the password).' }),
  DATABASE_HOST: s({ kind: text(), default: undefined, group: 'cluster', doc: 'Instead of DATABASE_URL: the database server\'s host.' }),
  DATABASE_PORT: s({ kind: port, default: 5432, group: 'cluster', doc: 'With DATABASE_HOST: its port.' }),
  DATABASE_NAME: s({ kind: text(), default: 'unleash', group: 'cluster', doc: 'With DATABASE_HOST: the database.' }),
  DATABASE_USERNAME: s({ kind: text(), default: 'unleash', group: 'cluster', doc: 'With DATABASE_HOST: the user.' }),
  DATABASE_PASSWORD: s({ kind: text(), default: undefined, group: 'cluster', doc: 'With DATABASE_HOST: the password.' }),
  DATABASE_SSL: s({ kind: tls, default: false, group: 'cluster', doc: 'TLS to the database: on, off, or node\'s TLS options as JSON (e.g. `{"rejectUnauthorized":false}`).' }),
  DATABASE_POOL_MAX: s({ kind: atLeast1(), default: 4, group: 'cluster', doc: 'Connections a node keeps for appends, reads and checkpoints.' }),
  DATABASE_TIMEOUT_MS: s({ kind: atLeast1('ms'), default: 5_000, group: 'cluster', doc: 'Connecting, and each statement, must succeed within this, or the write answers 503.' }),
  DATABASE_SETTINGS_RETRY_MS: s({ kind: int({ unit: 'ms' }), default: 30_000, group: 'cluster', doc: 'How long a starting node retries a database that refuses its settings (password, privilege, database) before it exits 2.' }),
  // relay
  UPSTREAM_URL: s({ kind: httpUrl('an http(s) URL such as http://unleash:4242 (no query, no credentials)'), default: undefined, group: 'relay', doc: 'The upstream\'s base URL, without `/api`; setting it makes this a relay.' }),
  TOKENS: s({ kind: tokens, default: [], group: 'relay', doc: 'Relay: client and frontend tokens held from start-up. Offline: client tokens, each `<project|*>:<environment>.<secret>`.' }),
  PRETRUSTED_TOKENS: s({ kind: pretrustedTokens, default: [], group: 'relay', doc: 'Frontend tokens served without asking the upstream: the token, or `<alias>@<token>`; the scope is the token\'s.' }),
  FEATURES_REFRESH_INTERVAL_SECONDS: s({ kind: seconds(), default: 15_000, group: 'relay', doc: 'How often a polling or delta follower asks the upstream.' }),
  METRICS_INTERVAL_SECONDS: s({ kind: seconds(), default: 60_000, group: 'relay', doc: 'How often SDK metrics go upstream.' }),
  // Edge's default is an hour; a token revoked upstream would work that long on the relay. A check is one request per 100 tokens.
  TOKEN_REVALIDATION_INTERVAL_SECONDS: s({ kind: seconds(), default: 60_000, group: 'relay', doc: 'How often every known token is checked with the upstream again.' }),
  UPSTREAM_REQUEST_TIMEOUT: s({ kind: seconds(), default: 5_000, group: 'relay', doc: 'One upstream request, body included, must finish within this many seconds.' }),
  CUSTOM_CLIENT_HEADERS: s({ kind: headerPairs, default: [], group: 'relay', doc: 'Headers sent with every upstream request.' }),
  UPSTREAM_AUTH_HEADER: s({ kind: headerName, default: 'Authorization', group: 'relay', doc: 'The header that carries the token upstream.' }),
  UPSTREAM_PROTOCOL: s({ kind: oneOf(PROTOCOLS), default: 'auto', group: 'relay', doc: '`auto` tries streaming, then delta, then polling; or one protocol only.' }),
  APP_NAME: s({ kind: text(), default: 'fanion-relay', group: 'relay', doc: 'How the relay names itself upstream.' }),
  INSTANCE_ID: s({ kind: text(), default: undefined, group: 'relay', doc: 'Its instance ID upstream.', defaultDoc: '`fanion-relay@<pid>-<start time>`' }),
  UPSTREAM_METRICS_MAX_BYTES: s({ kind: int({ unit: 'bytes' }), default: 16 * MiB, group: 'relay', doc: 'SDK metrics held for the upstream while it is away.' }),
  UNKNOWN_TOKEN_CACHE_SECONDS: s({ kind: seconds(0), default: 60_000, group: 'relay', doc: 'How long a token the upstream refused is refused without asking again.' }),
  // offline
  BOOTSTRAP_FILE: s({ kind: text(), default: undefined, group: 'offline', doc: 'The features file (a client features answer `{version, features, segments?}`); setting it selects offline mode.' }),
  CLIENT_TOKENS: s({ kind: scopedTokens, default: [], group: 'offline', doc: 'Client (backend) tokens, as TOKENS.' }),
  FRONTEND_TOKENS: s({ kind: scopedTokens, default: [], group: 'offline', doc: 'Frontend tokens, same form.' }),
  RELOAD_INTERVAL: s({ kind: seconds(0), default: 0, group: 'offline', doc: 'How often the file is read again, in seconds; 0: once, at start-up.' }),
  // other
  UNLEASH_TOKEN: s({ kind: text(), default: undefined, group: 'other', doc: 'The `fanion` command\'s token when `--token` is not given (kept out of the shell history and `ps`).' }),
  HOSTNAME: s({ kind: text(), default: undefined, group: 'other', doc: 'The host name the applicationHostname strategy compares with, as the Node SDK reads it.', defaultDoc: 'the operating system\'s host name' }),
  FANION_CRASH_AT: s({ kind: text(), default: undefined, group: 'other', doc: 'Tests only: `<step>[:<n>]` makes the server kill itself at the n-th pass of a named step.' }),
};

export type SettingName = keyof typeof SETTINGS;
/** What a setting reads as when set. */
export type Parsed<N extends SettingName> = ReturnType<(typeof SETTINGS)[N]['kind']['parse']>;
/** What it reads as, unset included. */
export type Value<N extends SettingName> = Parsed<N> | (typeof SETTINGS)[N]['default'];

/** The environment read through the table: each value parsed when asked for, so an unused one is never refused. */
export interface Settings {
  /** The value, or the table's default when unset. */
  get<N extends SettingName>(name: N): Value<N>;
  /** The value, or `fallback` when unset: for defaults that depend on the mode or on other settings. */
  get<N extends SettingName, F>(name: N, fallback: F): Parsed<N> | F;
  /** Set to something other than the empty string (the "is set but" checks). */
  isSet(name: SettingName): boolean;
}

/** Unset: absent, empty, or (for kinds that trim) blank, unless the setting keeps an empty value. */
function unset(setting: Setting<unknown>, raw: string | undefined): raw is undefined {
  if (raw === undefined) return true;
  if (setting.keepEmpty) return false;
  return raw === '' || (setting.kind.blankIsUnset === true && raw.trim() === '');
}

export function readSettings(env: NodeJS.ProcessEnv): Settings {
  const table: Record<string, Setting<unknown>> = SETTINGS;
  return {
    get(name: SettingName, ...fallback: unknown[]) {
      const setting = table[name];
      const raw = env[name];
      if (unset(setting, raw)) return fallback.length > 0 ? fallback[0] : setting.default;
      return setting.kind.parse(raw, name);
    },
    isSet: (name) => Boolean(env[name]),
  } as Settings;
}
