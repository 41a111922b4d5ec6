// Checkpoint files: the whole state at one LSN, so start-up loads it and replays only the WAL
// after it. A checkpoint is a sequence of WAL-style frames (length, CRC32, msgpack), so every
// part is checksummed and the file is written in pieces instead of one giant buffer:
//   header {k:'header', format, version, lsn, createdAt, firstEventId, lastEventId}
//   state  {k:'state', fields, maps}          the State's plain fields, and the names of its Maps
//   map    {k:'map', name, entries} …         each Map's entries, in slices (nested Maps as values)
//   events {k:'events', …columns} …         in id order, 500 per frame: the event log's own compact
//                                          columns (EventLog.exportColumns; version 1: event-chunk.ts)
//   end    {k:'end', frames, events}          proves the file is complete
// Maps are stored as msgpack extension values holding their entries in iteration order:
// listings (and the client API's bytes and ETags) follow Map order, so a state loaded from a
// checkpoint must iterate exactly like the one that was running.
// It is written as `<name>.tmp`, fsynced, renamed into place, and the directory fsynced.
import fs from 'node:fs';
import path from 'node:path';
import { Decoder, Encoder, ExtensionCodec } from '@msgpack/msgpack';
import type { EventColumns, EventLog } from '../../state/events/event-log.js';
import { emptyState, type State } from '../../state/state.js';
import { crashPoint } from './crash-points.js';
import { aligned, bytesOf, decodeEventChunk } from './event-chunk.js';
import { frame, readFrame } from './frame.js';
import type { FileLayer } from './file-layer.js';
import { writeAll, writeDurably } from './durable-file.js';
import { listNumbered } from './numbered-files.js';
import { NewerFormatError } from '../../errors.js';

export const CHECKPOINT_FORMAT = 'fanion-checkpoint';
export const CHECKPOINT_VERSION = 2;
/** Version 1 stored events as JSON payloads (event-chunk.ts); still read, so an upgrade starts. */
const READABLE_VERSIONS = new Set([1, 2]);
const CHECKPOINT_RE = /^checkpoint-(\d{16})\.ckpt$/;
/** Events per frame: small enough to encode (~10 ms) between two writes without stalling requests. */
const CHUNK = 500;
/** Frames are gathered into writes of about this size. */
const WRITE_SIZE = 4 * 1024 * 1024;

const MAP_EXT = 1;
const codec = new ExtensionCodec();
// Nested Maps (featureEnvs) re-enter these; msgpack clones an instance that is already busy.
const mapEncoder = new Encoder({ ignoreUndefined: true, extensionCodec: codec });
const mapDecoder = new Decoder({ extensionCodec: codec });
codec.register({
  type: MAP_EXT,
  encode: (v: unknown) => (v instanceof Map ? mapEncoder.encode([...v]) : null),
  decode: (data: Uint8Array) => new Map(mapDecoder.decode(data) as [unknown, unknown][]),
});
const encoder = new Encoder({ ignoreUndefined: true, extensionCodec: codec });
const decoder = new Decoder({ extensionCodec: codec });

export class CheckpointCorruptError extends Error {
  override readonly name = 'CheckpointCorruptError';
  constructor(
    readonly file: string,
    readonly offset: number,
    reason: string,
  ) {
    super(`${file}: damaged checkpoint at offset ${offset}: ${reason}`);
  }
}

export interface CheckpointFile {
  file: string;
  lsn: number;
}

export function checkpointName(lsn: number): string {
  return `checkpoint-${String(lsn).padStart(16, '0')}.ckpt`;
}

/** Checkpoints in the folder, oldest first. Temporary and set-aside files are not listed. */
export function listCheckpoints(dir: string): CheckpointFile[] {
  return listNumbered(dir, CHECKPOINT_RE);
}

