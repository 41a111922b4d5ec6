// Checkpoints: a checkpoint reads back to exactly the state at its LSN (events included),
// commands that arrive while it is written land after it, any damage to the file is detected,
// start-up falls back to the previous checkpoint plus its WAL, and pruning keeps exactly what
// that fallback needs.
import fs from 'node:fs';
import path from 'node:path';
import { Decoder, Encoder } from '@msgpack/msgpack';
import t from 'tap';
import { dumpState } from '../../../../src/core/state/dump.js';
import { listCheckpoints, readCheckpoint } from '../../../../src/core/log/wal/checkpoint.js';
import { encodeEventChunk } from '../../../../src/core/log/wal/event-chunk.js';
import { frame, readFrame } from '../../../../src/core/log/wal/frame.js';
import { recover } from '../../../../src/core/storage/recovery.js';
import { listSegments } from '../../../../src/core/log/wal/scan.js';
import { tempDataDir } from '../../../helpers/server.js';
import { setEnvironmentEnabled } from '../../../../src/concepts/features/logic.js';
import { addStrategy, deleteStrategy } from '../../../../src/concepts/strategies/logic.js';
import { FaultyFiles } from '../../../../src/core/log/wal/file-layer.js';
import { actor, addFlag, openEngine } from './helpers.js';

const full = (s: Parameters<typeof dumpState>[0]) => structuredClone(dumpState(s));

t.test('a checkpoint reads back to the state at its LSN, and the WAL rolls to a segment after it', async (t) => {
  const dir = tempDataDir();
  const o = await openEngine(dir);
  for (let i = 0; i < 20; i++) await addFlag(o.engine, `flag-${i}`);
  const expected = full(o.engine.state);
  const lsn = o.engine.log.nextLsn - 1;
  const report = await o.checkpointer.checkpoint();
  t.equal(report.lsn, lsn);
  t.equal(path.basename(report.file), `checkpoint-${String(lsn).padStart(16, '0')}.ckpt`);
  t.equal(o.storage.wal.segment.firstLsn, lsn + 1, 'new segment starts right after the checkpoint');
  const loaded = readCheckpoint(report.file);
  t.equal(loaded.lsn, lsn);
  t.equal(loaded.events, 60);
  t.strictSame(full(loaded.state), expected, 'same maps, counters and events');
  for (const key of ['features', 'strategies', 'featureEnvs', 'strategiesByFeatureEnv', 'projects'] as const) {
    t.same([...loaded.state[key].keys()], [...o.engine.state[key].keys()], `${key} iterate in the same order as the live state`);
  }
  t.same([...loaded.state.featureEnvs.get('flag-3')!.keys()], [...o.engine.state.featureEnvs.get('flag-3')!.keys()], 'nested maps too');
  t.equal(loaded.state.revision, o.engine.state.revision);
  await o.close();
});

t.test('commands arriving while a checkpoint is taken wait, then land after it; a restart has everything', async (t) => {
  const dir = tempDataDir();
  const o = await openEngine(dir);
  for (let i = 0; i < 5; i++) await addFlag(o.engine, `before-${i}`);
  const atCheckpoint = full(o.engine.state);
  const lsn = o.engine.log.nextLsn - 1;
  const cp = o.checkpointer.checkpoint();
  const during = Promise.all(Array.from({ length: 10 }, (_, i) => addFlag(o.engine, `during-${i}`)));
  const report = await cp;
  await during;
  t.equal(report.lsn, lsn, 'the checkpoint is at the LSN it started at');
  t.strictSame(full(readCheckpoint(report.file).state), atCheckpoint, 'and holds nothing from later commands');
  const final = full(o.engine.state);
  await o.close();
  const again = await openEngine(dir);
  t.strictSame(full(again.engine.state), final, 'checkpoint + later WAL rebuild the whole state');
  t.equal(again.storage.replayed.checkpoint?.lsn, lsn);
  t.equal(again.storage.replayed.records, 30, 'only the records after the checkpoint were replayed');
  await again.close();
});

/** Holds the opening of a checkpoint's temporary file: the snapshot is taken, the file not yet written. */
class HeldCheckpointWrite extends FaultyFiles {
  entered = false;
  private release: () => void = () => {};
  private readonly held = new Promise<void>((r) => (this.release = r));
  let(): void {
    this.release();
  }
  override async open(p: string, flags: string): Promise<number> {
    if (p.endsWith('.ckpt.tmp')) {
      this.entered = true;
      await this.held;
    }
    return super.open(p, flags);
  }
}

