// The playground answers as the real Unleash 8.2 does (the oracle, see helpers/unleash.ts): the same
// flags are made on both through the admin API (every operator family, inverted and
// case-insensitive constraints, segments, strategy variants with stickiness and payloads,
// dependencies, disabled strategies, a custom strategy type, flags off in an environment), the same
// playground bodies are posted to both, and the answers are compared field by field. Only what
// differs by nature is normalised: strategy and segment ids. The oracle is shared, so this run's
// names carry a prefix of their own and only those flags are compared.
import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { client, serve } from '../../helpers/server.js';
import { realUnleash } from '../../helpers/unleash.js';

const sorted = (features: any[]) => [...features].sort((a, b) => (a.name < b.name ? -1 : 1));

t.test('the playground answers as Unleash 8.2 for the same flags and contexts', async (t) => {
  const oracle = await realUnleash(t);
  if (!oracle) return;
  const { srv } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: oracle.admin } });
  const servers = { fanion: client(srv.url, { authorization: oracle.admin }), unleash: client(oracle.url, { authorization: oracle.admin }, false) };
  const p = `pg${randomBytes(3).toString('hex')}`;
  const n = (s: string) => `${p}-${s}`;
  const P = '/api/admin/projects/default/features';
  const made: string[] = [];
  const segmentIds: Record<'fanion' | 'unleash', Record<string, number>> = { fanion: {}, unleash: {} };

  // Every step on both servers; each must succeed.
  const both = async (method: string, path: string, body?: unknown | ((server: 'fanion' | 'unleash') => unknown)) => {
    const out: Record<string, any> = {};
    for (const server of ['fanion', 'unleash'] as const) {
      const res = await servers[server](method, path, typeof body === 'function' ? (body as (s: string) => unknown)(server) : body);
      if (res.status >= 300) throw new Error(`${server}: ${method} ${path} → ${res.status} ${res.text}`);
      out[server] = res.json;
    }
    return out;
  };
  t.teardown(async () => {
    // The oracle is long-lived and shared: what this run made goes.
    const u = (method: string, path: string, body?: unknown) => servers.unleash(method, path, body).catch(() => undefined);
    await u('POST', '/api/admin/projects/default/archive', { features: made });
    // Unleash 8.2 records an archived flag's lifecycle after answering; a flag deleted before that
    // makes the insert fail on its foreign key, and the error ends the Unleash process (seen twice
    // here). It is given time first.
    await new Promise((r) => setTimeout(r, 3000));
    await u('POST', '/api/admin/projects/default/delete', { features: made });
    for (const id of Object.values(segmentIds.unleash)) await u('DELETE', `/api/admin/segments/${id}`);
    await u('DELETE', `/api/admin/strategies/${n('custom')}`);
    for (const f of ['tier', 'age', 'ver']) await u('DELETE', `/api/admin/context/${n(f)}`);
  });

  const tier = n('tier');
  const age = n('age');
  const ver = n('ver');
  for (const name of [tier, age, ver]) await both('POST', '/api/admin/context', { name, description: 'playground test field' });
  await both('POST', '/api/admin/strategies', { name: n('custom'), description: 'a custom type', parameters: [{ name: 'region', type: 'string', description: '', required: false }] });
  // Constraints are written whole, so both servers store the same fields.
  const c = (contextName: string, operator: string, more: { values?: string[]; value?: string; inverted?: boolean; caseInsensitive?: boolean }) =>
    ({ contextName, operator, values: more.values ?? [], ...(more.value !== undefined ? { value: more.value } : {}), inverted: more.inverted ?? false, caseInsensitive: more.caseInsensitive ?? false });
  for (const [name, constraints] of [
    ['beta', [c('userId', 'IN', { values: ['1', '2', '3', '25'] })]],
    ['gold-adults', [c(tier, 'IN', { values: ['gold'] }), c(age, 'NUM_GTE', { value: '18' })]],
  ] as const) {
    const r = await both('POST', '/api/admin/segments', { name: n(name), constraints });
    segmentIds.fanion[name] = r.fanion.id;
    segmentIds.unleash[name] = r.unleash.id;
  }

  const flag = async (name: string, opts: { dev?: unknown[]; prod?: unknown[]; on?: string[]; type?: string } = {}) => {
    const full = n(name);
    made.push(full);
    await both('POST', P, { name: full, type: opts.type ?? 'release' });
    for (const [env, list] of [['development', opts.dev ?? []], ['production', opts.prod ?? []]] as const) {
      for (const s of list) await both('POST', `${P}/${full}/environments/${env}/strategies`, s);
    }
    for (const env of opts.on ?? ['development']) await both('POST', `${P}/${full}/environments/${env}/on`);
    return full;
  };
  const seg = (...names: string[]) => (server: 'fanion' | 'unleash') => names.map((x) => segmentIds[server][x]);
  const rollout = (pct: number, stickiness: string, groupId: string) => ({ name: 'flexibleRollout', parameters: { rollout: String(pct), stickiness, groupId } });
  const variants = (stickiness: string) => [
    { name: 'blue', weight: 200, weightType: 'fix', stickiness, payload: { type: 'json', value: '{"color":"blue"}' } },
    { name: 'green', weight: 400, weightType: 'variable', stickiness, payload: { type: 'string', value: 'green' } },
    { name: 'red', weight: 400, weightType: 'variable', stickiness },
  ];

  // Every operator family, plain, inverted and case-insensitive: one strategy each, so every
  // constraint is reported with its own result.
  await flag('ops-string', { dev: [{ name: 'default', constraints: [
    c('userId', 'IN', { values: ['1', '7'] }), c('email', 'NOT_IN', { values: ['a@b.c'] }), c('email', 'STR_STARTS_WITH', { values: ['USER1', 'x'], caseInsensitive: true }),
    c('email', 'STR_ENDS_WITH', { values: ['@example.com'], inverted: true }), c('email', 'STR_CONTAINS', { values: ['EXAMPLE'], caseInsensitive: true, inverted: true }),
  ] }] });
  await flag('ops-number', { dev: [{ name: 'default', constraints: [
    c(age, 'NUM_EQ', { value: '42' }), c(age, 'NUM_GT', { value: '30' }), c(age, 'NUM_GTE', { value: '30.5', inverted: true }), c(age, 'NUM_LT', { value: '20' }), c(age, 'NUM_LTE', { value: '20', inverted: true }),
  ] }] });
  await flag('ops-date', { dev: [{ name: 'default', constraints: [
    c('currentTime', 'DATE_AFTER', { value: '2027-06-01T00:00:00.000Z' }), c('currentTime', 'DATE_BEFORE', { value: '2026-01-01T00:00:00.000Z', inverted: true }),
  ] }] });
  await flag('ops-semver', { dev: [{ name: 'default', constraints: [
    c(ver, 'SEMVER_EQ', { value: '1.2.3' }), c(ver, 'SEMVER_GT', { value: '1.5.0' }), c(ver, 'SEMVER_LT', { value: '1.3.0-beta.2', inverted: true }),
    c(ver, 'SEMVER_GTE', { value: '1.2.0' }), c(ver, 'SEMVER_LTE', { value: '1.1.0', inverted: true }),
  ] }] });
  await flag('ops-regex', { dev: [{ name: 'default', constraints: [c('email', 'REGEX', { value: '^user[0-9]+@', caseInsensitive: true })] }] });
  // Several strategies: a failing one with variants, a disabled one that would match everyone, a
  // rollout by a custom field with variants; then segments, a custom type, an address list.
  await flag('multi', { type: 'experiment', dev: [
    { ...rollout(100, 'userId', n('m1')), constraints: [c('userId', 'IN', { values: ['999'] })], variants: variants('userId') },
    { name: 'default', disabled: true },
    { ...rollout(100, tier, n('m3')), variants: variants(tier) },
  ] });
  await flag('rollout', { type: 'experiment', dev: [{ ...rollout(50, 'userId', n('r')), variants: variants('userId') }] });
  await flag('segments', { dev: [{ name: 'default', segments: seg('beta') }, { ...rollout(100, 'userId', n('s')), segments: seg('beta', 'gold-adults'), constraints: [c('email', 'STR_CONTAINS', { values: ['@'] })] }] });
  await flag('custom', { dev: [{ name: n('custom'), parameters: { region: 'eu' }, constraints: [c('userId', 'NOT_IN', { values: ['7'] })] }, { name: 'remoteAddress', parameters: { IPs: '10.0.0.0/8, 192.168.1.20' } }] });
  await flag('hostname', { dev: [{ name: 'applicationHostname', parameters: { hostNames: 'nowhere.example' } }] });
  // Dependencies: on a parent being on, on one of its variants, on a parent being off.
  const parent = await flag('dep-parent', { type: 'experiment', dev: [{ ...rollout(60, 'userId', n('dp')), variants: [{ name: 'v1', weight: 500, weightType: 'variable', stickiness: 'userId' }, { name: 'v2', weight: 500, weightType: 'variable', stickiness: 'userId' }] }] });
  const parentOff = await flag('dep-parent-off', { dev: [{ name: 'default' }], on: [] });
  const child = await flag('dep-child', { dev: [{ name: 'default' }] });
  await both('POST', `${P}/${child}/dependencies`, { feature: parent, enabled: true });
  const childVariant = await flag('dep-child-variant', { dev: [{ name: 'default' }] });
  await both('POST', `${P}/${childVariant}/dependencies`, { feature: parent, enabled: true, variants: ['v1'] });
  const childOff = await flag('dep-child-wants-off', { dev: [{ name: 'default' }] });
  await both('POST', `${P}/${childOff}/dependencies`, { feature: parentOff, enabled: false });
  const childOfOff = await flag('dep-child-of-off', { dev: [{ name: 'default' }] });
  await both('POST', `${P}/${childOfOff}/dependencies`, { feature: parentOff, enabled: true });
  // Environments: off in development (its strategies still evaluated), on only in production, on by default.
  await flag('env-off', { dev: [{ ...rollout(100, 'userId', n('e')), variants: variants('userId') }], on: [] });
  await flag('prod-only', { dev: [{ name: 'default' }], prod: [{ ...rollout(100, 'userId', n('po')), constraints: [c('userId', 'IN', { values: ['7'] })] }], on: ['production'] });
  await flag('plain-on', {});

  /** An answer's flags of this run, by name, with ids that differ by nature replaced by positions and names. */
  const normalise = (features: any[], server: 'fanion' | 'unleash') => {
    const segName = new Map(Object.entries(segmentIds[server]).map(([k, v]) => [v, k]));
    const one = (f: any) => ({
      ...f,
      strategies: {
        ...f.strategies,
        data: f.strategies.data.map((s: any, i: number) => ({
          ...s, id: `#${i}`,
          links: s.links && { edit: String(s.links.edit).replace(/strategyId=[^&]+/, `strategyId=#${i}`) },
          segments: s.segments.map((g: any) => ({ ...g, id: segName.get(g.id) ?? g.id })),
        })),
      },
    });
    return sorted(features.filter((f) => f.name.startsWith(`${p}-`))).map((f) => (f.environments
      ? { ...f, environments: Object.fromEntries(Object.entries(f.environments).map(([e, list]) => [e, (list as any[]).map(one)])) }
      : one(f)));
  };
  const compare = async (t: Test, path: string, body: unknown) => {
    const f = await servers.fanion('POST', path, body);
    const u = await servers.unleash('POST', path, body);
    t.equal(f.status, 200, `Fanion: ${f.text.slice(0, 300)}`);
    t.equal(u.status, 200, `Unleash: ${u.text.slice(0, 300)}`);
    t.same(f.json.input, u.json.input, 'the same input echoed');
    const fs = normalise(f.json.features, 'fanion');
    const us = normalise(u.json.features, 'unleash');
    t.same(fs.map((x: any) => x.name), made.slice().sort(), 'Fanion lists every flag of the run');
    t.same(us.map((x: any) => x.name), made.slice().sort(), 'Unleash lists every flag of the run');
    for (let i = 0; i < us.length; i++) t.same(fs[i], us[i], `${us[i].name}: the same answer`);
    return { f: fs, u: us };
  };

  const contexts = [
    { appName: 'web', userId: '1', email: 'user1@Example.com', currentTime: '2027-07-01T00:00:00.000Z', remoteAddress: '10.1.2.3', properties: { [age]: '42', [ver]: '1.2.3', [tier]: 'gold' } },
    { appName: 'web', userId: '7', email: 'USER2@example.com', [age]: '17', [ver]: '2.0.0', [tier]: 'free', remoteAddress: '192.168.1.20', currentTime: '2025-06-01T00:00:00.000Z' },
    { appName: 'ios', userId: '25', sessionId: 's-1', email: 'user25@example.org', properties: { [tier]: 'silver', [ver]: '1.3.0-beta.1', [age]: '30.5' } },
    { appName: 'ios', userId: '3', properties: { [tier]: 'gold', [age]: '18' } },
    // Few fields; still the fields variants stick to (a context without them draws at random).
    { appName: 'bare', userId: '99', [tier]: 'none' },
  ];
  let seen = { on: 0, off: 0, unknown: 0, variants: 0, unsatisfied: 0, failed: 0 };
  for (const [i, context] of contexts.entries()) {
    for (const environment of ['development', 'production']) {
      await t.test(`POST /api/admin/playground: context ${i + 1} in ${environment}`, async (t) => {
        const { u } = await compare(t, '/api/admin/playground', { environment, projects: ['default'], context });
        for (const x of u) {
          seen = {
            on: seen.on + (x.isEnabled ? 1 : 0), off: seen.off + (x.isEnabled ? 0 : 1), unknown: seen.unknown + (x.strategies.result === 'unknown' ? 1 : 0),
            variants: seen.variants + (x.variant.enabled ? 1 : 0), unsatisfied: seen.unsatisfied + (x.hasUnsatisfiedDependency ? 1 : 0),
            failed: seen.failed + x.strategies.data.reduce((k: number, s: any) => k + s.constraints.filter((q: any) => q.result === false).length, 0),
          };
        }
      });
    }
  }
  await t.test('an environment that does not exist, and numbers in the context: answered as Unleash does', async (t) => {
    const { u } = await compare(t, '/api/admin/playground', { environment: 'nowhere', projects: ['default'], context: { appName: 'web', userId: 7, [age]: 42 } });
    t.ok(u.every((x: any) => !x.isEnabledInCurrentEnvironment && x.strategies.data.length === 0), 'every flag off, with no strategies');
  });

  t.test('the contexts exercise every outcome', async (t) => {
    for (const [k, v] of Object.entries(seen)) t.ok(v > 0, `${k}: ${v}`);
  });

  await t.test('POST /api/admin/playground/advanced: two environments, lists of values', async (t) => {
    const { u } = await compare(t, '/api/admin/playground/advanced', {
      environments: ['development', 'production'], projects: ['default'], context: { appName: 'web', userId: '1,7,25', properties: { [tier]: 'gold,free' }, email: 'user1@example.com' },
    });
    t.equal(u[0].environments.development.length, 6, 'every combination of the values');
  });

  await t.test('too many combinations: 400 from both', async (t) => {
    const many = Array.from({ length: 200 }, (_, i) => String(i)).join(',');
    const body = { environments: ['development', 'production'], projects: ['default'], context: { appName: 'web', userId: many, sessionId: many } };
    const f = await servers.fanion('POST', '/api/admin/playground/advanced', body);
    const u = await servers.unleash('POST', '/api/admin/playground/advanced', body);
    t.equal(u.status, 400, u.text.slice(0, 300));
    t.equal(f.status, 400);
    t.match(f.json, { name: 'ValidationError', message: /combinations, over the limit of 15000/ });
  });
});
