// CRC-32 of many byte ranges of one buffer at the cost of reading the buffer once. A CRC is
// linear over GF(2), so the checksum of bytes [s, e) follows from the checksums of the prefixes
// [0, s) and [0, e): crc(B) = crc(A·B) ⊕ crc(A)·x^(8·|B|) mod P (zlib's crc32_combine, solved for
// the second part). Looking for a valid frame after damage asks for the checksum of a range
// starting at many offsets, each as long as the length its header claims; hashing each range
// anew was quadratic (a 70 MB torn record took minutes to classify), this is linear.
import { crc32 } from 'node:zlib';

/** The CRC-32 polynomial, reflected (as zlib and node:zlib use it). */
const POLY = 0xedb88320;

/** a·b mod P, both polynomials in zlib's reflected representation (x^0 is the top bit). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) mod P for k = 0..31. */
const X2N: number[] = [];
{
  let p = 0x40000000; // x^1
  X2N.push(p);
  for (let k = 1; k < 32; k++) X2N.push((p = multModP(p, p)));
}

/** x^(8·n) mod P: what appending n bytes does to a CRC register. */
function x8nModP(n: number): number {
  let p = 0x80000000; // x^0
  for (let k = 3; n > 0; k++, n = Math.floor(n / 2)) if (n % 2 === 1) p = multModP(X2N[k & 31], p);
  return p;
}

/** The CRC-32 (as node:zlib's crc32 computes it) of `buf[starts[i], ends[i])` for every i. */
export function crcOfRanges(buf: Uint8Array, starts: ArrayLike<number>, ends: ArrayLike<number>): Uint32Array {
  const n = starts.length;
  const points = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    points[2 * i] = starts[i];
    points[2 * i + 1] = ends[i];
  }
  points.sort();
  // The checksum of every prefix that ends at a point, in one pass over the buffer.
  const prefix = new Map<number, number>();
  let at = 0;
  let crc = 0;
  for (let i = 0; i < points.length; i++) {
    const to = points[i];
    if (to !== at) crc = crc32(buf.subarray(at, to), crc);
    at = to;
    prefix.set(to, crc);
  }
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = (prefix.get(ends[i])! ^ multModP(x8nModP(ends[i] - starts[i]), prefix.get(starts[i])!)) >>> 0;
  }
  return out;
}
