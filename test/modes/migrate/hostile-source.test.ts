// `fanion migrate` from a hostile Unleash on loopback, the built CLI as its own process: answers
// each within the per-answer limit that add up to gigabytes, answers nested millions deep, flag
// names that carry terminal escape sequences. Each run ends with one clear line and exit status
// 1 within seconds, its resident memory sampled from /proc all along, and nothing is written.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import t, { type Test } from 'tap';
import { CLI } from '../../helpers/cli.js';
import { contents, EMPTY, FAKE_ADMIN_TOKEN, fakeUnleash, type FakeUnleash } from '../../helpers/fake-unleash.js';
import { tempDataDir } from '../../helpers/server.js';

const MB = 1024 * 1024;
/** Well below what the issue saw (4.5 GB, then V8's abort). */
const RSS_BOUND = 1024 * MB;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  ms: number;
  /** The highest VmHWM (peak resident set) read from /proc while it ran. */
  peakRss: number;
}

/** The peak resident set size of a process so far (VmHWM), or 0 once it is gone. */
function peakOf(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** `fanion migrate` from `fake`, killed if it runs past `timeoutMs`, its memory sampled every 20 ms. */
function migrateWatched(fake: FakeUnleash, dataDir: string, timeoutMs = 60_000): Promise<Run> {
  const started = performance.now();
  const proc = spawn(process.execPath, [CLI, 'migrate', '--from', fake.url, '--token', FAKE_ADMIN_TOKEN, '--data', dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (c) => (stderr += c));
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, peakOf(proc.pid!))), 20);
  const killer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    proc.once('exit', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(killer);
      resolve({ code, signal, stderr, ms: performance.now() - started, peakRss });
    });
  });
}

/** A world of `count` live flags in the default project, each answered by `flag` instead of the fake's own answer. */
async function hostile(count: number, flag: (name: string, res: http.ServerResponse) => void): Promise<FakeUnleash> {
  const fake = await fakeUnleash();
  fake.world.flags = Array.from({ length: count }, (_, i) => ({ name: `f${i}`, project: 'default', environments: [] }));
  fake.override((_req, res, p) => {
    const m = /^\/api\/admin\/projects\/default\/features\/(f\d+)$/.exec(p);
    if (!m) return false;
    flag(m[1], res);
    return true;
  });
  return fake;
}

/** A flag as Unleash sends it, with `junk` (a JSON value's text) where a strategy's constraints go. */
function flagWith(name: string, junk: () => Iterable<Buffer | string>, res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(`{"name":"${name}","project":"default","environments":[{"name":"development","enabled":true,"strategies":[{"name":"default","constraints":`);
  for (const part of junk()) res.write(part);
  res.end('}]}]}');
}

/**
 * Runs the migration from `fake` and checks how it ends: exit status 1 (not V8's abort) with
 * `message` as its last line, within seconds, below the memory bound, nothing written.
 */
async function refused(t: Test, fake: FakeUnleash, message: RegExp): Promise<void> {
  const dataDir = tempDataDir('fanion-migrate-hostile-');
  const r = await migrateWatched(fake, dataDir);
  const last = r.stderr.trim().split('\n').pop()!;
  t.comment(`exit ${r.code} after ${Math.round(r.ms)} ms, peak RSS ${(r.peakRss / MB).toFixed(0)} MiB: ${last}`);
  t.equal(r.code, 1, 'exit status 1, not a V8 abort');
  t.match(last, message, 'one clear line');
  t.ok(r.peakRss < RSS_BOUND, `peak RSS ${(r.peakRss / MB).toFixed(0)} MiB < ${RSS_BOUND / MB} MiB`);
  t.ok(r.ms < 45_000, `within seconds (${Math.round(r.ms)} ms), not minutes`);
  t.same(contents(dataDir), EMPTY, 'nothing written');
}

