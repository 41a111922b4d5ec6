// What every RecordLog promises the engine, as one suite each implementation runs (memory.test.ts,
// wal.test.ts, postgres.test.ts): append (LSNs, order, group commit, a failed write refused whole),
// fencing (no two writers can both commit a record at one place), recovery (a reopened store holds
// every acknowledged record; a crash leaves nothing torn behind) and follow (a second reader sees the
// records in order, without gaps, while they are written). Where an implementation keeps a promise
// another way, it says which (`writers`, `writes`) and the suite checks that way, never skips.
import type { Test } from 'tap';
import tap from 'tap';
import type { RecordLog } from '../../../src/core/log/record-log.js';
import type { WalRecord } from '../../../src/core/log/record.js';

/** One store (a data folder, a database, a MemoryTable) a test opens writers and readers on. */
export interface Store {
  /** A writer after the last record in the store (the WAL first cuts a torn tail, as start-up does). */
  open(): Promise<RecordLog>;
  /** Every record in the store, oldest first, as a reader other than the writers sees it now. */
  read(): Promise<WalRecord[]>;
  /**
   * A second reader following the store: the records after `after`, as soon as there is one (woken
   * by the store where it can wake readers, else by reading again); [] after `timeoutMs`.
   */
  follow(after: number, timeoutMs: number): Promise<WalRecord[]>;
  /** Writes fail from now on, the store's own way (a full disk, a refusing database); returns the cure. */
  breakWrites(): Promise<() => Promise<void>>;
  /** Ends a writer as its process dying would: no close, and nothing it had not finished writing is finished. */
  crash(log: RecordLog): Promise<void>;
  /** `writes: 'may-tear'`: leaves the first part of a record after the last one, as a crash in the middle of its write does. */
  tear?(lsn: number): Promise<void>;
  /** `writers: 'fenced'`: sets `log` to apply what other writers stored when it is overtaken (a follower's work). */
  follower?(log: RecordLog): void;
}

export interface LogUnderContract {
  name: string;
  /**
   * 'fenced': several writers may open the store; a batch is stored only if its writer applied
   * everything before it. 'exclusive': one writer at a time (a lock), so none can be stale.
   */
  writers: 'fenced' | 'exclusive';
  /**
   * 'may-tear': a crash can leave part of a record, which reopening cuts off (it was never
   * acknowledged). 'atomic': a write is stored whole or not at all (a transaction).
   */
  writes: 'may-tear' | 'atomic';
  store(t: Test): Promise<Store>;
}

/** A record whose replay is visible: it sets one project, named after the writer's tag. */
export function record(lsn: number, tag = 'w'): WalRecord {
  return {
    lsn,
    ops: [{ o: 'project.put', project: { id: `p${lsn}`, name: `${tag} ${lsn}`, description: null, mode: 'open', defaultStickiness: 'default', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: null } }],
    events: [],
  };
}

/** Takes the next LSN and starts appending a record at it: the engine's order of calls. */
function start(log: RecordLog, tag = 'w'): { rec: WalRecord; bytes: Buffer; written: Promise<void> } {
  const rec = record(log.takeLsn(), tag);
  const bytes = log.encode(rec);
  return { rec, bytes, written: log.append(bytes, rec.lsn) };
}

async function appendAll(log: RecordLog, n: number, tag = 'w'): Promise<WalRecord[]> {
  const started = Array.from({ length: n }, () => start(log, tag));
  await Promise.all(started.map((s) => s.written));
  return started.map((s) => s.rec);
}

const refusal = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => err as Error);