t.test('changes to existing flags made after the snapshot, before the file is written, stay out of the checkpoint', async (t) => {
  const dir = tempDataDir();
  const files = new HeldCheckpointWrite();
  const o = await openEngine(dir, { files });
  for (let i = 0; i < 3; i++) await addFlag(o.engine, `flag-${i}`);
  const where = (feature: string) => ({ project: 'default', feature, environment: 'development' });
  await o.engine.run(actor, addStrategy(where('flag-2'), { name: 'default' }));
  const atCheckpoint = full(o.engine.state);
  const cp = o.checkpointer.checkpoint();
  while (!files.entered) await new Promise((r) => setImmediate(r));
  // Each of these changes a nested Map or list the snapshot holds: a flag's environments, a
  // flag/environment's strategy ids (added to, removed from).
  await o.engine.run(actor, setEnvironmentEnabled('default', 'flag-0', 'development', false));
  await o.engine.run(actor, addStrategy(where('flag-1'), { name: 'userWithId', parameters: { userIds: 'a' } }));
  const [doomed] = o.engine.state.strategiesByFeatureEnv.get('flag-2\u0000development')!;
  await o.engine.run(actor, deleteStrategy(where('flag-2'), doomed));
  files.let();
  const report = await cp;
  t.strictSame(full(readCheckpoint(report.file).state), atCheckpoint, 'the checkpoint holds the state at its LSN only');
  const final = full(o.engine.state);
  t.notSame(final, atCheckpoint);
  await o.close();
  const again = await openEngine(dir);
  t.strictSame(full(again.engine.state), final, 'checkpoint + later WAL rebuild the live state');
  await again.close();
});

t.test('any damage to a checkpoint file is detected', async (t) => {
  const dir = tempDataDir();
  const o = await openEngine(dir);
  for (let i = 0; i < 3; i++) await addFlag(o.engine, `f${i}`);
  const { file } = await o.checkpointer.checkpoint();
  await o.close();
  const good = fs.readFileSync(file);
  const cases: [string, Buffer][] = [
    ['empty', Buffer.alloc(0)],
    ['cut in the header', good.subarray(0, 5)],
    ['cut after the state', good.subarray(0, Math.floor(good.length / 2))],
    ['end marker missing', good.subarray(0, good.length - 10)],
    ['a flipped byte', (() => { const b = Buffer.from(good); b[Math.floor(b.length / 3)] ^= 1; return b; })()],
    ['data after the end marker', Buffer.concat([good, Buffer.from([1, 2, 3])])],
    ['zero-filled', Buffer.alloc(good.length)],
  ];
  for (const [what, bytes] of cases) {
    fs.writeFileSync(file, bytes);
    t.throws(() => readCheckpoint(file), { name: 'CheckpointCorruptError' }, what);
  }
  fs.writeFileSync(file, good);
  t.doesNotThrow(() => readCheckpoint(file), 'the original reads back');
  fs.renameSync(file, path.join(dir, 'checkpoint-0000000000000001.ckpt'));
  const r = recover(dir);
  t.equal(r.checkpoint, null, 'a checkpoint whose name disagrees with its content is not used');
  t.match(r.skipped[0].error, /covers record 10, but its name says 1/);
});

t.test('pruning keeps the previous checkpoint and the segments it needs, deletes the rest', async (t) => {
  const dir = tempDataDir();
  const o = await openEngine(dir);
  const lsns: number[] = [];
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < 3; i++) await addFlag(o.engine, `r${round}-${i}`);
    lsns.push((await o.checkpointer.checkpoint()).lsn);
  }
  const [, , c3, c4] = lsns;
  t.same(listCheckpoints(dir).map((c) => c.lsn), [c3, c4], 'the newest two checkpoints remain');
  const segs = listSegments(dir).map((s) => s.firstLsn);
  t.same(segs, [c3 + 1, c4 + 1], 'and exactly the segments after the previous one');
  await o.close();
});

t.test('a damaged newest checkpoint falls back to the previous one plus its WAL, and is set aside', async (t) => {
  const dir = tempDataDir();
  const o = await openEngine(dir);
  for (let i = 0; i < 3; i++) await addFlag(o.engine, `a${i}`);
  const c1 = await o.checkpointer.checkpoint();
  for (let i = 0; i < 3; i++) await addFlag(o.engine, `b${i}`);
  const c2 = await o.checkpointer.checkpoint();
  for (let i = 0; i < 3; i++) await addFlag(o.engine, `c${i}`);
  const final = full(o.engine.state);
  await o.close();
  const bytes = fs.readFileSync(c2.file);
  bytes[bytes.length - 20] ^= 0xff;
  fs.writeFileSync(c2.file, bytes);
  const again = await openEngine(dir);
  t.equal(again.storage.replayed.checkpoint?.lsn, c1.lsn, 'started from the previous checkpoint');
  t.strictSame(full(again.engine.state), final, 'with nothing lost');
  t.ok(fs.existsSync(`${c2.file}.corrupt`), 'the damaged one is kept aside for inspection');
  t.notOk(fs.existsSync(c2.file));
  for (let i = 0; i < 3; i++) await addFlag(again.engine, `d${i}`);
  const c3 = await again.checkpointer.checkpoint();
  t.same(listCheckpoints(dir).map((c) => c.lsn), [c1.lsn, c3.lsn], 'the next checkpoint treats the good one as previous');
  await again.close();
});

