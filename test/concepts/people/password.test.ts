// Password hashes (scrypt, PHC strings, a bounded number at once) and the policy new passwords meet.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { TooManyRequestsError } from '../../../src/core/errors.js';
import { COMMON_PASSWORDS } from '../../../src/concepts/people/common-passwords.js';
import { parametersOf, PasswordHasher } from '../../../src/concepts/people/password-hasher.js';
import { passwordProblem } from '../../../src/concepts/people/password-policy.js';
import { ROOT } from '../../helpers/server.js';

t.test('the default parameters are the strong ones, written into the hash', async (t) => {
  const hasher = new PasswordHasher({ logN: 15, concurrency: 2, queue: 8 });
  const hash = await hasher.hash('a long and unusual passphrase');
  t.match(hash, /^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/, 'N = 2^15, r = 8, p = 3; 16-byte salt, 32-byte key');
  t.equal(await hasher.verify(hash, 'a long and unusual passphrase'), true);
  t.equal(await hasher.verify(hash, 'a long and unusual passphrasE'), false);
  t.not(await hasher.hash('a long and unusual passphrase'), hash, 'a new salt each time');
});

t.test('verify: old parameters still read; no hash or garbage is a plain refusal (after the same work)', async (t) => {
  const weak = new PasswordHasher({ logN: 10, concurrency: 2, queue: 8 });
  const strong = new PasswordHasher({ logN: 11, concurrency: 2, queue: 8 });
  const old = await weak.hash('correct horse battery');
  t.equal(await strong.verify(old, 'correct horse battery'), true, 'a hash made with other parameters is read with its own');
  t.equal(strong.weaker(old), true, 'and is marked for a rehash');
  t.equal(strong.weaker(await strong.hash('x')), false);
  t.equal(await strong.verify(null, 'anything at all'), false);
  t.equal(await strong.verify('$scrypt$garbage', 'anything at all'), false);
  t.equal(await strong.verify('', ''), false);
});

t.test('at most `concurrency` hashes run; at most `queue` wait; the rest are refused at once with 429', async (t) => {
  const hasher = new PasswordHasher({ logN: 12, concurrency: 2, queue: 3 });
  // The dummy hash is made at construction: wait for it (verifying without a hash uses it), so
  // all the slots are free when the eight arrive.
  await hasher.verify(null, 'warm the dummy up');
  let peak = 0;
  const watch = setInterval(() => (peak = Math.max(peak, hasher.load().running)), 1);
  const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => hasher.hash(`password number ${i}`)));
  clearInterval(watch);
  const refused = results.filter((r) => r.status === 'rejected');
  t.equal(results.length - refused.length, 5, 'two running and three waiting were hashed');
  t.equal(refused.length, 3, 'three were refused');
  for (const r of refused) {
    const err = (r as PromiseRejectedResult).reason;
    t.ok(err instanceof TooManyRequestsError && err.retryAfter >= 1, '429 with a Retry-After');
  }
  t.ok(peak <= 2, `never more than two at once (peak ${peak})`);
  t.same(hasher.load(), { running: 0, waiting: 0 }, 'every slot given back');
});

t.test('past the shared queue, a caller with nothing of its own being checked still waits its turn; a second one from it is refused', async (t) => {
  const hasher = new PasswordHasher({ logN: 12, concurrency: 1, queue: 1 });
  const old = await hasher.hash('a long unusual passphrase');
  const check = (owner: string, password: string) => hasher.verify(old, password, { owner });
  // One running and one waiting (the shared queue) from the same address, then more.
  const flood = ['a', 'b', 'c', 'd'].map((x) => check('198.51.100.1', `wrong ${x}`));
  const mine = check('192.0.2.7', 'a long unusual passphrase');
  const again = check('192.0.2.7', 'a long unusual passphrase');
  const results = await Promise.allSettled([...flood, mine, again]);
  const status = results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).name));
  t.same(status, [false, false, 'TooManyRequestsError', 'TooManyRequestsError', true, 'TooManyRequestsError'],
    'the flooding address: one checked, one queued, the rest refused; another address: its first waits and passes, its second is refused');
  t.same(hasher.load(), { running: 0, waiting: 0 });
});

