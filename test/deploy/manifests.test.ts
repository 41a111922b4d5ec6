// The systemd unit and the Kubernetes manifests in deploy/ checked against the code they run: every
// variable they set is one Fanion reads (or glibc, for MALLOC_ARENA_MAX), loadConfig accepts their
// values and lands in the intended mode, ports are the ones Fanion listens on, the stop deadlines
// exceed Fanion's own drain deadline, the entry point is the built one, and the probe paths answer
// as the probes expect on real processes (a node waiting for its database, a relay waiting for its
// upstream, a server serving). `systemd-analyze verify` is run on the unit when it is installed,
// and every Kubernetes document is validated against the API's own schemas and types (kubernetes-models).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import t from 'tap';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { loadConfig, type Config } from '../../src/core/config.js';
import { NOT_FANIONS, settingsRead } from '../helpers/deploy.js';
import { freePort } from '../helpers/ports.js';
import { MAIN, ROOT, spawnServer } from '../helpers/server.js';

const UNIT = path.join(ROOT, 'deploy/systemd/fanion.service');
const KUBE = path.join(ROOT, 'deploy/kubernetes');
/** A systemd unit as section → key → values (a key may repeat, as Environment= does). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1], current);
      continue;
    }
    const eq = line.indexOf('=');
    if (!current || eq < 0 || line.endsWith('\\')) throw new Error(`not a line this reader knows: ${line}`);
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

/** systemd's time spans as the unit writes them: `45s`, `5min`, `2min 30s`, or bare seconds. */
function spanMs(value: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, sec: 1000, min: 60_000, m: 60_000, h: 3_600_000 };
  let ms = 0;
  for (const part of value.split(/\s+/)) {
    const m = /^(\d+)([a-z]*)$/.exec(part);
    if (!m || !((m[2] || 's') in units)) throw new Error(`not a time span: ${value}`);
    ms += Number(m[1]) * units[m[2] || 's'];
  }
  return ms;
}

/** Values standing for a Secret's, of the shape each variable takes, so loadConfig can judge the rest. */
const SECRET_STAND_INS: Record<string, string> = {
  DATABASE_URL: 'postgres://fanion:secret@db.internal:5432/fanion',
  TOKENS: '*:production.a-relay-secret',
  INIT_ADMIN_API_TOKENS: '*:*.a-long-admin-secret',
  UNLEASH_DEFAULT_ADMIN_PASSWORD: 'a long passphrase nobody guesses 7',
};

interface Container {
  command: string[];
  workingDir?: string;
  ports: { name: string; containerPort: number }[];
  env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  livenessProbe: { httpGet: { path: string; port: string | number } };
  readinessProbe: { httpGet: { path: string; port: string | number } };
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  securityContext: { allowPrivilegeEscalation: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  terminationGracePeriodSeconds: number;
  securityContext: { runAsNonRoot: boolean; runAsUser: number };
  containers: Container[];
  volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[];
}
interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: any;
}