t.test('with the only checkpoint damaged, start-up replays the whole log', async (t) => {
  const dir = tempDataDir();
  const o = await openEngine(dir);
  for (let i = 0; i < 3; i++) await addFlag(o.engine, `a${i}`);
  const c1 = await o.checkpointer.checkpoint();
  await addFlag(o.engine, 'after');
  const final = full(o.engine.state);
  await o.close();
  fs.truncateSync(c1.file, 100);
  const again = await openEngine(dir);
  t.equal(again.storage.replayed.checkpoint, null);
  t.strictSame(full(again.engine.state), final);
  await again.close();
});

t.test('the checkpointer triggers by itself when the live segment passes the record threshold', async (t) => {
  const dir = tempDataDir();
  const o = await openEngine(dir, { everyRecords: 10 });
  for (let i = 0; i < 12; i++) {
    await addFlag(o.engine, `f${i}`);
    await o.checkpointer.idle();
  }
  await o.checkpointer.close();
  t.ok(o.checkpointer.written >= 3, `${o.checkpointer.written} checkpoints for 37 records`);
  const final = full(o.engine.state);
  await o.storage.wal.close();
  o.storage.release();
  const again = await openEngine(dir);
  t.ok(again.storage.replayed.checkpoint, 'start-up used a checkpoint');
  t.ok(again.storage.replayed.records < 20, `and replayed only ${again.storage.replayed.records} records`);
  t.strictSame(full(again.engine.state), final);
  await again.close();
});

t.test('stopping abandons a checkpoint being written: no file is left, the next start replays the WAL', async (t) => {
  const dir = tempDataDir();
  const o = await openEngine(dir);
  for (let i = 0; i < 5; i++) await addFlag(o.engine, `f${i}`);
  const final = full(o.engine.state);
  const cp = o.checkpointer.checkpoint();
  await o.checkpointer.close();
  await t.rejects(cp, /abandoned/);
  t.same(fs.readdirSync(dir).filter((n) => n.includes('checkpoint')), [], 'neither a checkpoint nor a temporary file');
  await o.storage.wal.close();
  o.storage.release();
  const again = await openEngine(dir);
  t.strictSame(full(again.engine.state), final);
  await again.close();
});

t.test('a checkpoint in format 1 (events as JSON payloads) still loads, so an upgrade starts', async (t) => {
  const dir = tempDataDir();
  const o = await openEngine(dir);
  for (let i = 0; i < 30; i++) await addFlag(o.engine, `flag-${i}`);
  const expected = full(o.engine.state);
  const report = await o.checkpointer.checkpoint();
  const events = [...o.engine.state.events.oldestFirst()];
  await o.close();
  // Rewrite the file as format 1 wrote it: same header and maps, events through encodeEventChunk.
  const buf = fs.readFileSync(report.file);
  const plain = new Decoder();
  const out: Buffer[] = [];
  let rewritten = 0;
  for (let offset = 0; offset < buf.length;) {
    const r = readFrame(buf, offset);
    if (r.kind !== 'ok') throw new Error('unreadable test checkpoint');
    offset = r.next;
    let v: Record<string, any> | null = null;
    try {
      v = plain.decode(r.payload) as Record<string, any>;
    } catch {
      /* a map frame with nested Maps (an extension type): kept as it is */
    }
    if (v?.k === 'header') {
      t.equal(v.version, 2, 'checkpoints are written in format 2');
      out.push(frame(new Encoder().encode({ ...v, version: 1 })));
    } else if (v?.k === 'events') {
      t.type(v.text, 'string', 'format 2 keeps the stored text of the events');
      rewritten++;
      out.push(frame(new Encoder().encode(encodeEventChunk(events.slice(v.first - 1, v.first - 1 + v.n)))));
    }
    else out.push(buf.subarray(r.next - r.payload.length - 8, r.next));
  }
  t.equal(rewritten, 1, 'the events frame was rewritten as format 1');
  fs.writeFileSync(report.file, Buffer.concat(out));
  const loaded = readCheckpoint(report.file);
  t.equal(loaded.events, 90);
  t.strictSame(full(loaded.state), expected, 'same state and events as format 2 gives');
});
