// Checkpoint event columns: every field of every event reads back exactly (nulls, odd dates,
// user ids, non-ASCII text, nested data), through msgpack as a checkpoint stores them, and a
// damaged chunk is refused rather than loaded wrong.
import { Decoder, Encoder } from '@msgpack/msgpack';
import t from 'tap';
import type { EventRecord } from '../../../../src/core/state/types.js';
import { decodeEventChunk, encodeEventChunk, isoOf } from '../../../../src/core/log/wal/event-chunk.js';
import { testRandom } from '../../../helpers/random.js';

const random = testRandom('event-chunk');

const events: EventRecord[] = [
  { id: 7, type: 'feature-created', createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'admin', createdByUserId: 1, environment: null, project: 'default', featureName: 'ø-flag', data: { name: 'ø-flag', nested: { a: [1, 'two', null] } }, preData: null, tags: [{ type: 'simple', value: 'x' }] },
  { id: 8, type: 'feature-environment-enabled', createdAt: '2026-01-01T00:00:00.001Z', createdBy: 'token "ci" ✓', createdByUserId: null, environment: 'production', project: 'default', featureName: 'ø-flag', data: null, preData: null, tags: null },
  { id: 9, type: 'feature-strategy-update', createdAt: 'not an ISO date', createdBy: 'admin', createdByUserId: 2.5, environment: 'development', project: null, featureName: null, data: { rollout: '50' }, preData: { rollout: '40' }, tags: null },
];

t.test('events read back field for field through msgpack', async (t) => {
  const bytes = new Encoder({ ignoreUndefined: true }).encode(encodeEventChunk(events));
  const decoded = new Decoder().decode(bytes) as Record<string, unknown>;
  const out: EventRecord[] = [];
  t.equal(decodeEventChunk(decoded, (e) => out.push(e)), 3);
  t.strictSame(out, events);
});

t.test('an empty chunk is fine', async (t) => {
  const out: EventRecord[] = [];
  t.equal(decodeEventChunk(new Decoder().decode(new Encoder().encode(encodeEventChunk([]))) as any, (e) => out.push(e)), 0);
  t.same(out, []);
});

t.test('non-consecutive ids are refused when writing', async (t) => {
  t.throws(() => encodeEventChunk([events[0], events[2]]), /consecutive/);
});

t.test('damaged columns are refused when reading', async (t) => {
  const good = encodeEventChunk(events);
  const cases: [string, Record<string, unknown>][] = [
    ['a short column', { ...good, type: good.type.subarray(0, 8) }],
    ['a payload count that differs', { ...good, payload: '[]' }],
    ['a string index out of the table', { ...good, strings: [] }],
    ['no count', { ...good, n: 'three' }],
  ];
  for (const [what, chunk] of cases) t.throws(() => decodeEventChunk(chunk, () => {}), what);
});

t.test('isoOf formats exactly like toISOString', async (t) => {
  const samples = [0, 1, 999, 1000, 59_999, 3_599_999, 86_399_999, 86_400_000, Date.parse('2026-11-22T12:07:44.123Z'),
    Date.parse('2000-02-29T23:59:59.999Z'), Date.parse('9999-12-31T23:59:59.999Z'), -1, -86_400_001, Date.parse('+010000-01-01T00:00:00.000Z')];
  for (let i = 0; i < 2000; i++) samples.push(Math.floor(random() * 253_402_300_799_999));
  const wrong = samples.filter((ms) => isoOf(ms) !== new Date(ms).toISOString());
  t.same(wrong, [], `${samples.length} instants`);
});
