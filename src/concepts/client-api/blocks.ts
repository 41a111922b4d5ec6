// A response body as a list of blocks of consecutive flag fragments, so one changed flag costs
// re-stitching its block (tens of kB) rather than copying the whole body (megabytes with
// 10,000 flags). Block boundaries are content-defined, by a hash of the flag name, so adding
// or removing a flag moves no boundary but its own block's: every other block is reused as is.
import { createHash } from 'node:crypto';
import type { Slicer } from '../../core/slices.js';

export interface Fragment {
  name: string;
  /** After its first block is built, a view into that block's buffer: the JSON is held once. */
  bytes: Buffer;
  project: string;
  /** A block ends after this fragment (decided by the name alone). */
  cut: boolean;
}

export interface Block {
  frags: Fragment[];
  /** JSON text: the envelope's start if first, else a separating comma; the fragments; the envelope's end if last. */
  bytes: Buffer;
  hash: Buffer;
  first: boolean;
  last: boolean;
}

const PREFIX = Buffer.from('{"version":1,"features":[');
const SUFFIX = Buffer.from(']}');
const COMMA = 0x2c;
/** On average a block holds this many flags... */
const SPREAD = 64;
/** ...and never more than this, whatever the names hash to. */
const MAX_BLOCK = 512;

/** FNV-1a of the name: cheap, stable across processes, spreads the cuts. */
export function cutAfter(name: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % SPREAD === 0;
}

export function sha1(bytes: Buffer): Buffer {
  return createHash('sha1').update(bytes).digest();
}

function sameFragments(a: Fragment[], b: Fragment[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function makeBlock(frags: Fragment[], first: boolean, last: boolean): Block {
  let size = (first ? PREFIX.length : 1) + (last ? SUFFIX.length : 0) + Math.max(0, frags.length - 1);
  for (const f of frags) size += f.bytes.length;
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  if (first) at += PREFIX.copy(bytes, 0);
  else bytes[at++] = COMMA;
  for (let i = 0; i < frags.length; i++) {
    if (i > 0) bytes[at++] = COMMA;
    const f = frags[i];
    const len = f.bytes.copy(bytes, at);
    f.bytes = bytes.subarray(at, at + len);
    at += len;
  }
  if (last) SUFFIX.copy(bytes, at);
  return { frags, bytes, hash: sha1(bytes), first, last };
}

/**
 * Blocks for `frags` (the response's flags, in order), reusing every block of `previous` whose
 * fragments are the very same objects. Fragments are replaced only when their bytes change.
 */
export function buildBlocks(frags: Fragment[], previous: Block[]): { blocks: Block[]; rebuilt: number } {
  const out = { blocks: [] as Block[], rebuilt: 0 };
  for (const step of blockSteps(frags, previous, out)) void step;
  return out;
}

/** buildBlocks a few blocks at a time, pausing between slices (a response of 50,000 new flags). */
export async function buildBlocksInSlices(frags: Fragment[], previous: Block[], slicer: Slicer): Promise<{ blocks: Block[]; rebuilt: number }> {
  const out = { blocks: [] as Block[], rebuilt: 0 };
  for (const step of blockSteps(frags, previous, out)) {
    void step;
    if (slicer.due()) await slicer.pause();
  }
  return out;
}

/** The work of buildBlocks, one block per step, into `out`. */
function* blockSteps(frags: Fragment[], previous: Block[], out: { blocks: Block[]; rebuilt: number }): Generator<void> {
  const groups: Fragment[][] = [];
  let cur: Fragment[] = [];
  for (const f of frags) {
    cur.push(f);
    if (f.cut || cur.length >= MAX_BLOCK) {
      groups.push(cur);
      cur = [];
    }
  }
  if (cur.length > 0 || groups.length === 0) groups.push(cur);
  const byFirst = new Map<Fragment | undefined, Block>();
  for (const b of previous) byFirst.set(b.frags[0], b);
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    const first = i === 0;
    const last = i === groups.length - 1;
    const old = byFirst.get(g[0]);
    if (old && old.first === first && old.last === last && sameFragments(old.frags, g)) {
      out.blocks.push(old);
    } else {
      out.rebuilt++;
      out.blocks.push(makeBlock(g, first, last));
    }
    yield;
  }
}

/** Strong ETag of the concatenated blocks: a hash of their hashes, so it follows the bytes exactly. */
export function etagOf(blocks: Block[]): string {
  const all = Buffer.allocUnsafe(blocks.length * 20);
  for (let i = 0; i < blocks.length; i++) blocks[i].hash.copy(all, i * 20);
  return `"${sha1(all).toString('base64url')}"`;
}
