// `fanion migrate` against a real Unleash 8.2: a rich scenario is built on it through its admin
// API, the whole Unleash is migrated, and the official Node SDK is pointed at both servers with
// the same tokens. For 2,000 contexts (500 in production) every scenario flag must give the same
// isEnabled and getVariant on both; the frontend API must answer the same with the same frontend
// token; the client API must serve the same strategies in the same order; the admin token works.
// The instance is shared: the scenario has a prefix of its own, and the migration also brings
// over whatever else is there (the comparison sticks to the scenario).
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents, type Context } from 'unleash-client';
import { runCli } from '../../helpers/cli.js';
import { client, spawnServer, tempDataDir } from '../../helpers/server.js';
import { cannotRunUnleash, MUST_RUN, startUnleash } from '../../helpers/unleash.js';
import { buildScenario, type Scenario } from '../../helpers/unleash-scenario.js';

const CONTEXTS = 2000;
const why = cannotRunUnleash();
// Cold, start.sh installs PostgreSQL, Node 22 and unleash-server (about two minutes).
t.setTimeout(600_000);

/** Deterministic contexts: users, sessions, addresses, times and custom properties. */
function contexts(prefix: string, count: number): Context[] {
  let seed = 0x2f6e2b1;
  const rnd = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)];
  const out: Context[] = [];
  for (let i = 0; i < count; i++) {
    const properties: Record<string, string> = {};
    if (rnd() < 0.8) properties.email = `${pick(['user', 'USER', 'x'])}${Math.floor(rnd() * 300)}@${pick(['example.com', 'example.org', 'Xample.net'])}`;
    if (rnd() < 0.8) properties[`${prefix}-tier`] = pick(['gold', 'silver', 'free']);
    if (rnd() < 0.8) properties[`${prefix}-age`] = pick([String(Math.floor(rnd() * 80)), '42', '30.5', '20', 'not-a-number']);
    if (rnd() < 0.8) properties[`${prefix}-ver`] = pick(['1.2.3', '1.3.0-beta.1', '1.3.0-beta.2', '1.4.0', '1.5.1', '1.1.0', '2.0.0', 'junk']);
    if (rnd() < 0.5) properties.country = pick(['NO', 'SE', 'DK', 'FR']);
    out.push({
      ...(rnd() < 0.9 ? { userId: String(Math.floor(rnd() * 300)) } : {}),
      // Always a session: with neither a user nor a session, "default" stickiness is random in
      // every SDK (and Unleash's frontend API makes up a random session), which no copy can match.
      sessionId: `s-${Math.floor(rnd() * 1e6)}`,
      ...(rnd() < 0.7 ? { remoteAddress: pick(['10.1.2.3', '192.168.1.20', '172.16.5.4', `${Math.floor(rnd() * 255)}.${Math.floor(rnd() * 255)}.1.1`]) } : {}),
      currentTime: new Date(Date.UTC(2025, 0, 1) + Math.floor(rnd() * 4 * 365) * 86_400_000),
      properties,
    });
  }
  return out;
}

async function sdkFor(url: string, token: string): Promise<Unleash> {
  const problems: unknown[] = [];
  const unleash = new Unleash({
    url: `${url}/api/`, appName: 'fanion-migrate-compare', instanceId: `compare-${Math.random()}`, customHeaders: { Authorization: token },
    refreshInterval: 600_000, disableMetrics: true, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
  });
  unleash.on(UnleashEvents.Error, (e) => problems.push(e));
  unleash.on(UnleashEvents.Warn, (w) => problems.push(w));
  await new Promise<void>((resolve, reject) => {
    unleash.once(UnleashEvents.Synchronized, () => resolve());
    setTimeout(() => reject(new Error(`the SDK did not synchronize with ${url}: ${String(problems[0])}`)), 20_000).unref();
  });
  return unleash;
}

