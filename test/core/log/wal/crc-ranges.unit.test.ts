// The checksum of any byte range from one pass over the buffer: it must equal node:zlib's crc32
// of that range, for empty, overlapping, nested and whole-buffer ranges alike.
import { crc32 } from 'node:zlib';
import t from 'tap';
import { crcOfRanges } from '../../../../src/core/log/wal/crc-ranges.js';

t.test('crcOfRanges gives node:zlib\'s crc32 of every range', async (t) => {
  let seed = 7;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  const buf = Buffer.alloc(100_000);
  for (let i = 0; i < buf.length; i++) buf[i] = rnd() & 0xff;
  const starts: number[] = [0, 0, 5, 5, 99_999, 100_000, 1234];
  const ends: number[] = [100_000, 0, 5, 6, 100_000, 100_000, 70_000];
  for (let i = 0; i < 500; i++) {
    const a = rnd() % (buf.length + 1);
    const b = rnd() % (buf.length + 1);
    starts.push(Math.min(a, b));
    ends.push(Math.max(a, b));
  }
  const got = crcOfRanges(buf, starts, ends);
  let wrong = 0;
  starts.forEach((s, i) => {
    if (got[i] !== crc32(buf.subarray(s, ends[i]))) wrong++;
  });
  t.equal(wrong, 0, `all ${starts.length} ranges match`);
  t.same([...crcOfRanges(buf, [], [])], [], 'no ranges, no answers');
});
