// One WAL record: the resolved change of one mutation (or one batch, such as an import),
// with its events. Encoded with msgpack; `ignoreUndefined` keeps absent fields absent so a
// replayed object is identical to the one the command built.
import { Decoder, Encoder } from '@msgpack/msgpack';
import type { Op } from '../state/ops.js';
import type { EventRecord } from '../state/types.js';
import { decodeCommon } from './fast-decode.js';

export interface WalRecord {
  /** Log sequence number: 1, 2, 3 … across segments and restarts. */
  lsn: number;
  ops: Op[];
  events: EventRecord[];
}

const encoder = new Encoder({ ignoreUndefined: true });
const decoder = new Decoder();

export function encodeRecord(rec: WalRecord): Uint8Array {
  return encoder.encode(rec);
}

export function decodeRecord(payload: Uint8Array): WalRecord {
  const buf = Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  // The fast decoder handles nearly every record; the rest (and damage, with its real error) go the general way.
  const rec = (decodeCommon(buf) ?? decoder.decode(payload)) as WalRecord;
  if (!rec || typeof rec !== 'object' || typeof rec.lsn !== 'number' || !Array.isArray(rec.ops) || !Array.isArray(rec.events)) {
    throw new Error('record does not have the shape {lsn, ops, events}');
  }
  return rec;
}

export { encoder as msgpackEncoder, decoder as msgpackDecoder };
