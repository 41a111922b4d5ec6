// Admin API fuzz: thousands of random and mutated requests to EVERY admin route listed in
// /api/openapi.json (so routes added later are covered without touching this file), over real
// HTTP to an in-process server. Asserts: never a 5xx; every error body is {id, name, message};
// after every 4xx the state, events included, and the WAL position are exactly as before.
// Reproduce a run with FUZZ_SEED=<seed printed below>; size it with FUZZ_ITERATIONS (long runs:
// `npx tap --timeout=0 dist/test/fuzz/admin-fuzz.test.js`).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import t, { type Test } from 'tap';
import { dumpState } from '../../src/core/state/dump.js';
import type { State } from '../../src/core/state/state.js';
import { startInProcess, type InProcess } from '../helpers/in-process-server.js';
import { client } from '../helpers/server.js';
import {
  chance, fromSchema, int, invalidJson, mutate, pick, prng, randomJson, randomName, serialize, type Rng,
} from '../helpers/fuzz-bodies.js';
import { SEED } from '../helpers/random.js';

type Api = ReturnType<typeof client>;

const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 2500);
const BODY_LIMIT = 64 * 1024;

interface Route {
  method: string;
  /** OpenAPI form: /api/admin/projects/{projectId}/features */
  path: string;
  params: string[];
  schema: string | null;
}

interface Outcome {
  status: number;
  text: string;
}

/** Raw http.request rather than fetch: fetch's URL parser would normalise "..", "%2e" and friends away. */
function send(port: number, method: string, path: string, headers: Record<string, string>, body: Buffer | undefined, chunked: boolean, via: http.Agent): Promise<Outcome> {
  // Frame the body explicitly: Node's client leaves a GET/DELETE body unframed, which would be
  // read as the start of the next request on the kept-alive connection.
  const useChunks = Boolean(body && chunked && body.length > 1);
  if (body) {
    if (useChunks) headers = { ...headers, 'transfer-encoding': 'chunked' };
    else headers = { ...headers, 'content-length': String(body.length) };
  }
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: via, timeout: 20_000 }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 20 s')));
    // A server that refuses an oversized body may answer and close before we finish sending it.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (body && useChunks) {
      req.write(body.subarray(0, body.length >> 1));
      req.end(body.subarray(body.length >> 1));
    } else {
      req.end(body);
    }
  });
}

function routesFrom(doc: any): Route[] {
  const out: Route[] = [];
  for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
    if (!path.startsWith('/api/admin/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      const ref: string | undefined = op.requestBody?.content?.['application/json']?.schema?.$ref;
      out.push({ method: method.toUpperCase(), path, params: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]), schema: ref ? ref.split('/').pop()! : null });
    }
  }
  return out;
}

/** Names that exist right now, by kind; read from the live state so deletions are seen. */
function pools(s: State) {
  const flags = [...s.features.keys()];
  return {
    projectId: [...s.projects.keys()],
    featureName: flags,
    parent: flags,
    environment: [...s.environments.keys()],
    strategyId: [...s.strategies.keys()],
    id: [...s.segments.keys()].map(String),
    type: [...s.tagTypes.keys()],
    value: [...s.tags.values()].map((x) => x.value),
    name: [...s.environments.keys(), ...s.tagTypes.keys(), ...[...s.apiTokens.values()].map((x) => x.tokenName)],
    appName: ['web', 'nope'],
    token: [...s.apiTokens.values()].map((x) => x.tokenName),
  } as Record<string, string[]>;
}

const ODD_PARAMS = [
  '..', '.', '%2e%2e', '%2E', '%2F', 'a%2Fb', '%00', '%ZZ', '%', '%%', '%C3%A9', '%F0%9F%98%80', '%ED%A0%80', '%E0%A4%A', '%FF',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', '0', '-1', '1.5', '1e3', '99999999999999999999', 'NaN',
  '%20', '+', 'null', 'undefined', '*', "'", '(', 'a'.repeat(300), '~', '!', 'set-sort-order', 'validate', 'update',
];

/** encodeURIComponent throws on unpaired surrogates; the server must never have stored one, but say so instead of crashing. */
function encodeParam(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    storedBadStrings.push(v);
    return encodeURIComponent(v.replace(/[\ud800-\udfff]/g, '?'));
  }
}
const storedBadStrings: string[] = [];

