// Data folders written before the record format changed must still start, into the same state.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { eventOf } from '../../../../src/core/state/events/stored.js';
import { dumpState } from '../../../../src/core/state/dump.js';
import { frame } from '../../../../src/core/log/wal/frame.js';
import { encodeRecordV1, type WalRecord } from '../../../../src/core/log/record.js';
import { recover } from '../../../../src/core/storage/recovery.js';
import { listSegments, scanSegments, segmentName } from '../../../../src/core/log/wal/scan.js';
import { addFlag, openEngine } from './helpers.js';

t.test('a WAL of version-1 records replays to the same state, events included, as the version-2 WAL of the same changes', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fanion-v2-'));
  const old = fs.mkdtempSync(path.join(os.tmpdir(), 'fanion-v1-'));
  t.teardown(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(old, { recursive: true, force: true });
  });
  const opened = await openEngine(dir);
  for (let i = 0; i < 5; i++) await addFlag(opened.engine, `flag-${i}`);
  await opened.close();

  const records: WalRecord[] = [];
  scanSegments(listSegments(dir), (r) => records.push(r));
  t.ok(records.some((r) => r.events.some((e) => e[8] !== '\n\n\n')), 'some events carry data');
  // The same records as an older build wrote them: maps, with event objects.
  const v1 = Buffer.concat(records.map((r) => frame(encodeRecordV1({ lsn: r.lsn, ops: r.ops, events: r.events.map(eventOf) }))));
  fs.writeFileSync(path.join(old, segmentName(1)), v1);

  const a = recover(dir);
  const b = recover(old);
  t.equal(b.scan.records, records.length);
  t.strictSame(dumpState(b.state), dumpState(a.state));
  t.ok(fs.statSync(path.join(old, segmentName(1))).size > fs.statSync(listSegments(dir)[0].file).size, 'version 2 takes fewer bytes');

  // And appends continue after the old records, in the new format, readable together.
  const reopened = await openEngine(old);
  await addFlag(reopened.engine, 'after-upgrade');
  await reopened.close();
  const c = recover(old);
  t.equal(c.state.events.lastId, a.state.events.lastId + 3);
  t.ok(c.state.features.has('after-upgrade'));
});
