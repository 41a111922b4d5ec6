// One WAL record: the resolved change of one mutation (or one batch, such as an import), with
// its events. Encoded with msgpack; `ignoreUndefined` keeps absent fields absent so a replayed
// object is identical to the one the command built.
//   version 2 (written now): the array [2, lsn, ops, events], events as StoredEvent tuples whose
//     payload is already JSON text (see events/stored.ts): about half the bytes of version 1 and
//     far less to decode, which is most of what replay costs.
//     The commonest op, featureEnv.put (every on/off, and one per environment for every flag
//     created), is written as the tuple [1, feature, environment, enabled, variants, lastSeenAt]
//     when its objects have exactly those fields (anything else stays a map): replay then decodes
//     six values instead of eleven keys and values in two maps.
//   version 1 (still read): the map {lsn, ops, events}, events as EventRecord objects.
import type { StateChange } from '../state/change.js';
import { Decoder, Encoder } from '@msgpack/msgpack';
import { storedEventProblem, storeEvent, type StoredEvent } from '../state/events/stored.js';
import type { Op } from '../state/ops.js';
import { NewerFormatError } from '../errors.js';
import type { EventRecord } from '../state/types.js';
import { decodeCommon } from './wal/fast-decode.js';
export { releaseDecodeCache } from './wal/fast-decode.js';
import type { Slicer } from '../slices.js';

/** A WAL record is a state change at its LSN; this module owns its encoding. */
export type WalRecord = StateChange;

/** The newest record format this code reads and the one it writes; a map without one is version 1. */
export const RECORD_VERSION = 2;
const VERSION = RECORD_VERSION;
/**
 * An encoder's scratch buffer grows to its largest output and stays that size. Past this size a
 * fresh encoder replaces it, so one large record (an import, a relay's first sync of a thousand
 * flags: 2 MB) does not keep its buffer for the life of the process.
 */
const KEEP_SCRATCH_BYTES = 256 * 1024;
let encoder = new Encoder({ ignoreUndefined: true });
const decoder = new Decoder();

function encode(value: unknown): Uint8Array {
  const out = encoder.encode(value);
  if (out.byteLength > KEEP_SCRATCH_BYTES) encoder = new Encoder({ ignoreUndefined: true });
  return out;
}

const FEATURE_ENV_PUT = 1;
const OP_KEYS = ['o', 'feature', 'env'];
const ENV_KEYS = ['environment', 'enabled', 'variants', 'lastSeenAt'];

function sameKeys(o: object, keys: string[]): boolean {
  const k = Object.keys(o);
  if (k.length !== keys.length) return false;
  for (let i = 0; i < k.length; i++) if (k[i] !== keys[i]) return false;
  return true;
}

function packOp(op: Op): Op | unknown[] {
  if (op.o !== 'featureEnv.put') return op;
  const env = op.env;
  // Exact shapes only, keys in this order: replay must rebuild the very same objects (a field
  // the tuple has no place for, or another key order, would show in responses after a restart).
  if (!sameKeys(op, OP_KEYS) || !sameKeys(env, ENV_KEYS) || !packable(op.feature, env.environment, env.enabled, env.variants, env.lastSeenAt)) return op;
  return [FEATURE_ENV_PUT, op.feature, env.environment, env.enabled, env.variants, env.lastSeenAt];
}

/** What a packed featureEnv.put may hold: both sides check the same, so nothing packed fails to unpack. */
function packable(feature: unknown, environment: unknown, enabled: unknown, variants: unknown, lastSeenAt: unknown): boolean {
  return typeof feature === 'string' && typeof environment === 'string' && typeof enabled === 'boolean' &&
    Array.isArray(variants) && (lastSeenAt === null || typeof lastSeenAt === 'string');
}

function unpackOp(raw: unknown): Op {
  if (!Array.isArray(raw)) return raw as Op;
  const [code, feature, environment, enabled, variants, lastSeenAt] = raw as unknown[];
  if (code !== FEATURE_ENV_PUT || raw.length !== 6 || !packable(feature, environment, enabled, variants, lastSeenAt)) {
    throw new Error('an op tuple is malformed');
  }
  return { o: 'featureEnv.put', feature, env: { environment, enabled, variants, lastSeenAt } } as Op;
}

/** A record's msgpack payload (version 2), ready to be framed. */
export function encodeRecord(rec: WalRecord): Uint8Array {
  return encode([VERSION, rec.lsn, rec.ops.map(packOp), rec.events]);
}

/** A msgpack array header for `n` items: what precedes their encodings, one after another. */
function arrayHeader(n: number): Uint8Array {
  if (n < 16) return Uint8Array.of(0x90 | n);
  if (n < 0x10000) return Uint8Array.of(0xdc, n >> 8, n & 0xff);
  return Uint8Array.of(0xdd, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
}

/** How many bytes the array header at the start of `encoded` takes. */
const headerLength = (encoded: Uint8Array) => (encoded[0] === 0xdc ? 3 : encoded[0] === 0xdd ? 5 : 1);

/** Items per encoded slice: small enough that one slice takes milliseconds. */
const SLICE = 500;

/**
 * The same bytes as encodeRecord, as a list of pieces, encoded a slice of ops or events at a
 * time with pauses between (a 50,000-flag import's record is tens of megabytes: encoding it at
 * once held the event loop for most of a second). A msgpack array is its header followed by its
 * items' encodings, so slices encoded alone and stripped of their own header join up exactly.
 */
export async function encodeRecordInSlices(rec: WalRecord, slicer: Slicer): Promise<Uint8Array[]> {
  const pieces: Uint8Array[] = [Uint8Array.of(0x94), encoder.encode(VERSION), encoder.encode(rec.lsn)];
  const list = async <T>(items: T[], map: (item: T) => unknown) => {
    pieces.push(arrayHeader(items.length));
    for (let i = 0; i < items.length; i += SLICE) {
      const encoded = encode(items.slice(i, i + SLICE).map(map));
      pieces.push(encoded.subarray(headerLength(encoded)));
      if (slicer.due()) await slicer.pause();
    }
  };
  await list(rec.ops, packOp);
  await list(rec.events, (e) => e);
  return pieces;
}

/** A version-1 record, for tests that prove old data folders still start. */
export function encodeRecordV1(rec: { lsn: number; ops: Op[]; events: EventRecord[] }): Uint8Array {
  return encode(rec);
}

const SHAPE = 'record does not have the shape [2, lsn, ops, events] or {lsn, ops, events}';

/** Decodes a payload of either version; throws on one that has neither shape. */
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
    // Every later format keeps the version first in an array: a newer record is refused by name,
    // not taken for damage (which a torn tail's cut could remove).
    if (Number.isInteger(raw[0]) && (raw[0] as number) > VERSION) {
      throw new NewerFormatError(`record ${typeof raw[1] === 'number' ? raw[1] : '(no lsn)'}`, raw[0] as number, VERSION);
    }
    if (raw.length !== 4 || raw[0] !== VERSION) throw new Error(SHAPE);
    const [, lsn, ops, events] = raw as unknown[];
    if (typeof lsn !== 'number' || !Array.isArray(ops) || !Array.isArray(events)) throw new Error(SHAPE);
    for (let i = 0; i < ops.length; i++) ops[i] = unpackOp(ops[i]);
    rec = { lsn, ops: ops as Op[], events: events as StoredEvent[] };
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