function fillParams(r: Rng, route: Route, s: State): Record<string, string> {
  const p = pools(s);
  const out: Record<string, string> = {};
  // Half the time use a coherent set (a real strategy's flag, project and environment), so deep routes get past their 404s.
  if (chance(r, 0.5) && s.strategies.size > 0) {
    const st = pick(r, [...s.strategies.values()]);
    Object.assign(out, { projectId: st.projectId, featureName: st.featureName, environment: st.environment, strategyId: st.id });
  } else if (chance(r, 0.5) && s.features.size > 0) {
    const f = pick(r, [...s.features.values()]);
    Object.assign(out, { projectId: f.project, featureName: f.name, environment: pick(r, [...s.environments.keys()]) });
  }
  // Stored values go into the path escaped: an imported strategy id can be any string (say '😀'),
  // which an HTTP client refuses to put in a path as it is.
  for (const k of Object.keys(out)) out[k] = encodeParam(out[k]);
  for (const name of route.params) {
    const roll = r();
    if (out[name] !== undefined && roll < 0.8) continue;
    if (roll < 0.75 && p[name]?.length) out[name] = encodeParam(pick(r, p[name]));
    else if (roll < 0.85) out[name] = randomName(r, 1, 20);
    else out[name] = pick(r, ODD_PARAMS);
    if (out[name] === undefined || out[name] === '') out[name] = 'x';
  }
  return out;
}

/** Known-good bodies per schema, from the live state; schemas not listed here get generated ones. */
function sample(r: Rng, schema: string, route: Route, s: State, params: Record<string, string>): unknown {
  const flags = [...s.features.keys()];
  const strategyIds = [...s.strategies.values()].filter((x) => x.featureName === params.featureName && x.environment === params.environment).map((x) => x.id);
  const constraint = () => pick(r, [
    { contextName: 'userId', operator: 'IN', values: ['1', '2'] },
    { contextName: 'age', operator: 'NUM_GT', value: String(int(r, 0, 99)) },
    { contextName: 'currentTime', operator: 'DATE_BEFORE', value: '2030-01-01T00:00:00.000Z' },
    { contextName: 'version', operator: 'SEMVER_LT', value: '2.0.0' },
    { contextName: 'email', operator: 'REGEX', value: '@x\\.com$' },
    { contextName: 'country', operator: 'NOT_IN', values: ['NO'], inverted: true, caseInsensitive: true },
  ]);
  const variants = () => [{ name: 'a' + int(r, 0, 9) }, { name: 'fixed', weight: int(r, 0, 900), weightType: 'fix', payload: { type: 'json', value: '{"x":1}' } }];
  const strategy = () => ({
    name: pick(r, ['default', 'flexibleRollout', 'userWithId', 'remoteAddress', 'applicationHostname']),
    parameters: pick(r, [{}, { rollout: String(int(r, 0, 100)), stickiness: 'default' }, { userIds: 'a,b' }]),
    constraints: chance(r, 0.5) ? [constraint()] : [],
    variants: chance(r, 0.3) ? variants() : [],
    segments: chance(r, 0.2) && s.segments.size ? [pick(r, [...s.segments.keys()])] : [],
    title: chance(r, 0.3) ? 'T' : null,
    disabled: chance(r, 0.2),
  });
  switch (schema) {
    case 'createFeatureSchema':
      return { name: randomName(r, 3, 12), type: pick(r, ['release', 'experiment']), description: 'fuzz', tags: chance(r, 0.3) ? [{ type: 'simple', value: 'fz' }] : [] };
    case 'createFeatureStrategySchema':
    case 'updateFeatureStrategySchema':
      return strategy();
    case 'setStrategySortOrderSchema':
      return strategyIds.map((id) => ({ id, sortOrder: int(r, -5, 5) }));
    case 'patchesSchema':
      if (route.path.endsWith('/variants')) return [{ op: 'add', path: '/-', value: { name: 'p' + int(r, 0, 99) } }];
      if (route.path.includes('/strategies/')) return [{ op: 'replace', path: '/title', value: 'patched' }];
      return [pick(r, [
        { op: 'replace', path: '/stale', value: chance(r, 0.5) },
        { op: 'replace', path: '/description', value: 'patched' },
        { op: 'replace', path: '/type', value: 'operational' },
        { op: 'add', path: '/impressionData', value: true },
      ])];
    case 'createDependentFeatureSchema':
      return { feature: pick(r, flags.length ? flags : ['x']), enabled: chance(r, 0.7), variants: chance(r, 0.3) ? ['a1'] : [] };
    case 'variantsSchema':
      return variants();
    case 'pushVariantsSchema':
      return { environments: [pick(r, [...s.environments.keys()])], variants: variants() };
    case 'createSegmentSchema':
    case 'updateSegmentSchema':
      return { name: randomName(r, 3, 10), description: 'fz', constraints: [constraint()] };
    case 'createProjectSchema':
      return { id: randomName(r, 3, 10), name: 'Fuzz project', description: null };
    case 'createEnvironmentSchema':
      return { name: randomName(r, 3, 10), type: pick(r, ['development', 'test']), sortOrder: int(r, 0, 500) };
    case 'tagSchema':
      return { type: pick(r, [...s.tagTypes.keys()]), value: randomName(r, 2, 10) };
    case 'createTagTypeSchema':
      return { name: randomName(r, 2, 10), description: 'fz' };
    case 'stateSchema': {
      // The server's own export is the best-formed import there is; vary it a little.
      if (!exported) return undefined;
      const doc = JSON.parse(JSON.stringify(exported)) as Record<string, unknown[]>;
      if (chance(r, 0.5) && Array.isArray(doc.features) && doc.features.length) (pick(r, doc.features) as { name: string }).name = randomName(r, 3, 12);
      if (chance(r, 0.3)) for (const k of Object.keys(doc)) if (k !== 'version' && chance(r, 0.5)) delete doc[k];
      return doc;
    }
    case 'createApiTokenSchema':
      return { tokenName: randomName(r, 2, 10), type: pick(r, ['client', 'frontend', 'backend']), environment: 'development', projects: ['default'] };
    default:
      return undefined;
  }
}

