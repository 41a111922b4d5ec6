// One WAL record: the resolved change of one mutation (or one batch, such as an import), with
// its events. Encoded with msgpack; `ignoreUndefined` keeps absent fields absent so a replayed
// object is identical to the one the command built.
//   version 2 (written now): the array [2, lsn, ops, events], events as StoredEvent tuples whose
//     payload is already JSON text (see events/stored.ts): about half the bytes of version 1 and
//     far less to decode, which is most of what replay costs.
//   version 1 (still read): the map {lsn, ops, events}, events as EventRecord objects.
import { Decoder, Encoder } from '@msgpack/msgpack';
import { storedEventProblem, storeEvent, type StoredEvent } from '../events/stored.js';
import type { Op } from '../state/ops.js';
import type { EventRecord } from '../state/types.js';
import { decodeCommon } from './fast-decode.js';

export interface WalRecord {
  /** Log sequence number: 1, 2, 3 … across segments and restarts. */
  lsn: number;
  ops: Op[];
  events: StoredEvent[];
}

const VERSION = 2;
const encoder = new Encoder({ ignoreUndefined: true });
const decoder = new Decoder();

export function encodeRecord(rec: WalRecord): Uint8Array {
  return encoder.encode([VERSION, rec.lsn, rec.ops, rec.events]);
}

/** A version-1 record, for tests that prove old data folders still start. */
export function encodeRecordV1(rec: { lsn: number; ops: Op[]; events: EventRecord[] }): Uint8Array {
  return encoder.encode(rec);
}

const SHAPE = 'record does not have the shape [2, lsn, ops, events] or {lsn, ops, events}';

export function decodeRecord(payload: Uint8Array): WalRecord {
  const buf = Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  return decodeRecordAt(buf, 0, buf.length);
}

/** The record whose payload is bytes `from` to `to` of `buf` (replay reads it in place). */
export function decodeRecordAt(buf: Buffer, from: number, to: number): WalRecord {
  // The fast decoder handles nearly every record; the rest (and damage, with its real error) go the general way.
  const raw = decodeCommon(buf, from, to) ?? decoder.decode(buf.subarray(from, to));
  let rec: WalRecord;
  if (Array.isArray(raw)) {
    if (raw.length !== 4 || raw[0] !== VERSION) throw new Error(SHAPE);
    rec = { lsn: raw[1], ops: raw[2], events: raw[3] };
    if (typeof rec.lsn !== 'number' || !Array.isArray(rec.ops) || !Array.isArray(rec.events)) throw new Error(SHAPE);
    for (const e of rec.events) {
      const problem = storedEventProblem(e);
      if (problem) throw new Error(problem);
    }
  } else {
    const v1 = raw as { lsn: unknown; ops: unknown; events: unknown } | null;
    if (!v1 || typeof v1 !== 'object' || typeof v1.lsn !== 'number' || !Array.isArray(v1.ops) || !Array.isArray(v1.events)) throw new Error(SHAPE);
    rec = { lsn: v1.lsn, ops: v1.ops as Op[], events: (v1.events as EventRecord[]).map(storeEvent) };
  }
  return rec;
}

export { encoder as msgpackEncoder, decoder as msgpackDecoder };
