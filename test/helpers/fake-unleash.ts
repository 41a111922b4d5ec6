// An HTTP server that answers the Unleash 8 admin API requests `fanion migrate` makes, from a
// world a test describes (answers shaped as a real Unleash 8.2 sends them: see
// test/modes/migrate/real-unleash.test.ts for the real thing). It exists for what a real Unleash will
// not do on demand: several projects and environments (Enterprise), v2 and multi-project
// tokens, answers that are hostile, broken, slow or never end.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import { recover } from '../../src/core/storage/recovery.js';
import { runCli } from './cli.js';

export interface FakeFlag {
  name: string;
  project: string;
  type?: string;
  description?: string | null;
  stale?: boolean;
  impressionData?: boolean;
  createdAt?: string;
  dependencies?: { feature: string; enabled: boolean; variants?: string[] }[];
  environments: { name: string; enabled: boolean; variants?: unknown[]; strategies: Record<string, unknown>[] }[];
  tags?: { type: string; value: string }[];
  /** Archived flags are found through the search and read environment by environment. */
  archivedAt?: string;
}

export interface FakeWorld {
  version: string;
  projects: { id: string; name: string; description?: string | null; mode?: string; createdAt?: string }[];
  environments: { name: string; type: string; sortOrder: number; enabled: boolean; protected: boolean }[];
  flags: FakeFlag[];
  segments: Record<string, unknown>[];
  strategies: Record<string, unknown>[];
  context: Record<string, unknown>[];
  tagTypes: { name: string; description?: string; icon?: string | null }[];
  tags: { type: string; value: string }[];
  tokens: Record<string, unknown>[];
  users: number;
  addons: string[];
  /** Unleash 8 lists a flag's tags in its project's flag list (when it has some); older ones do not. */
  listsTags: boolean;
}

export type Override = (req: http.IncomingMessage, res: http.ServerResponse, path: string) => boolean | Promise<boolean>;

export interface FakeUnleash {
  url: string;
  world: FakeWorld;
  /** Paths asked for, in order (query strings included). */
  hits: string[];
  /** Answers a path (prefix match on the path without its query) with this instead. */
  override(fn: Override | null): void;
  close(): Promise<void>;
}

export const FAKE_ADMIN_TOKEN = '*:*.fake-unleash-admin';