function manifests(file: string): Doc[] {
  const docs = parseAllDocuments(fs.readFileSync(path.join(KUBE, file), 'utf8'));
  for (const d of docs) if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0].message}`);
  return docs.map((d) => d.toJS() as Doc);
}

/** The container's environment with stand-ins for Secrets (named in `secrets`). */
function environmentOf(c: Container): { env: Record<string, string>; secrets: string[] } {
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  for (const e of c.env) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) {
      secrets.push(e.name);
      env[e.name] = SECRET_STAND_INS[e.name];
    } else throw new Error(`${e.name}: neither a value nor a Secret`);
  }
  return { env, secrets };
}

const known = settingsRead();

t.test('the settings list read from src/core/config.ts is the real one', async (t) => {
  // The scan must find the settings the files below use, and not names that are merely close.
  for (const name of ['PORT', 'DATA_DIR', 'SHUTDOWN_TIMEOUT_MS', 'DATABASE_URL', 'UPSTREAM_URL', 'TOKENS', 'UNLEASH_DEFAULT_ADMIN_PASSWORD']) t.ok(known.has(name), name);
  for (const name of ['SHUTDOWN_TIMEOUT', 'DATABASE', 'MALLOC_ARENA_MAX']) t.notOk(known.has(name), `not ${name}`);
  // MALLOC_ARENA_MAX is set because npm start sets it; a deployment that runs node directly must too.
  const start = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
  t.match(start, /MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-2\} exec node dist\/src\/entry\/main\.js/);
});

const defaults = loadConfig({});

t.test('the systemd unit: the built entry, a drain that fits, a state folder, known settings', async (t) => {
  const unit = parseUnit(fs.readFileSync(UNIT, 'utf8'));
  const service = unit.get('Service')!;
  const one = (key: string) => {
    const values = service.get(key) ?? [];
    t.equal(values.length, 1, `${key} is set once`);
    return values[0];
  };
  const [node, entry, ...rest] = one('ExecStart').split(/\s+/);
  t.ok(path.isAbsolute(node) && path.basename(node) === 'node', 'node itself, not npm');
  t.same(rest, [], 'no arguments after the entry point');
  t.equal(path.relative(one('WorkingDirectory'), entry), path.relative(ROOT, MAIN), 'the built entry point, dist/src/entry/main.js, of the installed tree');
  t.ok(fs.existsSync(MAIN), 'which the build makes');

  const env: Record<string, string> = {};
  for (const line of service.get('Environment') ?? []) {
    const eq = line.indexOf('=');
    env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  for (const name of Object.keys(env)) t.ok(known.has(name) || NOT_FANIONS.has(name), `${name} is a setting Fanion reads`);
  t.equal(env.MALLOC_ARENA_MAX, '2', 'the arenas npm start allows');
  const config = loadConfig(env);
  t.equal(config.port, defaults.port, 'the default port');
  t.equal(config.cluster, null, 'a server on a data folder unless the environment file says otherwise');
  t.equal(config.dataDir, path.join('/var/lib', one('StateDirectory')), 'DATA_DIR is the StateDirectory systemd makes');
  t.ok(one('ReadWritePaths').split(/\s+/).includes(config.dataDir), 'and the one path ProtectSystem=strict leaves writable');
  t.equal(one('ProtectSystem'), 'strict');
  t.equal(one('NoNewPrivileges'), 'yes');
  t.equal(one('PrivateTmp'), 'yes');
  t.equal(one('Restart'), 'always');
  t.equal(one('RestartPreventExitStatus'), '2', 'a setting to fix (exit 2) is not restarted into');
  t.equal(one('KillSignal'), 'SIGTERM', 'the signal that drains');
  const stopMs = spanMs(one('TimeoutStopSec'));
  t.ok(stopMs > config.http.shutdownTimeoutMs, `TimeoutStopSec (${stopMs} ms) exceeds SHUTDOWN_TIMEOUT_MS (${config.http.shutdownTimeoutMs} ms): systemd's SIGKILL never cuts the drain`);
  t.ok(service.get('EnvironmentFile')?.includes('-/etc/fanion/fanion.env'), 'site settings from an optional file');
  t.ok(service.has('User') && service.get('User')![0] !== 'root', 'a user of its own');
});

