// A large record is encoded and framed a slice at a time (issue #26: a 50,000-flag import's
// record held the event loop while it was encoded); the bytes must be exactly those of the
// record encoded at once, and they must read back as the same record.
import t from 'tap';
import { frame, frameInSlices, readFrame } from '../../../../src/core/log/wal/frame.js';
import { decodeRecord, encodeRecord, encodeRecordInSlices } from '../../../../src/core/log/record.js';
import { Slicer } from '../../../../src/core/slices.js';
import type { Op } from '../../../../src/core/state/ops.js';
import { storeEvent } from '../../../../src/core/state/events/stored.js';

t.test('a record encoded in slices is byte for byte the record encoded at once', async (t) => {
  // Array headers change size at 16 and 65,536 items, and slices hold 500.
  for (const n of [0, 1, 15, 16, 499, 500, 501, 70_000]) {
    const ops: Op[] = Array.from({ length: n }, (_, i) => ({ o: 'featureEnv.put', feature: `f${i}`, env: { environment: 'development', enabled: i % 2 === 0, variants: [], lastSeenAt: null } }));
    const events = Array.from({ length: n }, (_, i) => storeEvent({
      id: i + 1, type: 'feature-created', createdAt: '2026-01-01T00:00:00.000Z', createdBy: 'admin', createdByUserId: null, environment: null, project: 'default',
      featureName: `f${i}`, data: { name: `f${i}` }, preData: null, tags: null,
    }));
    const rec = { lsn: 100_000 + n, ops, events };
    const sliced = Buffer.concat(await encodeRecordInSlices(rec, new Slicer(0)));
    t.ok(sliced.equals(Buffer.from(encodeRecord(rec))), `${n} ops and events: the same bytes`);
  }
});

t.test('a frame built in slices is the frame built at once, and reads back', async (t) => {
  const ops: Op[] = Array.from({ length: 5000 }, (_, i) => ({ o: 'feature.del', name: `flag-${i}` }));
  const rec = { lsn: 3, ops, events: [] };
  const pieces = await encodeRecordInSlices(rec, new Slicer(0));
  const sliced = await frameInSlices(pieces, new Slicer(0));
  t.ok(sliced.equals(frame(encodeRecord(rec))), 'the same frame, checksum included');
  const read = readFrame(sliced, 0);
  t.equal(read.kind, 'ok');
  if (read.kind === 'ok') t.same(decodeRecord(read.payload), rec);
});