/**
 * The state at one LSN, taken synchronously while nothing is in flight: the Maps' entries are
 * copied, which takes a few ms where encoding would take hundreds. What the entries hold is
 * shared and encoded while the file is written: live ops replace entity objects, nested Maps
 * and arrays rather than change them (ops.ts, copy-on-write). (The one exception, `lastSeenAt`,
 * only moves forward, and replaying the later records sets it the same way.)
 * Events are immutable once durable, so they are read from the log while writing.
 */
export interface Snapshot {
  lsn: number;
  createdAt: string;
  fields: Record<string, unknown>;
  maps: [string, [unknown, unknown][]][];
  firstEventId: number;
  lastEventId: number;
  events: EventLog;
}

export function takeSnapshot(state: State, lsn: number, now: Date): Snapshot {
  const lastEventId = state.events.lastId;
  const fields: Record<string, unknown> = {};
  const maps: Snapshot['maps'] = [];
  for (const [key, value] of Object.entries(state)) {
    if (key === 'events') continue;
    const t = typeof value;
    if (value instanceof Map) maps.push([key, [...value]]);
    else if (value === null || t === 'number' || t === 'string' || t === 'boolean') fields[key] = value;
    else throw new Error(`state field "${key}" is neither a Map nor a plain value; checkpoints cannot store it`);
  }
  return { lsn, createdAt: now.toISOString(), fields, maps, firstEventId: lastEventId - state.events.size + 1, lastEventId, events: state.events };
}

/** Lets requests run between two slices of checkpoint work. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Map entries per frame: about a couple of ms of encoding. */
const MAP_SLICE = 500;

/** An events frame: the columns, typed arrays as plain bytes. */
function eventsFrame(log: EventLog, from: number, to: number): Record<string, unknown> {
  const c = log.exportColumns(from, to);
  return {
    k: 'events', first: c.first, n: c.n, strings: c.strings,
    type: bytesOf(c.type), createdBy: bytesOf(c.createdBy), environment: bytesOf(c.environment),
    project: bytesOf(c.project), featureName: bytesOf(c.featureName),
    createdAt: bytesOf(c.createdAt), oddDates: c.oddDates, userId: bytesOf(c.userId),
    text: c.text, lens: bytesOf(c.lens),
  };
}

/** The columns of an events frame read back; throws on any column of the wrong size. */
function columnsOf(f: Record<string, any>): EventColumns {
  const n = f.n;
  if (!Number.isInteger(n) || n < 0) throw new Error('malformed event chunk');
  return {
    first: f.first, n, strings: f.strings,
    type: aligned(f.type, n, Uint32Array), createdBy: aligned(f.createdBy, n, Uint32Array),
    environment: aligned(f.environment, n, Uint32Array), project: aligned(f.project, n, Uint32Array),
    featureName: aligned(f.featureName, n, Uint32Array),
    createdAt: aligned(f.createdAt, n, Float64Array), oddDates: f.oddDates ?? {}, userId: aligned(f.userId, n, Float64Array),
    text: f.text, lens: aligned(f.lens, n, Uint32Array),
  };
}

export class CheckpointAbortedError extends Error {}

/** Writes `snap` as a checkpoint in `dir`, durably (durable-file.ts). */
export async function writeCheckpoint(files: FileLayer, dir: string, snap: Snapshot, stop: () => boolean = () => false): Promise<CheckpointFile> {
  const final = path.join(dir, checkpointName(snap.lsn));
  await writeDurably(files, final, (fd) => fillCheckpoint(files, fd, snap, stop), { step: (at) => crashPoint(`checkpoint-${at}`) });
  return { file: final, lsn: snap.lsn };
}

/** The checkpoint's frames into a file, in batches of WRITE_SIZE. */
async function fillCheckpoint(files: FileLayer, fd: number, snap: Snapshot, stop: () => boolean): Promise<void> {
  let pos = 0;
  await encodeCheckpoint(snap, stop, async (buf) => {
    await writeAll(files, fd, buf, pos);
    pos += buf.length;
  });
}

