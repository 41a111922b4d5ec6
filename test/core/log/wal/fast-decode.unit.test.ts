// The fast WAL decoder against @msgpack/msgpack: whatever it decodes must be exactly what the
// general decoder gives; whatever it cannot must come back undefined (the general path then).
import { isDeepStrictEqual } from 'node:util';
import { Decoder, Encoder } from '@msgpack/msgpack';
import t from 'tap';
import { decodeCommon, releaseDecodeCache } from '../../../../src/core/log/wal/fast-decode.js';
import { eventOf, storeEvent } from '../../../../src/core/state/events/stored.js';
import { decodeRecord, encodeRecord, encodeRecordV1, type WalRecord } from '../../../../src/core/log/record.js';

const encoder = new Encoder({ ignoreUndefined: true });
const decoder = new Decoder();

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ASCII_WORDS = ['featureEnv.put', 'production', 'flag-1', 'feature-environment-enabled', '', 'x', 'a"b\\c\n', 'k'.repeat(31), 'k'.repeat(32), 'k'.repeat(33), 'z'.repeat(300)];
const OTHER_WORDS = ['Größe', 'Ødegaard', '日本語', '\ud83d\ude00', 'lone \ud800 surrogate', 'é'.repeat(120)];
const NUMBERS = [0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 1.7e12, 2 ** 53 - 1, -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, -1.7e12, 0.5, -2.25, 1e-300, NaN, Infinity];

function randomValue(r: () => number, depth: number, ascii: boolean): unknown {
  const k = Math.floor(r() * (depth > 3 ? 5 : 8));
  const words = ascii ? ASCII_WORDS : [...ASCII_WORDS, ...OTHER_WORDS];
  switch (k) {
    case 0: return NUMBERS[Math.floor(r() * NUMBERS.length)];
    case 1: return words[Math.floor(r() * words.length)];
    case 2: return [null, true, false][Math.floor(r() * 3)];
    case 3: return `${words[Math.floor(r() * words.length)]}-${Math.floor(r() * 1e6)}`;
    case 4: return new Date(1.7e12 + Math.floor(r() * 1e9)).toISOString();
    case 5: return Array.from({ length: Math.floor(r() * (r() < 0.05 ? 40 : 5)) }, () => randomValue(r, depth + 1, ascii));
    default: {
      const o: Record<string, unknown> = {};
      const n = Math.floor(r() * (r() < 0.05 ? 20 : 6));
      for (let i = 0; i < n; i++) o[r() < 0.5 ? words[Math.floor(r() * words.length)] : `key${i}`] = randomValue(r, depth + 1, ascii);
      return o;
    }
  }
}

t.test('random ASCII values decode, and exactly as @msgpack/msgpack decodes them', async (t) => {
  const r = rng(1);
  let same = 0;
  for (let i = 0; i < 3000; i++) {
    const bytes = Buffer.from(encoder.encode(randomValue(r, 0, true)));
    const fast = decodeCommon(bytes);
    const general = decoder.decode(bytes);
    if (fast !== undefined && isDeepStrictEqual(fast, general)) same++;
    else t.fail(`differs: ${JSON.stringify(general)}`);
  }
  t.equal(same, 3000);
});

t.test('values with non-ASCII text, binary or extensions are left to the general decoder (or decoded identically)', async (t) => {
  const r = rng(2);
  let gaveUp = 0;
  let wrong = 0;
  const extras: unknown[] = [new Uint8Array([1, 2, 3]), new Date(0), { '__proto__x': 1 }, Object.fromEntries([['__proto__', 1]])];
  for (let i = 0; i < 3000; i++) {
    const v = i < extras.length ? extras[i] : randomValue(r, 0, false);
    const bytes = Buffer.from(encoder.encode(v));
    let general: unknown;
    let generalFailed = false;
    try {
      general = decoder.decode(bytes);
    } catch {
      generalFailed = true;
    }
    const fast = decodeCommon(bytes);
    if (fast === undefined) gaveUp++;
    else if (generalFailed || !isDeepStrictEqual(fast, general)) wrong++;
  }
  t.equal(wrong, 0, 'nothing decoded differently');
  t.ok(gaveUp > 100, `gave up on ${gaveUp} values`);
});

