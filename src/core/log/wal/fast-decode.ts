// A msgpack decoder for the common case of WAL records, several times faster than the general
// one: replay decodes a million records at start-up, and nearly all of their strings are a few
// names repeated over and over (keys, op and event types, flag names, environments).
//   - Short ASCII strings come from a small cache of the strings last made from the same bytes,
//     so most strings cost a hash and a comparison, not an allocation; and since the same string
//     object comes back, hashing it again for a Map lookup or a property name is free.
//   - Anything else (non-ASCII text, binary, extension types, non-string map keys, damage)
//     makes it give up, and the caller decodes the record with @msgpack/msgpack instead.
// So a record it does decode is exactly what @msgpack/msgpack would give (maps as plain objects,
// 64-bit integers as numbers the same way), and any other record takes the general path.

/** Thrown (never outside this module) to give up; a preallocated object, so no stack trace. */
const GIVE_UP = { giveUp: true };

/** Node's Buffer has it (toString('latin1') without the argument handling); its types do not say so. */
type Latin1 = Buffer & { latin1Slice(start: number, end: number): string };

// `var`, not `let`: module-level `let` costs a TDZ check on every access in these hot loops.
// eslint-disable-next-line no-var
var bytes: Buffer = Buffer.alloc(0);
// eslint-disable-next-line no-var
var pos = 0;
// eslint-disable-next-line no-var
var end = 0;

const CACHE_SLOTS = 65536;
/** Strings up to this many bytes go through the cache. */
const CACHE_MAX = 32;
// Per slot: the string, and its bytes and length to compare with (comparing typed arrays is
// much faster than charCodeAt on a string V8 may have turned into a reference to its interned copy).
// About 2.6 MB with the strings it keeps, so it is made by the first decode and let go by
// releaseDecodeCache once replay is over (a relay or a small server would otherwise carry it for
// good; a cluster node following its log keeps it, decoding as it goes).
// eslint-disable-next-line no-var
var cache: (string | undefined)[] = [];
// eslint-disable-next-line no-var
var cacheBytes = new Uint8Array(0);
// eslint-disable-next-line no-var
var cacheLen = new Int8Array(0);

function makeCache(): void {
  cache = new Array(CACHE_SLOTS).fill(undefined);
  cacheBytes = new Uint8Array(CACHE_SLOTS * CACHE_MAX);
  cacheLen = new Int8Array(CACHE_SLOTS).fill(-1);
}

/** Lets the string cache go; the next decode makes a new one. */
export function releaseDecodeCache(): void {
  cache = [];
  cacheBytes = new Uint8Array(0);
  cacheLen = new Int8Array(0);
}

function need(n: number): void {
  if (pos + n > end) throw GIVE_UP;
}

function ascii(from: number, to: number): void {
  for (let i = from; i < to; i++) if (bytes[i] >= 0x80) throw GIVE_UP;
}

function str(len: number): string {
  const start = pos;
  if (start + len > end) throw GIVE_UP;
  pos = start + len;
  const b = bytes;
  if (len <= CACHE_MAX) {
    // A few bytes are enough to spread the strings over the slots; equality is checked in full.
    const h = Math.imul(len ^ (b[start] << 8) ^ (b[pos - 1] << 16) ^ (b[pos - 2] << 24) ^ b[start + (len >> 1)], 0x9e3779b1);
    const slot = h >>> 16;
    if (cacheLen[slot] === len) {
      const base = slot * CACHE_MAX;
      let i = 0;
      while (i < len && cacheBytes[base + i] === b[start + i]) i++;
      // Cached strings are ASCII, so equal bytes are ASCII too.
      if (i === len) return cache[slot]!;
    }
    ascii(start, pos);
    const s = (b as Latin1).latin1Slice(start, pos);
    cache[slot] = s;
    cacheLen[slot] = len;
    cacheBytes.set(b.subarray(start, pos), slot * CACHE_MAX);
    return s;
  }
  ascii(start, pos);
  return (b as Latin1).latin1Slice(start, pos);
}