/**
 * The checkpoint's bytes, handed to `sink` in pieces of about WRITE_SIZE (a file, or the parts of
 * a checkpoint kept in PostgreSQL), yielding to requests between slices.
 */
export async function encodeCheckpoint(snap: Snapshot, stop: () => boolean, sink: (buf: Buffer) => Promise<void>): Promise<void> {
  let frames = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const buf = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    await sink(buf);
  };
  const add = async (payload: Uint8Array) => {
    const f = frame(payload);
    pending.push(f);
    pendingBytes += f.length;
    frames++;
    if (pendingBytes >= WRITE_SIZE) await flush();
  };
  await add(
    encoder.encode({
      k: 'header', format: CHECKPOINT_FORMAT, version: CHECKPOINT_VERSION, lsn: snap.lsn, createdAt: snap.createdAt,
      firstEventId: snap.firstEventId, lastEventId: snap.lastEventId,
    }),
  );
  await add(encoder.encode({ k: 'state', fields: snap.fields, maps: snap.maps.map(([name]) => name) }));
  for (const [name, entries] of snap.maps) {
    for (let from = 0; from < entries.length; from += MAP_SLICE) {
      if (stop()) throw new CheckpointAbortedError('checkpoint abandoned: the server is stopping');
      await add(encoder.encode({ k: 'map', name, entries: entries.slice(from, from + MAP_SLICE) }));
      await yieldToRequests();
    }
  }
  await flush();
  crashPoint('checkpoint-mid-write');
  for (let from = snap.firstEventId; from <= snap.lastEventId; from += CHUNK) {
    // Shutting down: a half-written checkpoint is worth nothing, the WAL has everything.
    if (stop()) throw new CheckpointAbortedError('checkpoint abandoned: the server is stopping');
    const to = Math.min(snap.lastEventId, from + CHUNK - 1);
    await add(encoder.encode(eventsFrame(snap.events, from, to)));
    await yieldToRequests();
  }
  await add(encoder.encode({ k: 'end', frames, events: snap.lastEventId - snap.firstEventId + 1 }));
  await flush();
}

/** A fresh state with the checkpoint's plain fields, each checked to be of the kind the state expects. */
function stateFromFields(file: string, offset: number, fields: unknown, maps: unknown): { state: State; mapNames: Set<string> } {
  const state = emptyState();
  if (!fields || typeof fields !== 'object' || !Array.isArray(maps)) throw new CheckpointCorruptError(file, offset, 'the state is missing');
  const target = state as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields as Record<string, unknown>)) {
    const expected = target[key];
    if (expected === undefined) continue; // a field this version no longer has
    if (expected instanceof Map || typeof value !== typeof expected) throw new CheckpointCorruptError(file, offset, `state field "${key}" has the wrong kind`);
    target[key] = value;
  }
  const mapNames = new Set<string>();
  for (const name of maps) {
    if (typeof name !== 'string' || !(target[name] instanceof Map)) throw new CheckpointCorruptError(file, offset, `state field "${name}" is not a Map`);
    mapNames.add(name);
  }
  return { state, mapNames };
}

export interface LoadedCheckpoint {
  lsn: number;
  createdAt: string;
  state: State;
  events: number;
  bytes: number;
}

/**
 * Reads and checks a whole checkpoint. Any torn, damaged or missing part throws
 * CheckpointCorruptError; the caller then falls back to an older checkpoint.
 */
export function readCheckpoint(file: string): LoadedCheckpoint {
  return parseCheckpoint(fs.readFileSync(file), file);
}