t.test('after its string cache is let go, the next decode makes a new one and answers the same', async (t) => {
  const r = rng(7);
  const values = Array.from({ length: 200 }, () => randomValue(r, 0, true));
  const first = values.map((v) => decodeCommon(Buffer.from(encoder.encode(v))));
  releaseDecodeCache();
  const again = values.map((v) => decodeCommon(Buffer.from(encoder.encode(v))));
  t.ok(isDeepStrictEqual(first, again), 'the same values after the release');
  t.ok(isDeepStrictEqual(again, values.map((v) => decoder.decode(encoder.encode(v)))), 'and what @msgpack/msgpack gives');
});

t.test('damaged bytes: the fast decoder gives up rather than answer, so the general error is reported', async (t) => {
  const r = rng(3);
  for (let i = 0; i < 2000; i++) {
    const good = Buffer.from(encoder.encode(randomValue(r, 0, true)));
    const bad = Buffer.from(good);
    if (i % 2 === 0) bad[Math.floor(r() * bad.length)] = Math.floor(r() * 256);
    const cut = i % 3 === 0 ? bad.subarray(0, Math.floor(r() * bad.length)) : bad;
    let general: unknown;
    let generalFailed = false;
    try {
      general = decoder.decode(cut);
    } catch {
      generalFailed = true;
    }
    const fast = decodeCommon(cut);
    if (fast !== undefined && (generalFailed || !isDeepStrictEqual(fast, general))) t.fail(`decoded damaged bytes ${cut.toString('hex')}`);
  }
  t.equal(decodeCommon(Buffer.from([0x92, 0x01])), undefined, 'an array shorter than announced');
  t.equal(decodeCommon(Buffer.from([0x01, 0x02])), undefined, 'bytes after the value');
  t.equal(decodeCommon(Buffer.from([0xdd, 0xff, 0xff, 0xff, 0xff])), undefined, 'a huge announced length');
});

t.test('decodeRecord reads version-2 records with and without non-ASCII text as they were written', async (t) => {
  const event = { id: 3, type: 'feature-created', createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'admin', createdByUserId: null, environment: null, project: 'default', featureName: 'f', data: { n: 1, d: 'Größe' }, preData: null, tags: null };
  const rec: WalRecord = {
    lsn: 7,
    ops: [{ o: 'feature.put', feature: { name: 'f', description: 'Größe 日本', createdAt: '2026-01-01T00:00:00.000Z', impressionData: false } } as any],
    events: [storeEvent(event)],
  };
  t.strictSame(decodeRecord(encodeRecord(rec)), rec);
  t.strictSame(eventOf(decodeRecord(encodeRecord(rec)).events[0]), event, 'the stored event reads back as the event');
  const ascii = { ...rec, ops: [], events: [storeEvent({ ...event, data: { n: 1 } })] };
  t.strictSame(decodeRecord(encodeRecord(ascii)), ascii);
  t.throws(() => decodeRecord(encoder.encode({ lsn: 'x', ops: [], events: [] })), /shape/);
  t.throws(() => decodeRecord(encoder.encode([3, 1, [], []])), /format version 3, written by a newer Fanion/, 'a newer version is refused by name, not taken for damage');
  t.throws(() => decodeRecord(encoder.encode([0, 1, [], []])), /shape/, 'a version that never existed');
});