const analyzeAbsent = spawnSync('systemd-analyze', ['--version']).error !== undefined;
// CI runs as root on Debian, where the `systemd` package has it: there it must run.
const mustAnalyze = process.env.CI === 'true';
t.test('systemd-analyze verify finds nothing to say about the unit', { skip: analyzeAbsent && !mustAnalyze ? 'systemd-analyze is not installed (Debian package "systemd")' : false }, async (t) => {
  if (analyzeAbsent) {
    t.fail('systemd-analyze is needed under CI (Debian package "systemd")');
    return;
  }
  // verify exits 0 even for an unknown key (a warning): what it prints is the verdict.
  const verify = (file: string) => {
    const r = spawnSync('systemd-analyze', ['verify', '--man=no', file], { encoding: 'utf8', cwd: os.tmpdir(), timeout: 30_000 });
    return { status: r.status, said: `${r.stdout}${r.stderr}`.trim() };
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fanion-unit-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  // verify checks that ExecStart's program exists: where this machine's node is not Debian's
  // /usr/bin/node, the unit is verified with this node's path instead (an install edits that line).
  const text = fs.readFileSync(UNIT, 'utf8');
  const node = /^ExecStart=(\S+)/m.exec(text)![1];
  const unit = fs.existsSync(node) ? UNIT : path.join(dir, 'local', 'fanion.service');
  if (unit !== UNIT) {
    t.comment(`${node} is absent: verifying with ${process.execPath}`);
    fs.mkdirSync(path.dirname(unit));
    fs.writeFileSync(unit, text.replace(`ExecStart=${node} `, `ExecStart=${process.execPath} `));
  }
  t.same(verify(unit), { status: 0, said: '' }, 'clean');
  // The check can fail: the same unit with a misspelt key is reported.
  const broken = path.join(dir, 'fanion.service');
  fs.writeFileSync(broken, fs.readFileSync(unit, 'utf8').replace('TimeoutStopSec=', 'TimeoutStopSecs='));
  t.match(verify(broken).said, /Unknown key 'TimeoutStopSecs' in section \[Service\]/, 'a misspelt key is reported');
});

/** Each manifest file: the mode loadConfig must land in with its environment. */
const MODES: Record<string, (c: Config) => boolean> = {
  'server.yaml': (c) => c.cluster === null && c.relay === null,
  'cluster.yaml': (c) => c.cluster !== null && c.relay === null,
  'relay.yaml': (c) => c.relay !== null,
};

t.test('the Kubernetes manifests: known settings, the right mode and port, probes, deadlines, volumes', async (t) => {
  t.same(fs.readdirSync(KUBE).filter((f) => f.endsWith('.yaml')).sort(), Object.keys(MODES).sort(), 'every manifest file is checked');
  for (const [file, mode] of Object.entries(MODES)) {
    t.test(file, async (t) => {
      const docs = manifests(file);
      const workloads = docs.filter((d) => d.kind === 'Deployment' || d.kind === 'StatefulSet');
      t.equal(workloads.length, 1, 'one workload');
      const workload = workloads[0];
      const pod = workload.spec.template.spec as PodSpec;
      const labels = workload.spec.template.metadata.labels as Record<string, string>;
      const selects = (selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
      t.ok(selects(workload.spec.selector.matchLabels), 'the workload selects its pods');
      t.equal(pod.containers.length, 1);
      const c = pod.containers[0];

      t.same(c.command.slice(-1), [path.relative(ROOT, MAIN)], 'the built entry point, dist/src/entry/main.js');
      t.equal(c.command[0], 'node', 'run by node itself, not npm');
      const { env, secrets } = environmentOf(c);
      for (const name of Object.keys(env)) t.ok(known.has(name) || NOT_FANIONS.has(name), `${name} is a setting Fanion reads`);
      for (const name of secrets) t.ok(name in SECRET_STAND_INS, `${name} comes from a Secret`);
      t.equal(env.MALLOC_ARENA_MAX, '2');
      const config = loadConfig(env);
      t.ok(mode(config), `loadConfig reads it as the intended mode (database: ${config.cluster?.label ?? 'none'}, relay: ${config.relay?.upstreamUrl ?? 'none'})`);
      // The port each mode listens on when PORT is not set: the manifests keep Fanion's defaults.
      const defaultPort = loadConfig(config.relay ? { UPSTREAM_URL: config.relay.upstreamUrl } : {}).port;
      t.equal(config.port, defaultPort, `the mode's default port (${defaultPort})`);
      const http = c.ports.find((p) => p.name === 'http');
      t.equal(http?.containerPort, config.port, 'the container port is the one Fanion listens on');
      t.same([c.livenessProbe.httpGet.path, c.livenessProbe.httpGet.port], ['/health', 'http'], 'liveness on /health');
      t.same([c.readinessProbe.httpGet.path, c.readinessProbe.httpGet.port], ['/ready', 'http'], 'readiness on /ready');

      const preStopMs = (c.lifecycle?.preStop?.sleep?.seconds ?? 0) * 1000;
      const graceMs = pod.terminationGracePeriodSeconds * 1000;
      t.ok(graceMs > preStopMs + config.http.shutdownTimeoutMs, `terminationGracePeriodSeconds (${graceMs} ms) exceeds the preStop pause (${preStopMs} ms) + SHUTDOWN_TIMEOUT_MS (${config.http.shutdownTimeoutMs} ms)`);

      t.ok(pod.securityContext.runAsNonRoot && pod.securityContext.runAsUser > 0, 'not root');
      t.equal(c.securityContext.allowPrivilegeEscalation, false);
      t.same(c.securityContext.capabilities?.drop, ['ALL']);
      if (c.securityContext.readOnlyRootFilesystem && !config.cluster) {
        t.ok(c.volumeMounts?.some((m) => m.mountPath === config.dataDir), `DATA_DIR (${config.dataDir}) is a volume: the root filesystem is read-only`);
      }

      const services = docs.filter((d) => d.kind === 'Service');
      t.equal(services.length, 1, 'one Service');
      t.ok(selects(services[0].spec.selector), 'the Service selects the pods');
      t.same(services[0].spec.ports.map((p: { targetPort: string }) => p.targetPort), ['http'], 'to the named port');

      const budgets = docs.filter((d) => d.kind === 'PodDisruptionBudget');
      if (config.cluster || config.relay) {
        t.ok(workload.spec.replicas > 1, 'several pods');
        t.equal(budgets.length, 1, 'a PodDisruptionBudget');
        t.ok(selects(budgets[0].spec.selector.matchLabels), 'over these pods');
        t.equal(budgets[0].spec.maxUnavailable, 1, 'a drain takes one pod at a time');
      } else {
        // The data folder is locked by one process: never two pods, not even during an update.
        t.equal(workload.spec.replicas, 1, 'one replica');
        t.equal(workload.spec.strategy.type, 'Recreate', 'the old pod goes before the new one opens the folder');
        const claim = pod.volumes?.find((v) => v.name === c.volumeMounts?.find((m) => m.mountPath === config.dataDir)?.name)?.persistentVolumeClaim?.claimName;
        t.ok(docs.some((d) => d.kind === 'PersistentVolumeClaim' && d.metadata.name === claim), 'DATA_DIR is on the PersistentVolumeClaim defined here');
      }
    });
  }
});

/**
 * The kinds deploy/kubernetes uses, by `apiVersion/kind`: the validator generated from Kubernetes'
 * OpenAPI schema, and the module and interface of its TypeScript type (for unknown fields, below).
 * A kind not listed fails the test rather than going unchecked.
 */
const SCHEMAS: Record<string, { model: (doc: Doc) => { validate(): void }; type: [string, string] }> = {
  'apps/v1/Deployment': { model: (d) => new Deployment(d as never), type: ['kubernetes-models/apps/v1/Deployment', 'IDeployment'] },
  'apps/v1/StatefulSet': { model: (d) => new StatefulSet(d as never), type: ['kubernetes-models/apps/v1/StatefulSet', 'IStatefulSet'] },
  'policy/v1/PodDisruptionBudget': { model: (d) => new PodDisruptionBudget(d as never), type: ['kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'] },
  'v1/Service': { model: (d) => new Service(d as never), type: ['kubernetes-models/v1/Service', 'IService'] },
  'v1/PersistentVolumeClaim': { model: (d) => new PersistentVolumeClaim(d as never), type: ['kubernetes-models/v1/PersistentVolumeClaim', 'IPersistentVolumeClaim'] },
};

/** What the API's schema says against a document: null when it is valid. */
function schemaErrors(doc: Doc): string | null {
  const kind = SCHEMAS[`${doc.apiVersion}/${doc.kind}`];
  if (!kind) return `no schema known here for ${doc.apiVersion} ${doc.kind}: add it to SCHEMAS`;
  try {
    kind.model(doc).validate();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

t.test('every Kubernetes document is valid against the Kubernetes API schema', async (t) => {
  for (const file of Object.keys(MODES)) {
    for (const doc of manifests(file)) t.equal(schemaErrors(doc), null, `${file}: ${doc.kind} ${doc.metadata.name}`);
  }
  // The check can fail: copies of cluster.yaml's Deployment with one mistake each an API server
  // would refuse. (The API's schemas allow unknown fields: the next test is for those.)
  const deployment = manifests('cluster.yaml').find((d) => d.kind === 'Deployment')!;
  const mistakes: [string, (d: Doc) => void, RegExp][] = [
    ['a probe port given as an object', (d) => (d.spec.template.spec.containers[0].livenessProbe.httpGet.port = { name: 'http' }), /livenessProbe\/httpGet\/port must/],
    ['a preStop sleep in a string', (d) => (d.spec.template.spec.containers[0].lifecycle.preStop.sleep.seconds = '5'), /preStop\/sleep\/seconds must be integer/],
    ['an unknown update strategy', (d) => (d.spec.strategy.type = 'Rolling'), /strategy\/type must be equal to one of the allowed values/],
    ['a container without a name', (d) => delete d.spec.template.spec.containers[0].name, /containers\/0 must have required property name/],
    ['a memory limit that is not a quantity', (d) => (d.spec.template.spec.containers[0].resources.limits.memory = 'a lot'), /limits\/memory must/],
  ];
  for (const [what, mutate, said] of mistakes) {
    const copy = structuredClone(deployment);
    mutate(copy);
    t.match(schemaErrors(copy), said, what);
  }
  t.match(schemaErrors({ ...deployment, kind: 'Deploymnet' }), /no schema known here for apps\/v1 Deploymnet/, 'a kind without a schema is not waved through');
});

/**
 * Per document, the fields its kind's type does not have, as TypeScript says it: each document is
 * type-checked as an object literal of its kubernetes-models interface, whose excess property checks
 * see every nesting level. A misspelt key (`livenessProb:`) is otherwise dropped in silence by an
 * API server without strict field validation: the probe would not exist. One program for all of
 * them: the types are loaded once.
 */
function unknownFields(docs: Doc[]): string[][] {
  const files = docs.map((d, i) => {
    const [module, type] = SCHEMAS[`${d.apiVersion}/${d.kind}`].type;
    const source = `import type { ${type} } from '${module}';\nexport const doc: ${type} = ${JSON.stringify(d, null, 1)};\n`;
    return { name: path.join(ROOT, 'test', `kubernetes-document-${i}.ts`), source };
  });
  const byName = new Map(files.map((f) => [f.name, f.source]));
  const host = ts.createCompilerHost({});
  const [getSourceFile, fileExists] = [host.getSourceFile, host.fileExists];
  host.getSourceFile = (name, version, ...rest) => (byName.has(name) ? ts.createSourceFile(name, byName.get(name)!, version) : getSourceFile.call(host, name, version, ...rest));
  host.fileExists = (name) => byName.has(name) || fileExists.call(host, name);
  // ES5's library alone: the types need no more, and the default one (DOM included) doubled the CPU.
  const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true, types: [], lib: ['lib.es5.d.ts'] };
  const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram([...byName.keys()], options, host));
  return files.map((f) => diagnostics.filter((d) => d.file?.fileName === f.name).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')));
}

t.test('no Kubernetes document has a field its kind does not know', async (t) => {
  const all = Object.keys(MODES).flatMap((file) => manifests(file).map((doc) => ({ file, doc })));
  // The check can fail: a copy of cluster.yaml's Deployment with a misspelt probe, and a misspelt
  // key deep in the pod's security context.
  const copy = structuredClone(all.find((d) => d.file === 'cluster.yaml' && d.doc.kind === 'Deployment')!.doc);
  const c = copy.spec.template.spec.containers[0];
  c.livenessProb = c.livenessProbe;
  delete c.livenessProbe;
  copy.spec.template.spec.securityContext.runAsNonroot = true;
  const started = Date.now();
  const found = unknownFields([...all.map((d) => d.doc), copy]);
  t.comment(`type-checked ${all.length + 1} documents in ${Date.now() - started} ms`);
  for (const [i, { file, doc }] of all.entries()) t.same(found[i], [], `${file}: ${doc.kind} ${doc.metadata.name}`);
  const said = found[all.length].join('\n');
  t.match(said, /'"?livenessProb"?' does not exist in type 'IContainer'/, 'a misspelt livenessProbe is found');
  t.match(said, /'"?runAsNonroot"?' does not exist in type 'IPodSecurityContext'/, 'a misspelt key in the pod security context is found');
});

/** Asks the container's two probe paths at once: whether a kubelet counts each as passed (200–399). */
async function probe(url: string, c: Container): Promise<{ liveness: boolean; readiness: boolean }> {
  const [live, ready] = await Promise.all([fetch(url + c.livenessProbe.httpGet.path), fetch(url + c.readinessProbe.httpGet.path)]);
  await Promise.all([live.arrayBuffer(), ready.arrayBuffer()]);
  const passes = (status: number) => status >= 200 && status < 400;
  return { liveness: passes(live.status), readiness: passes(ready.status) };
}

t.test('the probes pass and fail as they should, on real processes with the manifests\' settings', async (t) => {
  const containerOf = (file: string) => (manifests(file).find((d) => d.kind === 'Deployment')!.spec.template.spec as PodSpec).containers[0];
  const envOf = (c: Container) => {
    // On a free port and in a folder of the test's own; the rest as the manifest sets it.
    const { env } = environmentOf(c);
    delete env.DATA_DIR;
    // AUTH_TYPE as the manifests leave it (api-token), not the helper's test default.
    return { ...env, PORT: '0', LOG_FORMAT: 'json', AUTH_TYPE: undefined };
  };
  const [cluster, relay, server] = ['cluster.yaml', 'relay.yaml', 'server.yaml'].map(containerOf);

  // A cluster node whose database does not answer yet: alive (no restart), not ready (no traffic).
  const node = await spawnServer({ env: { ...envOf(cluster), DATABASE_URL: `postgres://fanion@127.0.0.1:${await freePort()}/fanion`, DATABASE_TIMEOUT_MS: '500' }, portOpen: true });
  t.teardown(() => node.kill());
  // A relay whose upstream does not answer: the same.
  const follower = await spawnServer({ env: { ...envOf(relay), UPSTREAM_URL: `http://127.0.0.1:${await freePort()}`, UPSTREAM_REQUEST_TIMEOUT: '1' }, portOpen: true });
  t.teardown(() => follower.kill());
  await new Promise((r) => setTimeout(r, 1000));
  t.same(await probe(node.url, cluster), { liveness: true, readiness: false }, 'a cluster node waiting for its database: kept alive, out of the Service');
  t.same(await probe(follower.url, relay), { liveness: true, readiness: false }, 'a relay waiting for its upstream: kept alive, out of the Service');

  // A server from server.yaml's settings, once it serves: both pass.
  const running = await spawnServer({ env: envOf(server) });
  t.teardown(() => running.stop());
  t.same(await probe(running.url, server), { liveness: true, readiness: true }, 'a serving server: alive and in the Service');
});