/** A whole checkpoint's bytes read back; `file` names where they came from in errors. */
export function parseCheckpoint(buf: Buffer, file: string): LoadedCheckpoint {
  let offset = 0;
  const next = (what: string): { k: string; [key: string]: any } => {
    const r = readFrame(buf, offset);
    if (r.kind === 'end') throw new CheckpointCorruptError(file, offset, `the file ends where the ${what} should be`);
    if (r.kind !== 'ok') throw new CheckpointCorruptError(file, offset, r.reason);
    let v: any;
    try {
      v = decoder.decode(r.payload);
    } catch (err) {
      throw new CheckpointCorruptError(file, offset, `cannot decode: ${(err as Error).message}`);
    }
    if (!v || typeof v !== 'object' || typeof v.k !== 'string') throw new CheckpointCorruptError(file, offset, `expected the ${what}`);
    offset = r.next;
    return v;
  };
  const header = next('header');
  if (header.k !== 'header' || header.format !== CHECKPOINT_FORMAT || typeof header.lsn !== 'number') {
    throw new CheckpointCorruptError(file, 0, 'not a Fanion checkpoint');
  }
  // A newer Fanion's checkpoint is not damage: passing over it to an older one would replay a
  // log that may hold records this version cannot read either, so start-up stops here.
  if (Number.isInteger(header.version) && header.version > CHECKPOINT_VERSION) throw new NewerFormatError(file, header.version, CHECKPOINT_VERSION);
  if (!READABLE_VERSIONS.has(header.version)) {
    throw new CheckpointCorruptError(file, 0, `checkpoint format version ${header.version} is not supported (expected ${CHECKPOINT_VERSION})`);
  }
  const stateAt = offset;
  const stateFrame = next('state');
  if (stateFrame.k !== 'state') throw new CheckpointCorruptError(file, stateAt, 'expected the state');
  const { state, mapNames } = stateFromFields(file, stateAt, stateFrame.fields, stateFrame.maps);
  const target = state as unknown as Record<string, Map<unknown, unknown>>;
  // A relay keeps only its newest events: the first one held need not be event 1.
  if (!Number.isInteger(header.firstEventId) || header.firstEventId < 1) throw new CheckpointCorruptError(file, 0, `the header's first event id is ${header.firstEventId}`);
  state.events.startAt(header.firstEventId);
  let frames = 2;
  let events = 0;
  for (;;) {
    const at = offset;
    const f = next('end marker');
    if (f.k === 'end') {
      if (f.frames !== frames || f.events !== events) {
        throw new CheckpointCorruptError(file, at, `end marker counts ${f.frames} frames/${f.events} events, found ${frames}/${events}`);
      }
      break;
    }
    if (f.k === 'map') {
      if (events > 0 || !mapNames.has(f.name) || !Array.isArray(f.entries)) throw new CheckpointCorruptError(file, at, `unexpected map part "${f.name}"`);
      const into = target[f.name];
      for (const entry of f.entries as unknown[]) {
        if (!Array.isArray(entry) || entry.length !== 2) throw new CheckpointCorruptError(file, at, `a "${f.name}" entry is not a key and a value`);
        into.set(entry[0], entry[1]);
      }
      frames++;
      continue;
    }
    if (f.k !== 'events') throw new CheckpointCorruptError(file, at, `unexpected part "${f.k}"`);
    try {
      if (header.version === 1) {
        events += decodeEventChunk(f, (e) => state.events.append(e));
      } else {
        const columns = columnsOf(f);
        state.events.importColumns(columns);
        events += columns.n;
      }
    } catch (err) {
      throw new CheckpointCorruptError(file, at, (err as Error).message);
    }
    frames++;
  }
  if (offset !== buf.length) throw new CheckpointCorruptError(file, offset, 'data after the end marker');
  const expected = header.lastEventId - header.firstEventId + 1;
  if (events !== expected || (events > 0 && state.events.lastId !== header.lastEventId)) {
    throw new CheckpointCorruptError(file, 0, `holds ${events} events, the header announces ${expected}`);
  }
  return { lsn: header.lsn, createdAt: header.createdAt, state, events, bytes: buf.length };
}