/** The latest GET /api/admin/state/export, refreshed now and then, as a base for import bodies. */
let exported: unknown = null;

const CONTENT_TYPES = [
  'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '', 'json', 'application/jsonx', 'APPLICATION/JSON',
  'application/json; charset=latin1', 'application/vnd.api+json', 'application/xml', '*/*',
];

interface Planned {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  chunked: boolean;
  what: string;
}

function plan(r: Rng, route: Route, s: State, schemas: Record<string, any>): Planned {
  const params = fillParams(r, route, s);
  let path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => params[name]);
  if (chance(r, 0.05)) path += pick(r, ['?', '?a=%ZZ', '?project=default&project=%00', '?x[]=1&x[y]=2', '#frag', '/', '//']);
  else if (route.path.endsWith('/import') && chance(r, 0.6)) path += pick(r, ['?drop=true', '?keep=false', '?drop=true&keep=false', '?drop=1&drop=0', '?keep=maybe', '?drop=']);
  let method = route.method;
  if (chance(r, 0.03)) method = pick(r, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
  const headers: Record<string, string> = {};
  let body: Buffer | undefined;
  let what = 'no body';
  const hasBody = ['POST', 'PUT', 'PATCH'].includes(method);
  if (hasBody || chance(r, 0.05)) {
    const valid = route.schema
      ? (sample(r, route.schema, route, s, params) ?? fromSchema(r, schemas[route.schema], { known: () => [...s.features.keys(), ...s.projects.keys(), ...s.environments.keys(), ...s.strategyTypes.keys(), ...s.tagTypes.keys()] }))
      : randomJson(r);
    const roll = r();
    let text: string | Buffer;
    if (roll < 0.2) {
      text = serialize(valid);
      what = 'valid body';
    } else if (roll < 0.7) {
      let m = mutate(r, valid);
      what = m.what;
      if (chance(r, 0.3)) {
        m = mutate(r, m.body);
        what += ` + ${m.what}`;
      }
      text = serialize(m.body);
    } else if (roll < 0.8) {
      text = JSON.stringify(randomJson(r));
      what = 'random JSON';
    } else if (roll < 0.9) {
      text = invalidJson(r, JSON.stringify(valid) ?? '{}');
      what = 'invalid JSON';
    } else if (roll < 0.95) {
      text = '';
      what = 'empty body';
    } else {
      text = JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT + int(r, 1, BODY_LIMIT)), ...(valid as object) });
      what = 'oversized body';
    }
    body = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
    headers['content-type'] = chance(r, 0.85) ? pick(r, ['application/json', 'application/json; charset=utf-8']) : pick(r, CONTENT_TYPES);
    if (headers['content-type'] === '') delete headers['content-type'];
  }
  return { method, path, headers, body, chunked: chance(r, 0.2), what };
}

