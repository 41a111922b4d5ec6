// How a version-1 checkpoint stores events (still read; version 2 stores the event log's own
// columns, see EventLog.exportColumns): columns per chunk instead of one msgpack map per event.
// Loading a million events is the bulk of a start-up; decoding a million small maps (keys,
// short strings, garbage) cost more than everything else together, while columns decode as a
// few typed arrays, one string table and one JSON text per chunk.
//   {k:'events', first, n,
//    strings: string[]                      distinct type/createdBy/environment/project/featureName values
//    type, createdBy, environment, project, featureName: Uint32Array as bytes (0 = null, i + 1 = strings[i])
//    createdAt: Float64Array as bytes (epoch ms; NaN = see oddDates), oddDates: {row: text}
//    userId: Float64Array as bytes (NaN = null)
//    payload: JSON text of [[data, preData, tags], …]}
import { isoOf } from '../../state/events/iso-date.js';
import type { EventRecord } from '../../state/types.js';

export interface EventChunk {
  k: 'events';
  first: number;
  n: number;
  strings: string[];
  type: Uint8Array;
  createdBy: Uint8Array;
  environment: Uint8Array;
  project: Uint8Array;
  featureName: Uint8Array;
  createdAt: Uint8Array;
  oddDates: Record<string, string>;
  userId: Uint8Array;
  payload: string;
}

const STRING_COLUMNS = ['type', 'createdBy', 'environment', 'project', 'featureName'] as const;

export const bytesOf = (a: Uint32Array | Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Typed arrays need aligned memory; msgpack hands out views into its input at any offset. */
export function aligned<T extends Uint32Array | Float64Array>(bytes: unknown, n: number, Kind: { new (b: ArrayBuffer): T; BYTES_PER_ELEMENT: number }): T {
  if (!(bytes instanceof Uint8Array) || bytes.byteLength !== n * Kind.BYTES_PER_ELEMENT) {
    throw new Error('a column has the wrong length');
  }
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Kind(copy.buffer);
}

export { isoOf };

export function encodeEventChunk(events: EventRecord[]): EventChunk {
  const n = events.length;
  const strings: string[] = [];
  const index = new Map<string, number>();
  const ref = (s: string | null) => {
    if (s === null || s === undefined) return 0;
    let i = index.get(s);
    if (i === undefined) {
      i = strings.push(s);
      index.set(s, i);
    }
    return i;
  };
  const cols = Object.fromEntries(STRING_COLUMNS.map((c) => [c, new Uint32Array(n)])) as Record<(typeof STRING_COLUMNS)[number], Uint32Array>;
  const createdAt = new Float64Array(n);
  const userId = new Float64Array(n);
  const oddDates: Record<string, string> = {};
  const payload: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const e = events[i];
    if (e.id !== events[0].id + i) throw new Error(`events of a chunk must be consecutive (${e.id} after ${events[0].id})`);
    for (const c of STRING_COLUMNS) cols[c][i] = ref(e[c]);
    const ms = Date.parse(e.createdAt);
    if (Number.isFinite(ms) && isoOf(ms) === e.createdAt) createdAt[i] = ms;
    else {
      createdAt[i] = NaN;
      oddDates[i] = e.createdAt;
    }
    userId[i] = e.createdByUserId ?? NaN;
    payload[i] = [e.data ?? null, e.preData ?? null, e.tags ?? null];
  }
  return {
    k: 'events', first: n ? events[0].id : 0, n, strings,
    type: bytesOf(cols.type), createdBy: bytesOf(cols.createdBy), environment: bytesOf(cols.environment),
    project: bytesOf(cols.project), featureName: bytesOf(cols.featureName),
    createdAt: bytesOf(createdAt), oddDates, userId: bytesOf(userId), payload: JSON.stringify(payload),
  };
}

/** Calls `each` with every event of a decoded chunk, in id order. Throws on any inconsistency. */
export function decodeEventChunk(raw: Record<string, unknown>, each: (e: EventRecord) => void): number {
  const c = raw as unknown as EventChunk;
  const n = c.n;
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(c.first) || !Array.isArray(c.strings)) throw new Error('malformed event chunk');
  const strings = [null, ...c.strings] as (string | null)[];
  const col = (name: (typeof STRING_COLUMNS)[number]) => aligned(c[name], n, Uint32Array);
  const type = col('type');
  const createdBy = col('createdBy');
  const environment = col('environment');
  const project = col('project');
  const featureName = col('featureName');
  const createdAt = aligned(c.createdAt, n, Float64Array);
  const userId = aligned(c.userId, n, Float64Array);
  const payload = JSON.parse(c.payload) as [unknown, unknown, EventRecord['tags']][];
  if (!Array.isArray(payload) || payload.length !== n) throw new Error('event payloads do not match the count');
  const str = (i: number) => {
    const s = strings[i];
    if (s === undefined) throw new Error(`string ${i} is not in the chunk's table`);
    return s;
  };
  for (let i = 0; i < n; i++) {
    const ms = createdAt[i];
    const uid = userId[i];
    const [data, preData, tags] = payload[i];
    each({
      id: c.first + i,
      type: str(type[i])!,
      createdAt: Number.isNaN(ms) ? c.oddDates[i] : isoOf(ms),
      createdBy: str(createdBy[i])!,
      createdByUserId: Number.isNaN(uid) ? null : uid,
      environment: str(environment[i]),
      project: str(project[i]),
      featureName: str(featureName[i]),
      data,
      preData,
      tags,
    });
  }
  return n;
}