/** Both SDKs over the same contexts and flags; returns the differences (at most a few kept). */
function compare(a: Unleash, b: Unleash, flags: string[], ctxs: Context[]): { checks: number; differences: number; examples: string[] } {
  const r = { checks: 0, differences: 0, examples: [] as string[] };
  for (const ctx of ctxs) {
    for (const f of flags) {
      const pairs: [string, unknown, unknown][] = [
        ['isEnabled', a.isEnabled(f, ctx), b.isEnabled(f, ctx)],
        ['getVariant', a.getVariant(f, ctx), b.getVariant(f, ctx)],
      ];
      for (const [what, x, y] of pairs) {
        r.checks++;
        if (JSON.stringify(x) === JSON.stringify(y)) continue;
        r.differences++;
        if (r.examples.length < 5) r.examples.push(`${what}(${f}, ${JSON.stringify(ctx)}): Unleash ${JSON.stringify(x)}, Fanion ${JSON.stringify(y)}`);
      }
    }
  }
  return r;
}

/** Served strategies, as both servers write them (segments inlined: no Unleash-Client-Spec header), in their order. */
function servedStrategies(list: any[] | undefined): unknown[] {
  const norm = (list ?? []).map((s) => ({
    name: s.name,
    parameters: s.parameters ?? {},
    // Constraints are ANDed, so their order means nothing; Unleash's order of inlined segment
    // constraints even varies between its answers (it comes from a join), so they are sorted.
    constraints: (s.constraints ?? []).map((c: any) => JSON.stringify({
      contextName: c.contextName, operator: c.operator, values: c.values ?? [], value: c.value ?? null, caseInsensitive: !!c.caseInsensitive, inverted: !!c.inverted,
    })).sort(),
    variants: (s.variants ?? []).map((v: any) => ({ name: v.name, weight: v.weight, weightType: v.weightType, stickiness: v.stickiness, payload: v.payload ?? null })),
  }));
  // No strategy and one default strategy are the same to every SDK (docs/decisions/0010-client-record-shape.md).
  const empty = norm.length === 1 && norm[0].name === 'default' && Object.keys(norm[0].parameters).length === 0 && norm[0].constraints.length === 0;
  return empty ? [] : norm;
}

