// deploy/compose.yaml checked as far as these machines allow (no container runtime can run it
// here): against the Compose Specification's own JSON schema (vendored in test/fixtures, see its
// README), against the code (its settings are ones Fanion reads and land in cluster mode, its ports,
// its stop deadline, its database URL against the database service), and then run without the
// containers: the three nodes it describes, started as real processes with the environment the
// containers would get (the image's ENV, then the file's, interpolated), on a throwaway PostgreSQL
// standing for the `db` service, judged healthy by the file's own healthcheck command, a write on
// one node read on the others.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import t from 'tap';
import { parse } from 'yaml';
import { loadConfig } from '../../src/core/config.js';
import { NOT_FANIONS, settingsRead } from '../helpers/deploy.js';
import { postgresFor } from '../helpers/postgres.js';
import { client, ROOT, spawnServer, tempDataDir, type Spawned } from '../helpers/server.js';

const COMPOSE = path.join(ROOT, 'deploy/compose.yaml');
const SCHEMA = path.join(ROOT, 'test/fixtures/compose-spec.json');
const NODES = ['fanion-1', 'fanion-2', 'fanion-3'];
/** What an operator exports before `docker compose up` (the file refuses to start without them). */
const VARIABLES = { POSTGRES_PASSWORD: 'a-db-secret-for-the-test', FANION_ADMIN_TOKEN: '*:*.a-long-admin-secret-for-the-test' };

/** The image's NODE_ENV=production is for Node.js and the libraries, not a setting of Fanion's. */
const BY_NODE = new Set(['NODE_ENV']);

const run = promisify(execFile);
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

/**
 * Compose's interpolation of one value: `$$`, `$NAME`, `${NAME}`, `${NAME:-default}`,
 * `${NAME-default}`, `${NAME:?error}`, `${NAME?error}`. Any other `${…}` form throws rather than
 * being passed through unread.
 */
function interpolate(value: string, vars: Record<string, string | undefined>): string {
  const out = value.replace(/\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[?-])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (whole, braced, op, arg, bare) => {
    if (whole === '$$') return '\0';
    const name = (braced ?? bare) as string;
    const v = vars[name];
    const missing = v === undefined || (op?.startsWith(':') && v === '');
    if (missing && op?.endsWith('?')) throw new Error(`required variable ${name} is missing a value: ${arg}`);
    if (missing && op?.endsWith('-')) return arg as string;
    return v ?? '';
  });
  if (out.includes('${')) throw new Error(`an interpolation this reader does not know: ${value}`);
  return out.replaceAll('\0', '$');
}

function interpolateAll(node: unknown, vars: Record<string, string | undefined>): unknown {
  if (typeof node === 'string') return interpolate(node, vars);
  if (Array.isArray(node)) return node.map((n) => interpolateAll(n, vars));
  if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateAll(v, vars)]));
  return node;
}

interface Service {
  image?: string;
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | { target: number; published: string | number })[];
  healthcheck?: { test: string[]; interval?: string; timeout?: string; start_period?: string; retries?: number };
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
}
interface ComposeFile {
  services: Record<string, Service>;
}

/** The file as compose reads it: YAML merge keys (`<<: *fanion`) applied, then `vars` interpolated. */
function loadCompose(vars: Record<string, string | undefined>, text = fs.readFileSync(COMPOSE, 'utf8')): ComposeFile {
  return interpolateAll(parse(text, { merge: true }), vars) as ComposeFile;
}