/** A world with several projects and environments, as only an Enterprise Unleash has. */
export function richWorld(): FakeWorld {
  const T = '2025-03-04T05:06:07.000Z';
  const strategy = (id: string, sortOrder: number, extra: Record<string, unknown> = {}) => ({
    id, name: 'flexibleRollout', title: null, disabled: false, sortOrder, segments: [], constraints: [], variants: [],
    parameters: { rollout: '100', stickiness: 'default', groupId: id }, ...extra,
  });
  return {
    version: '8.2.0',
    projects: [
      { id: 'default', name: 'Default', description: 'Default project', mode: 'open', createdAt: T },
      { id: 'shop', name: 'Shop', description: null, mode: 'protected', createdAt: T },
    ],
    environments: [
      { name: 'development', type: 'development', sortOrder: 2, enabled: true, protected: false },
      { name: 'production', type: 'production', sortOrder: 3, enabled: true, protected: true },
      { name: 'staging', type: 'test', sortOrder: 1, enabled: true, protected: false },
    ],
    flags: [
      {
        name: 'checkout', project: 'shop', type: 'experiment', description: 'new checkout', impressionData: true, createdAt: T,
        environments: [
          {
            name: 'production', enabled: true,
            // Listed out of order on purpose: the sortOrder decides, and ties go by id.
            strategies: [
              strategy('01J0000000000000000000000C', 1, { constraints: [{ contextName: 'country', operator: 'IN', values: ['NO'], caseInsensitive: false, inverted: false }] }),
              strategy('01J0000000000000000000000B', 0, { segments: [1], variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"a":1}' } }] }),
              strategy('01J0000000000000000000000A', 1, { parameters: { rollout: '50', stickiness: 'userId', groupId: 'tie' } }),
              strategy('01J0000000000000000000000F', 2, { disabled: true }),
            ],
          },
          { name: 'development', enabled: false, strategies: [] },
          { name: 'staging', enabled: true, variants: [{ name: 'env-v', weight: 1000, weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['7'] }] }], strategies: [strategy('01J00000000000000000000S01', 0)] },
        ],
        tags: [{ type: 'team', value: 'payments' }],
      },
      {
        name: 'banner', project: 'default', createdAt: T, stale: true,
        dependencies: [{ feature: 'checkout', enabled: true, variants: ['blue'] }],
        environments: [{ name: 'development', enabled: true, strategies: [strategy('01J0000000000000000000000D', 0)] }, { name: 'production', enabled: false, strategies: [] }, { name: 'staging', enabled: false, strategies: [] }],
        tags: [{ type: 'simple', value: 'ui' }],
      },
      {
        name: 'old-promo', project: 'default', createdAt: T, archivedAt: '2025-04-01T00:00:00.000Z',
        environments: [{ name: 'development', enabled: true, strategies: [strategy('01J0000000000000000000000E', 0)] }, { name: 'production', enabled: false, strategies: [] }, { name: 'staging', enabled: false, strategies: [] }],
      },
    ],
    segments: [{ id: 1, name: 'Beta users', description: null, constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2'] }], createdAt: T, createdBy: 'admin', usedInFeatures: 1 }],
    strategies: [
      { name: 'flexibleRollout', displayName: 'Gradual rollout', description: '', editable: false, deprecated: false, parameters: [] },
      { name: 'region', displayName: null, description: 'by region', editable: true, deprecated: false, title: null, parameters: [{ name: 'regions', type: 'list', description: '', required: false }] },
    ],
    context: [
      { name: 'userId', description: 'built in', stickiness: false, sortOrder: 1, legalValues: [], createdAt: T },
      { name: 'country', description: 'ISO code', stickiness: true, sortOrder: 5, legalValues: [{ value: 'NO', description: 'Norway' }, { value: 'SE' }], createdAt: T },
    ],
    tagTypes: [{ name: 'simple', description: 'Used to simplify filtering of features', icon: '#' }, { name: 'team', description: 'owner' }],
    tags: [{ type: 'simple', value: 'ui' }, { type: 'team', value: 'payments' }],
    tokens: [
      { secret: FAKE_ADMIN_TOKEN, tokenName: 'admin', type: 'admin', project: '*', projects: ['*'], environment: '*', expiresAt: null, createdAt: T, secure: false },
      { secret: 'shop:production.0123456789abcdef0123456789abcdef0123456789abcdef01234567', tokenName: 'shop-prod', type: 'client', project: 'shop', projects: ['shop'], environment: 'production', expiresAt: null, createdAt: T, secure: false },
      { secret: '[]:staging.89abcdef0123456789abcdef0123456789abcdef0123456789abcdef', tokenName: 'both-staging', type: 'backend', project: 'default,shop', projects: ['default', 'shop'], environment: 'staging', expiresAt: '2031-01-01T00:00:00.000Z', createdAt: T, secure: false },
      { secret: 'default:development.fedcba9876543210fedcba9876543210fedcba9876543210fedcba98', tokenName: 'web', type: 'frontend', project: 'default', projects: ['default'], environment: 'development', expiresAt: null, createdAt: T, secure: false },
      // Unleash 8.1+ v2 tokens are listed by their selector only.
      { secret: 'AAAAAAAAAAAAAAAAAAAAAA', tokenName: 'v2-backend', type: 'backend', project: '*', projects: ['*'], environment: 'production', expiresAt: null, createdAt: T, secure: true },
      { secret: 'BBBBBBBBBBBBBBBBBBBBBB', tokenName: 'v2-unknown', type: 'backend', project: 'default', projects: ['default'], environment: 'development', expiresAt: null, createdAt: T, secure: true },
    ],
    users: 3,
    addons: ['webhook', 'slack'],
    listsTags: true,
  };
}

/** The full secret of richWorld's `v2-backend` token (its selector is `AAAA…`). */
export const V2_SECRET = `*:production.v2_${'A'.repeat(22)}_${'x'.repeat(43)}`;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function answer(world: FakeWorld, path: string, query: URLSearchParams): { status: number; body: unknown } {
  const notFound = { status: 404, body: { name: 'NotFoundError', message: `The path you were looking for (${path}) is not available.` } };
  const live = world.flags.filter((f) => !f.archivedAt);
  const find = (name: string, archived: boolean) => world.flags.find((f) => f.name === name && !!f.archivedAt === archived);
  const fixed: Record<string, unknown> = {
    '/api/admin/ui-config': { versionInfo: { current: { oss: world.version, enterprise: '' } } },
    '/api/admin/projects': { version: 1, projects: world.projects },
    '/api/admin/environments': { version: 1, environments: world.environments },
    '/api/admin/segments': { segments: world.segments },
    '/api/admin/strategies': { version: 1, strategies: world.strategies },
    '/api/admin/context': world.context,
    '/api/admin/tag-types': { version: 1, tagTypes: world.tagTypes },
    '/api/admin/tags': { version: 1, tags: world.tags },
    '/api/admin/api-tokens': { tokens: world.tokens },
    '/api/admin/user-admin': { users: Array.from({ length: world.users }, (_, i) => ({ id: i + 1 })) },
    '/api/admin/addons': { addons: world.addons.map((provider, id) => ({ id, provider })) },
  };
  if (path in fixed) return { status: 200, body: fixed[path] };
  if (path === '/api/admin/search/features') {
    if (query.get('archived') !== 'IS:true') return { status: 400, body: { message: 'only archived searches here' } };
    const all = world.flags.filter((f) => f.archivedAt).map((f) => ({
      name: f.name, project: f.project, type: f.type ?? 'release', description: f.description ?? null, stale: f.stale ?? false, impressionData: f.impressionData ?? false,
      createdAt: f.createdAt, archivedAt: f.archivedAt, environments: f.environments.map((e) => ({ name: e.name, enabled: e.enabled, hasStrategies: e.strategies.length > 0, variantCount: e.variants?.length ?? 0 })), tags: f.tags ?? [],
    }));
    const offset = Number(query.get('offset') ?? 0);
    const limit = Number(query.get('limit') ?? 50);
    return { status: 200, body: { features: all.slice(offset, offset + limit), total: all.length } };
  }
  let m = /^\/api\/admin\/projects\/([^/]+)\/features$/.exec(path);
  if (m) {
    const listed = live.filter((f) => f.project === decodeURIComponent(m![1]));
    return { status: 200, body: { version: 2, features: listed.map((f) => ({ name: f.name, ...(world.listsTags && f.tags?.length ? { tags: f.tags } : {}) })) } };
  }
  m = /^\/api\/admin\/projects\/([^/]+)\/features\/([^/]+)$/.exec(path);
  if (m) {
    const f = find(decodeURIComponent(m[2]), false);
    if (!f || f.project !== decodeURIComponent(m[1])) return notFound;
    return {
      status: 200,
      body: {
        name: f.name, project: f.project, type: f.type ?? 'release', description: f.description ?? null, stale: f.stale ?? false, impressionData: f.impressionData ?? false,
        createdAt: f.createdAt, archived: false, dependencies: f.dependencies ?? [], children: [], lastSeenAt: null,
        environments: f.environments.map((e) => ({ name: e.name, enabled: e.enabled, type: 'development', sortOrder: 1, lastSeenAt: null, variants: e.variants ?? [], strategies: e.strategies })),
      },
    };
  }
  m = /^\/api\/admin\/projects\/([^/]+)\/features\/([^/]+)\/environments\/([^/]+)(\/variants)?$/.exec(path);
  if (m) {
    const f = find(decodeURIComponent(m[2]), true) ?? find(decodeURIComponent(m[2]), false);
    const e = f?.environments.find((x) => x.name === decodeURIComponent(m![3]));
    if (!f || !e) return notFound;
    return { status: 200, body: m[4] ? { version: 1, variants: e.variants ?? [] } : { name: f.name, environment: e.name, enabled: e.enabled, strategies: e.strategies } };
  }
  m = /^\/api\/admin\/features\/([^/]+)\/tags$/.exec(path);
  if (m) {
    const f = world.flags.find((x) => x.name === decodeURIComponent(m![1]));
    return f ? { status: 200, body: { version: 1, tags: f.tags ?? [] } } : notFound;
  }
  return notFound;
}

export async function fakeUnleash(world: FakeWorld = richWorld(), adminToken = FAKE_ADMIN_TOKEN): Promise<FakeUnleash> {
  const hits: string[] = [];
  let override: Override | null = null;
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      hits.push(url.pathname + url.search);
      if (override && (await override(req, res, url.pathname))) return;
      if (req.headers.authorization !== adminToken) return send(res, 401, { name: 'UnauthorizedError', message: 'You must log in to use Unleash.' });
      const a = answer(world, url.pathname, url.searchParams);
      send(res, a.status, a.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    world,
    hits,
    override: (fn) => {
      override = fn;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A fake Unleash for one test, closed when it ends. */
export async function withFake(t: Test): Promise<FakeUnleash> {
  const fake = await fakeUnleash();
  t.teardown(() => fake.close());
  return fake;
}

/** `fanion migrate` from `fake` into `dataDir`, with Unleash's admin token. */
export function migrate(fake: { url: string }, dataDir: string, ...extra: string[]) {
  return runCli(['migrate', '--from', fake.url, '--token', FAKE_ADMIN_TOKEN, '--data', dataDir, ...extra]);
}

/** What a data folder holds, read without a server. */
export function contents(dataDir: string) {
  const { state } = recover(dataDir);
  return { flags: state.features.size, tokens: state.apiTokens.size, events: state.events.size, segments: state.segments.size };
}

/** A folder with Fanion's defaults only. */
export const EMPTY = { flags: 0, tokens: 0, events: 0, segments: 0 };
