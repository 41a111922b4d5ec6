// WAL framing: [u32 LE payload length][u32 LE CRC32 of payload][msgpack payload].
// The checksum lets replay tell a torn or damaged record from a good one.
import { crc32 } from 'node:zlib';
import type { Slicer } from '../../slices.js';

export const FRAME_HEADER = 8;
/** A sanity bound: a length above this is damage, not a record. */
export const MAX_RECORD = 512 * 1024 * 1024;

export function frame(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(payload), 4);
  out.set(payload, FRAME_HEADER);
  return out;
}

/**
 * The frame of a payload given in pieces (encodeRecordInSlices), checksummed and copied a piece
 * at a time with pauses between: the same bytes as frame(concatenation of the pieces).
 */
export async function frameInSlices(pieces: Uint8Array[], slicer: Slicer): Promise<Buffer> {
  let length = 0;
  for (const p of pieces) length += p.length;
  const out = Buffer.allocUnsafe(FRAME_HEADER + length);
  out.writeUInt32LE(length, 0);
  let sum = 0;
  let at = FRAME_HEADER;
  for (const p of pieces) {
    sum = crc32(p, sum);
    out.set(p, at);
    at += p.length;
    if (slicer.due()) await slicer.pause();
  }
  out.writeUInt32LE(sum, 4);
  return out;
}

export type FrameResult =
  | { kind: 'ok'; payload: Buffer; next: number }
  | { kind: 'end' }
  /** The frame runs past the end of the data: a write that was cut short. */
  | { kind: 'torn'; reason: string }
  | { kind: 'bad'; reason: string; next: number | null };

/**
 * Where the frame at `offset` ends when it is whole, non-empty and its checksum matches; -1
 * otherwise (readFrame says why). Replay calls this once per record: no result object, no
 * Buffer view beyond the one the checksum needs.
 */
export function goodFrameEnd(buf: Buffer, offset: number): number {
  if (offset + FRAME_HEADER > buf.length) return -1;
  const len = buf.readUInt32LE(offset);
  const start = offset + FRAME_HEADER;
  const end = start + len;
  if (len === 0 || len > MAX_RECORD || end > buf.length) return -1;
  const payload = new Uint8Array(buf.buffer, buf.byteOffset + start, len);
  return crc32(payload) === buf.readUInt32LE(offset + 4) ? end : -1;
}

export function readFrame(buf: Buffer, offset: number): FrameResult {
  if (offset === buf.length) return { kind: 'end' };
  if (buf.length - offset < FRAME_HEADER) return { kind: 'torn', reason: 'incomplete frame header' };
  const len = buf.readUInt32LE(offset);
  const sum = buf.readUInt32LE(offset + 4);
  if (len > MAX_RECORD) return { kind: 'bad', reason: `implausible record length ${len}`, next: null };
  const end = offset + FRAME_HEADER + len;
  if (end > buf.length) return { kind: 'torn', reason: `record of ${len} bytes runs past the end of the file` };
  const payload = buf.subarray(offset + FRAME_HEADER, end);
  if (crc32(payload) !== sum) return { kind: 'bad', reason: 'checksum mismatch', next: end };
  return { kind: 'ok', payload, next: end };
}

/** True when every byte from `offset` is zero: what a crash can leave after preallocated space. */
export function allZero(buf: Buffer, offset: number): boolean {
  for (let i = offset; i < buf.length; i++) if (buf[i] !== 0) return false;
  return true;
}