t.test('a check derives at the current parameters and at every set still in use, so it costs the same for anyone', async (t) => {
  const old = await new PasswordHasher({ logN: 10, concurrency: 2, queue: 8 }).hash('correct horse battery');
  const hasher = new PasswordHasher({ logN: 13, concurrency: 2, queue: 8 });
  const inUse = [parametersOf(old)];
  t.equal(inUse[0], 'ln=10,r=8,p=3');
  t.equal(parametersOf('not a hash'), null);
  const time = async (hash: string | null, password: string) => {
    const started = performance.now();
    const ok = await hasher.verify(hash, password, { inUse });
    return { ok, ms: performance.now() - started };
  };
  const runs: Record<string, number[]> = { old: [], none: [] };
  for (let i = 0; i < 5; i++) {
    const a = await time(old, 'wrong');
    const b = await time(null, 'wrong');
    t.equal(a.ok || b.ok, false);
    runs.old.push(a.ms);
    runs.none.push(b.ms);
  }
  t.equal((await time(old, 'correct horse battery')).ok, true, 'the old hash still matches');
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  const [o, n] = [median(runs.old), median(runs.none)];
  t.comment(`an old (2^10) hash: ${o.toFixed(1)} ms; no hash: ${n.toFixed(1)} ms, at 2^13 now`);
  t.ok(o > n * 0.5 && o < n * 2, 'the same time within a factor of two (a 2^10 hash alone takes an eighth)');
});

t.test('policy: length, common passwords, common ones dressed up, repeated characters', async (t) => {
  const refused = (p: string) => passwordProblem(p)?.details?.[0]?.message ?? null;
  t.match(refused('short1!'), /at least 12 characters/);
  t.match(refused('x'.repeat(257)), /at most 256/);
  t.match(refused('qwertyuiop12'), /most common/, 'a long common one');
  t.match(refused('Password1234'), /most common/, 'without regard to case');
  t.match(refused('!!Sunshine2024!!'), /digits or symbols added/, 'a common word with digits and symbols around it');
  t.match(refused('unleash4all!!'), /most common|digits or symbols/, "Unleash's default password");
  t.match(refused('aaaaaaaaaaaaaaaa'), /repeats/);
  t.match(refused('abababababababab'), /repeats/);
  t.equal(refused('correct horse battery staple'), null);
  t.equal(refused('Tr0ub4dor&3-plus-more'), null);
  t.equal(refused('🦊🦊🦊 fox in the snow'), null, 'any characters count, by code point');
  t.match(refused('🦊🦊🦊🦊🦊🦊'), /at least 12/, 'six emoji are six characters, not twelve code units');
  const err = passwordProblem('short', 'newPassword')!;
  t.equal(err.details?.[0]?.path, 'newPassword', 'the refusal names the field');
  t.notMatch(err.message, /short/, 'and never repeats the password');
});

t.test('the common passwords are read whole from assets/common-passwords.txt.gz', async (t) => {
  t.equal(COMMON_PASSWORDS.length, 10_289, 'every line: the 10,000 most frequent, the 308 long ones, the defaults (less duplicates)');
  t.equal(new Set(COMMON_PASSWORDS).size, COMMON_PASSWORDS.length, 'no blank or repeated line');
  t.same(COMMON_PASSWORDS.filter((p) => p !== p.toLowerCase() || p !== p.trim() || p === ''), [], 'lower case, nothing around them');
  t.same(COMMON_PASSWORDS.slice(0, 3), ['unleash4all', 'unleash', 'fanion'], 'the defaults first');
  t.equal(COMMON_PASSWORDS.at(-1), '193570356033', 'the last line too');
  t.match(passwordProblem('193570356033')?.details?.[0]?.message, /most common/, 'and the policy refuses it');
});

t.test('the list is found from a package laid out as the image lays it out (no src/, no test/)', async (t) => {
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'fanion-layout-'));
  t.teardown(() => fs.rmSync(app, { recursive: true, force: true }));
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(app, 'package.json'));
  fs.cpSync(path.join(ROOT, 'dist/src'), path.join(app, 'dist/src'), { recursive: true });
  fs.cpSync(path.join(ROOT, 'assets'), path.join(app, 'assets'), { recursive: true });
  const check = "const { passwordProblem } = await import('./dist/src/concepts/people/password-policy.js');"
    + "console.log(passwordProblem('Password1234')?.details?.[0]?.message);";
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', check], { cwd: app, encoding: 'utf8', timeout: 10_000, env: { ...process.env, NODE_OPTIONS: '' } });
  t.equal(run.status, 0, `it loads from the copy ${run.stderr}`);
  t.match(run.stdout, /most common/, 'and refuses a common password there');
  fs.rmSync(path.join(app, 'assets'), { recursive: true });
  const without = spawnSync(process.execPath, ['--input-type=module', '-e', check], { cwd: app, encoding: 'utf8', timeout: 10_000, env: { ...process.env, NODE_OPTIONS: '' } });
  t.not(without.status, 0, 'without the file it fails at load, not at the first password change');
  t.match(without.stderr, /common-passwords\.txt\.gz/, 'naming the file');
});
