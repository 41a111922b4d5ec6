// The block filter may only ever say "maybe" for a block whose text matches: no false negatives,
// whatever the case or alphabet; and it must actually rule blocks out for rare text.
import t from 'tap';
import { BLOCK, TrigramFilter, trigramsOf } from '../../../../src/core/state/events/trigram-filter.js';

const ALPHABET = 'abcXYZ-_"{}:019 äÄöÖßſKk\u212a€';

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

t.test('every block whose text matches a query case-insensitively passes the filter', async (t) => {
  const r = rng(3);
  const word = (n: number) => Array.from({ length: n }, () => ALPHABET[Math.floor(r() * ALPHABET.length)]).join('');
  const texts = Array.from({ length: BLOCK * 20 }, () => word(5 + Math.floor(r() * 60)));
  const filter = new TrigramFilter();
  texts.forEach((text, i) => filter.add(i, text));
  let checked = 0;
  for (let k = 0; k < 400; k++) {
    // Queries cut from the texts, with their case flipped at random, plus random ones.
    const src = texts[Math.floor(r() * texts.length)];
    const at = Math.floor(r() * Math.max(1, src.length - 5));
    const cut = k % 4 === 0 ? word(3 + Math.floor(r() * 4)) : src.slice(at, at + 3 + Math.floor(r() * 5));
    const query = [...cut].map((c) => (r() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
    const re = new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
    const grams = trigramsOf(query);
    if (!grams) continue;
    for (let b = 0; b < 20; b++) {
      const matches = texts.slice(b * BLOCK, (b + 1) * BLOCK).some((x) => re.test(x));
      if (matches) {
        t.ok(filter.mayContain(b, grams), `block ${b} holds ${JSON.stringify(query)}`);
        checked++;
      }
    }
  }
  t.ok(checked > 300, `${checked} matching blocks checked`);
});

t.test('rare text rules most blocks out; truncate forgets records', async (t) => {
  const filter = new TrigramFilter();
  const n = BLOCK * 50;
  for (let i = 0; i < n; i++) filter.add(i, `{"name":"flag-${i}","rollout":"50"}`);
  const grams = trigramsOf('flag-1234"')!;
  const passing = Array.from({ length: 50 }, (_, b) => filter.mayContain(b, grams)).filter(Boolean).length;
  t.ok(passing >= 1 && passing < 10, `${passing} of 50 blocks may contain it`);
  t.ok(filter.mayContain(Math.floor(1234 / BLOCK), grams), 'the block that has it passes');
  filter.truncate(1234, (i) => `{"name":"flag-${i}","rollout":"50"}`);
  t.notOk(filter.mayContain(40, grams), 'blocks past the truncation are gone');
  t.ok(filter.mayContain(Math.floor(1200 / BLOCK), trigramsOf('flag-1200"')!), 'records before it are still there');
});