t.test('decodeRecord still reads version-1 records (maps with event objects) into stored events', async (t) => {
  const event = { id: 3, type: 'feature-created', createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'admin', createdByUserId: 4, environment: 'production', project: 'default', featureName: 'f', data: { n: 1 }, preData: { n: 0 }, tags: [{ type: 'simple', value: 'x' }] };
  const odd = { ...event, id: 4, createdAt: '2026-01-01T00:00:00Z', data: null, preData: null, tags: null };
  const v1 = { lsn: 7, ops: [], events: [event, odd] };
  const rec = decodeRecord(encodeRecordV1(v1));
  t.strictSame(rec, { lsn: 7, ops: [], events: [storeEvent(event), storeEvent(odd)] });
  t.equal(rec.events[1][2], '2026-01-01T00:00:00Z', 'a date toISOString would print differently is kept as text');
  t.strictSame(rec.events.map(eventOf), [event, odd]);
});

t.test('decodeRecord refuses a version-2 record whose event tuple is malformed, naming the problem', async (t) => {
  const good = storeEvent({ id: 1, type: 'x', createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'a', createdByUserId: null, environment: null, project: null, featureName: null, data: null, preData: null, tags: null });
  const cases: [unknown[], RegExp][] = [
    [good.slice(0, 8), /tuple of 9/],
    [[0, ...good.slice(1)], /valid id/],
    [[1, '', ...good.slice(2)], /no type/],
    [[...good.slice(0, 2), null, ...good.slice(3)], /no valid date/],
    [[...good.slice(0, 2), 1.5, ...good.slice(3)], /no valid date/],
    [[...good.slice(0, 2), 1e300, ...good.slice(3)], /no valid date/],
    [[...good.slice(0, 4), 'u', ...good.slice(5)], /user id/],
    [[...good.slice(0, 6), 5, ...good.slice(7)], /name field/],
    [[...good.slice(0, 8), '{}\n\n'], /text of event 1/],
    [[...good.slice(0, 8), '{}\n\n\n\n'], /text of event 1/],
  ];
  for (const [tuple, message] of cases) t.throws(() => decodeRecord(encoder.encode([2, 1, [], [tuple]])), message);
});
t.test('featureEnv.put travels as a tuple and comes back as the same object, keys in the same order', async (t) => {
  const op = { o: 'featureEnv.put', feature: 'f', env: { environment: 'production', enabled: true, variants: [{ name: 'v', weight: 1000 }], lastSeenAt: null } };
  const bytes = encodeRecord({ lsn: 1, ops: [op as any], events: [] });
  t.ok(Array.isArray((decoder.decode(bytes) as any[])[2][0]), 'written as a tuple');
  const back = decodeRecord(bytes).ops[0] as any;
  t.strictSame(back, op);
  t.same(Object.keys(back), Object.keys(op));
  t.same(Object.keys(back.env), Object.keys(op.env));
  // Any other shape is written as it is, so nothing is lost or reordered.
  for (const odd of [
    { ...op, env: { enabled: true, environment: 'production', variants: [], lastSeenAt: null } },
    { ...op, env: { ...op.env, extra: 1 } },
    { ...op, note: 'x' },
  ]) {
    const bytes2 = encodeRecord({ lsn: 1, ops: [odd as any], events: [] });
    t.notOk(Array.isArray((decoder.decode(bytes2) as any[])[2][0]), 'written as a map');
    const again = decodeRecord(bytes2).ops[0] as any;
    t.strictSame(again, odd);
    t.same(Object.keys(again.env), Object.keys(odd.env));
  }
  t.throws(() => decodeRecord(encoder.encode([2, 1, [[1, 'f', 'production', 'yes', [], null]], []])), /op tuple is malformed/);
  t.throws(() => decodeRecord(encoder.encode([2, 1, [[9, 'f']], []])), /op tuple is malformed/);
});

t.test('a stored text whose fields do not parse reads back as text, and tags that are not a list as none', async (t) => {
  const e = eventOf([1, 'x', 0, 'a', null, null, null, null, '{\n[1]\n5\n']);
  t.equal(e.data, '{', 'the unparsable field is shown as it is');
  t.same(e.preData, [1]);
  t.equal(e.tags, null);
  t.equal(e.createdAt, '1970-01-01T00:00:00.000Z');
});