/** A service's environment as a map (compose accepts a map or a list of NAME=value). */
function environmentOf(s: Service): Record<string, string> {
  const env = s.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** The ENV of the Dockerfile's last stage: what every container of the image starts with. */
function imageEnvironment(): Record<string, string> {
  const text = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stages = text.split(/^FROM\s/m);
  const env: Record<string, string> = {};
  for (const line of stages[stages.length - 1].split('\n')) {
    const m = /^ENV\s+(.*)$/.exec(line.trim());
    if (!m) continue;
    for (const pair of m[1].trim().split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq <= 0 || /["'$]/.test(pair)) throw new Error(`an ENV this reader does not know: ${pair}`);
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}

/** Compose's durations: `35s`, `1m30s`, `500ms`, `1h`. */
function durationMs(value: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value) throw new Error(`not a compose duration: ${value}`);
  return parts.reduce((ms, p) => ms + Number(p[1]) * units[p[2]], 0);
}

/** `published:target` of a short port syntax, or the long one. */
function portsOf(s: Service): { published: number; target: number }[] {
  return (s.ports ?? []).map((p) => {
    if (typeof p !== 'string') return { published: Number(p.published), target: p.target };
    const m = /^(?:[\d.]+:)?(\d+):(\d+)(?:\/tcp)?$/.exec(p);
    if (!m) throw new Error(`a port this reader does not know: ${p}`);
    return { published: Number(m[1]), target: Number(m[2]) };
  });
}

function schemaValidator() {
  // The schema names draft-07 by its https address; Ajv knows the same meta-schema by its http one.
  const draft7 = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-07.json') as Record<string, unknown>;
  // strict: false: the schema is written for the JSON Schema draft, not Ajv's stricter dialect (union types).
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema({ ...draft7, $id: 'https://json-schema.org/draft-07/schema' });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(fs.readFileSync(SCHEMA, 'utf8')));
  return (doc: unknown): string | null => (validate(doc) ? null : ajv.errorsText(validate.errors));
}

const known = settingsRead();

t.test('the compose file is valid against the Compose Specification schema', async (t) => {
  const errors = schemaValidator();
  const compose = loadCompose(VARIABLES);
  t.equal(errors(compose), null, 'valid once merged and interpolated');
  t.same(Object.keys(compose.services).sort(), ['db', ...NODES].sort(), 'a database and three nodes');
  // The check can fail: copies with one mistake each that compose itself would refuse.
  const mistakes: [string, (c: any) => void, RegExp][] = [
    ['a misspelt healthcheck key', (c) => (c.services['fanion-1'].healthcheck.intervall = '5s'), /fanion-1\/healthcheck must NOT have additional properties/],
    ['a misspelt service key', (c) => (c.services['fanion-2'].stop_grace = '35s'), /fanion-2 must NOT have additional properties/],
    ['a healthcheck test that is an object', (c) => (c.services['fanion-3'].healthcheck.test = { cmd: 'true' }), /fanion-3\/healthcheck\/test must be/],
    ['an unknown depends_on condition', (c) => (c.services['fanion-1'].depends_on.db.condition = 'service_ready'), /depends_on/],
  ];
  for (const [what, mutate, said] of mistakes) {
    const copy = structuredClone(compose);
    mutate(copy);
    t.match(errors(copy), said, what);
  }
});

t.test('interpolation: the file refuses to start without its two secrets', async (t) => {
  t.throws(() => loadCompose({ FANION_ADMIN_TOKEN: VARIABLES.FANION_ADMIN_TOKEN }), /POSTGRES_PASSWORD is missing a value: set POSTGRES_PASSWORD/);
  t.throws(() => loadCompose({ POSTGRES_PASSWORD: VARIABLES.POSTGRES_PASSWORD, FANION_ADMIN_TOKEN: '' }), /FANION_ADMIN_TOKEN is missing a value/);
  t.equal(interpolate('a$$b ${X:-d} ${Y-e} $X', { X: 'x', Y: '' }), 'a$b x  x', "compose's forms");
  t.throws(() => interpolate('${X:+alt}', { X: 'x' }), /does not know/, 'a form not handled is not passed through');
});

t.test('the compose file against the code: settings, mode, ports, healthcheck, stop deadline, database', async (t) => {
  const compose = loadCompose(VARIABLES);
  const db = compose.services.db;
  const dbEnv = environmentOf(db);
  const published = new Set<number>();
  for (const name of NODES) {
    const s = compose.services[name];
    const env = { ...imageEnvironment(), ...environmentOf(s) };
    for (const key of Object.keys(env)) t.ok(known.has(key) || NOT_FANIONS.has(key) || BY_NODE.has(key), `${name}: ${key} is a setting Fanion reads`);
    const config = loadConfig(env);
    t.ok(config.cluster !== null && config.relay === null, `${name}: loadConfig reads a cluster node (database: ${config.cluster?.label ?? 'none'})`);
    t.same(config.initTokens.admin, [VARIABLES.FANION_ADMIN_TOKEN], `${name}: the admin token is FANION_ADMIN_TOKEN`);
    const ports = portsOf(s);
    t.equal(ports.length, 1, `${name}: one port`);
    t.equal(ports[0].target, config.port, `${name}: published to the port Fanion listens on (${config.port})`);
    published.add(ports[0].published);

    const test = s.healthcheck!.test;
    t.same(test.slice(0, 2), ['CMD', 'node'], `${name}: the healthcheck runs node (slim images have no curl)`);
    t.match(test.join(' '), new RegExp(`http://127\\.0\\.0\\.1:${config.port}/ready\\b`), `${name}: it asks /ready on Fanion's port`);
    const stopMs = durationMs(s.stop_grace_period!);
    t.ok(stopMs > config.http.shutdownTimeoutMs, `${name}: stop_grace_period (${stopMs} ms) exceeds SHUTDOWN_TIMEOUT_MS (${config.http.shutdownTimeoutMs} ms)`);
    t.equal(s.depends_on?.db?.condition, 'service_healthy', `${name}: starts once the database answers`);

    // The URL names the database service, with the user, password and database it creates.
    const url = new URL(env.DATABASE_URL);
    t.same(
      [url.hostname, url.port, decodeURIComponent(url.username), decodeURIComponent(url.password), url.pathname.slice(1)],
      ['db', '5432', dbEnv.POSTGRES_USER, dbEnv.POSTGRES_PASSWORD, dbEnv.POSTGRES_DB],
      `${name}: DATABASE_URL is the db service's user, password and database`,
    );
  }
  t.same([...published].sort(), [4242, 4243, 4244], 'three distinct ports on the host, as the file says');
  t.match(db.healthcheck?.test.join(' '), /pg_isready -U fanion -d fanion/, "the database's healthcheck asks for the nodes' database");
});

/** Runs a service's healthcheck command for a node listening on `port` instead of its container's. */
async function healthcheck(s: Service, containerPort: number, port: number): Promise<boolean> {
  const [form, program, ...args] = s.healthcheck!.test;
  if (form !== 'CMD' || program !== 'node') throw new Error(`a healthcheck this test cannot run: ${s.healthcheck!.test.join(' ')}`);
  // The container's port is published elsewhere on this machine: the one thing changed in the command.
  const mapped = args.map((a) => a.replaceAll(`:${containerPort}/`, `:${port}/`));
  try {
    // Not compose's `timeout` (3 s): that bounds a check on an idle host, and starting a node process
    // alone took longer than that here on a loaded 2-core machine. What is checked is the answer.
    await run(process.execPath, mapped, { timeout: 15_000 });
    return true;
  } catch {
    return false;
  }
}

t.test('the three nodes run with the file\'s environment: healthy by its healthcheck, one state', async (t) => {
  const started = Date.now();
  const pg = await postgresFor(t);
  if (!pg) return;
  const compose = loadCompose(VARIABLES);
  const dbEnv = environmentOf(compose.services.db);
  // What the postgres image does with POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB.
  await pg.query('postgres', `CREATE ROLE "${dbEnv.POSTGRES_USER}" LOGIN PASSWORD '${dbEnv.POSTGRES_PASSWORD}'`);
  await pg.query('postgres', `CREATE DATABASE "${dbEnv.POSTGRES_DB}" OWNER "${dbEnv.POSTGRES_USER}"`);

  const nodes: Spawned[] = [];
  t.teardown(() => Promise.all(nodes.map((n) => n.kill())));
  const image = imageEnvironment();
  const containerPort = Number(image.PORT);
  await Promise.all(NODES.map(async (name) => {
    const env = { ...image, ...environmentOf(compose.services[name]) };
    // Only what a container has of its own differs: the `db` host (here the throwaway server), the
    // network (each container has its own 4242 on all its interfaces; here they share this machine's
    // loopback) and the /data volume.
    const url = new URL(env.DATABASE_URL);
    url.hostname = '127.0.0.1';
    url.port = String(pg.port);
    env.DATABASE_URL = url.href;
    const n = await spawnServer({
      // None of the test helper's defaults: the file's environment, plus PATH.
      env: { WAL_SYNC: undefined, AUTH_TYPE: undefined, LOG_LEVEL: undefined, PASSWORD_SCRYPT_LOG_N: undefined, ...env, HOST: '127.0.0.1', PORT: '0', DATA_DIR: tempDataDir('fanion-compose-') },
      portOpen: true,
    });
    nodes.push(n);
  }));

  t.comment(`PostgreSQL and three nodes started, ports open: ${Date.now() - started} ms`);

  // Compose runs the healthcheck every `interval` and gives up after start_period + retries ×
  // interval. Here /ready is watched in-process until it answers (a node process per poll would
  // cost more CPU than the nodes' start), then the file's own command must pass, within `retries`.
  const healthy = async (s: Service, n: Spawned, ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until && (await fetch(`${n.url}/ready`).then((r) => (r.body?.cancel(), r.ok), () => false)) === false) {
      await new Promise((r) => setTimeout(r, 100));
    }
    for (let i = 0; i < (s.healthcheck!.retries ?? 3); i++) if (await healthcheck(s, containerPort, n.port)) return true;
    return false;
  };
  const health = await Promise.all(NODES.map((name, i) => healthy(compose.services[name], nodes[i], 30_000)));
  t.same(health, [true, true, true], 'every node passes the file\'s healthcheck');
  if (!health.every(Boolean)) for (const [i, n] of nodes.entries()) t.comment(`${NODES[i]}:\n${n.output().split('\n').slice(-15).join('\n')}`);
  t.comment(`healthy after ${Date.now() - started} ms`);

  // A write on fanion-1 with FANION_ADMIN_TOKEN, read on fanion-2 and fanion-3.
  const admin = { authorization: VARIABLES.FANION_ADMIN_TOKEN };
  const name = `compose-${process.pid}`;
  const created = await client(nodes[0].url, admin)('POST', '/api/admin/projects/default/features', { name });
  t.equal(created.status, 201, `a flag created on fanion-1 (${created.status} ${created.text.slice(0, 200)})`);
  for (const [i, n] of nodes.entries()) {
    if (i === 0) continue;
    const until = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < until && status !== 200) {
      status = (await client(n.url, admin)('GET', `/api/admin/projects/default/features/${name}`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    t.equal(status, 200, `${NODES[i]} serves the flag written on fanion-1`);
  }

  // The stop compose sends (SIGTERM) drains within stop_grace_period, and the healthcheck then fails.
  const graceMs = durationMs(compose.services['fanion-1'].stop_grace_period!);
  const stopping = Date.now();
  const codes = await Promise.all(nodes.map((n) => n.stop()));
  t.same(codes, [0, 0, 0], 'SIGTERM: every node exits 0');
  t.ok(Date.now() - stopping < graceMs, `within stop_grace_period (${Date.now() - stopping} ms < ${graceMs} ms)`);
  t.equal(await healthcheck(compose.services['fanion-1'], containerPort, nodes[0].port), false, 'a stopped node fails the healthcheck');
  t.comment(`whole run ${Date.now() - started} ms`);
});
