// Append-only storage of one text record per event, packed into large flat strings ("slabs").
// A few hundred big strings cost far less than a million small ones, and a case-insensitive
// regular expression runs over a flat slab at memory speed (V8 compiles it to a Boyer-Moore
// scan), which is what makes free-text event search fast without a lower-cased copy.
import { U32List } from './columns.js';
import { BLOCK, TrigramFilter } from './trigram-filter.js';

/** Slabs are sealed (flattened into one string) once they pass this many characters. */
export const SLAB_CHARS = 4 * 1024 * 1024;

interface Slab {
  /** Index of the first record stored in this slab. */
  first: number;
  /** One string per record while the slab is open; null once sealed. */
  pieces: string[] | null;
  /** The flattened slab: always set once sealed, a cache while open. */
  flat: string | null;
  length: number;
}

export class TextArena {
  private readonly slabs: Slab[] = [];
  private readonly start = new U32List(1024);
  private readonly len = new U32List(1024);
  private readonly filter = new TrigramFilter();

  /** `slabChars` is only lowered by tests, to exercise many slabs with few events. */
  constructor(private readonly slabChars = SLAB_CHARS) {}

  get count(): number {
    return this.start.length;
  }

  append(text: string): void {
    let slab = this.slabs[this.slabs.length - 1];
    // A slab filled by appendMany is already sealed: appends go on in a new one.
    if (!slab || !slab.pieces || slab.length >= this.slabChars) {
      if (slab?.pieces) this.seal(slab);
      slab = { first: this.count, pieces: [], flat: null, length: 0 };
      this.slabs.push(slab);
    }
    this.filter.add(this.count, text);
    this.start.push(slab.length);
    this.len.push(text.length);
    slab.pieces!.push(text);
    slab.flat = null;
    slab.length += text.length;
  }

  /**
   * Appends many records at once: `text` is their concatenation and `lens` their lengths
   * (the caller checks they add up). Loading a checkpoint hands over whole chunks this way,
   * so a million records cost a few hundred string concatenations instead of a million pieces.
   */
  appendMany(text: string, lens: Uint32Array): void {
    if (lens.length === 0) return;
    let slab = this.slabs[this.slabs.length - 1];
    if (!slab || slab.length + text.length > this.slabChars) {
      if (slab?.pieces) this.seal(slab);
      slab = { first: this.count, pieces: null, flat: '', length: 0 };
      this.slabs.push(slab);
    } else if (slab.pieces) {
      this.seal(slab);
    }
    const firstRecord = this.count;
    let at = slab.length;
    for (let i = 0; i < lens.length; i++) {
      this.start.push(at);
      this.len.push(lens[i]);
      at += lens[i];
    }
    this.filter.addMany(firstRecord, text, this.start.view().subarray(firstRecord), slab.length);
    // Sealed slabs are flat strings; the concatenation is flattened on first use.
    slab.flat = slab.flat! + text;
    slab.length += text.length;
  }

  /** The concatenated text of records [from, to): what appendMany takes back. */
  textRange(from: number, to: number): string {
    if (from >= to) return '';
    const parts: string[] = [];
    for (let s = this.slabOf(from); s < this.slabs.length && this.slabs[s].first < to; s++) {
      const slab = this.slabs[s];
      const end = Math.min(to, s + 1 < this.slabs.length ? this.slabs[s + 1].first : this.count);
      const lo = Math.max(from, slab.first);
      if (slab.pieces) {
        for (let r = lo; r < end; r++) parts.push(slab.pieces[r - slab.first]);
      } else {
        parts.push(slab.flat!.slice(this.start.get(lo), this.start.get(end - 1) + this.len.get(end - 1)));
      }
    }
    return parts.join('');
  }

  /** Lengths of records [from, to). */
  lengths(from: number, to: number): Uint32Array {
    return this.len.view().slice(from, to);
  }

  /** Removes the newest record (rollback of a failed write). */
  removeLast(): void {
    const r = this.count - 1;
    if (r < 0) throw new Error('no record to remove');
    const slab = this.slabs[this.slabs.length - 1];
    this.unseal(slab);
    slab.pieces!.pop();
    slab.flat = null;
    slab.length -= this.len.get(r);
    this.start.pop();
    this.len.pop();
    if (slab.pieces!.length === 0) this.slabs.pop();
    this.filter.truncate(r, (k) => this.text(k));
  }

  text(r: number): string {
    const slab = this.slabs[this.slabOf(r)];
    if (slab.pieces) return slab.pieces[r - slab.first];
    const from = this.start.get(r);
    return slab.flat!.slice(from, from + this.len.get(r));
  }

  /**
   * Calls `hit(r)` once for every record in which `re` (global, non-empty matches) matches.
   * With `trigrams` (of the query), blocks of records that cannot contain it are skipped.
   * After a hit the scan jumps to the next record, so dense matches cost one step per record.
   */
  scan(re: RegExp, hit: (r: number) => void, trigrams: number[] | null = null): void {
    const count = this.count;
    if (!trigrams) {
      this.scanRecords(0, count, re, hit);
      return;
    }
    let runStart = -1;
    for (let b = 0, blocks = Math.ceil(count / BLOCK); b <= blocks; b++) {
      const pass = b < blocks && this.filter.mayContain(b, trigrams);
      if (pass && runStart < 0) runStart = b * BLOCK;
      if (!pass && runStart >= 0) {
        this.scanRecords(runStart, Math.min(b * BLOCK, count), re, hit);
        runStart = -1;
      }
    }
  }

  /** Scans the text of records [from, to), slab by slab. */
  private scanRecords(from: number, to: number, re: RegExp, hit: (r: number) => void): void {
    const starts = this.start.view();
    const lens = this.len.view();
    let r = from;
    for (let s = from < to ? this.slabOf(from) : this.slabs.length; r < to && s < this.slabs.length; s++) {
      const slab = this.slabs[s];
      const end = Math.min(to, s + 1 < this.slabs.length ? this.slabs[s + 1].first : this.count);
      const flat = this.flatten(slab);
      const lo = starts[r];
      const hi = starts[end - 1] + lens[end - 1];
      // A slice of a flat string is a view, not a copy; it bounds the regex to these records.
      const text = lo === 0 && hi === flat.length ? flat : flat.slice(lo, hi);
      re.lastIndex = 0;
      while (re.test(text)) {
        const p = lo + re.lastIndex - 1;
        while (starts[r] + lens[r] <= p) r++;
        hit(r);
        re.lastIndex = starts[r] + lens[r] - lo;
        if (++r >= end) break;
      }
      r = end;
    }
  }

  /** Whether the (non-global) `re` matches inside record `r`. */
  test(r: number, re: RegExp): boolean {
    return re.test(this.text(r));
  }

  private slabOf(r: number): number {
    let lo = 0;
    let hi = this.slabs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.slabs[mid].first <= r) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private flatten(slab: Slab): string {
    slab.flat ??= slab.pieces!.join('');
    return slab.flat;
  }

  private seal(slab: Slab): void {
    this.flatten(slab);
    slab.pieces = null;
  }

  /** Rebuilds the per-record pieces of a sealed slab, so its newest record can be removed. */
  private unseal(slab: Slab): void {
    if (slab.pieces) return;
    const flat = slab.flat!;
    const end = this.count;
    slab.pieces = [];
    for (let r = slab.first; r < end; r++) {
      const from = this.start.get(r);
      slab.pieces.push(flat.slice(from, from + this.len.get(r)));
    }
  }
}