async function frontendToggles(url: string, token: string, query: string, flags: Set<string>): Promise<string> {
  const res = await fetch(`${url}/api/frontend?${query}`, { headers: { authorization: token } });
  if (res.status !== 200) throw new Error(`GET ${url}/api/frontend → ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { toggles: { name: string; enabled: boolean; variant: { name: string; enabled: boolean; payload?: unknown } }[] };
  const mine = body.toggles.filter((x) => flags.has(x.name)).map((x) => ({ name: x.name, enabled: x.enabled, variant: { name: x.variant.name, enabled: x.variant.enabled, payload: x.variant.payload ?? null } }));
  return JSON.stringify(mine.sort((x, y) => (x.name < y.name ? -1 : 1)));
}

t.test('a whole Unleash comes over: the Node SDK gets the same answers from Fanion with the same tokens', { skip: why && !MUST_RUN ? `skipped: ${why}` : false }, async (t) => {
  const unleash = await startUnleash();
  const builtAt = performance.now();
  const sc: Scenario = await buildScenario(unleash.url, unleash.adminToken);
  t.teardown(async () => {
    const problems = await sc.cleanup();
    if (problems.length) t.comment(`cleaning the scenario up on Unleash: ${problems.join('; ')}`);
  });
  t.comment(`scenario ${sc.prefix}: ${sc.flags.length} flags (${sc.archived.length} archived, ${sc.reordered.length} reordered), ${sc.strategies} strategies, 5 tokens; ${sc.requests} admin requests in ${Math.round(performance.now() - builtAt)} ms`);

  const dataDir = tempDataDir('fanion-migrate-real-');
  const m = await runCli(['migrate', '--from', unleash.url, '--token', unleash.adminToken, '--data', dataDir]);
  if (m.code !== 0) t.comment(m.stderr);
  t.equal(m.code, 0, 'fanion migrate succeeded');
  t.comment(`migration: ${Math.round(m.ms)} ms (the whole command, process start included)\n${m.stdout.trim()}`);
  t.match(m.stdout, /not brought over:\n {2}- /, 'what does not come over is listed');
  t.match(m.stderr, /flags read: \d+\/\d+/, 'progress was shown');

  const srv = await spawnServer({ dataDir, env: { AUTH_TYPE: 'api-token' } });
  t.teardown(() => srv.stop());

  t.test('the admin token works on Fanion, and strategies keep their ids and sortOrder', async (t) => {
    const admin = client(srv.url, { authorization: unleash.adminToken });
    for (const name of sc.reordered) {
      const fan = await admin('GET', `/api/admin/projects/default/features/${name}`);
      t.equal(fan.status, 200, `${name} is there`);
      const real = await (await fetch(`${unleash.url}/api/admin/projects/default/features/${name}`, { headers: { authorization: unleash.adminToken } })).json();
      const order = (f: any) => f.environments.find((e: any) => e.name === 'development').strategies.sort((a: any, b: any) => a.sortOrder - b.sortOrder).map((s: any) => `${s.id}@${s.sortOrder}`);
      t.same(order(fan.json), order(real), `${name}: the same strategies in the same order`);
    }
    const tokens = await admin('GET', '/api/admin/api-tokens');
    const names = tokens.json.tokens.map((x: any) => x.tokenName);
    for (const n of ['backend-dev', 'backend-prod-all', 'client-prod', 'backend-expiring', 'frontend-dev']) t.ok(names.includes(`${sc.prefix}-${n}`), `token ${n} is listed`);
    const archived = await admin('GET', '/api/admin/archive/features');
    const list = archived.json.features.map((f: any) => f.name);
    for (const a of sc.archived) t.ok(list.includes(a), `${a} came over archived`);
  });

  t.test('the client API serves the same strategies, in the same order', async (t) => {
    const get = async (url: string) => (await (await fetch(`${url}/api/client/features`, { headers: { authorization: sc.tokens.backendDev } })).json()) as { features: any[] };
    const [real, fan] = await Promise.all([get(unleash.url), get(srv.url)]);
    const byName = (list: any[]) => new Map(list.map((f) => [f.name, f]));
    const r = byName(real.features);
    const f = byName(fan.features);
    const live = sc.flags.filter((n) => !sc.archived.includes(n));
    const wrong = live.filter((n) => JSON.stringify(servedStrategies(r.get(n)?.strategies)) !== JSON.stringify(servedStrategies(f.get(n)?.strategies)) || r.get(n)?.enabled !== f.get(n)?.enabled);
    for (const n of wrong.slice(0, 3)) t.comment(`${n}:\nUnleash ${JSON.stringify(r.get(n))}\nFanion  ${JSON.stringify(f.get(n))}`);
    t.same(wrong, [], `${live.length} flags served alike`);
    for (const a of sc.archived) t.notOk(f.has(a), `archived ${a} is not served`);
    // The reordered flags are served in their set order, not the order they were created in.
    const firstVariants = (n: string) => f.get(n).strategies.map((s: any) => s.variants[0]?.name);
    t.same(firstVariants(`${sc.prefix}-order-reversed`), ['third', 'second', 'first'], 'reversed: served last-created first');
    t.same(firstVariants(`${sc.prefix}-order-middle-first`), ['second', 'first', 'third'], 'middle first: served as set');
    // Why the admin API and not Unleash's export: the export lists these in another order.
    const exported = await (await fetch(`${unleash.url}/api/admin/features-batch/export`, {
      method: 'POST', headers: { authorization: unleash.adminToken, 'content-type': 'application/json' }, body: JSON.stringify({ features: sc.reordered, environment: 'development' }),
    })).json() as { featureStrategies: any[] };
    t.notOk(exported.featureStrategies.some((s) => 'sortOrder' in s), "Unleash's export has no sortOrder");
    // It lists them in PostgreSQL's row order (ORDER BY feature_name only), which an edit changes;
    // shown, not asserted: row order is PostgreSQL's business.
    for (const n of sc.reordered) {
      const listed = exported.featureStrategies.filter((s) => s.featureName === n).map((s) => s.variants[0]?.name);
      t.comment(`${n}: served ${firstVariants(n).join(', ')}; Unleash's export lists ${listed.join(', ')}`);
    }
  });

  t.test(`the Node SDK: isEnabled and getVariant for ${CONTEXTS} contexts, same answers with the same tokens`, async (t) => {
    const ctxs = contexts(sc.prefix, CONTEXTS);
    const cases: [string, string, number][] = [
      ['backend, development', sc.tokens.backendDev, CONTEXTS],
      ['backend, production, every project', sc.tokens.backendProdAllProjects, 500],
      ['client (old type name), production', sc.tokens.clientProd, 200],
      ['backend with an expiry, development', sc.tokens.backendExpiring, 200],
    ];
    let total = 0;
    for (const [what, token, count] of cases) {
      const [a, b] = await Promise.all([sdkFor(unleash.url, token), sdkFor(srv.url, token)]);
      t.teardown(() => {
        a.destroy();
        b.destroy();
      });
      const started = performance.now();
      const r = compare(a, b, sc.flags, ctxs.slice(0, count));
      total += r.checks;
      t.equal(r.differences, 0, `${what}: ${count} contexts × ${sc.flags.length} flags, ${r.checks} answers compared in ${Math.round(performance.now() - started)} ms, ${r.differences} differences${r.examples.length ? `:\n${r.examples.join('\n')}` : ''}`);
      a.destroy();
      b.destroy();
    }
    t.comment(`${total} SDK answers compared, 0 expected to differ`);
  });

  t.test('the frontend API: the same toggles for the same frontend token', async (t) => {
    // One known difference of Unleash's own: its frontend API loads only the flags that are on
    // (client-feature-toggle-read-model.ts: `where fe.enabled = true`), so a dependency on a
    // parent being *off* never holds there, while its SDKs (and Fanion) see the parent and
    // enable the child. That flag is left out here; the SDK comparison above covers it.
    const quirk = `${sc.prefix}-dep-child-wants-off`;
    const flags = new Set(sc.flags.filter((f) => f !== quirk));
    const token = sc.tokens.frontendDev;
    // Unleash's frontend API answers from a cache refreshed every few seconds: wait for the scenario's last flag.
    const last = `${sc.prefix}-zz-last`;
    const deadline = Date.now() + 60_000;
    while (!(await frontendToggles(unleash.url, token, 'userId=1', new Set([last]))).includes(last)) {
      if (Date.now() > deadline) throw new Error("Unleash's frontend API never served the scenario");
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    let differences = 0;
    const ctxs = contexts(sc.prefix, 200);
    for (const ctx of ctxs) {
      const q = new URLSearchParams();
      if (ctx.userId) q.set('userId', ctx.userId);
      if (ctx.sessionId) q.set('sessionId', ctx.sessionId);
      if (ctx.remoteAddress) q.set('remoteAddress', ctx.remoteAddress);
      for (const [k, v] of Object.entries(ctx.properties ?? {})) q.set(`properties[${k}]`, String(v));
      const [a, b] = await Promise.all([frontendToggles(unleash.url, token, q.toString(), flags), frontendToggles(srv.url, token, q.toString(), flags)]);
      if (a !== b && differences++ < 3) t.comment(`frontend ${q}: Unleash ${a}\nFanion ${b}`);
    }
    t.equal(differences, 0, `${ctxs.length} frontend contexts, ${differences} differences`);
  });
});
