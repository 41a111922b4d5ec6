// Attempts per key as token buckets, within a bounded number of keys.
import t from 'tap';
import { AttemptLimiter } from '../../../src/concepts/people/limiter.js';

t.test('count attempts at once, then one per windowMs/count; Retry-After says when', async (t) => {
  let now = 0;
  const limiter = new AttemptLimiter({ count: 5, windowMs: 60_000 }, 100, () => now);
  for (let i = 0; i < 5; i++) t.equal(limiter.take('a'), 0, `attempt ${i + 1} passes`);
  t.equal(limiter.take('a'), 12, 'the sixth waits 12 s (60 s / 5)');
  t.equal(limiter.take('b'), 0, 'another key is not affected');
  now += 6_000;
  t.equal(limiter.take('a'), 6, 'half-way: 6 s more');
  now += 6_000;
  t.equal(limiter.take('a'), 0, 'one attempt refilled');
  t.equal(limiter.take('a'), 12, 'and only one');
  now += 10 * 60_000;
  for (let i = 0; i < 5; i++) t.equal(limiter.take('a'), 0, 'a long pause refills the bucket, to its size only');
  t.ok(limiter.take('a') > 0);
  limiter.clear('a');
  t.equal(limiter.take('a'), 0, 'a cleared key starts afresh');
});

t.test('memory is bounded: the key untouched longest goes first', async (t) => {
  const now = 0;
  const limiter = new AttemptLimiter({ count: 1, windowMs: 60_000 }, 3, () => now);
  limiter.take('a');
  limiter.take('b');
  limiter.take('c');
  t.ok(limiter.take('a') > 0, 'a is limited (refused attempts do not move it)');
  limiter.take('d');
  t.equal(limiter.size, 3, 'd took the place of a, the key touched longest ago');
  t.ok(limiter.take('b') > 0 && limiter.take('c') > 0 && limiter.take('d') > 0, 'b, c and d are remembered');
  t.equal(limiter.take('a'), 0, 'a was forgotten: it starts with a full bucket');
  for (let i = 0; i < 10_000; i++) limiter.take(`flood-${i}`);
  t.equal(limiter.size, 3, 'ten thousand keys later, still three');
});