/**
 * The whole state as text. Events are append-only and immutable once recorded, so for the
 * per-request check their count, newest id and newest event stand in for re-serialising the
 * ever-growing log each time; the final replay comparison uses everything.
 */
const fingerprint = (s: State) => {
  const newest = s.events.lastId ? s.events.get(s.events.lastId) : null;
  return JSON.stringify([dumpState(s, { events: false }), s.events.size, s.events.lastId, newest]);
};
const fullFingerprint = (s: State) => JSON.stringify(dumpState(s));

async function seedState(srv: InProcess, api: Api): Promise<void> {
  const P = '/api/admin/projects';
  await api('POST', P, { id: 'shop', name: 'Shop' });
  await api('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
  await api('POST', '/api/admin/tag-types', { name: 'team' });
  await api('POST', '/api/admin/tags', { type: 'team', value: 'core' });
  await api('POST', '/api/admin/segments', { name: 'seg1', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] });
  for (const [project, flag] of [['default', 'checkout'], ['default', 'search'], ['shop', 'cart'], ['default', 'old']]) {
    await api('POST', `${P}/${project}/features`, { name: flag, tags: [{ type: 'team', value: 'core' }] });
    for (const env of ['development', 'production']) {
      const base = `${P}/${project}/features/${flag}/environments/${env}`;
      if (srv.running.engine.state.strategies.size < 40) {
        await api('POST', `${base}/strategies`, { name: 'flexibleRollout', parameters: { rollout: '50' }, constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] });
      }
      await api('POST', `${base}/on`);
    }
  }
  await api('PUT', `${P}/default/features/checkout/variants-batch`, { environments: ['development'], variants: [{ name: 'a' }, { name: 'b' }] });
  await api('POST', `${P}/default/features/search/dependencies`, { feature: 'checkout' });
  await api('DELETE', `${P}/default/features/old`);
  await api('POST', '/api/admin/api-tokens', { tokenName: 'sdk', type: 'client', environment: 'development', projects: ['default'] });
}

interface FuzzOptions {
  seed: number;
  iterations: number;
  env: Record<string, string>;
  /** With API tokens: the admin token for seeding, and the Authorization header of each fuzzed request. */
  auth?: { admin: string; header: (r: Rng) => string | undefined };
}

