// Password hashes (scrypt, PHC strings, a bounded number at once) and the policy new passwords meet.
import t from 'tap';
import { TooManyRequestsError } from '../../src/errors.js';
import { PasswordHasher } from '../../src/people/password-hasher.js';
import { passwordProblem } from '../../src/people/password-policy.js';

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
