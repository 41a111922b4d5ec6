// A per-block summary of the text of the event log: for every BLOCK consecutive records, a
// bitset of the (hashed, case-folded) three-character sequences their text contains. A
// free-text query can only match inside a block holding every trigram of the query, so a
// query for something rare skips most of the log without reading it. False positives only
// cost a scan; there are no false negatives, because text and query are folded the same way.

export const BLOCK = 64;
const WORDS = 1024; // 32,768 bits per block: 4 KiB per 64 events

/**
 * ASCII letters fold to lower case; every non-ASCII character folds to one value. That matches
 * what a case-insensitive (non-unicode) JavaScript regular expression can equate: it never
 * matches a non-ASCII character against an ASCII one.
 */
function fold(c: number): number {
  if (c >= 128) return 128;
  return c >= 65 && c <= 90 ? c + 32 : c;
}

function hash(a: number, b: number, c: number): number {
  return (Math.imul((a << 16) | (b << 8) | c, 0x9e3779b1) >>> 17) & (WORDS * 32 - 1);
}

/** The distinct trigram hashes of `text`, or null when it is too short to have any. */
export function trigramsOf(text: string): number[] | null {
  if (text.length < 3) return null;
  const out = new Set<number>();
  let a = fold(text.charCodeAt(0));
  let b = fold(text.charCodeAt(1));
  for (let i = 2; i < text.length; i++) {
    const c = fold(text.charCodeAt(i));
    out.add(hash(a, b, c));
    a = b;
    b = c;
  }
  return [...out];
}

export class TrigramFilter {
  private readonly blocks: Uint32Array[] = [];

  add(record: number, text: string): void {
    const b = Math.floor(record / BLOCK);
    let bits = this.blocks[b];
    if (!bits) this.blocks[b] = bits = new Uint32Array(WORDS);
    if (text.length < 3) return;
    let x = fold(text.charCodeAt(0));
    let y = fold(text.charCodeAt(1));
    for (let i = 2; i < text.length; i++) {
      const z = fold(text.charCodeAt(i));
      const h = hash(x, y, z);
      bits[h >>> 5] |= 1 << (h & 31);
      x = y;
      y = z;
    }
  }

  /**
   * Adds records `first`, `first + 1`, … whose texts lie back to back in `text`; `starts[i]`
   * is where record first + i begins, counted from `base` (starts[0] - base === 0). Each
   * block's records are hashed as one run: the extra trigrams spanning two records all hold
   * the '\n' ending a record, which no searched query contains, so they cost at most a rare
   * false positive, never a wrong answer.
   */
  addMany(first: number, text: string, starts: Uint32Array, base: number): void {
    const n = starts.length;
    for (let i = 0; i < n; ) {
      const b = Math.floor((first + i) / BLOCK);
      const j = Math.min(n, (b + 1) * BLOCK - first);
      let bits = this.blocks[b];
      if (!bits) this.blocks[b] = bits = new Uint32Array(WORDS);
      const from = starts[i] - base;
      const to = j < n ? starts[j] - base : text.length;
      if (to - from >= 3) {
        let x = fold(text.charCodeAt(from));
        let y = fold(text.charCodeAt(from + 1));
        for (let k = from + 2; k < to; k++) {
          const z = fold(text.charCodeAt(k));
          const h = hash(x, y, z);
          bits[h >>> 5] |= 1 << (h & 31);
          x = y;
          y = z;
        }
      }
      i = j;
    }
  }

  /** Forgets records from `record` on (bits cannot be unset, so their block is rebuilt). */
  truncate(record: number, textOf: (r: number) => string): void {
    const b = Math.floor(record / BLOCK);
    this.blocks.length = b;
    for (let r = b * BLOCK; r < record; r++) this.add(r, textOf(r));
  }

  /** Whether block `b` may hold text containing all of `trigrams`. */
  mayContain(b: number, trigrams: number[]): boolean {
    const bits = this.blocks[b];
    if (!bits) return false;
    for (const h of trigrams) if ((bits[h >>> 5] & (1 << (h & 31))) === 0) return false;
    return true;
  }
}