function key(): string {
  const h = bytes[pos++];
  let s: string;
  if (h >= 0xa0 && h < 0xc0) s = str(h - 0xa0);
  else if (h === 0xd9 || h === 0xda || h === 0xdb) {
    pos--;
    s = value() as string;
  } else throw GIVE_UP;
  // @msgpack/msgpack refuses this key; let it say so. (A plain s === '__proto__' costs more than
  // decoding the key: these strings are not interned, so the comparison reads them.)
  if (s.length === 9 && s.charCodeAt(0) === 95 && s === '__proto__') throw GIVE_UP;
  return s;
}

function map(n: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const k = key();
    o[k] = value();
  }
  return o;
}

function array(n: number): unknown[] {
  // A length read from damaged bytes must not allocate gigabytes: each item takes a byte.
  if (pos + n > end) throw GIVE_UP;
  const a = new Array(n);
  for (let i = 0; i < n; i++) a[i] = value();
  return a;
}

function value(): unknown {
  const h = bytes[pos++];
  if (h < 0x80) return h;
  if (h < 0x90) return map(h - 0x80);
  if (h < 0xa0) return array(h - 0x90);
  if (h < 0xc0) return str(h - 0xa0);
  if (h >= 0xe0) return h - 0x100;
  let v: number;
  switch (h) {
    case 0xc0:
      return null;
    case 0xc2:
      return false;
    case 0xc3:
      return true;
    case 0xca:
      need(4);
      v = bytes.readFloatBE(pos);
      pos += 4;
      return v;
    case 0xcb:
      need(8);
      v = bytes.readDoubleBE(pos);
      pos += 8;
      return v;
    case 0xcc:
      need(1);
      return bytes[pos++];
    case 0xcd:
      need(2);
      v = bytes.readUInt16BE(pos);
      pos += 2;
      return v;
    case 0xce:
      need(4);
      v = bytes.readUInt32BE(pos);
      pos += 4;
      return v;
    case 0xcf:
      need(8);
      v = bytes.readUInt32BE(pos) * 4294967296 + bytes.readUInt32BE(pos + 4);
      pos += 8;
      return v;
    case 0xd0:
      need(1);
      return bytes.readInt8(pos++);
    case 0xd1:
      need(2);
      v = bytes.readInt16BE(pos);
      pos += 2;
      return v;
    case 0xd2:
      need(4);
      v = bytes.readInt32BE(pos);
      pos += 4;
      return v;
    case 0xd3:
      need(8);
      v = bytes.readInt32BE(pos) * 4294967296 + bytes.readUInt32BE(pos + 4);
      pos += 8;
      return v;
    case 0xd9:
      need(1);
      return str(bytes[pos++]);
    case 0xda:
      need(2);
      pos += 2;
      return str(bytes.readUInt16BE(pos - 2));
    case 0xdb:
      need(4);
      pos += 4;
      return str(bytes.readUInt32BE(pos - 4));
    case 0xdc:
      need(2);
      pos += 2;
      return array(bytes.readUInt16BE(pos - 2));
    case 0xdd:
      need(4);
      pos += 4;
      return array(bytes.readUInt32BE(pos - 4));
    case 0xde:
      need(2);
      pos += 2;
      return map(bytes.readUInt16BE(pos - 2));
    case 0xdf:
      need(4);
      pos += 4;
      return map(bytes.readUInt32BE(pos - 4));
    default:
      // bin, ext, the never-used 0xc1, or past the end (undefined)
      throw GIVE_UP;
  }
}

/**
 * The value msgpack-encoded in `buf`, or `undefined` when it is not one this decoder handles
 * (msgpack has no undefined, so the answer is unambiguous): decode it the general way then.
 */
export function decodeCommon(buf: Buffer, from = 0, to = buf.length): unknown {
  if (cacheLen.length === 0) makeCache();
  bytes = buf;
  pos = from;
  end = to;
  try {
    const v = value();
    return pos === end ? v : undefined;
  } catch (err) {
    if (err === GIVE_UP) return undefined;
    // A RangeError from a read past the end, say: the general decoder reports it properly.
    return undefined;
  } finally {
    bytes = EMPTY;
  }
}

const EMPTY = Buffer.alloc(0);