async function fuzz(t: Test, o: FuzzOptions): Promise<void> {
  const { seed, iterations } = o;
  t.comment(`FUZZ_SEED=${SEED} FUZZ_ITERATIONS=${ITERATIONS}`);
  // The metrics flush (a token's seenAt, SDK counts) is a change of its own, written on a timer: one
  // landing between a refused request and the state check would look like the refusal changed the
  // state. Flushed at close instead, which the replay check below allows for.
  const env = { BODY_LIMIT_BYTES: String(BODY_LIMIT), METRICS_FLUSH_MS: '3600000', ...o.env };
  const srv = await startInProcess({ env });
  // One connection, kept alive: requests run strictly one after another.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const api: Api = o.auth ? client(srv.url, { authorization: o.auth.admin }) : srv.api;
  const authorize = (r: Rng, p: Planned) => {
    const h = o.auth?.header(r);
    if (h !== undefined) p.headers.authorization = h;
  };
  let closed = false;
  t.teardown(async () => {
    agent.destroy();
    if (!closed) await srv.close();
    fs.rmSync(srv.dataDir, { recursive: true, force: true });
  });
  const state = srv.running.engine.state;
  const wal = srv.running.engine.log;
  const doc = (await api('GET', '/api/openapi.json')).json;
  const routes = routesFrom(doc);
  const schemas = doc.components?.schemas ?? {};
  t.ok(routes.length >= 30, `fuzzing ${routes.length} admin routes from /api/openapi.json`);
  const r = prng(seed);
  const problems: string[] = [];
  const statuses = new Map<number, number>();
  const perRoute = new Map<string, { ok: number; client: number }>();
  const started = Date.now();
  let before = fingerprint(state);
  for (let i = 0; i < iterations; i++) {
    if (i % 300 === 0) {
      await seedState(srv, api);
      exported = (await api('GET', '/api/admin/state/export')).json ?? null;
      before = fingerprint(state);
    }
    const route = pick(r, routes);
    const p = plan(r, route, state, schemas);
    authorize(r, p);
    const lsnBefore = wal.nextLsn;
    let out: Outcome;
    try {
      out = await send(srv.running.port, p.method, p.path, p.headers, p.body, p.chunked, agent);
    } catch (err) {
      problems.push(`#${i} ${p.method} ${p.path} (${p.what}): request failed: ${(err as Error).message}`);
      before = fingerprint(state);
      continue;
    }
    statuses.set(out.status, (statuses.get(out.status) ?? 0) + 1);
    const key = `${route.method} ${route.path}`;
    const tally = perRoute.get(key) ?? { ok: 0, client: 0 };
    perRoute.set(key, tally);
    const describe = () =>
      `#${i} ${p.method} ${p.path} [${p.headers['content-type'] ?? 'no content-type'}${p.chunked ? ', chunked' : ''}` +
      `${p.headers.authorization !== undefined ? `, authorization ${JSON.stringify(p.headers.authorization.slice(0, 12))}…` : ''}] (${p.what}) ` +
      `body=${p.body ? JSON.stringify(p.body.toString('utf8').slice(0, 300)) : '-'} → ${out.status} ${out.text.slice(0, 300)}`;
    if (out.status >= 500) problems.push(`5xx: ${describe()}`);
    if (out.status >= 400) {
      let err: any;
      try {
        err = JSON.parse(out.text);
      } catch {
        err = null;
      }
      if (!err || typeof err.id !== 'string' || typeof err.name !== 'string' || typeof err.message !== 'string') {
        problems.push(`error body is not {id,name,message}: ${describe()}`);
      }
    }
    const after = fingerprint(state);
    if (out.status >= 400 && out.status < 500) {
      tally.client++;
      if (after !== before) problems.push(`state changed after a ${out.status}: ${describe()}`);
      if (wal.nextLsn !== lsnBefore) problems.push(`WAL advanced after a ${out.status}: ${describe()}`);
    } else if (out.status < 300) {
      tally.ok++;
      // One request, one atomic change: two records would mean a failure between them leaves half of it applied.
      if (wal.nextLsn - lsnBefore > 1) problems.push(`one request wrote ${wal.nextLsn - lsnBefore} WAL records: ${describe()}`);
    }
    before = after;
    if (problems.length > 50) break;
  }
  if (storedBadStrings.length) problems.push(`the state holds strings with unpaired surrogates: ${JSON.stringify(storedBadStrings.slice(0, 5))}`);
  const seconds = (Date.now() - started) / 1000;
  t.comment(`${iterations} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  const untouched = routes.filter((rt) => !perRoute.has(`${rt.method} ${rt.path}`)).map((rt) => `${rt.method} ${rt.path}`);
  if (iterations >= 1000) t.same(untouched, [], 'every admin route was exercised');
  const neverOk = [...perRoute].filter(([, v]) => v.ok === 0).map(([k]) => k);
  t.comment(`routes that never answered 2xx in this run: ${neverOk.length ? neverOk.join('; ') : 'none'}`);
  for (const line of problems.slice(0, 20)) t.comment(line);
  t.equal(problems.length, 0, `no 5xx, well-formed errors, and no state change after a 4xx (seed ${seed})`);

  // Concurrent burst: requests overlap inside the engine and the WAL's group commit. Per-request
  // state checks are impossible here, but no 5xx, well-formed errors and the replay below still hold.
  const burst = Math.ceil(iterations / 5);
  const parallel = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const burstProblems: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < burst) {
      next++;
      const route = pick(r, routes);
      const p = plan(r, route, state, schemas);
      authorize(r, p);
      try {
        const out = await send(srv.running.port, p.method, p.path, p.headers, p.body, p.chunked, parallel);
        const err = out.status >= 400 ? (() => { try { return JSON.parse(out.text); } catch { return null; } })() : {};
        if (out.status >= 500 || !err || (out.status >= 400 && (typeof err.id !== 'string' || typeof err.name !== 'string' || typeof err.message !== 'string'))) {
          burstProblems.push(`${p.method} ${p.path} (${p.what}) → ${out.status} ${out.text.slice(0, 300)}`);
        }
      } catch (err) {
        burstProblems.push(`${p.method} ${p.path} (${p.what}): request failed: ${(err as Error).message}`);
      }
    }
  }));
  parallel.destroy();
  for (const line of burstProblems.slice(0, 10)) t.comment(`burst: ${line}`);
  t.equal(burstProblems.length, 0, `${burst} concurrent requests: no 5xx, well-formed errors`);

  // Whatever the fuzz left behind must survive a restart unchanged. Taken once the server is
  // closed: a clean shutdown still writes what the metrics flush holds (tokens' seenAt).
  await srv.close();
  closed = true;
  const final = fullFingerprint(state);
  const again = await startInProcess({ dataDir: srv.dataDir, env });
  const replayed = fullFingerprint(again.running.engine.state);
  if (replayed !== final && process.env.FUZZ_DUMP_DIR) {
    fs.writeFileSync(path.join(process.env.FUZZ_DUMP_DIR, 'live.json'), final);
    fs.writeFileSync(path.join(process.env.FUZZ_DUMP_DIR, 'replayed.json'), replayed);
  }
  t.ok(replayed === final, 'the fuzzed state replays identically after a restart (set FUZZ_DUMP_DIR to get both dumps)');
  await again.close();
}

t.test(`admin fuzz, AUTH_TYPE=none (seed ${SEED}, ${ITERATIONS} requests; rerun with FUZZ_SEED=${SEED})`, (t) =>
  fuzz(t, { seed: SEED, iterations: ITERATIONS, env: {} }));

// The same with API tokens: authentication and scope checks run before body handling, and a
// refused request (401/403) must leave the state alone just like any other 4xx.
const hex = (n: number) => Array.from({ length: n }, (_, i) => ((SEED + i * 7) % 16).toString(16)).join('');
const TOKENS = {
  admin: `*:*.${hex(48)}`,
  scopedAdmin: `default:production.${hex(40)}`,
  client: `default:development.${hex(44)}`,
  frontend: `default:development.${hex(36)}f`,
};
t.test(`admin fuzz, AUTH_TYPE=api-token (seed ${SEED + 1}, ${Math.ceil(ITERATIONS / 3)} requests)`, (t) =>
  fuzz(t, {
    seed: SEED + 1,
    iterations: Math.ceil(ITERATIONS / 3),
    env: {
      AUTH_TYPE: 'api-token',
      INIT_ADMIN_API_TOKENS: `${TOKENS.admin},${TOKENS.scopedAdmin}`,
      INIT_CLIENT_API_TOKENS: TOKENS.client,
      INIT_FRONTEND_API_TOKENS: TOKENS.frontend,
    },
    auth: {
      admin: TOKENS.admin,
      header: (r) => {
        const roll = r();
        if (roll < 0.45) return pick(r, [TOKENS.admin, `Bearer ${TOKENS.admin}`]);
        if (roll < 0.6) return TOKENS.scopedAdmin;
        if (roll < 0.7) return TOKENS.client;
        if (roll < 0.75) return TOKENS.frontend;
        if (roll < 0.9) return pick(r, ['', 'Bearer', 'Bearer ', '*:*.nope', TOKENS.admin.slice(0, -1), TOKENS.admin + 'x', 'Basic YWRtaW46YWRtaW4=', 'x'.repeat(5000), '*:*', '%00']);
        return undefined;
      },
    },
  }));