t.test('1,500 flags of 4 MB each: refused once what was read adds up past the bound, memory bounded', async (t) => {
  // 100 constraints of 1,000 values of 40 characters: 4.2 MB, within every per-answer bound.
  const constraint = Buffer.from(`{"contextName":"userId","operator":"IN","values":[${Array.from({ length: 1000 }, (_, i) => `"${String(i).padStart(40, 'v')}"`).join(',')}]}`);
  const list = Buffer.concat([Buffer.from('['), ...Array.from({ length: 100 }, (_, i) => (i ? Buffer.concat([Buffer.from(','), constraint]) : constraint)), Buffer.from(']')]);
  t.ok(list.length > 4_000_000, `each flag is ${(list.length / MB).toFixed(1)} MiB`);
  const fake = await hostile(1500, (name, res) => flagWith(name, () => [list], res));
  t.teardown(() => fake.close());
  await refused(t, fake, /^fanion: Unleash's answers add up to more than the \d+ MiB one migration reads at most \(after GET \/api\/admin\/projects\/default\/features\/f\d+/);
});

t.test('eight answers nested 30 million deep (60 MB each): refused at the nesting bound, memory bounded', async (t) => {
  const open = Buffer.alloc(MB, '[');
  const close = Buffer.alloc(MB, ']');
  const nested = function* (): Iterable<Buffer> {
    for (let i = 0; i < 30; i++) yield open;
    for (let i = 0; i < 30; i++) yield close;
  };
  let served = 0;
  const fake = await hostile(8, (name, res) => {
    served++;
    flagWith(name, nested, res);
  });
  t.teardown(() => fake.close());
  await refused(t, fake, /^fanion: GET \/api\/admin\/projects\/default\/features\/f\d+\?variantEnvironments=true: the answer nests deeper than \d+ levels/);
  t.comment(`${served} nested answers were asked for`);
});

t.test('a 60 MB answer of ten million empty objects: refused at the count of values, memory bounded', async (t) => {
  const many = Buffer.from('{},'.repeat(MB / 4 * 3).slice(0, -1) + ',');
  const flat = function* (): Iterable<Buffer | string> {
    yield '[';
    for (let i = 0; i < 20; i++) yield many;
    yield '{}]';
  };
  const fake = await hostile(8, (name, res) => flagWith(name, flat, res));
  t.teardown(() => fake.close());
  await refused(t, fake, /^fanion: (GET \/api\/admin\/projects\/default\/features\/f\d+\?variantEnvironments=true: the answer holds more than [\d,]+ values|Unleash's answers add up to more than the [\d,]+ values one migration reads at most)/);
});

t.test("a flag name with terminal escape sequences is printed escaped, never as the source's bytes", async (t) => {
  const fake = await fakeUnleash();
  t.teardown(() => fake.close());
  // Clear the screen, set the window title, ring the bell, return to the line's start, flip the text's direction.
  const evil = 'x\u001b[2J\u001b[H\u001b]0;pwned\u0007\r\u009b31m\u202egnp.exe\u2066';
  fake.world.flags[1].name = evil;
  fake.world.tokens[0].tokenName = `admin\u001b]8;;https://evil.example\u0007`;
  fake.world.version = '8.2.0\u001b[31m';
  const dataDir = tempDataDir('fanion-migrate-escapes-');
  const r = await migrateWatched(fake, dataDir);
  t.equal(r.code, 1, 'the name is refused (Fanion stores URL-friendly names only)');
  t.match(r.stderr, /cannot store what Unleash holds \(flag "x\\u001b\[2J\\u001b\[H\\u001b\]0;pwned\\u0007\\u000d\\u009b31m\\u202egnp\.exe\\u2066"/, 'the name is shown with every control character escaped');
  t.match(r.stderr, /reading Unleash 8\.2\.0\\u001b\[31m at /, 'so is what Unleash says its version is');
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  t.notMatch(r.stderr, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u, 'no control character (but the ends of lines) reaches the terminal');
  t.same(contents(dataDir), EMPTY, 'nothing written');
});
