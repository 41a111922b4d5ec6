// A rich scenario built on a real Unleash through its admin API, under a prefix of its own (the
// instance is shared and never reset): every constraint operator, segments, strategy variants
// with payloads and custom stickiness, environment variants with overrides, dependencies,
// strategies whose served order differs from the order they were created in, disabled strategies
// and environments, archived flags, a custom strategy type, custom context fields, tags, and API
// tokens of every type Unleash lets an API create. Unleash open source has one project
// (`default`: creating projects and environments is Enterprise), so everything lives there,
// over its two environments.
import os from 'node:os';

export interface ScenarioTokens {
  /** Backend tokens (SDKs). */
  backendDev: string;
  backendProdAllProjects: string;
  clientProd: string;
  backendExpiring: string;
  frontendDev: string;
}

export interface Scenario {
  prefix: string;
  /** Every flag made, archived ones included. */
  flags: string[];
  archived: string[];
  /** Flags whose strategies were reordered after creation. */
  reordered: string[];
  tokens: ScenarioTokens;
  strategies: number;
  requests: number;
  /**
   * Deletes what the scenario made, so a long-lived shared Unleash does not fill up (it allows
   * 5,000 flags); best effort, the problems returned.
   */
  cleanup(): Promise<string[]>;
}

interface Call {
  (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<any>;
  count: number;
}

function caller(url: string, token: string): Call {
  const call = (async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
    call.count++;
    const res = await fetch(url + p, {
      method,
      headers: { ...(token ? { authorization: token } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`Unleash: ${method} ${p} → ${res.status} ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : undefined;
  }) as Call;
  call.count = 0;
  return call;
}

export const OPERATORS = [
  'IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS', 'NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE',
  'DATE_AFTER', 'DATE_BEFORE', 'SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE', 'REGEX',
] as const;

export async function buildScenario(url: string, adminToken: string): Promise<Scenario> {
  const api = caller(url, adminToken);
  const prefix = `h27m${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const n = (s: string) => `${prefix}-${s}`;
  const tier = n('tier');
  const age = n('age');
  const ver = n('ver');
  const P = '/api/admin/projects/default/features';
  const flags: string[] = [];
  const archived: string[] = [];
  const reordered: string[] = [];
  let strategies = 0;

  await api('POST', '/api/admin/context', { name: tier, description: 'plan', legalValues: [{ value: 'gold', description: 'paying' }, { value: 'silver' }, { value: 'free' }], stickiness: true });
  await api('POST', '/api/admin/context', { name: age, description: 'age in years' });
  await api('POST', '/api/admin/context', { name: ver, description: 'app version' });
  const segBeta = await api('POST', '/api/admin/segments', { name: `${prefix} beta users`, description: 'spaces are allowed', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2', '3', '5', '8', '13', '21', '34', '55', '89', '144'] }] });
  const segGold = await api('POST', '/api/admin/segments', { name: n('gold'), constraints: [{ contextName: tier, operator: 'IN', values: ['gold'] }] });
  const segAdults = await api('POST', '/api/admin/segments', { name: n('adults'), constraints: [{ contextName: age, operator: 'NUM_GTE', value: '18' }] });
  await api('POST', '/api/admin/strategies', { name: n('custom'), description: 'a custom strategy type', parameters: [{ name: 'region', type: 'string', description: '', required: false }] });
  await api('POST', '/api/admin/tag-types', { name: n('team'), description: 'owning team' });

  const flag = async (name: string, opts: { type?: string; description?: string; impressionData?: boolean; stale?: boolean; dev?: unknown[]; prod?: unknown[]; on?: ('development' | 'production')[]; tags?: string[] } = {}) => {
    const full = n(name);
    flags.push(full);
    await api('POST', P, { name: full, type: opts.type ?? 'release', description: opts.description ?? `scenario flag ${name}`, impressionData: opts.impressionData ?? false });
    if (opts.stale) await api('PATCH', `${P}/${full}`, [{ op: 'replace', path: '/stale', value: true }]);
    const ids: Record<string, string[]> = { development: [], production: [] };
    for (const [env, list] of [['development', opts.dev ?? []], ['production', opts.prod ?? []]] as const) {
      for (const s of list) {
        ids[env].push((await api('POST', `${P}/${full}/environments/${env}/strategies`, s)).id);
        strategies++;
      }
    }
    for (const env of opts.on ?? ['development']) await api('POST', `${P}/${full}/environments/${env}/on`);
    for (const value of opts.tags ?? []) await api('POST', `/api/admin/features/${full}/tags`, { type: n('team'), value });
    return { name: full, ids };
  };
  const rollout = (rolloutPct: number, stickiness = 'default', groupId?: string) => ({ name: 'flexibleRollout', parameters: { rollout: String(rolloutPct), stickiness, groupId: groupId ?? prefix } });
  const c = (contextName: string, operator: string, more: Record<string, unknown>) => ({ contextName, operator, ...more });
  // Unleash 8 has no userWithId strategy type any more: a user list is a constraint.
  const users = (ids: string[]) => ({ name: 'default', constraints: [c('userId', 'IN', { values: ids })] });

  // Every operator, each once plain and once inverted (REGEX cannot be inverted in Unleash).
  const constraintOf: Record<(typeof OPERATORS)[number], Record<string, unknown>> = {
    IN: c('userId', 'IN', { values: ['3', '7', '11', '100', '250'] }),
    NOT_IN: c('country', 'NOT_IN', { values: ['NO', 'SE'] }),
    STR_STARTS_WITH: c('email', 'STR_STARTS_WITH', { values: ['user1', 'USER2'], caseInsensitive: true }),
    STR_ENDS_WITH: c('email', 'STR_ENDS_WITH', { values: ['@example.com'] }),
    STR_CONTAINS: c('email', 'STR_CONTAINS', { values: ['7@', 'X'], caseInsensitive: true }),
    NUM_EQ: c(age, 'NUM_EQ', { value: '42' }),
    NUM_GT: c(age, 'NUM_GT', { value: '30' }),
    NUM_GTE: c(age, 'NUM_GTE', { value: '30.5' }),
    NUM_LT: c(age, 'NUM_LT', { value: '20' }),
    NUM_LTE: c(age, 'NUM_LTE', { value: '20' }),
    DATE_AFTER: c('currentTime', 'DATE_AFTER', { value: '2027-06-01T00:00:00.000Z' }),
    DATE_BEFORE: c('currentTime', 'DATE_BEFORE', { value: '2026-01-01T00:00:00.000Z' }),
    SEMVER_EQ: c(ver, 'SEMVER_EQ', { value: '1.2.3' }),
    SEMVER_GT: c(ver, 'SEMVER_GT', { value: '1.5.0' }),
    SEMVER_LT: c(ver, 'SEMVER_LT', { value: '1.3.0-beta.2' }),
    SEMVER_GTE: c(ver, 'SEMVER_GTE', { value: '1.4.0' }),
    SEMVER_LTE: c(ver, 'SEMVER_LTE', { value: '1.1.0' }),
    REGEX: c('email', 'REGEX', { value: '^user[0-9]*5@', caseInsensitive: true }),
  };
  for (const op of OPERATORS) {
    await flag(`op-${op.toLowerCase()}`, { dev: [{ name: 'default', constraints: [constraintOf[op]] }] });
    if (op !== 'REGEX') await flag(`op-not-${op.toLowerCase()}`, { dev: [{ name: 'default', constraints: [{ ...constraintOf[op], inverted: true }] }] });
  }
  await flag('op-legal-values', { dev: [{ name: 'default', constraints: [c(tier, 'IN', { values: ['gold', 'silver'] })] }] });
  await flag('op-two-constraints', { dev: [{ name: 'default', constraints: [constraintOf.STR_ENDS_WITH, constraintOf.NUM_GT] }] });

  // Built-in strategies and rollouts with every kind of stickiness.
  await flag('s-users', { dev: [users(['1', '2', '3', '42', '99'])] });
  await flag('s-ips', { dev: [{ name: 'remoteAddress', parameters: { IPs: '10.0.0.0/8, 192.168.1.20, 172.16.5.4' } }] });
  await flag('s-host', { dev: [{ name: 'applicationHostname', parameters: { hostNames: `${os.hostname()},other-host` } }] });
  await flag('s-custom', { dev: [{ name: n('custom'), parameters: { region: 'eu' } }] });
  await flag('r-10-user', { dev: [rollout(10, 'userId')] });
  await flag('r-33-session', { dev: [rollout(33, 'sessionId', 'g1')] });
  await flag('r-50-default', { dev: [rollout(50)] });
  await flag('r-90-tier', { dev: [rollout(90, tier)] });
  await flag('r-0', { dev: [rollout(0, 'userId')] });

  // Variants on strategies: payloads of every type, fixed and variable weights, custom stickiness.
  const variants = [
    { name: 'blue', weight: 200, weightType: 'fix', stickiness: 'userId', payload: { type: 'json', value: '{"color":"blue","n":1}' } },
    { name: 'green', weight: 400, weightType: 'variable', stickiness: 'userId', payload: { type: 'string', value: 'green' } },
    { name: 'red', weight: 400, weightType: 'variable', stickiness: 'userId', payload: { type: 'number', value: '7' } },
  ];
  await flag('v-strategy', { type: 'experiment', dev: [{ ...rollout(80, 'userId'), variants }] });
  await flag('v-tier-stickiness', { type: 'experiment', dev: [{ ...rollout(100, tier), variants: [{ name: 'a', weight: 500, weightType: 'variable', stickiness: tier, payload: { type: 'csv', value: 'a,b,c' } }, { name: 'b', weight: 500, weightType: 'variable', stickiness: tier }] }] });

  // Served order ≠ creation order: three overlapping strategies with their own variants, then
  // reversed (and, for the second flag, the middle one moved first). Which variant a user gets
  // depends on which matching strategy comes first.
  for (const [name, order] of [['order-reversed', [2, 1, 0]], ['order-middle-first', [1, 0, 2]]] as const) {
    const f = await flag(name, {
      type: 'experiment',
      dev: [
        { ...rollout(60, 'userId', 'o1'), variants: [{ name: 'first', weight: 1000, weightType: 'variable', stickiness: 'userId' }] },
        { ...rollout(60, 'userId', 'o2'), variants: [{ name: 'second', weight: 1000, weightType: 'variable', stickiness: 'userId' }] },
        { name: 'default', constraints: [constraintOf.STR_ENDS_WITH], variants: [{ name: 'third', weight: 1000, weightType: 'variable', stickiness: 'default' }] },
      ],
    });
    await api('POST', `${P}/${f.name}/environments/development/strategies/set-sort-order`, order.map((at, sortOrder) => ({ id: f.ids.development[at], sortOrder })));
    // Then the strategy served first is edited: its row moves in Unleash's table, not in its order.
    const firstId = f.ids.development[order[0]];
    await api('PATCH', `${P}/${f.name}/environments/development/strategies/${firstId}`, [{ op: 'replace', path: '/title', value: 'edited after the reorder' }]);
    reordered.push(f.name);
  }

  // Segments on strategies, and a disabled strategy that would otherwise enable everyone.
  await flag('seg-beta', { dev: [{ name: 'default', segments: [segBeta.id] }] });
  await flag('seg-gold-adults', { dev: [{ ...rollout(100, 'userId'), segments: [segGold.id, segAdults.id], constraints: [constraintOf.NOT_IN] }] });
  await flag('disabled-strategy', { dev: [users(['5']), { name: 'default', disabled: true }] });

  // Environments: off in development, on only in production (with other strategies), on in both.
  await flag('env-off', { dev: [{ name: 'default' }], on: [] });
  await flag('env-prod-only', { dev: [{ name: 'default' }], prod: [rollout(50, 'userId')], on: ['production'] });
  await flag('env-both', { dev: [rollout(25, 'userId')], prod: [users(['1', '2', '3']), rollout(75, 'sessionId')], on: ['development', 'production'] });
  await flag('no-strategy', { on: ['development'] });

  // Metadata: types, stale, impression data, description; tags.
  await flag('meta-kill-switch', { type: 'kill-switch', stale: true, impressionData: true, description: 'stale kill switch', dev: [{ name: 'default' }], tags: ['payments', 'core'] });
  await flag('meta-permission', { type: 'permission', dev: [users(['42'])], tags: ['core'] });
  await flag('meta-operational', { type: 'operational', dev: [{ name: 'default' }] });

  // Dependencies: on a parent being on, on a parent's variant, on a parent being off.
  const parent = await flag('dep-parent', { type: 'experiment', dev: [{ ...rollout(70, 'userId'), variants: [{ name: 'v1', weight: 500, weightType: 'variable', stickiness: 'userId' }, { name: 'v2', weight: 500, weightType: 'variable', stickiness: 'userId' }] }] });
  const parentOff = await flag('dep-parent-off', { dev: [{ name: 'default' }], on: [] });
  const child = await flag('dep-child', { dev: [rollout(80, 'userId')] });
  await api('POST', `${P}/${child.name}/dependencies`, { feature: parent.name, enabled: true });
  const childVariant = await flag('dep-child-variant', { dev: [{ name: 'default' }] });
  await api('POST', `${P}/${childVariant.name}/dependencies`, { feature: parent.name, enabled: true, variants: ['v1'] });
  const childOff = await flag('dep-child-wants-off', { dev: [{ name: 'default' }] });
  await api('POST', `${P}/${childOff.name}/dependencies`, { feature: parentOff.name, enabled: false });

  // Archived flags: not served, but brought over (revivable in Fanion).
  for (const name of ['archived-on', 'archived-variants']) {
    const f = await flag(name, { dev: [{ ...rollout(100, 'userId'), variants }] });
    await api('DELETE', `${P}/${f.name}`);
    archived.push(f.name);
  }

  // Environment variants (with overrides) are deprecated in the admin API since Unleash 5, but
  // older flags have them and Unleash serves them: the features-batch import still writes them.
  // It takes a personal access token, not an admin token.
  // Others log in as admin on the shared instance too, and a new session may end an older one
  // between our two requests: a few tries.
  let cookie = '';
  let pat: { id: number; secret: string } | undefined;
  for (let attempt = 1; !pat; attempt++) {
    const session = await fetch(`${url}/auth/simple/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'unleash4all' }) });
    if (session.status !== 200) throw new Error(`Unleash login as admin failed: ${session.status}`);
    cookie = (session.headers.getSetCookie?.() ?? []).map((v) => v.split(';')[0]).join('; ');
    try {
      pat = await caller(url, '')('POST', '/api/admin/user/tokens', { description: `${prefix} scenario`, expiresAt: new Date(Date.now() + 86_400_000).toISOString() }, { cookie });
    } catch (err) {
      if (attempt >= 5) throw err;
    }
  }
  const envVariantFlag = n('env-variants');
  const envVariants = [
    { name: 'ev-a', weight: 600, weightType: 'variable', stickiness: 'userId', payload: { type: 'string', value: 'A' }, overrides: [{ contextName: 'userId', values: ['7', '8'] }] },
    { name: 'ev-b', weight: 400, weightType: 'variable', stickiness: 'userId', payload: { type: 'json', value: '{"b":true}' }, overrides: [{ contextName: tier, values: ['gold'] }] },
  ];
  await caller(url, pat.secret)('POST', '/api/admin/features-batch/import', {
    project: 'default',
    environment: 'development',
    data: {
      features: [{ name: envVariantFlag, project: 'default', type: 'experiment', description: 'environment variants' }],
      featureStrategies: [{ name: 'flexibleRollout', featureName: envVariantFlag, parameters: { rollout: '80', stickiness: 'userId', groupId: envVariantFlag }, constraints: [] }],
      featureEnvironments: [{ featureName: envVariantFlag, environment: 'development', enabled: true, name: envVariantFlag, variants: envVariants }],
      tagTypes: [], featureTags: [], contextFields: [], segments: [],
    },
  });
  flags.push(envVariantFlag);
  strategies++;

  // The last flag made: once Unleash's own frontend cache serves it, it serves all of them.
  await flag('zz-last', { dev: [{ name: 'default' }] });

  const token = async (tokenName: string, type: string, environment: string, projects: string[], expiresAt?: string) =>
    (await api('POST', '/api/admin/api-tokens', { tokenName: n(tokenName), type, environment, projects, ...(expiresAt ? { expiresAt } : {}) })).secret as string;
  const tokens: ScenarioTokens = {
    backendDev: await token('backend-dev', 'backend', 'development', ['default']),
    backendProdAllProjects: await token('backend-prod-all', 'backend', 'production', ['*']),
    clientProd: await token('client-prod', 'client', 'production', ['default']),
    backendExpiring: await token('backend-expiring', 'backend', 'development', ['default'], new Date(Date.now() + 365 * 86_400_000).toISOString()),
    frontendDev: await token('frontend-dev', 'frontend', 'development', ['default']),
  };
  const cleanup = async (): Promise<string[]> => {
    const problems: string[] = [];
    const attempt = async (what: Promise<unknown>) => {
      try {
        await what;
      } catch (err) {
        problems.push((err as Error).message);
      }
    };
    const live = flags.filter((f) => !archived.includes(f));
    await attempt(api('POST', '/api/admin/projects/default/archive', { features: live }));
    await attempt(api('POST', '/api/admin/projects/default/delete', { features: flags }));
    for (const id of [segBeta.id, segGold.id, segAdults.id]) await attempt(api('DELETE', `/api/admin/segments/${id}`));
    await attempt(api('DELETE', `/api/admin/strategies/${n('custom')}`));
    for (const field of [tier, age, ver]) await attempt(api('DELETE', `/api/admin/context/${field}`));
    await attempt(api('DELETE', `/api/admin/tag-types/${n('team')}`));
    for (const secret of Object.values(tokens)) await attempt(api('DELETE', `/api/admin/api-tokens/${encodeURIComponent(secret)}`));
    await attempt(caller(url, pat.secret)('DELETE', `/api/admin/user/tokens/${pat.id}`));
    return problems;
  };
  return { prefix, flags, archived, reordered, tokens, strategies, requests: api.count, cleanup };
}