export function logContract(impl: LogUnderContract): void {
  const { name } = impl;

  tap.test(`${name}: append: LSNs follow the store, appends are acknowledged in LSN order, in fewer writes, and read back as written`, async (t) => {
    const store = await impl.store(t);
    const log = await store.open();
    t.equal(log.nextLsn, 1, 'an empty store starts at LSN 1');
    const order: number[] = [];
    const started = Array.from({ length: 20 }, () => start(log));
    started.forEach((s) => void s.written.then(() => order.push(s.rec.lsn)));
    t.ok(log.busy, 'busy while appends are in flight');
    await Promise.all(started.map((s) => s.written));
    await log.idle();
    t.same(order, started.map((s) => s.rec.lsn), 'acknowledged in LSN order');
    t.same(started.map((s) => s.rec.lsn), Array.from({ length: 20 }, (_, i) => i + 1), 'LSNs 1..20, taken in order');
    t.notOk(log.busy, 'not busy once idle');
    t.equal(log.stats.records, 20, 'every record counted');
    t.ok(log.stats.batches < 20, `appends made together share writes (${log.stats.batches} batches for 20 records)`);
    t.strictSame(await store.read(), started.map((s) => s.rec), 'another reader sees every acknowledged record, as written');
    await log.close();
    t.ok(await refusal(log.append(log.encode(record(21)), 21)), 'a closed log refuses appends');
    const again = await store.open();
    t.equal(again.nextLsn, 21, 'reopened after the last record');
    const more = await appendAll(again, 1);
    t.strictSame(await store.read(), [...started.map((s) => s.rec), ...more], 'and appends go on after it');
    await again.close();
  });

  tap.test(`${name}: append: an LSN given back is taken again, and only the last one taken can be`, async (t) => {
    const store = await impl.store(t);
    const log = await store.open();
    await appendAll(log, 2);
    const lsn = log.takeLsn();
    t.equal(lsn, 3);
    log.returnLsn(lsn);
    t.equal(log.nextLsn, 3, 'a record never built gives its LSN back');
    const a = log.takeLsn();
    log.takeLsn();
    t.throws(() => log.returnLsn(a), /not the last one taken/, 'an LSN other than the last is not given back');
    log.resetLsn(a);
    await appendAll(log, 1);
    t.same((await store.read()).map((r) => r.lsn), [1, 2, 3], 'no gap in the store');
    await log.close();
  });

  tap.test(`${name}: append: a failed write is refused whole, appends behind it too, nothing of it is stored, and its LSNs are taken again after the rollback`, async (t) => {
    const store = await impl.store(t);
    const log = await store.open();
    const kept = await appendAll(log, 3);
    const heal = await store.breakWrites();
    const doomed = Array.from({ length: 3 }, () => start(log, 'doomed'));
    const errors = await Promise.all(doomed.map((d) => refusal(d.written)));
    t.ok(errors.every(Boolean), 'the failing append and those behind it are refused');
    t.ok(log.busy, 'busy until the engine has rolled back');
    t.ok(await refusal(log.append(log.encode(record(7, 'doomed')), 7)), 'an append built on the failed ones is refused');
    t.notOk(log.routine?.(errors[0]) ?? false, 'a failed write is not routine (it is logged as a warning)');
    const r = await log.recover(errors[0], [{ lsn: doomed[0].rec.lsn, bytes: doomed[0].bytes }]);
    t.equal(r.kind, 'failed', 'recover says nothing was changed');
    t.match(r.kind === 'failed' ? r.message : '', /nothing was changed/i, 'in the 503 message too');
    t.strictSame(await store.read(), kept, 'nothing of the failed batch is in the store');
    await heal();
    log.resetLsn(doomed[0].rec.lsn);
    t.notOk(log.busy, 'the rollback lets appends through again');
    const after = await appendAll(log, 2, 'after');
    t.same(after.map((x) => x.lsn), [4, 5], 'the next records take the failed ones\' LSNs');
    await log.close();
    const again = await store.open();
    t.strictSame(await store.read(), [...kept, ...after], 'reopened: exactly the acknowledged records');
    await again.close();
  });

  if (impl.writers === 'fenced') {
    tap.test(`${name}: fencing: a writer that is behind is refused, nothing of its batch is stored, and once caught up it appends after the others`, async (t) => {
      const store = await impl.store(t);
      const first = await store.open();
      const base = await appendAll(first, 2);
      await first.close();
      const a = await store.open();
      const b = await store.open();
      store.follower!(a);
      store.follower!(b);
      t.equal(b.nextLsn, a.nextLsn, 'two writers opened at the same place');
      const fromA = await appendAll(a, 2, 'a');
      const stale = Array.from({ length: 3 }, () => start(b, 'b'));
      const errors = await Promise.all(stale.map((s) => refusal(s.written)));
      t.ok(errors.every(Boolean), 'every append of the stale writer is refused');
      t.ok(b.routine?.(errors[0]), 'being overtaken is routine (the command runs again)');
      t.strictSame(await store.read(), [...base, ...fromA], 'nothing of the stale batch is stored, the other writer\'s records are whole');
      b.resetLsn(stale[0].rec.lsn);
      const r = await b.recover(errors[0], stale.map((s) => ({ lsn: s.rec.lsn, bytes: s.bytes })));
      t.equal(r.kind, 'retry', 'after catching up, the command is to run again');
      t.equal(b.nextLsn, 5, 'caught up: the next LSN follows the other writer\'s records');
      const fromB = await appendAll(b, 1, 'b');
      t.equal(fromB[0].lsn, 5);
      const late = start(a, 'a');
      t.ok(b.routine?.(await refusal(late.written)), 'now the first writer is behind, and refused');
      t.strictSame(await store.read(), [...base, ...fromA, ...fromB], 'the store holds one record per place, each whole');
      a.resetLsn(late.rec.lsn);
      await Promise.all([a.close(), b.close()]);
    });
  } else {
    tap.test(`${name}: fencing: one writer at a time: a second opener is refused while the first holds the store, and opens once it is gone (even by a crash)`, async (t) => {
      const store = await impl.store(t);
      const a = await store.open();
      const fromA = await appendAll(a, 3);
      const refused = await refusal(store.open());
      t.match(refused?.message ?? '', /in use/, 'a second writer cannot open the store: no writer can be stale');
      t.strictSame(await store.read(), fromA, 'the refused opener changed nothing');
      await store.crash(a);
      const b = await store.open();
      t.equal(b.nextLsn, 4, 'once the first is gone, the next writer opens after its records');
      const fromB = await appendAll(b, 1);
      t.strictSame(await store.read(), [...fromA, ...fromB]);
      await b.close();
    });
  }

  tap.test(`${name}: recovery: a writer that crashes loses nothing it acknowledged, and what it had not is whole or absent`, async (t) => {
    const store = await impl.store(t);
    const log = await store.open();
    const acked = await appendAll(log, 10);
    const inFlight = Array.from({ length: 5 }, () => start(log, 'unacknowledged'));
    for (const s of inFlight) s.written.catch(() => {});
    await store.crash(log);
    const again = await store.open();
    const found = await store.read();
    t.strictSame(found.slice(0, 10), acked, 'every acknowledged record is there, as written');
    t.strictSame(found.slice(10), inFlight.slice(0, found.length - 10).map((s) => s.rec), `unacknowledged records: a whole prefix of them (${found.length - 10} of 5)`);
    t.equal(again.nextLsn, found.length + 1, 'the reopened writer goes on after the last record found');
    const next = await appendAll(again, 1, 'next');
    t.strictSame(await store.read(), [...found, ...next]);
    await again.close();
  });

  if (impl.writes === 'may-tear') {
    tap.test(`${name}: recovery: a torn last record (a crash mid-write) is cut off at reopen, and its LSN goes to the next record`, async (t) => {
      const store = await impl.store(t);
      const log = await store.open();
      const acked = await appendAll(log, 4);
      await log.close();
      await store.tear!(5);
      const again = await store.open();
      t.equal(again.nextLsn, 5, 'the torn record does not count');
      t.strictSame(await store.read(), acked, 'only whole records are read');
      const next = await appendAll(again, 2, 'next');
      await again.close();
      t.strictSame(await store.read(), [...acked, ...next], 'the next records take its place, whole');
    });
  } else {
    tap.test(`${name}: recovery: a write is all or nothing, so nothing torn can be left: a failed batch of several records leaves none of them at reopen`, async (t) => {
      const store = await impl.store(t);
      const log = await store.open();
      const acked = await appendAll(log, 4);
      const heal = await store.breakWrites();
      // Appended in one turn: they go to the store as one or two batches, every one of them refused.
      const batch = Array.from({ length: 6 }, () => start(log, 'batch'));
      const errors = await Promise.all(batch.map((s) => refusal(s.written)));
      t.ok(errors.every(Boolean), 'the whole batch is refused');
      await heal();
      await store.crash(log);
      const again = await store.open();
      t.equal(again.nextLsn, 5, 'no record of the batch counts');
      t.strictSame(await store.read(), acked, 'and none is stored');
      await again.close();
    });
  }

  tap.test(`${name}: follow: a second reader sees every record, in LSN order and without gaps, while they are being written`, async (t) => {
    const store = await impl.store(t);
    const log = await store.open();
    const written: WalRecord[] = [];
    const seen: WalRecord[] = [];
    let reads = 0;
    const reader = (async () => {
      while (seen.length < 40) {
        const got = await store.follow(seen.length, 5_000);
        if (got.length === 0) break;
        reads++;
        t.same(got.map((r) => r.lsn), got.map((_, i) => seen.length + 1 + i), 'each read goes on from the last record seen, without gaps');
        seen.push(...got);
      }
    })();
    for (let burst = 0; burst < 4; burst++) {
      written.push(...(await appendAll(log, 10, `burst${burst}`)));
      const now = await store.follow(0, 1_000);
      t.ok(now.length >= written.length, `after burst ${burst + 1}, a reader finds every acknowledged record (${now.length} of ${written.length})`);
      // The next burst waits (bounded) for the follower to have this one, so that it reads them as
      // they come even when a busy machine schedules it late.
      for (const until = Date.now() + 5_000; seen.length < written.length && Date.now() < until;) await new Promise((r) => setTimeout(r, 5));
    }
    await reader;
    t.strictSame(seen, written, 'the follower saw exactly the records written, in order');
    t.ok(reads >= 2, `it read them as they came (${reads} reads)`);
    await log.close();
  });
}
